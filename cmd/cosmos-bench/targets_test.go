package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestTargets: every target has a row whatever ran, computed from the
// run's figures: met, missed by the factor or the milliseconds still to
// gain, or not measured with the reason (a scenario missing, no
// -baseline-bin, the peer unavailable); the table and -json carry them.
func TestTargets(t *testing.T) {
	stat := func(p50, opsPerSec float64) latencyStats {
		return latencyStats{Ops: 100, P50: p50, OpsPerSec: opsPerSec}
	}
	full := &results{
		JS: &jsResult{
			Mixes:       []jsMix{{Concurrency: 1, Total: stat(1, 900)}, {Concurrency: 16, Total: stat(1, 500)}},
			ReplayMixes: []jsMix{{Concurrency: 1, Total: stat(1, 1000)}, {Concurrency: 16, Total: stat(1, 1000)}},
		},
		Point:      &pointResult{ReadPair: readPair{Emulator: stat(0.45, 0), Floor: stat(0.20, 0)}},
		Containers: &containersResult{Versus: &cycleVersus{Baseline: stat(300, 0), Current: stat(100, 0), Speedup: 3}},
		Batch:      &batchResult{Single: stat(0.5, 0), Batch: stat(10, 0)},
		Durability: &durabilityResult{Levels: []durabilityLevelRes{{"full", stat(2, 0)}, {"process", stat(0.9, 0)}, {"none", stat(0.6, 0)}}, ProcessOverNone: 1.5},
	}
	for _, c := range []struct {
		name string
		r    *results
		want map[string]string // row name prefix -> status
		why  map[string]string // row name prefix -> reason not measured
	}{
		{"every scenario", full, map[string]string{
			"Go SDK create p50":                         "missed by 1.25x", // 1.5 of <= 1.2
			"JS mix at 1 ":                              "met",
			"JS mix at 1 client: ms per operation":      "met",             // 1/900 s - 1/1000 s = 0.111 ms of <= 0.35
			"JS mix at 16 ":                             "missed by 1.60x", // 0.5 of >= 0.8
			"Go SDK point read":                         "missed by 0.100 ms",
			"suite cycle":                               "met",
			"transactional batch of 100 creates vs 100": "missed by 2.00x", // 50 ms / 10 ms = 5x of >= 10x
			"transactional batch of 100 creates vs the": "not measured",
		}, map[string]string{"transactional batch of 100 creates vs the": "pikami/cosmium"}},
		{"nothing ran", &results{}, map[string]string{
			"JS mix at 1 ": "not measured", "JS mix at 1 client: ms per operation": "not measured", "JS mix at 16 ": "not measured", "Go SDK point read": "not measured",
			"suite cycle": "not measured", "transactional batch of 100 creates vs 100": "not measured",
			"Go SDK create p50": "not measured",
		}, map[string]string{"Go SDK create p50": "durability scenario", "JS mix at 1 ": "js scenario", "suite cycle": "containers scenario", "Go SDK point read": "point scenario"}},
		{"no baseline", &results{Containers: &containersResult{}}, map[string]string{"suite cycle": "not measured"},
			map[string]string{"suite cycle": "needs -baseline-bin"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := checkTargets(c.r)
			if len(rows) != 8 {
				t.Fatalf("%d rows, want 8: %+v", len(rows), rows)
			}
			find := func(prefix string) targetRow {
				for _, r := range rows {
					if strings.HasPrefix(r.Name, prefix) {
						return r
					}
				}
				t.Fatalf("no row %q in %+v", prefix, rows)
				return targetRow{}
			}
			for prefix, want := range c.want {
				if got := find(prefix).Status; got != want {
					t.Errorf("%s: status %q, want %q", prefix, got, want)
				}
			}
			for prefix, want := range c.why {
				if got := find(prefix).NotMeasured; !strings.Contains(got, want) {
					t.Errorf("%s: not measured %q, want it to mention %q", prefix, got, want)
				}
			}
			c.r.Targets = rows
			var out bytes.Buffer
			writeTargets(&out, rows)
			for _, r := range rows {
				if !strings.Contains(out.String(), r.Name) || !strings.Contains(out.String(), r.Status) {
					t.Errorf("the table lacks %q with %q:\n%s", r.Name, r.Status, out.String())
				}
			}
			js, err := json.Marshal(c.r)
			if err != nil {
				t.Fatal(err)
			}
			var back struct{ Targets []targetRow }
			if err := json.Unmarshal(js, &back); err != nil || len(back.Targets) != len(rows) || back.Targets[0].Status != rows[0].Status {
				t.Errorf("-json targets %+v (%v)", back.Targets, err)
			}
		})
	}
}
