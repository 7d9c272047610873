package main

import (
	"strings"
	"testing"
)

// TestDurabilityReport: the report prints each level's p50 over none's and
// the target row "create p50 process/none" with its verdict.
func TestDurabilityReport(t *testing.T) {
	levels := func(full, process, none float64) []durabilityLevelRes {
		return []durabilityLevelRes{{"full", latencyStats{P50: full}}, {"process", latencyStats{P50: process}}, {"none", latencyStats{P50: none}}}
	}
	for _, tt := range []struct {
		name string
		r    durabilityResult
		want []string
	}{
		{"met", durabilityResult{Runs: 10, Levels: levels(2.0, 0.55, 0.5), ProcessOverNone: 1.1, FullOverNone: 4, Met: true},
			[]string{"full     2.000 ms", "4.00x", "create p50 process/none: 1.10x (target at most 1.2x: ok); full/none: 4.00x"}},
		{"missed", durabilityResult{Runs: 10, Levels: levels(2.0, 1.5, 0.5), ProcessOverNone: 3, FullOverNone: 4},
			[]string{"create p50 process/none: 3.00x (target at most 1.2x: MISSED)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeDurabilityReport(&b, &tt.r)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}
