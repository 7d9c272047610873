package compat_test

import "testing"

// TestJSNonFiniteNumbers runs compat_test/js/nonfinite.mjs: through
// @azure/cosmos, NaN and Infinity are numbers in queries (ToString by name,
// IS_NUMBER true, JavaScript comparisons), a non-finite value reaching a
// result is left out, and across partitions the query plans' rewritten
// queries (ORDER BY, TOP) keep them, so the SDK's pipeline gets the same
// answers. Before, the identifiers were undefined: the filters with them
// answered nothing and ToString(NaN) no value.
func TestJSNonFiniteNumbers(t *testing.T) {
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
	checkJSScript(t, "JS SDK queries", "nonfinite.mjs", "nf", want)
}
