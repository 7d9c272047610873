package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestJSNonFiniteNumbers runs compat_test/js/nonfinite.mjs: through
// @azure/cosmos, NaN and Infinity are numbers in queries (ToString by name,
// IS_NUMBER true, JavaScript comparisons), a non-finite value reaching a
// result is left out, and across partitions the query plans' rewritten
// queries (ORDER BY, TOP) keep them, so the SDK's pipeline gets the same
// answers. Before, the identifiers were undefined: the filters with them
// answered nothing and ToString(NaN) no value.
func TestJSNonFiniteNumbers(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	start := time.Now()
	out, stderr := runJS(t, node, dir, "nonfinite.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=nf")
	t.Logf("nonfinite.mjs: %v", time.Since(start).Round(time.Millisecond))
	want := `tostring [["NaN","Infinity","-Infinity","Infinity","NaN"]]
types [[true,false,true,false,false]]
stringtonumber []
value []
object [{"o":{"b":5}}]
where ["a","b","c","e"]
orderby ["c","b","e","a"]
orderby-infinite-key [{"id":"c"},{"id":"a"},{"id":"e"}]
top ["a","e"]
count [3]
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK queries:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}
