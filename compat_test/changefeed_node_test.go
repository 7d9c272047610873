package compat_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestJSChangeFeed runs compat_test/js/changefeed.mjs: the JS SDK's change
// feed iterator with every start option, getFeedRanges, a partition key,
// the legacy readChangeFeed and a foreign continuation.
func TestJSChangeFeed(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0)))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "changefeed.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_KEY="+emulatortest.Key)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node changefeed.mjs: %v\n%s", err, out.String())
	}
	t.Log(out.String())
}
