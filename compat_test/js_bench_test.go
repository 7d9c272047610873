package compat_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSBenchScript runs compat_test/js/bench.mjs (the JS SDK benchmark
// cmd/cosmos-bench -scenario js drives) with a few operations over HTTPS,
// without a driver on stdin: it announces its phases in order, performs
// every operation of the mix without error (reads, replaces and queries
// find the items they pick) and reports each phase's operations.
func TestJSBenchScript(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t)
	out, stderr := runJS(t, node, dir, "bench.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=bench",
		"BENCH_N=60", "BENCH_SEED=20", "BENCH_WARMUP=10", "BENCH_SIZE=300", "BENCH_CONCURRENCY=1,4")
	var phases []string
	var result string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p, ok := strings.CutPrefix(l, "PHASE "); ok {
			phases = append(phases, p)
		} else if r, ok := strings.CutPrefix(l, "RESULT "); ok {
			result = r
		}
	}
	want := "floor BEGIN,floor END,mix-1 BEGIN,mix-1 END,mix-4 BEGIN,mix-4 END"
	if strings.Join(phases, ",") != want {
		t.Fatalf("phases %v, want %s\nstderr: %s", phases, want, stderr)
	}
	type stats struct {
		Ops int     `json:"ops"`
		P50 float64 `json:"p50_ms"`
	}
	var r struct {
		N     int `json:"n"`
		Floor struct{ Health, Read stats }
		Mixes []struct {
			Concurrency                         int
			Total, Create, Read, Replace, Query stats
		}
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		t.Fatalf("RESULT %q: %v", result, err)
	}
	if r.N != 60 || r.Floor.Health.Ops != 60 || r.Floor.Read.Ops != 60 || r.Floor.Read.P50 <= 0 || len(r.Mixes) != 2 {
		t.Fatalf("result %+v", r)
	}
	for i, m := range r.Mixes {
		if m.Concurrency != []int{1, 4}[i] || m.Total.Ops != 60 || m.Create.Ops+m.Read.Ops+m.Replace.Ops+m.Query.Ops != 60 ||
			m.Create.Ops == 0 || m.Read.Ops == 0 || m.Replace.Ops == 0 || m.Query.Ops == 0 {
			t.Errorf("mix %d: %+v", i, m)
		}
	}
}
