package compat_test

import (
	"fmt"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSFullText runs compat_test/js/fulltext.mjs against emulators whose
// containers have 1 and 4 partition key ranges: through @azure/cosmos,
// ORDER BY RANK FullTextScore puts the document with the most
// occurrences of the term first, and RRF of a vector and a full-text
// component (unweighted, weighted, with parameters, with OFFSET LIMIT)
// returns the fused order computed by hand in the script, the same for
// 1 and 4 ranges (one range serves the query whole, with the container's
// statistics; with four, a query that selects an object is refused with
// the hybrid search plan, which the SDK runs, and a SELECT VALUE one is
// served whole), with a partition key, page by page, and on an empty
// container (an empty list, no SDK failure). forceQueryPlan on a SELECT
// VALUE query gets a pass-through plan with one range; with four that plan
// is refused, since following it would concatenate per-range rankings
// (the SDKs' hybrid pipelines cannot carry a non-object payload).
func TestJSFullText(t *testing.T) {
	const common = `FOX ["three","two","one"]
FOX_PK ["three"]
FOX_PAGES [[{"id":"three"},{"id":"two"}],[{"id":"one"},{"id":"none"}]]
RRF [{"id":"one"},{"id":"three"},{"id":"two"},{"id":"none"}]
RRF_OFFSET [{"id":"three"},{"id":"two"}]
RRF_WEIGHTED ["three","two","one","none"]
RRF_PARAMS ["one","three"]
EMPTY []
EMPTY_RRF []
`
	for _, tt := range []struct {
		ranges int
		plan   string
	}{
		{1, `FORCE_PLAN ["three","two","one"]`},
		{4, `FORCE_PLAN ERROR 400 A query plan for this ORDER BY RANK query is not supported b`},
	} {
		t.Run(fmt.Sprintf("ranges=%d", tt.ranges), func(t *testing.T) {
			want := common + tt.plan + "\nREFUSED ERROR 400 SC2240\n"
			checkJSScript(t, "JS SDK full-text run", "fulltext.mjs", "fulltext", want, emulatortest.WithMinPartitionRanges(tt.ranges))
		})
	}
}
