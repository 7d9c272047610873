package compat_test

import (
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSChangeFeed runs compat_test/js/changefeed.mjs: the JS SDK's change
// feed iterator with every start option, getFeedRanges, a partition key,
// the legacy readChangeFeed and a foreign continuation.
func TestJSChangeFeed(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0)))
	out, _ := runJS(t, node, dir, "changefeed.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint)
	t.Log(string(out))
}
