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
