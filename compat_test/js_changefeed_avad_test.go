package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSAllVersionsAndDeletesFeed runs compat_test/js/changefeed_avad.mjs:
// the JS SDK's getChangeFeedIterator in ChangeFeedMode.AllVersionsAndDeletes,
// from now over the container, over one partition key and over the feed
// range getFeedRanges returns, then from a
// continuation token, sees every create, replace, upsert, patch and delete
// in order with previousImageLSN chaining, and 304 when caught up; a TTL
// expiry (frozen clock moved through the control endpoint) is a delete with
// timeToLiveExpired once swept, not before; a hierarchical key prefix (an
// effective partition key sub-range) sees the changes of its partitions
// only.
func TestJSAllVersionsAndDeletesFeed(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0)), emulatortest.WithoutBackgroundSweeper())
	out, stderr := runJS(t, node, dir, "changefeed_avad.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=avad")
	want := `CAUGHTUP all
CAUGHTUP p
CAUGHTUP range
CHANGE all create a 1 false true
CHANGE all replace a 2 false true
CHANGE all replace a 3 false true
CHANGE all create b 1 false true
CHANGE all replace a 4 false true
CHANGE all delete b - false true
CHANGE all delete a - false true
CAUGHTUP all
CHANGE p create a 1 false true
CHANGE p replace a 2 false true
CHANGE p replace a 3 false true
CHANGE p replace a 4 false true
CHANGE p delete a - false true
CAUGHTUP p
CHANGE range create a 1 false true
CHANGE range replace a 2 false true
CHANGE range replace a 3 false true
CHANGE range create b 1 false true
CHANGE range replace a 4 false true
CHANGE range delete b - false true
CHANGE range delete a - false true
CAUGHTUP range
CHANGE resumed create d 1 false true
CAUGHTUP resumed
CHANGE all create d 1 false true
CHANGE all create t - false true
CAUGHTUP all
CAUGHTUP all
SWEPT 1
CHANGE all delete t - true true
CAUGHTUP all
CAUGHTUP prefix
CHANGE prefix create a 1 false true
CHANGE prefix create c 1 false true
CHANGE prefix replace a 2 false true
CHANGE prefix delete a - false true
CAUGHTUP prefix
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK change feed:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}
