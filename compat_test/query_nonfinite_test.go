package compat_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// nonFiniteDocs are the items of TestQueryNonFiniteNumbers, all in the
// partition "p": 1 / c.n is 0.2, Infinity, -0.5, undefined (a string) and 1.
var nonFiniteDocs = []string{
	`{"id":"a","pk":"p","n":5}`,
	`{"id":"b","pk":"p","n":0}`,
	`{"id":"c","pk":"p","n":-2}`,
	`{"id":"d","pk":"p","n":"x"}`,
	`{"id":"e","pk":"p","n":1}`,
}

// TestQueryNonFiniteNumbers: through azcosmos, NaN and Infinity are
// numbers inside a query's expressions, as in JavaScript (Microsoft's
// samples: ToString(NaN) is "NaN", ToString(Infinity) "Infinity",
// StringToNumber(NaN) undefined), and a non-finite value that reaches a
// result is left out, so every response stays valid JSON. Before, the
// identifiers were undefined: ToString(NaN), IS_NUMBER(NaN), Infinity > 5
// and the filters with them answered nothing.
func TestQueryNonFiniteNumbers(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	db := mustDB(t, e.Client(t), "nf")
	c := mustContainer(t, db, "c")
	pk := azcosmos.NewPartitionKeyString("p")
	for _, d := range nonFiniteDocs {
		if _, err := c.CreateItem(bg, pk, []byte(d), nil); err != nil {
			t.Fatalf("seed %s: %v", d, err)
		}
	}

	tests := []struct {
		name, query, want string
		unordered         bool // the order of the results is not specified
	}{
		{"ToString(NaN)", `SELECT VALUE ToString(NaN) FROM c WHERE c.id = "a"`, `["NaN"]`, false},
		{"ToString(Infinity)", `SELECT VALUE ToString(Infinity) FROM c WHERE c.id = "a"`, `["Infinity"]`, false},
		{"ToString(-Infinity)", `SELECT VALUE ToString(-Infinity) FROM c WHERE c.id = "a"`, `["-Infinity"]`, false},
		{"ToString(Infinity - 1)", `SELECT VALUE ToString(Infinity - 1) FROM c WHERE c.id = "a"`, `["Infinity"]`, false},
		{"ToString(NaN + 1)", `SELECT VALUE ToString(NaN + 1) FROM c WHERE c.id = "a"`, `["NaN"]`, false},
		{"IS_NUMBER(NaN)", `SELECT VALUE IS_NUMBER(NaN) FROM c WHERE c.id = "a"`, `[true]`, false},
		{"IS_FINITE_NUMBER(Infinity)", `SELECT VALUE IS_FINITE_NUMBER(Infinity) FROM c WHERE c.id = "a"`, `[false]`, false},
		{"StringToNumber(NaN) is undefined", `SELECT VALUE StringToNumber(NaN) FROM c WHERE c.id = "a"`, `[]`, false},
		{"Infinity > 5", `SELECT VALUE Infinity > 5 FROM c WHERE c.id = "a"`, `[true]`, false},
		{"NaN = NaN", `SELECT VALUE NaN = NaN FROM c WHERE c.id = "a"`, `[false]`, false},
		{"the samples' object", `SELECT VALUE {s: ToString(NaN), i: ToString(Infinity), p: StringToNumber(NaN), q: StringToNumber(Infinity)} FROM c WHERE c.id = "a"`,
			`[{"s":"NaN","i":"Infinity"}]`, false},
		{"Math functions", `SELECT VALUE [ToString(ABS(-Infinity)), ToString(FLOOR(Infinity)), ToString(ROUND(NaN)), ToString(POWER(Infinity, 2)), ToString(SQRT(-Infinity)), ToString(SIN(Infinity)), 1 / Infinity] FROM c WHERE c.id = "a"`,
			`[["Infinity","Infinity","NaN","Infinity","NaN","NaN",0]]`, false},

		// a non-finite value reaching a result is left out
		{"SELECT VALUE NaN has no value", `SELECT VALUE NaN FROM c WHERE c.id = "a"`, `[]`, false},
		{"SELECT VALUE of a computed infinity", `SELECT VALUE c.n / 0 FROM c WHERE c.id = "a"`, `[]`, false},
		{"an object member is left out", `SELECT VALUE {a: Infinity, id: c.id} FROM c WHERE c.id = "a"`, `[{"id":"a"}]`, false},
		{"SELECT {a: Infinity}", `SELECT {a: Infinity} FROM c WHERE c.id = "a"`, `[{"$1":{}}]`, false},
		{"a projection is left out", `SELECT Infinity AS x, -Infinity AS y, c.id FROM c WHERE c.id = "a"`, `[{"id":"a"}]`, false},
		{"ORDER BY an expression that is infinite for one item", `SELECT VALUE c.id FROM c ORDER BY 1 / c.n`, `["c","a","e"]`, false},
		{"ORDER BY DESC", `SELECT VALUE c.id FROM c ORDER BY 1 / c.n DESC`, `["e","a","c"]`, false},
		{"ORDER BY NaN", `SELECT VALUE c.id FROM c ORDER BY c.n * NaN`, `[]`, false},
		{"GROUP BY a key that is infinite for one group", `SELECT 1 / c.n AS k, COUNT(1) AS cnt FROM c WHERE c.id IN ("a", "b", "e") GROUP BY 1 / c.n`,
			`[{"k":0.2,"cnt":1},{"cnt":1},{"k":1,"cnt":1}]`, true},
		{"an aggregate skips it", `SELECT VALUE {s: SUM(1 / c.n), n: COUNT(1 / c.n)} FROM c WHERE c.id IN ("a", "b")`, `[{"s":0.2,"n":1}]`, false},

		// WHERE over stored items
		{"WHERE between the infinities", `SELECT VALUE c.id FROM c WHERE c.n > -Infinity AND c.n < Infinity ORDER BY c.id`, `["a","b","c","e"]`, false},
		{"WHERE c.n BETWEEN -Infinity AND 1", `SELECT VALUE c.id FROM c WHERE c.n BETWEEN -Infinity AND 1 ORDER BY c.id`, `["b","c","e"]`, false},
		{"WHERE != NaN holds for every defined n", `SELECT VALUE c.id FROM c WHERE c.n != NaN ORDER BY c.id`, `["a","b","c","d","e"]`, false},
		{"WHERE = NaN holds for none", `SELECT VALUE c.id FROM c WHERE c.n = NaN OR c.n / 0 = NaN`, `[]`, false},
		{"WHERE with a computed infinity", `SELECT VALUE c.id FROM c WHERE 1 / c.n = Infinity`, `["b"]`, false},
		{"WHERE IS_FINITE_NUMBER", `SELECT VALUE c.id FROM c WHERE IS_FINITE_NUMBER(1 / c.n) ORDER BY c.id`, `["a","c","e"]`, false},
		{"WHERE ToString of a computed infinity", `SELECT VALUE c.id FROM c WHERE ToString(c.n / 0) = "-Infinity"`, `["c"]`, false},
		{"a property named NaN stays a property", `SELECT VALUE c.NaN FROM c WHERE c.id = "a"`, `[]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := queryAll(t, c, tt.query, pk, nil)
			t.Logf("%s: %v", tt.query, time.Since(start).Round(time.Millisecond))
			var want []any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if tt.unordered {
				sortJSON(got)
				sortJSON(want)
			}
			if !closeJSON(got, want) {
				b, _ := json.Marshal(got)
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}
