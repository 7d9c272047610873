package compat_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSHybridSearch runs compat_test/js/hybrid_search.mjs on containers
// with one range (400 RU/s) and five (25,100 RU/s). With one range the
// emulator serves ORDER BY RANK whole; with five it refuses the query with
// the gateway's hybrid search plan and @azure/cosmos runs it (statistics,
// component queries, its own fusion); forceQueryPlan runs the plan on one
// range too, in both formats. Every way gives the same answer.
//
// The expected orders follow from the data (hybrid_search.mjs): 8
// documents, 20 text tokens (avgdl 2.5), BM25 with k1 1.2 and b 0.75.
//   - 'fox' (df 3): d2 (tf 3, dl 4) 1.31, d3 (tf 1, dl 2) 1.03, d6 (tf 2,
//     dl 5) 1.01.
//   - 'fox', 'dog' (df 3, 2): d6 2.67, d3 2.42, d2 1.31.
//   - RRF (k 60, dense ranks) of title 'John' (d3 1; d1, d8 2; d4, d5 3)
//     and text 'United States' (any of its words: d1 tf 2 1; d4 dl 2 2; d5
//     dl 3 3; d3 0 4; d8 no text 5) over the WHERE's d1 d3 d4 d5 d8:
//     d1 1/62+1/61, d3 1/61+1/64, d4 1/63+1/62, d5 2/63, d8 1/62+1/65.
//   - cosine to [1, 0] ranks d1 d8 d3 d6 d4 d5 d7 d2; 'fox' ranks d2 d3
//     d6, then d1 d4 d5 d7 (0), then d8 (no text): RRF d1 .032018, d3
//     .032002, d8 .031514, d6 .031498, d2 .031099, d4 .031010, d5 .030777,
//     d7 .030550; weights [1, 3] give d3 d2 d1 d6 d8 d4 d5 d7; [-1, 1]
//     reverses the vector ranks: d2 d7 d5 d3 d6 d4 d1 d8.
//   - FullTextContains(c.text, 'United States') holds for d4 ("united
//     kingdom") and d5 ("states mind body") too, as on the service.
//   - the candidates' window: see hybrid_search.mjs; with TOP 2 the SDKs
//     fuse each component's first 120 results, which leaves out 4 of 125
//     documents and puts P before Q (ranking all 125 puts Q first).
func TestJSHybridSearch(t *testing.T) {
	t.Parallel()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	vector := "d1 d3 d8 d6 d2 d4 d5 d7"
	want := map[string]string{
		"FTS_ONE":      "d2 d3 d6",
		"FTS_TERMS":    "d6 d3 d2",
		"RRF_TEXT":     "d1 d3 d4 d5 d8",
		"RRF_VECTOR":   vector,
		"RRF_WEIGHTED": "d3 d2 d1 d6 d8 d4 d5 d7",
		"RRF_NEGATIVE": "d2 d7 d5 d3 d6 d4 d1 d8",
		"RRF_TOP":      "d1 d3 d8",
		"RRF_OFFSET":   "d8 d6 d2",
	}
	for n, tp := range []struct{ ru, ranges string }{{"400", "1"}, {"25100", "5"}} {
		out, _ := runJS(t, node, dir, "hybrid_search.mjs", 300*time.Second, "COSMOS_ENDPOINT="+e.Endpoint,
			fmt.Sprintf("COSMOS_DB=hs%d", n), "THROUGHPUT="+tp.ru)
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.SplitN(l, " ", 3)
			if len(f) == 2 {
				got[f[0]] = f[1]
			} else if len(f) == 3 {
				got[f[0]+" "+f[1]] = f[2]
			}
		}
		if got["RANGES"] != tp.ranges {
			t.Errorf("%s RU/s: %s ranges, want %s", tp.ru, got["RANGES"], tp.ranges)
		}
		for name, w := range want {
			for _, mode := range []string{"ALL", "PLAN", "PLAN_NONOPT"} {
				if g := got[name+" "+mode]; g != w {
					t.Errorf("%s ranges: %s %s = %q, want %q", tp.ranges, name, mode, g, w)
				}
			}
		}
		if g := got["RRF_VECTOR PAGES"]; g != vector {
			t.Errorf("%s ranges: RRF_VECTOR page by page = %q, want %q", tp.ranges, g, vector)
		}
		// the candidates' window (hybrid_search.mjs): over one range every
		// way fuses the first 120 of each component; over five the
		// optimized format (ALL, PLAN: @azure/cosmos's default) returns each
		// range's first 120, all 125 documents here, and the SDK ranks them
		// all, as it does against Azure
		for mode, w := range map[string]string{"ALL": "P Q", "PLAN": "P Q", "PLAN_NONOPT": "P Q"} {
			if tp.ranges == "5" && mode != "PLAN_NONOPT" {
				w = "Q P"
			}
			if g := got["WINDOW "+mode]; g != w {
				t.Errorf("%s ranges: WINDOW %s = %q, want %q", tp.ranges, mode, g, w)
			}
		}
		if g := got["UNITED ALL"]; g != "d1 d4 d5" {
			t.Errorf("%s ranges: FullTextContains(c.text, 'United States') = %q, want \"d1 d4 d5\"", tp.ranges, g)
		}
	}
}
