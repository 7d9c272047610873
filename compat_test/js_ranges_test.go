package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestJSPartitionKeyRanges runs compat_test/js/ranges.mjs against an
// emulator started with WithMinPartitionRanges(4): @azure/cosmos's
// getFeedRanges gives one entry per range (four for a new container, four
// at 21,000 RU/s, one for a legacy non-partitioned container, five for a
// new client after splitting range 0 of the four; the children list "0"
// as their parent), and the old client's point read survives the split.
func TestJSPartitionKeyRanges(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(4))
	start := time.Now()
	out, stderr := runJS(t, node, dir, "ranges.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=ranges")
	t.Logf("script ran in %v", time.Since(start))
	want := `MIN4 4 [,10000000000000000000000000000000) [10000000000000000000000000000000,20000000000000000000000000000000) [20000000000000000000000000000000,30000000000000000000000000000000) [30000000000000000000000000000000,FF)
RU21000 4
LEGACY 1
SPLIT 200 4<-0 5<-0
AFTER 5
READ 200 a
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK ranges:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}
