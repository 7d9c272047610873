package main

import (
	"math"
	"strings"
	"testing"
)

// TestDocsBreakdown: metrics are read whatever their labels' order, for
// resource type docs only, and a breakdown divides the handler's and the
// phases' seconds by its first operation's requests (a query's plan added
// to it), leaving client mean - floor mean - handler mean as remainder.
func TestDocsBreakdown(t *testing.T) {
	scrape := func(body string) map[string]handlerTotals {
		m, err := readDocsMetrics(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := scrape(`# HELP x
cosmos_emulator_request_duration_seconds_sum{operation="Query",resource_type="docs"} 1
cosmos_emulator_request_duration_seconds_count{operation="Query",resource_type="docs"} 10
cosmos_emulator_request_duration_seconds_sum{operation="QueryPlan",resource_type="docs"} 0.5
cosmos_emulator_request_duration_seconds_count{operation="QueryPlan",resource_type="docs"} 10
cosmos_emulator_request_phase_seconds_total{operation="Query",phase="postgres",resource_type="docs"} 0.25
cosmos_emulator_request_duration_seconds_sum{operation="Query",resource_type="colls"} 7`)
	after := scrape(`cosmos_emulator_request_duration_seconds_sum{operation="Query",resource_type="docs"} 1.4
cosmos_emulator_request_duration_seconds_count{operation="Query",resource_type="docs"} 1010
cosmos_emulator_request_duration_seconds_sum{resource_type="docs",operation="QueryPlan"} 0.6
cosmos_emulator_request_duration_seconds_count{operation="QueryPlan",resource_type="docs"} 1010
cosmos_emulator_request_phase_seconds_total{operation="Query",phase="postgres",resource_type="docs"} 0.45
cosmos_emulator_request_duration_seconds_sum{operation="Query",resource_type="colls"} 9`)
	if got := after["Query"].meanMs(before["Query"]); math.Abs(got-0.4) > 1e-9 {
		t.Errorf("Query handler mean %v ms, want 0.4", got)
	}
	for _, tc := range []struct {
		name          string
		ops           []string
		handler, rest float64
		postgres      float64
	}{
		{"query and its plan", []string{"Query", "QueryPlan"}, 0.5, 0.3, 0.2},
		{"query alone", []string{"Query"}, 0.4, 0.4, 0.2},
		{"no requests", []string{"Read"}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bd := newBreakdown("query", latencyStats{Ops: 1000, P50: 1, Mean: 1.2}, latencyStats{Mean: 0.4}, before, after, tc.ops...)
			if math.Abs(bd.HandlerMean-tc.handler) > 1e-9 || math.Abs(bd.PhasesMean["postgres"]-tc.postgres) > 1e-9 {
				t.Errorf("handler %v ms, postgres %v ms; want %v and %v", bd.HandlerMean, bd.PhasesMean["postgres"], tc.handler, tc.postgres)
			}
			if tc.handler > 0 && math.Abs(bd.Remainder-tc.rest) > 1e-9 {
				t.Errorf("remainder %v ms, want %v", bd.Remainder, tc.rest)
			}
			var out strings.Builder
			writeBreakdowns(&out, []breakdown{bd})
			if !strings.Contains(out.String(), "postgres") || !strings.Contains(out.String(), "query") {
				t.Errorf("table:\n%s", out.String())
			}
		})
	}
}
