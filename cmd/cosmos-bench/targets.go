package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// The Targets section closes a run's report (and is "targets" in -json):
// one row per target of the performance work, each a figure measured in
// this run against its limit, "met" or "missed by" how much. A miss never
// fails the run. Each scenario's check is a targetFunc in targetChecks; a
// new target joins by adding its check there.

// targetRow is one target's outcome in a run.
type targetRow struct {
	// Name says what is compared, Target the limit in words.
	Name   string `json:"name"`
	Target string `json:"target"`
	// Measured gives the figures the value is computed from.
	Measured string `json:"measured,omitempty"`
	// Value is the compared figure, Limit its bound; HigherIsBetter says
	// whether Value must be at least (true) or at most (false) Limit.
	// Unit is "x" for a ratio, "ms" for a difference of latencies.
	Value          float64 `json:"value"`
	Limit          float64 `json:"limit"`
	HigherIsBetter bool    `json:"higher_is_better"`
	Unit           string  `json:"unit"`
	// NotMeasured, when set, says why the run has no figure for the
	// target (a scenario or a flag missing, a peer unavailable); Value is
	// then meaningless.
	NotMeasured string `json:"not_measured,omitempty"`
	// Status is "met", "missed by ..." or "not measured".
	Status string `json:"status"`
}

// met reports whether the row's value meets its limit (false when not
// measured).
func (t targetRow) met() bool {
	if t.NotMeasured != "" || math.IsNaN(t.Value) {
		return false
	}
	if t.HigherIsBetter {
		return t.Value >= t.Limit
	}
	return t.Value <= t.Limit
}

// status renders the row's outcome: "met", "not measured", or "missed by"
// the factor a ratio must still gain (or lose), or the milliseconds a
// difference must still lose.
func (t targetRow) status() string {
	switch {
	case t.NotMeasured != "":
		return "not measured"
	case t.met():
		return "met"
	case t.Unit == "ms":
		return fmt.Sprintf("missed by %.3f ms", math.Abs(t.Value-t.Limit))
	case t.HigherIsBetter:
		return fmt.Sprintf("missed by %.2fx", ratio(t.Limit, t.Value))
	default:
		return fmt.Sprintf("missed by %.2fx", ratio(t.Value, t.Limit))
	}
}

// targetFunc returns the rows of one or more targets from a run's
// results; a check whose scenario did not run returns its rows with
// NotMeasured set, so every target has a line in every report.
type targetFunc func(r *results) []targetRow

// targetChecks are the targets a run is checked against, in report order.
var targetChecks = []targetFunc{durabilityTargetRow, jsMixTargets, pointReadTarget, suiteCycleTarget, batchTargets}

// checkTargets evaluates every target of targetChecks against r.
func checkTargets(r *results) []targetRow {
	var rows []targetRow
	for _, check := range targetChecks {
		for _, row := range check(r) {
			row.Status = row.status()
			rows = append(rows, row)
		}
	}
	return rows
}

// Limits of the targets.
const (
	// targetJSMixFloor: the JS mix's throughput at least this fraction of
	// the replay floor's, run the same way.
	targetJSMixFloor = 0.8
	// targetReadOverFloorMs: the Go SDK point read's p50 at most this many
	// milliseconds above the replay floor's.
	targetReadOverFloorMs = 0.15
	// targetCycleSpeedup: the suite cycle at least this many times faster
	// than the baseline build's.
	targetCycleSpeedup = 2.0
	// targetBatchSpeedup: a transactional batch of 100 creates at least
	// this many times faster than 100 sequential creates.
	targetBatchSpeedup = 10.0
)

// durabilityTargetRow: a create's p50 at --durability process against
// none, through the Go SDK, 1 client, alternating (durability scenario).
func durabilityTargetRow(r *results) []targetRow {
	row := targetRow{Name: "Go SDK create p50, --durability process vs none, 1 client",
		Target: fmt.Sprintf("<= %.1fx", durabilityTarget), Limit: durabilityTarget, Unit: "x"}
	switch d := r.Durability; {
	case d == nil:
		row.NotMeasured = "the durability scenario did not run"
	case d.Skipped != "":
		row.NotMeasured = d.Skipped
	case len(d.Levels) != len(durabilityLevels):
		row.NotMeasured = "the durability scenario measured no levels"
	default:
		row.Value = d.ProcessOverNone
		row.Measured = fmt.Sprintf("process %.3f ms, none %.3f ms (full %.3f ms)", d.Levels[1].Create.P50, d.Levels[2].Create.P50, d.Levels[0].Create.P50)
	}
	return []targetRow{row}
}

// jsConcurrencies are the mixes the JS target names, whatever the run's
// -js-concurrency.
var jsConcurrencies = []int{1, 16}

// jsMixTargets: the JS mix at 1 and 16 clients against the same mix through
// the replaying proxy, in the same run (js scenario).
func jsMixTargets(r *results) []targetRow {
	var rows []targetRow
	for _, c := range jsConcurrencies {
		row := targetRow{Name: fmt.Sprintf("JS mix at %d client(s): ops/s vs the replay floor", c),
			Target: fmt.Sprintf(">= %.2fx", targetJSMixFloor), Limit: targetJSMixFloor, HigherIsBetter: true, Unit: "x"}
		row.NotMeasured = "the js scenario did not run"
		if r.JS != nil {
			row.NotMeasured = fmt.Sprintf("no mix at concurrency %d with its replay floor (-js-concurrency)", c)
			for i, m := range r.JS.Mixes {
				if m.Concurrency != c || i >= len(r.JS.ReplayMixes) {
					continue
				}
				f := r.JS.ReplayMixes[i]
				row.NotMeasured = ""
				row.Value = ratio(m.Total.OpsPerSec, f.Total.OpsPerSec)
				row.Measured = fmt.Sprintf("emulator %.0f ops/s, floor %.0f ops/s", m.Total.OpsPerSec, f.Total.OpsPerSec)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// pointReadTarget: the Go SDK point read's p50 minus the replay floor's,
// one client, alternating (point scenario).
func pointReadTarget(r *results) []targetRow {
	row := targetRow{Name: "Go SDK point read p50 minus the replay floor's, 1 client",
		Target: fmt.Sprintf("<= %.2f ms", targetReadOverFloorMs), Limit: targetReadOverFloorMs, Unit: "ms"}
	if r.Point != nil && r.Point.ReadPair.Floor.Ops > 0 {
		p := r.Point.ReadPair
		row.Value = p.Emulator.P50 - p.Floor.P50
		row.Measured = fmt.Sprintf("emulator %.3f ms, floor %.3f ms", p.Emulator.P50, p.Floor.P50)
	} else {
		row.NotMeasured = "the point scenario did not run"
	}
	return []targetRow{row}
}

// suiteCycleTarget: the suite cycle against the baseline build's
// (containers scenario with -baseline-bin).
func suiteCycleTarget(r *results) []targetRow {
	row := targetRow{Name: "suite cycle vs the baseline build, --ephemeral",
		Target: fmt.Sprintf(">= %.1fx faster", targetCycleSpeedup), Limit: targetCycleSpeedup, HigherIsBetter: true, Unit: "x"}
	switch {
	case r.Containers == nil:
		row.NotMeasured = "the containers scenario did not run"
	case r.Containers.Versus == nil:
		row.NotMeasured = "needs -baseline-bin (make bench BASELINE=rev builds one)"
	default:
		v := r.Containers.Versus
		row.Value = v.Speedup
		row.Measured = fmt.Sprintf("p50 baseline %.1f ms, this build %.1f ms", v.Baseline.P50, v.Current.P50)
	}
	return []targetRow{row}
}

// batchTargets: a transactional batch of 100 creates against 100
// sequential creates (batch scenario), and against the in-memory peer's
// batch, which cannot be measured here.
func batchTargets(r *results) []targetRow {
	row := targetRow{Name: "transactional batch of 100 creates vs 100 sequential creates",
		Target: fmt.Sprintf(">= %.0fx faster", targetBatchSpeedup), Limit: targetBatchSpeedup, HigherIsBetter: true, Unit: "x"}
	if b := r.Batch; b != nil && b.Batch.Ops > 0 && b.Single.Ops > 0 {
		row.Value = ratio(100*b.Single.P50, b.Batch.P50)
		row.Measured = fmt.Sprintf("batch p50 %.2f ms, 100 x single create p50 %.3f ms = %.1f ms", b.Batch.P50, b.Single.P50, 100*b.Single.P50)
	} else {
		row.NotMeasured = "the batch scenario did not run"
	}
	peer := targetRow{Name: "transactional batch of 100 creates vs the in-memory peer's (cosmium)",
		Target: "no slower", Limit: 1, HigherIsBetter: true, Unit: "x",
		NotMeasured: "the peer cannot be fetched here: the Go module proxy refuses github.com/pikami/cosmium (403)"}
	return []targetRow{row, peer}
}

// writeTargets writes the Targets section.
func writeTargets(w io.Writer, rows []targetRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nTargets (figures of this run; a miss does not fail the run)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tlimit\tvalue\tstatus\tmeasured\t")
	for _, t := range rows {
		value := ""
		switch {
		case t.NotMeasured != "":
			value = "-"
		case t.Unit == "ms":
			value = fmt.Sprintf("%.3f ms", t.Value)
		default:
			value = fmt.Sprintf("%.2fx", t.Value)
		}
		measured := t.Measured
		if t.NotMeasured != "" {
			measured = t.NotMeasured
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", t.Name, t.Target, value, t.Status, measured)
	}
	tw.Flush()
}
