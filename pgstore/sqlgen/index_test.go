package sqlgen

import (
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

func TestQuoteLiteral(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", `'a'::text`},
		{"it's", `'it''s'::text`},
		{`a\b`, `'a\b'::text`},
		{"x\x00y", "'x\uFFFDy'::text"},
		{"'); DROP TABLE t; --", `'''); DROP TABLE t; --'::text`},
	}
	for _, tt := range tests {
		if got := QuoteLiteral(tt.in); got != tt.want {
			t.Errorf("QuoteLiteral(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestSargableConjuncts: WHERE terms on a document path against a constant
// gain index-servable conjuncts (implied by the exact predicate), string
// ranges only under a code-point collation.
func TestSargableConjuncts(t *testing.T) {
	tests := []struct {
		query string
		c     bool
		want  []string
		paths int
	}{
		{`SELECT * FROM c WHERE c.a = 1`, false, []string{"cosmos.type_rank((r.doc -> 'a'::text)) = $"}, 1},
		{`SELECT * FROM c WHERE 5 < c.a.b AND c.x = "s"`, false, []string{"((r.doc -> 'a'::text) -> 'b'::text) > $", "(r.doc -> 'x'::text) = $"}, 2},
		{`SELECT * FROM c WHERE c.s > "m"`, false, nil, 0},
		{`SELECT * FROM c WHERE c.s > "m"`, true, []string{"(r.doc -> 's'::text) > $"}, 1},
		{`SELECT * FROM c WHERE c.n BETWEEN 1 AND 5`, false, []string{">= $", "<= $"}, 2},
		{`SELECT * FROM c WHERE c.a = 1 OR c.b = 2`, false, nil, 0},
		{`SELECT * FROM c WHERE c._ts > 5`, false, nil, 0},
		{`SELECT * FROM c ORDER BY c.a`, false, nil, 1},
	}
	for _, tt := range tests {
		q, err := cosmosql.Parse(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Translate(q, Input{Table: "t", Live: "TRUE", PageSize: 10, CodePointCollation: tt.c})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(st.SQL, w) {
				t.Errorf("%s: SQL lacks %q:\n%s", tt.query, w, st.SQL)
			}
		}
		if tt.want == nil && strings.Contains(st.SQL, "::integer AND") {
			t.Errorf("%s: unexpected sargable conjunct:\n%s", tt.query, st.SQL)
		}
		if len(st.IndexPaths) != tt.paths {
			t.Errorf("%s: index paths %v, want %d", tt.query, st.IndexPaths, tt.paths)
		}
	}
}

// TestExactWhereLeavesOutThePredicate: a WHERE made only of terms whose
// index conjuncts are exact (path op constant of a servable type, BETWEEN,
// the partition key the query is confined to, the id the id column fixes)
// is those conjuncts alone, without the Cosmos predicate that reads the
// whole document; any other term keeps the predicate. A single-partition
// query with a short key carries the partition-first indexes' predicate.
func TestExactWhereLeavesOutThePredicate(t *testing.T) {
	p1 := `["p1"]`
	long := `["` + strings.Repeat("x", KeyedPKMax) + `"]`
	tests := []struct {
		name, query string
		pk          *string
		collation   bool
		exact       bool
		pkTerm      bool // the doc's pk path is tested
		idTerm      bool // the doc's id path is tested
	}{
		{"number range in one partition", `SELECT * FROM c WHERE c.pk = "p1" AND c.n >= 90`, &p1, false, true, false, false},
		{"another partition's key stays", `SELECT * FROM c WHERE c.pk = "p2" AND c.n >= 90`, &p1, false, true, true, false},
		{"across partitions the key stays", `SELECT * FROM c WHERE c.pk = "p1" AND c.n >= 90`, nil, false, true, true, false},
		{"the key as a number is another value", `SELECT * FROM c WHERE c.pk = 1`, &p1, false, true, true, false},
		{"equality of each type", `SELECT * FROM c WHERE c.a = "s" AND c.b = true AND c.z = null AND c.n = 1.5`, &p1, false, true, false, false},
		{"reversed", `SELECT * FROM c WHERE 90 <= c.n`, nil, false, true, false, false},
		{"between", `SELECT * FROM c WHERE c.n BETWEEN 1 AND 5`, &p1, false, true, false, false},
		{"duplicate term", `SELECT * FROM c WHERE c.n > 1 AND c.n > 1`, &p1, false, true, false, false},
		{"string range, code point order", `SELECT * FROM c WHERE c.s > "m"`, &p1, true, true, false, false},
		{"string range, other collation", `SELECT * FROM c WHERE c.s > "m"`, &p1, false, false, false, false},
		{"not between", `SELECT * FROM c WHERE c.n NOT BETWEEN 1 AND 5`, &p1, false, false, false, false},
		{"or", `SELECT * FROM c WHERE c.n = 1 OR c.n = 2`, &p1, false, false, false, false},
		{"not equal", `SELECT * FROM c WHERE c.n != 1`, &p1, false, false, false, false},
		{"function", `SELECT * FROM c WHERE IS_NUMBER(c.n) AND c.n > 1`, &p1, false, false, false, false},
		{"array constant", `SELECT * FROM c WHERE c.a = [1]`, &p1, false, false, false, false},
		{"undefined parameter", `SELECT * FROM c WHERE c.n > @nope`, &p1, false, false, false, false},
		{"system property", `SELECT * FROM c WHERE c._ts > 5`, &p1, false, false, false, false},
		{"id in one partition", `SELECT * FROM c WHERE c.id = "a" AND c.n > 1`, &p1, false, true, false, false},
		{"a second id stays", `SELECT * FROM c WHERE c.id = "a" AND c.id = "b"`, &p1, false, true, false, true},
		{"id across partitions stays", `SELECT * FROM c WHERE c.id = "a" AND c.n > 1`, nil, false, true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := cosmosql.Parse(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			in := Input{Table: "t", Live: "TRUE", PageSize: 10, PK: tt.pk, CodePointCollation: tt.collation}
			if tt.pk != nil {
				in.PKPath, in.PKJSON = []string{"pk"}, []byte(`"p1"`)
			}
			st, err := Translate(q, in)
			if err != nil {
				t.Fatal(err)
			}
			if exact := !strings.Contains(st.SQL, "= 'true'::jsonb"); exact != tt.exact {
				t.Errorf("predicate left out %v, want %v:\n%s", exact, tt.exact, st.SQL)
			}
			if got := strings.Contains(st.SQL, "(r.doc -> 'pk'::text) ="); got != tt.pkTerm {
				t.Errorf("pk path term %v, want %v:\n%s", got, tt.pkTerm, st.SQL)
			}
			if got := strings.Contains(st.SQL, "(r.doc -> 'id'::text) ="); got != tt.idTerm {
				t.Errorf("id path term %v, want %v:\n%s", got, tt.idTerm, st.SQL)
			}
			if got := strings.Contains(st.SQL, KeyedIndexPredicate("r.pk")); got != (tt.pk != nil) {
				t.Errorf("partition-first predicate %v:\n%s", got, st.SQL)
			}
		})
	}
	q, _ := cosmosql.Parse(`SELECT * FROM c WHERE c.n > 1`)
	st, err := Translate(q, Input{Table: "t", Live: "TRUE", PageSize: 10, PK: &long})
	if err != nil || strings.Contains(st.SQL, KeyedIndexPredicate("r.pk")) {
		t.Errorf("a key longer than KeyedPKMax carries the partition-first predicate: %v\n%s", err, st.SQL)
	}
}
