package compat_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSSplitPipelined runs compat_test/js/split_pipelined.mjs behind a
// recording proxy on an emulator whose containers have three ranges:
// ORDER BY, COUNT, DISTINCT, GROUP BY and OFFSET LIMIT queries of @azure/cosmos
// 4.10.1 (its pipelined path, one request per range) read one page, every
// range is split, and each query ends with the result it has on a
// container that is never split; so do the same queries started after
// the split by the same client, whose cached ranges still name the split
// ones. Their requests keep naming the split ranges, which the emulator
// answers over the ranges' former intervals, never 410. (Before, each
// answer was the service's 410/1002 and the queries never ended: 300
// fetchNext calls sent 300 requests answered 410 for a query started
// before the split, 900 for one started after it.)
//
// The "SDK" lines show why no 410 can do: one 410/1002 thrown by a
// request plugin (no split, no server involved) leaves a pipelined ORDER
// BY without a result and without an end, and it stops sending requests
// (documentProducer.js buffers the error at the head of the range's
// buffer, which nothing consumes); a plain query names no range, so the
// plugin the SDK's own split tests use never fires on it.
func TestJSSplitPipelined(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(3))
	rec, endpoint := startWireRecorder(t, e.Endpoint)
	out, stderr := runJS(t, node, dir, "split_pipelined.mjs", 170*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=pipelined")
	if s := strings.TrimSpace(stderr); s != "" {
		t.Logf("stderr: %s", s)
	}
	lines := func(prefix string) string {
		return prefix + ` orderby 30 once ordered=true
` + prefix + ` count [30]
` + prefix + ` distinct ["g0","g1","g2","g3","g4"]
` + prefix + ` groupby ["g0:6","g1:6","g2:6","g3:6","g4:6"]
` + prefix + ` offset 20 once ordered=true
`
	}
	want := "SPLIT 0+1+2->3+4+5+6+7+8\n" + lines("STARTED-BEFORE") + lines("STARTED-AFTER") + lines("UNSPLIT") +
		`SDK injected injected=1 ranged-requests=true stuck after 0
SDK injected-plain injected=0 ranged-requests=false 30 once
`
	if got := string(out); got != want {
		t.Fatalf("pipelined queries across a split:\n%s\nwant:\n%s", got, want)
	}
	marks := byMark(rec.all())
	for m, xs := range marks {
		for _, x := range xs {
			if x.status == http.StatusGone {
				t.Errorf("%s: %s", m, x)
			}
		}
	}
	// the queries named the split ranges after the split and were answered
	for _, m := range []string{"drain-orderby", "drain-offset", "after-orderby", "after-count", "after-distinct", "after-groupby", "after-offset"} {
		named := 0
		for _, x := range marks[m] {
			if x.kind == "query" && (x.rangeID == "0" || x.rangeID == "1" || x.rangeID == "2") && x.status == http.StatusOK {
				named++
			}
		}
		if named == 0 {
			t.Errorf("%s: no query named a split range: %v", m, marks[m])
		}
	}
	// after the injected 410 the SDK spins without sending: fewer
	// requests than the 300 fetchNext calls
	if n := len(marks["injected"]); n >= 300 {
		t.Errorf("injected: %d requests", n)
	}
}
