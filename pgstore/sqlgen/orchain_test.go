package sqlgen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// orChain joins n equalities of expr to "v0", "v1", ... and the extra
// terms with OR.
func orChain(expr string, n int, extra ...string) string {
	terms := make([]string, 0, n+len(extra))
	for i := 0; i < n; i++ {
		terms = append(terms, fmt.Sprintf(`%s = "v%d"`, expr, i))
	}
	return strings.Join(append(terms, extra...), " OR ")
}

// TestOrChainOfEqualitiesIsOneAny: a long OR of equalities of one
// expression to constants reads the expression once (one = ANY over a
// bound array, like IN), not once per term: 1,000 terms over c.id cost
// seconds over a thousand documents as separate comparisons.
func TestOrChainOfEqualitiesIsOneAny(t *testing.T) {
	tests := []struct {
		name  string
		where string
		// reads is how often the statement reads the property 'id'
		reads   int
		anys    int
		anyText string
	}{
		{"1000 equalities", orChain("c.id", 1000), 1, 1, "= ANY($"},
		{"constant on the left", strings.ReplaceAll(orChain("c.id", 20), `c.id = "v1"`, `"v1" = c.id`), 1, 1, "= ANY($"},
		{"two expressions", orChain("c.id", 10) + " OR " + orChain("c.pk", 10), 1, 2, "= ANY($"},
		{"mixed with other terms", orChain("c.id", 10, "c.n > 3", "c.id = c.pk"), 2, 1, "cosmos.l_any(ARRAY["},
		{"parameters", orChain("c.id", 10, "c.id = @p"), 1, 1, "= ANY($"},
		{"short chains stay as they are", orChain("c.id", 3), 3, 0, "cosmos.l_or("},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := cosmosql.Parse("SELECT * FROM c WHERE " + tt.where)
			if err != nil {
				t.Fatal(err)
			}
			st, err := sqlgen.Translate(q, sqlgen.Input{Table: "cosmos.items_1", Live: "TRUE", PageSize: 10})
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(st.SQL, "'id'::text"); n != tt.reads {
				t.Errorf("the statement reads c.id %d times, want %d:\n%.600s", n, tt.reads, st.SQL)
			}
			if n := strings.Count(st.SQL, "= ANY("); n != tt.anys {
				t.Errorf("%d = ANY, want %d:\n%.600s", n, tt.anys, st.SQL)
			}
			if !strings.Contains(st.SQL, tt.anyText) {
				t.Errorf("SQL lacks %q:\n%.600s", tt.anyText, st.SQL)
			}
			if len(st.SQL) > 2000 {
				t.Errorf("statement of %d bytes for %d bytes of WHERE", len(st.SQL), len(tt.where))
			}
		})
	}
}

// TestOrChainOfEqualitiesKeepsItsSemantics: the = ANY form of a long OR
// chain gives what the chain of cosmos.eq gives: true when one constant
// matches, false when none does and all are defined, undefined when none
// matches and a constant (or the expression) is undefined.
func TestOrChainOfEqualitiesKeepsItsSemantics(t *testing.T) {
	pool := fnDB(t)
	runCases(t, pool, []fnCase{
		{`SELECT VALUE (` + orChain("c.s", 12, `c.s = "abc"`) + `) FROM c`, `true`},
		{`SELECT VALUE (` + orChain("c.s", 12) + `) FROM c`, `false`},
		{`SELECT VALUE (` + orChain("c.s", 12, `c.s = undefined`) + `) FROM c`, ``},
		{`SELECT VALUE (` + orChain("c.s", 12, `c.s = undefined`, `c.s = "abc"`) + `) FROM c`, `true`},
		{`SELECT VALUE (` + orChain("c.missing", 12) + `) FROM c`, ``},
		{`SELECT VALUE (` + orChain("c.n", 12, `c.n = 5`) + `) FROM c`, `true`},
		{`SELECT VALUE (` + orChain("c.n", 12, `c.n = "5"`) + `) FROM c`, `false`},
		{`SELECT VALUE (` + orChain("c.n", 12, `c.n > 4`) + `) FROM c`, `true`},
		{`SELECT VALUE (` + orChain("c.n", 12, `c.n > "4"`) + `) FROM c`, ``},
		{`SELECT VALUE COUNT(1) FROM c WHERE ` + orChain("c.id", 999, `c.id = "1"`), `1`},
	})
}
