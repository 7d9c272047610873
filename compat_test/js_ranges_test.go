package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
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

// TestJSChangeFeedAcrossRanges runs compat_test/js/changefeed_ranges.mjs
// on containers with 1, 4 and 7 ranges (WithMinPartitionRanges) and one
// created at 21,000 RU/s: @azure/cosmos's getFeedRanges has one entry per
// range; latest-version iterators from the beginning and all-versions-and-
// deletes iterators from now, one per feed range, together return every
// change exactly once; the whole-container iterator does too, its first
// pages each from a different range (breadth first); and at 21,000 RU/s a
// /name container holding sample1..sample4 has one name in its first range.
func TestJSChangeFeedAcrossRanges(t *testing.T) {
	const body = "LATEST per-range 35 once\nAVAD per-range 55 once\n"
	for _, tc := range []struct {
		name string
		min  int
		ru   string
		want string
	}{
		{"ranges1", 1, "", "FEEDRANGES 1\n" + body + "WHOLE 35 once ranges=1 breadth=true\n"},
		{"ranges4", 4, "", "FEEDRANGES 4\n" + body + "WHOLE 35 once ranges=4 breadth=true\n"},
		{"ranges7", 7, "", "FEEDRANGES 7\n" + body + "WHOLE 35 once ranges=7 breadth=true\n"},
		{"ru21000", 0, "21000", "FEEDRANGES 4\n" + body + "WHOLE 35 once ranges=4 breadth=true\nSAMPLES first-range names=1 items=3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node, dir := jsSDK(t)
			e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(tc.min))
			start := time.Now()
			out, stderr := runJS(t, node, dir, "changefeed_ranges.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=cfr", "COSMOS_RU="+tc.ru)
			t.Logf("script ran in %v; %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr))
			if got := string(out); got != tc.want {
				t.Fatalf("JS change feed over ranges:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
