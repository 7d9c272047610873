package sqlgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

func translate(t *testing.T, query string, params map[string]json.RawMessage) (*Statement, error) {
	t.Helper()
	q, err := cosmosql.Parse(query)
	if err != nil {
		t.Fatalf("parse %q: %v", query, err)
	}
	return Translate(q, Input{Table: "cosmos.items_1", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, SelfPrefix: "dbs/x/colls/y/docs/",
		Live: "TRUE", Params: params, PageSize: 10})
}

// translateWith translates query with a cursor (nil: the first page).
func translateWith(t *testing.T, query string, cur *Cursor) (*Statement, error) {
	t.Helper()
	q, err := cosmosql.Parse(query)
	if err != nil {
		t.Fatalf("parse %q: %v", query, err)
	}
	return Translate(q, Input{Table: "cosmos.items_1", Live: "TRUE", PageSize: 10, Cursor: cur})
}

func argStrings(args []any) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "%v\x00", a)
	}
	return b.String()
}

// TestClientValuesNeverReachSQLText: literals, parameters and property
// names from the query travel as bind arguments only, however hostile.
func TestClientValuesNeverReachSQLText(t *testing.T) {
	hostile := []string{`x'); DROP TABLE cosmos.databases; --`, `a"b`, `$$; DROP TABLE t; $$`, `'||pg_sleep(10)||'`, `\`, `é😀`}
	for _, h := range hostile {
		lit, _ := json.Marshal(h)
		queries := []struct {
			q      string
			params map[string]json.RawMessage
		}{
			{`SELECT * FROM c WHERE c.name = ` + string(lit), nil},
			{`SELECT * FROM c WHERE c[` + string(lit) + `] = 1`, nil},
			{`SELECT VALUE {` + string(lit) + `: c.a} FROM c`, nil},
			{`SELECT * FROM c WHERE c.name = @p`, map[string]json.RawMessage{"@p": lit}},
			{`SELECT * FROM c WHERE c.name LIKE @p`, map[string]json.RawMessage{"@p": lit}},
			{`SELECT VALUE c[@p] FROM c ORDER BY c[@p]`, map[string]json.RawMessage{"@p": lit}},
			{`SELECT c.a AS x FROM c WHERE CONTAINS(c.s, ` + string(lit) + `)`, nil},
		}
		for _, tc := range queries {
			st, err := translate(t, tc.q, tc.params)
			if err != nil {
				t.Fatalf("%s: %v", tc.q, err)
			}
			// property names are identifiers: they may appear, but only
			// as a correctly quoted literal
			sql := strings.ReplaceAll(st.SQL, QuoteLiteral(h), "")
			if strings.Contains(sql, h) || (len(h) > 3 && strings.Contains(sql, strings.Trim(string(lit), `"`))) {
				t.Fatalf("%s: the client's text reached SQL:\n%s", tc.q, st.SQL)
			}
			if strings.Contains(tc.q, "LIKE") {
				continue // the pattern travels as a derived regular expression
			}
			if !strings.Contains(argStrings(st.Args), h) && !strings.Contains(argStrings(st.Args), string(lit)) && !strings.Contains(st.SQL, QuoteLiteral(h)) {
				t.Fatalf("%s: value %q is not among the bind arguments %q", tc.q, h, st.Args)
			}
		}
	}
}

// TestTranslate checks the statement shape of representative queries.
func TestTranslate(t *testing.T) {
	tests := []struct {
		query    string
		mode     Mode
		contains []string
		names    []string
		peek     bool
	}{
		{`SELECT * FROM c`, ModeDocument, []string{"FROM cosmos.items_1 AS r", "ORDER BY r.seq ASC", "LIMIT $"}, nil, true},
		{`SELECT VALUE c FROM c`, ModeDocument, []string{"r.body"}, nil, true},
		{`SELECT VALUE c.a FROM c`, ModeValue, []string{"(r.doc -> '", "IS NOT NULL"}, nil, true},
		{`SELECT c.a, c.b.c, 1 FROM c`, ModeObject, []string{"(r.doc -> '"}, []string{"a", "c", "$1"}, true},
		{`SELECT * FROM c WHERE c.a = 1 AND NOT c.b`, ModeDocument, []string{"cosmos.l_and(cosmos.eq(", "cosmos.l_not(", "= 'true'::jsonb"}, nil, true},
		{`SELECT * FROM c ORDER BY c.a DESC`, ModeDocument, []string{"cosmos.type_rank((r.doc -> '", ") DESC", "r.seq ASC"}, nil, true},
		{`SELECT VALUE t FROM c JOIN t IN c.tags`, ModeValue, []string{"CROSS JOIN LATERAL (SELECT j1.o AS o0", "jsonb_array_elements", "WITH ORDINALITY AS j1(v, o)", "ORDER BY j1.o LIMIT", "ORDER BY r.seq) AS r CROSS JOIN LATERAL", ") AS x0 ORDER BY r.seq LIMIT"}, nil, true},
		{`SELECT VALUE c._ts FROM c`, ModeValue, []string{"to_jsonb(r.ts)"}, nil, true},
		{`SELECT VALUE COUNT(1) FROM c`, ModeValue, []string{"to_jsonb(count("}, nil, false},
		{`SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g`, ModeObject, []string{"GROUP BY s.k0", "OFFSET"}, []string{"g", "n"}, true},
		{`SELECT DISTINCT VALUE c.g FROM c`, ModeValue, []string{"GROUP BY s.v"}, nil, true},
		{`SELECT VALUE 1 + 2`, ModeValue, []string{"cosmos.f8(cosmos.add8(cosmos.num("}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			st, err := translate(t, tt.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode != tt.mode {
				t.Errorf("mode %v, want %v", st.Mode, tt.mode)
			}
			for _, c := range tt.contains {
				if !strings.Contains(st.SQL, c) {
					t.Errorf("SQL lacks %q:\n%s", c, st.SQL)
				}
			}
			if tt.names != nil && strings.Join(st.Names, ",") != strings.Join(tt.names, ",") {
				t.Errorf("names %v, want %v", st.Names, tt.names)
			}
			if st.Peek != tt.peek {
				t.Errorf("peek %v, want %v", st.Peek, tt.peek)
			}
			if n := strings.Count(st.SQL, "$"); n < len(st.Args) {
				t.Errorf("%d placeholders for %d arguments", n, len(st.Args))
			}
		})
	}
}

// TestUnsupportedIsAnErrorNeverAFallback: what cannot be translated is a
// named UnsupportedError.
func TestUnsupportedIsAnErrorNeverAFallback(t *testing.T) {
	for _, q := range []string{
		`SELECT VALUE ARRAY(SELECT VALUE COUNT(1) FROM t IN c.tags GROUP BY t) FROM c`,
		`SELECT VALUE udf.f(c.a) FROM c`,
		`SELECT TOP 5 c.x FROM c JOIN t IN c.tags ORDER BY RANK FullTextScore(c.t, "a")`,
		`SELECT VALUE NOSUCHFUNCTION(c.a) FROM c`,
		`SELECT * FROM (SELECT VALUE c.a FROM c JOIN (SELECT VALUE COUNT(1) FROM t IN c.tags GROUP BY t) n) x`,
		`SELECT VALUE MAKELIST(c.a, c.b) FROM c`,
	} {
		_, err := translate(t, q, nil)
		var ue *UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("%s: err %v, want an UnsupportedError", q, err)
		}
	}
}

func TestLikeToRegex(t *testing.T) {
	tests := []struct{ pattern, esc, want string }{
		{"abc", "", "^abc$"},
		{"a%", "", "^a.*$"},
		{"_b", "", "^.b$"},
		{"[a-f]%", "", "^[a-f].*$"},
		{"[^x]", "", "^[^x]$"},
		{"100!%", "!", `^100%$`},
		{"a.b*", "", `^a\.b\*$`},
		{"[%]", "", "^[%]$"},
		{"a%%_%%%", "", "^a.*..*$"},
	}
	for _, tt := range tests {
		if got := likeToRegex(tt.pattern, tt.esc); got != tt.want {
			t.Errorf("likeToRegex(%q, %q) = %q, want %q", tt.pattern, tt.esc, got, tt.want)
		}
	}
}
