package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
)

// handlerTotals are the emulator's totals for one operation on items (GET
// /_emulator/metrics): cosmos_emulator_request_duration_seconds, from the
// handler's start to its return, and within it the seconds of each phase
// (cosmos_emulator_request_phase_seconds_total).
type handlerTotals struct {
	Seconds float64
	Count   float64
	Phases  map[string]float64
}

// meanMs is the mean handler time in ms of the requests between two
// readings, or 0 without any.
func (t handlerTotals) meanMs(before handlerTotals) float64 {
	if n := t.Count - before.Count; n > 0 {
		return (t.Seconds - before.Seconds) / n * 1000
	}
	return 0
}

// docsMetrics reads the emulator's metrics and returns the handler totals
// of every operation on resource type docs, by operation (Create, Read,
// Replace, Query, QueryPlan, ...).
func docsMetrics(ctx context.Context, c *http.Client, endpoint string) (map[string]handlerTotals, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/_emulator/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /_emulator/metrics: %s", resp.Status)
	}
	return readDocsMetrics(resp.Body)
}

// readDocsMetrics reads metrics in the Prometheus text format (see
// docsMetrics).
func readDocsMetrics(r io.Reader) (map[string]handlerTotals, error) {
	out := map[string]handlerTotals{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		name, labels, value, ok := parseSample(sc.Text())
		if !ok || labels["resource_type"] != "docs" {
			continue
		}
		t := out[labels["operation"]]
		switch name {
		case "cosmos_emulator_request_duration_seconds_sum":
			t.Seconds = value
		case "cosmos_emulator_request_duration_seconds_count":
			t.Count = value
		case "cosmos_emulator_request_phase_seconds_total":
			if t.Phases == nil {
				t.Phases = map[string]float64{}
			}
			t.Phases[labels["phase"]] = value
		default:
			continue
		}
		out[labels["operation"]] = t
	}
	return out, sc.Err()
}

// parseSample parses a line of the Prometheus text format, name{k="v",...}
// value, whatever the labels' order (label values here hold no quotes or
// commas).
func parseSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	head, v, found := strings.Cut(line, "} ")
	if !found || strings.HasPrefix(line, "#") {
		return "", nil, 0, false
	}
	name, ls, _ := strings.Cut(head, "{")
	labels = map[string]string{}
	for _, kv := range strings.Split(ls, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			labels[k] = strings.Trim(v, `"`)
		}
	}
	value, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return name, labels, value, err == nil
}

// phaseNames are the handler's phases (the metric's phase label) in the
// order the breakdown prints them.
var phaseNames = reqphase.Names[:]

// breakdown is where one kind of operation's time goes at one client: the
// client's latency, the SDK floor (the same operation answered by the
// replaying proxy), the handler's time per operation and its phases, and
// the remainder, client mean - floor mean - handler mean: TLS and HTTP
// outside the handler.
type breakdown struct {
	Op          string             `json:"op"`
	ClientP50   float64            `json:"client_p50_ms"`
	ClientMean  float64            `json:"client_mean_ms"`
	FloorP50    float64            `json:"sdk_floor_p50_ms"`
	FloorMean   float64            `json:"sdk_floor_mean_ms"`
	HandlerMean float64            `json:"handler_mean_ms"`
	PhasesMean  map[string]float64 `json:"handler_phases_mean_ms,omitempty"`
	Remainder   float64            `json:"transport_remainder_ms"`
}

// newBreakdown fills a breakdown from the client's and the floor's
// latencies and the metrics before and after the client's operations:
// ops[0] is the operation each client operation sends once (its count is
// the divisor), the others go with it (a query's QueryPlan).
func newBreakdown(name string, client, floor latencyStats, before, after map[string]handlerTotals, ops ...string) breakdown {
	bd := breakdown{Op: name, ClientP50: client.P50, ClientMean: client.Mean, FloorP50: floor.P50, FloorMean: floor.Mean}
	n := after[ops[0]].Count - before[ops[0]].Count
	if n <= 0 {
		return bd
	}
	for _, op := range ops {
		a, b := after[op], before[op]
		bd.HandlerMean += (a.Seconds - b.Seconds) * 1000 / n
		for ph, s := range a.Phases {
			if bd.PhasesMean == nil {
				bd.PhasesMean = map[string]float64{}
			}
			bd.PhasesMean[ph] += (s - b.Phases[ph]) * 1000 / n
		}
	}
	bd.Remainder = bd.ClientMean - bd.FloorMean - bd.HandlerMean
	return bd
}

// writeBreakdowns writes breakdowns as a table (ms).
func writeBreakdowns(w io.Writer, bds []breakdown) {
	fmt.Fprintf(w, "%-8s %11s %11s %8s", "op", "client p50", "client mean", "SDK floor p50/mean")
	fmt.Fprintf(w, " %8s", "handler")
	for _, p := range phaseNames {
		fmt.Fprintf(w, " %9s", p)
	}
	fmt.Fprintf(w, " %9s\n", "remainder")
	for _, b := range bds {
		fmt.Fprintf(w, "%-8s %11.3f %11.3f %8.3f / %.3f %8.3f", b.Op, b.ClientP50, b.ClientMean, b.FloorP50, b.FloorMean, b.HandlerMean)
		for _, p := range phaseNames {
			if v, ok := b.PhasesMean[p]; ok {
				fmt.Fprintf(w, " %9.3f", v)
			} else {
				fmt.Fprintf(w, " %9s", "-")
			}
		}
		fmt.Fprintf(w, " %9.3f\n", b.Remainder)
	}
}
