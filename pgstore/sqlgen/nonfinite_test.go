package sqlgen_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// TestNonFiniteNumbers: NaN and Infinity are numbers inside expressions,
// with JavaScript's arithmetic, comparisons and Math functions; where a
// non-finite value reaches a result (a projection, an object member, an
// array element, a sort key) it is left out (undefined), so results stay
// valid JSON. fnDoc's c.n is 5. Before, the identifiers were the literal
// undefined: every case below that expects a value got none.
func TestNonFiniteNumbers(t *testing.T) {
	t.Parallel()
	pool := fnDB(t)
	runCases(t, pool, []fnCase{
		// printed by name (Microsoft's samples: ToString(NaN) = "NaN")
		{`SELECT VALUE ToString(NaN)`, `"NaN"`},
		{`SELECT VALUE ToString(Infinity)`, `"Infinity"`},
		{`SELECT VALUE ToString(-Infinity)`, `"-Infinity"`},
		{`SELECT VALUE ToString(+Infinity)`, `"Infinity"`},
		{`SELECT VALUE ToString(- -Infinity)`, `"Infinity"`},
		{`SELECT VALUE ToString(Infinity - 1)`, `"Infinity"`},
		{`SELECT VALUE ToString(NaN + 1)`, `"NaN"`},
		{`SELECT VALUE ToString(Infinity - Infinity)`, `"NaN"`},
		{`SELECT VALUE ToString(Infinity * -2)`, `"-Infinity"`},
		{`SELECT VALUE ToString(Infinity * 0)`, `"NaN"`},
		{`SELECT VALUE ToString(c.n % Infinity) FROM c`, `"5"`},
		{`SELECT VALUE ToString(c.n % NaN) FROM c`, `"NaN"`},
		{`SELECT VALUE ToString(Infinity % 2)`, `"NaN"`},
		{`SELECT VALUE 1 / Infinity`, `0`},
		{`SELECT VALUE c.n / -Infinity FROM c`, `0`},
		// the argument of StringToNumber is not a string (the samples)
		{`SELECT VALUE StringToNumber(NaN)`, ``},
		{`SELECT VALUE StringToNumber(Infinity)`, ``},
		// type checks
		{`SELECT VALUE IS_NUMBER(NaN)`, `true`},
		{`SELECT VALUE IS_NUMBER(-Infinity)`, `true`},
		{`SELECT VALUE IS_DEFINED(NaN)`, `true`},
		{`SELECT VALUE IS_PRIMITIVE(Infinity)`, `true`},
		{`SELECT VALUE IS_STRING(NaN)`, `false`},
		{`SELECT VALUE IS_NULL(Infinity)`, `false`},
		{`SELECT VALUE IS_INTEGER(Infinity)`, `false`},
		{`SELECT VALUE IS_FINITE_NUMBER(NaN)`, `false`},
		{`SELECT VALUE IS_FINITE_NUMBER(Infinity)`, `false`},
		{`SELECT VALUE IS_FINITE_NUMBER(-Infinity)`, `false`},
		{`SELECT VALUE IS_FINITE_NUMBER(1 / Infinity)`, `true`},
		{`SELECT VALUE IS_NUMBER(c.missing + 1) FROM c`, `false`},
		// comparisons: as JavaScript compares doubles
		{`SELECT VALUE Infinity > 5`, `true`},
		{`SELECT VALUE -Infinity < c.n FROM c`, `true`},
		{`SELECT VALUE Infinity >= Infinity`, `true`},
		{`SELECT VALUE Infinity = Infinity`, `true`},
		{`SELECT VALUE Infinity = -Infinity`, `false`},
		{`SELECT VALUE NaN = NaN`, `false`},
		{`SELECT VALUE NaN != NaN`, `true`},
		{`SELECT VALUE NaN < 1`, `false`},
		{`SELECT VALUE NaN >= 1`, `false`},
		{`SELECT VALUE NOT (NaN < 1)`, `true`},
		{`SELECT VALUE c.n = NaN FROM c`, `false`},
		{`SELECT VALUE c.s = Infinity FROM c`, `false`},
		{`SELECT VALUE c.s != Infinity FROM c`, `true`},
		{`SELECT VALUE c.n + 1 = 6 FROM c`, `true`},
		{`SELECT VALUE c.n * 2 > 9 FROM c`, `true`},
		// across types and with undefined, as for any number
		{`SELECT VALUE c.s < Infinity FROM c`, ``},
		{`SELECT VALUE NaN < "a"`, ``},
		{`SELECT VALUE c.missing = NaN FROM c`, ``},
		{`SELECT VALUE c.missing > -Infinity FROM c`, ``},
		{`SELECT VALUE c.n BETWEEN -Infinity AND Infinity FROM c`, `true`},
		{`SELECT VALUE NaN BETWEEN -Infinity AND Infinity`, `false`},
		{`SELECT VALUE Infinity BETWEEN 0 AND 1`, `false`},
		{`SELECT VALUE c.s BETWEEN -Infinity AND Infinity FROM c`, ``},
		// Math functions as JavaScript's Math
		{`SELECT VALUE ToString(ABS(-Infinity))`, `"Infinity"`},
		{`SELECT VALUE ToString(FLOOR(Infinity))`, `"Infinity"`},
		{`SELECT VALUE ToString(CEILING(-Infinity))`, `"-Infinity"`},
		{`SELECT VALUE ToString(ROUND(NaN))`, `"NaN"`},
		{`SELECT VALUE ToString(TRUNC(-Infinity))`, `"-Infinity"`},
		{`SELECT VALUE ToString(SIGN(NaN))`, `"NaN"`},
		{`SELECT VALUE SIGN(-Infinity)`, `-1`},
		{`SELECT VALUE ToString(SQRT(Infinity))`, `"Infinity"`},
		{`SELECT VALUE ToString(SQRT(-Infinity))`, `"NaN"`},
		{`SELECT VALUE ToString(POWER(Infinity, 2))`, `"Infinity"`},
		{`SELECT VALUE POWER(NaN, 0)`, `1`},
		{`SELECT VALUE POWER(2, -Infinity)`, `0`},
		{`SELECT VALUE ToString(SIN(Infinity))`, `"NaN"`},
		{`SELECT VALUE ToString(COS(-Infinity))`, `"NaN"`},
		{`SELECT VALUE ToString(TAN(Infinity))`, `"NaN"`},
		{`SELECT VALUE ToString(COT(Infinity))`, `"NaN"`},
		{`SELECT VALUE ATAN(Infinity) = PI() / 2`, `true`},
		{`SELECT VALUE EXP(-Infinity)`, `0`},
		{`SELECT VALUE ToString(LOG(Infinity))`, `"Infinity"`},
		{`SELECT VALUE ToString(NUMBERBIN(Infinity))`, `"Infinity"`},
		// bitwise operators: ToInt32(NaN) and ToInt32(Infinity) are 0
		{`SELECT VALUE NaN | 0`, `0`},
		{`SELECT VALUE ~Infinity`, `-1`},
		{`SELECT VALUE c.n & -Infinity FROM c`, `0`},
		// a non-finite value reaching a result is left out
		{`SELECT VALUE NaN`, ``},
		{`SELECT VALUE Infinity`, ``},
		{`SELECT VALUE -Infinity`, ``},
		{`SELECT VALUE Infinity - 1`, ``},
		{`SELECT VALUE {a: Infinity, b: 1}`, `{"b": 1}`},
		{`SELECT VALUE {a: NaN}`, `{}`},
		{`SELECT VALUE (SELECT Infinity AS a, 1 AS b)`, `{"b": 1}`},
		{`SELECT VALUE [1, NaN]`, `[1, null]`},
		{`SELECT VALUE NaN ?? 1`, `1`},
		// an aggregate's argument is a result too: undefined, so skipped
		// (SUM of nothing is 0)
		{`SELECT VALUE {m: MAX(Infinity), s: SUM(-Infinity), c: COUNT(NaN), n: COUNT(1)} FROM c`, `{"s": 0, "c": 0, "n": 1}`},
		// a sort key too: an item whose key is undefined is left out
		{`SELECT VALUE c.id FROM c ORDER BY NaN`, ``},
		{`SELECT VALUE c.id FROM c ORDER BY c.n / Infinity`, `"1"`},
		// a FROM alias or a property named NaN stays what it is
		{`SELECT VALUE c.NaN FROM c`, ``},
		{`SELECT VALUE NaN FROM c JOIN NaN IN c.arr WHERE NaN = 2`, `2`},
		{`SELECT VALUE Infinity.n FROM Infinity`, `5`},
	})
}

// TestNonFiniteLiteralsAreBound: NaN and Infinity travel as double bind
// arguments (no value of the query is SQL text), and an IN list or OR
// chain holding them keeps them out of its constant array (which holds
// JSON texts, and JSON has no NaN).
func TestNonFiniteLiteralsAreBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		args  []float64 // the non-finite bind arguments expected
	}{
		{`SELECT VALUE ToString(NaN)`, []float64{math.NaN()}},
		{`SELECT VALUE -Infinity < 1`, []float64{math.Inf(1)}},
		{`SELECT * FROM c WHERE c.a = NaN OR c.a = 1 OR c.a = 2 OR c.a = 3 OR c.a = 4 OR c.a = 5 OR c.a = 6 OR c.a = 7 OR c.a = Infinity`,
			[]float64{math.NaN(), math.Inf(1)}},
	}
	for _, tt := range tests {
		q, err := cosmosql.Parse(tt.query)
		if err != nil {
			t.Fatalf("parse %s: %v", tt.query, err)
		}
		st, err := sqlgen.Translate(q, sqlgen.Input{Table: "fn_items", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
			SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 100})
		if err != nil {
			t.Fatalf("translate %s: %v", tt.query, err)
		}
		for _, word := range []string{"NaN", "Infinity"} {
			if strings.Contains(st.SQL, word) {
				t.Errorf("%s: the statement holds %q as text:\n%s", tt.query, word, st.SQL)
			}
		}
		var got []float64
		for _, a := range st.Args {
			if f, ok := a.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				got = append(got, f)
			}
		}
		if len(got) != len(tt.args) {
			t.Errorf("%s: non-finite arguments %v, want %v", tt.query, got, tt.args)
			continue
		}
		for i := range got {
			if !(got[i] == tt.args[i] || math.IsNaN(got[i]) && math.IsNaN(tt.args[i])) {
				t.Errorf("%s: non-finite arguments %v, want %v", tt.query, got, tt.args)
			}
		}
	}
}
