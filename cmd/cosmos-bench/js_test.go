package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSReplayMix drives compat_test/js/bench.mjs as the js scenario does:
// each emulator mix is flanked by two halves of the same mix through the
// proxy, which forwards none of their requests, and the result reports the
// floor mixes with all their operations.
func TestJSReplayMix(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "compat_test", "js"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := ensureNodeModules(ctx, dir, t.Logf); err != nil {
		t.Fatal(err)
	}
	e := emulatortest.Start(t)
	replay, err := startReplayProcess(ctx, e.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer replay.Close()
	var phases []string
	var begun replayStats
	forwarded := map[string]int64{}
	result, err := driveBench(ctx, dir, e.Endpoint, replay.URL(), 80, 300, "1,4", func(name, what string) error {
		phases = append(phases, name+" "+what)
		if !strings.HasPrefix(name, "replay-mix-") {
			return nil
		}
		st, err := replayStatsOf(ctx, replay.URL())
		if what == "BEGIN" {
			begun = st
		} else {
			forwarded[name] = st.Forwarded - begun.Forwarded
			if st.Replayed-begun.Replayed < 40 {
				t.Errorf("%s: %d requests replayed, want at least the phase's 40 operations", name, st.Replayed-begun.Replayed)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range []string{"1", "4"} {
		for _, p := range []string{"replay-mix-" + c + "-a", "mix-" + c, "replay-mix-" + c + "-b"} {
			want = append(want, p+" BEGIN", p+" END")
		}
	}
	got := strings.Join(phases, ",")
	if !strings.HasSuffix(got, strings.Join(want, ",")) {
		t.Fatalf("phases %s, want them to end with %s", got, strings.Join(want, ","))
	}
	for name, n := range forwarded {
		if n != 0 {
			t.Errorf("%s: the proxy forwarded %d requests to the emulator, want 0", name, n)
		}
	}
	var r jsResult
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		t.Fatalf("RESULT %q: %v", result, err)
	}
	if len(r.ReplayMixes) != 2 {
		t.Fatalf("replay_mixes %+v, want 2", r.ReplayMixes)
	}
	for i, m := range r.ReplayMixes {
		if m.Concurrency != []int{1, 4}[i] || m.Total.Ops != 80 || m.Create.Ops == 0 || m.Read.Ops == 0 || m.Replace.Ops == 0 || m.Query.Ops == 0 {
			t.Errorf("replay mix %d: %+v", i, m)
		}
		t.Logf("c=%d: emulator %.0f ops/s, replay floor %.0f ops/s", m.Concurrency, r.Mixes[i].Total.OpsPerSec, m.Total.OpsPerSec)
	}
}
