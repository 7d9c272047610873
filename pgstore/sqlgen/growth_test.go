package sqlgen

import (
	"sort"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

// maxSQLPerQueryByte bounds len(SQL)/len(query) for the deep chains of
// TestSQLGrowsLinearly: a construct that repeats an operand in the SQL it
// generates doubles the statement at every level of nesting, which no
// constant bound survives at depth growthDepth.
const (
	maxSQLPerQueryByte = 100
	growthDepth        = 24
)

// growthShapes are the constructs of the language with X where the nested
// operand goes.
var growthShapes = []string{
	"X + 1", "1 - X", "X * 2", "X / 2", "X % 3", "3 % X", "X || 'a'",
	"X = 1", "X != 1", "X <> 1", "X < 1", "X <= 1", "X > 1", "X >= 1",
	"X AND true", "false OR X", "X ?? 1", "X & 1", "1 | X", "X ^ 1",
	"X << 1", "X >> 1", "X >>> 1", "-X", "+X", "NOT X", "~X", "(X)",
	"X IN (1, 2, 3)", "1 IN (X, 2)", "X NOT IN (1, 2)", "X BETWEEN 1 AND 2", "1 BETWEEN X AND 2",
	"1 BETWEEN 0 AND X", "X NOT BETWEEN 1 AND 2", "X LIKE 'a%'", "(X ? 1 : 2)", "(true ? X : 2)",
	"(false ? 1 : X)", "X.a", "X['a']", "X[0]", "X[c.i]", "c[X]", "[X, 1]", "{'a': X, 'b': 1}",
	"(SELECT VALUE X)", "EXISTS(SELECT VALUE X)", "ARRAY(SELECT VALUE X)",
	"X LIKE c.p", "c.p LIKE X", "c.p LIKE X ESCAPE '!'", "c.p LIKE c.q ESCAPE X", "c.p NOT LIKE CONCAT(X, '%')",
	"(SELECT * FROM t IN X)", "EXISTS(SELECT * FROM t IN X WHERE t > 1)", "ARRAY(SELECT * FROM X)",
	"(SELECT VALUE COUNT(1) FROM (SELECT VALUE t FROM t IN X) x)", "ARRAY(SELECT VALUE [t, u] FROM t IN c.a JOIN (SELECT VALUE X) u)",
	// NaN and Infinity take the double forms of the operators
	"X - Infinity", "NaN * X", "-X + NaN", "X = NaN", "Infinity != X", "X < -Infinity", "NaN >= X",
	"X BETWEEN -Infinity AND Infinity", "NaN BETWEEN X AND 1", "Infinity BETWEEN 0 AND X", "X | NaN",
	"ABS(X - Infinity)", "IS_FINITE_NUMBER(X / Infinity)", "ToString(X * Infinity)",
}

// functionShapes nests X in every argument position of every built-in
// function, the other arguments being plain paths.
func functionShapes() []string {
	names := map[string][2]int{}
	for n, f := range functions {
		names[n] = [2]int{f.min, f.max}
	}
	for n, f := range astFunctions {
		names[n] = [2]int{f.min, f.max}
	}
	var out []string
	for n, ar := range names {
		arity := ar[0]
		if arity == 0 {
			continue
		}
		for i := 0; i < arity; i++ {
			args := make([]string, arity)
			for j := range args {
				args[j] = "c.p"
			}
			args[i] = "X"
			out = append(out, n+"("+strings.Join(args, ", ")+")")
		}
		if ar[1] > arity || ar[1] < 0 {
			// the optional arguments too
			args := make([]string, arity+1)
			for j := range args {
				args[j] = "c.p"
			}
			args[arity] = "X"
			out = append(out, n+"("+strings.Join(args, ", ")+")")
		}
	}
	sort.Strings(out)
	return out
}

// nest builds a query text: the shape applied depth times around c.a,
// placed in the clause the template names with Q.
func nest(tmpl, shape string, depth int) string {
	e := "c.a"
	for i := 0; i < depth; i++ {
		e = strings.Replace(shape, "X", e, 1)
	}
	return strings.Replace(tmpl, "Q", e, 1)
}

// TestSQLGrowsLinearly: the generated SQL grows linearly with the query
// text for every operator, function and construct, in every clause (an
// operand repeated in the SQL made 20 chained '%' exponential).
func TestSQLGrowsLinearly(t *testing.T) {
	templates := []string{
		"SELECT VALUE Q FROM c",
		"SELECT * FROM c WHERE Q",
		"SELECT c.id FROM c ORDER BY Q",
		"SELECT VALUE SUM(Q) FROM c",
		"SELECT VALUE {'k': Q} FROM c",
		"SELECT Q AS k FROM c GROUP BY Q",
		"SELECT VALUE Q",
		"SELECT VALUE c.id FROM c WHERE Q ORDER BY RANK FullTextScore(c.t, 'a')",
		"SELECT Q AS k FROM c ORDER BY RANK RRF(FullTextScore(c.t, 'a', 'b'), VectorDistance(c.v, [1, 2]))",
		"SELECT VALUE c.id FROM c ORDER BY RANK VectorDistance(Q, [1, 2])",
	}
	shapes := append(append([]string(nil), growthShapes...), functionShapes()...)
	translated := 0
	worst, worstAt := 0.0, ""
	for _, tmpl := range templates {
		for _, shape := range shapes {
			// depth by depth, so that an exponential statement fails the
			// bound long before it exhausts the test's memory
			for depth := 1; depth <= growthDepth; depth++ {
				query := nest(tmpl, shape, depth)
				q, err := cosmosql.Parse(query)
				if err != nil {
					break // e.g. a subquery where the grammar does not take one
				}
				st, err := Translate(q, Input{Table: "cosmos.items_1", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
					SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 10})
				if err != nil {
					break // shapes a clause does not accept (aggregates of constants, ...)
				}
				if depth == growthDepth {
					translated++
				}
				r := float64(len(st.SQL)) / float64(len(query))
				if r > worst {
					worst, worstAt = r, query
				}
				if r > maxSQLPerQueryByte {
					t.Errorf("%s with %s at depth %d: %d bytes of SQL for %d of query (ratio %.0f > %d)", tmpl, shape, depth, len(st.SQL), len(query), r, maxSQLPerQueryByte)
					break
				}
			}
		}
	}
	t.Logf("largest ratio %.1f, for %s", worst, worstAt)
	if translated < len(shapes)*len(templates)/2 {
		t.Fatalf("only %d of %d deep queries translated: the test lost its reach", translated, len(shapes)*len(templates))
	}
}
