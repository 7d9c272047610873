package compat_test

import "testing"

// TestJSLegacyPolicyQueries runs compat_test/js/policies.mjs: the
// container the JS SDK's cross-partition, aggregate and spatial specs
// create (the legacy root "/" with Range and Spatial indexes, mode
// "Consistent") is accepted and reads back with the mode lower-case, as
// the service returns it; cross-partition ORDER BY (with TOP),
// aggregates, GROUP BY, ST_DISTANCE and ST_WITHIN answer through the
// SDK's query pipeline; and the errors the SDK's specs compare carry the
// service's texts: the vector index path quoted with '/' escaped, the
// vector indexes fixed on replace even when the body lacks other members,
// and 413 "Request size is too large" in its envelope.
func TestJSLegacyPolicyQueries(t *testing.T) {
	want := `POLICY {"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Range","dataType":"String","precision":-1},{"kind":"Spatial","dataType":"Point"}]}],"excludedPaths":[{"path":"/\"_etag\"/?"}]}
ORDERBY_ASC ["d0","d1","d2","d3","d4","d5"]
ORDERBY_DESC [{"id":"d5","n":5},{"id":"d4","n":4},{"id":"d3","n":3},{"id":"d2","n":2},{"id":"d1","n":1},{"id":"d0","n":0}]
ORDERBY_TOP ["d5","d4"]
COUNT [6]
SUM [15]
AVG [2.5]
MIN [0]
MAX ["d5"]
GROUPBY [{"g":"even","cnt":3,"total":6,"lo":0,"hi":4},{"g":"odd","cnt":3,"total":9,"lo":1,"hi":5}]
ST_DISTANCE ["d0","d1","d2"]
ST_WITHIN ["d3","d4","d5"]
ERROR vector-index-without-embedding 400 The Vector Indexing Policy's path::\/vector1 not matching in Embedding's path.
ERROR vector-index-replace 400 The Vector Indexing Policy cannot be changed in Collection Replace.
ERROR request-too-large 413 Message: {"Errors":["Request size is too large"]}
`
	checkJSScript(t, "JS SDK legacy policy run", "policies.mjs", "policies", want)
}

// TestJSUniqueKeys runs compat_test/js/uniquekeys.mjs: through
// @azure/cosmos, a duplicate of a unique key's value in one logical
// partition is refused with 409 (substatus 0, the service's duplicate
// text) and not written; another partition takes the same value.
func TestJSUniqueKeys(t *testing.T) {
	want := `CREATE 201
DUPLICATE 409 0 true
READ 404
OTHER 201
`
	checkJSScript(t, "JS SDK unique keys run", "uniquekeys.mjs", "uniquekeys", want)
}
