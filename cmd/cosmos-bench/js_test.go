package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestJSReplayMix runs compat_test/js/bench.mjs with a replaying proxy, as
// the js scenario does, and drives its phases: each emulator mix is
// flanked by two halves of the same mix through the proxy, during which
// the proxy forwards nothing (reads, replaces, creates, query plans and
// queries all answered from memory), and the result reports the floor
// mixes with all their operations.
func TestJSReplayMix(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
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
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "bench.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_KEY="+emulatorKey, "COSMOS_DB=replaymix",
		"BENCH_REPLAY_ENDPOINT="+replay.URL(), "BENCH_N=80", "BENCH_SEED=30", "BENCH_WARMUP=10", "BENCH_SIZE=300", "BENCH_CONCURRENCY=1,4")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var phases []string
	var result string
	var begun replayStats
	forwarded := map[string]int64{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if r, ok := strings.CutPrefix(line, "RESULT "); ok {
			result = r
			continue
		}
		phase, ok := strings.CutPrefix(line, "PHASE ")
		if !ok {
			continue
		}
		phases = append(phases, phase)
		name, what, _ := strings.Cut(phase, " ")
		if strings.HasPrefix(name, "replay-mix-") {
			st, err := replayStatsOf(ctx, replay.URL())
			if err != nil {
				t.Fatal(err)
			}
			if what == "BEGIN" {
				begun = st
			} else {
				forwarded[name] = st.Forwarded - begun.Forwarded
				if st.Replayed-begun.Replayed < 40 {
					t.Errorf("%s: %d requests replayed, want at least the phase's 40 operations", name, st.Replayed-begun.Replayed)
				}
			}
		}
		if _, err := io.WriteString(stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bench.mjs: %v\n%s", err, stderr.String())
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
