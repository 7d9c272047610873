package compat_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestJSSplitPipelined runs compat_test/js/split_pipelined.mjs behind a
// recording proxy on an emulator whose containers have three ranges.
func TestJSSplitPipelined(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(3))
	rec, endpoint := startWireRecorder(t, e.Endpoint)
	out, stderr := runJS(t, node, dir, "split_pipelined.mjs", 170*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=pipelined")
	t.Logf("stderr: %s", strings.TrimSpace(stderr))
	marks := byMark(rec.all())
	for m, xs := range marks {
		gone := 0
		for _, x := range xs {
			if x.status == http.StatusGone {
				gone++
			}
		}
		t.Logf("%s: %d requests, %d answered 410", m, len(xs), gone)
	}
	t.Logf("\n%s", out)
}
