package main

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// The Targets section closes a run's report ("targets" in -json): each
// target's figure in this run against its limit, "met" or "missed by" how
// much, or "not measured" and why. A miss never fails the run.

// targetRow is one target's outcome in a run.
type targetRow struct {
	Name   string `json:"name"`
	Target string `json:"target"` // the limit in words
	// Measured gives the figures Value is computed from; Value is at least
	// (HigherIsBetter) or at most Limit; Unit is "x" (a ratio) or "ms".
	Measured       string  `json:"measured,omitempty"`
	Value          float64 `json:"value"`
	Limit          float64 `json:"limit"`
	HigherIsBetter bool    `json:"higher_is_better"`
	Unit           string  `json:"unit"`
	// NotMeasured says why the run has no figure for the target.
	NotMeasured string `json:"not_measured,omitempty"`
	Status      string `json:"status"` // "met", "missed by ..." or "not measured"
}

// status renders the row's outcome: "met", "not measured", or "missed by"
// the factor a ratio must still gain (or lose), or the milliseconds a
// difference must still lose.
func (t targetRow) status() string {
	met := t.Value <= t.Limit
	if t.HigherIsBetter {
		met = t.Value >= t.Limit
	}
	switch {
	case t.NotMeasured != "":
		return "not measured"
	case met && !math.IsNaN(t.Value):
		return "met"
	case t.Unit == "ms":
		return fmt.Sprintf("missed by %.3f ms", math.Abs(t.Value-t.Limit))
	case t.HigherIsBetter:
		return fmt.Sprintf("missed by %.2fx", ratio(t.Limit, t.Value))
	default:
		return fmt.Sprintf("missed by %.2fx", ratio(t.Value, t.Limit))
	}
}

// Limits of the targets.
const (
	targetJSMixFloor      = 0.8  // the JS mix's ops/s over the replay floor's
	targetReadOverFloorMs = 0.15 // the Go SDK point read's p50 above the replay floor's
	targetMixOverFloorMs  = 0.35 // the JS mix at one client: ms per operation above the replay floor's
	targetCycleSpeedup    = 2.0  // the suite cycle against the baseline build's
	targetBatchSpeedup    = 10.0 // a batch of 100 creates against 100 sequential creates
)

// row returns a row of a ratio target (Unit x).
func row(name string, limit float64, higher bool) targetRow {
	cmp := "<="
	if higher {
		cmp = ">="
	}
	return targetRow{Name: name, Target: fmt.Sprintf("%s %.2gx", cmp, limit), Limit: limit, HigherIsBetter: higher, Unit: "x"}
}

// checkTargets evaluates every target against r, in report order.
func checkTargets(r *results) []targetRow {
	var rows []targetRow
	d := row("Go SDK create p50, --durability process vs none, 1 client", durabilityTarget, false)
	switch {
	case r.Durability == nil:
		d.NotMeasured = "the durability scenario did not run"
	case len(r.Durability.Levels) != len(durabilityLevels):
		d.NotMeasured = "the durability scenario measured no levels"
	default:
		l := r.Durability.Levels
		d.Value, d.Measured = r.Durability.ProcessOverNone, fmt.Sprintf("process %.3f ms, none %.3f ms (full %.3f ms)", l[1].Create.P50, l[2].Create.P50, l[0].Create.P50)
	}
	rows = append(rows, d)
	for _, c := range []int{1, 16} {
		js := row(fmt.Sprintf("JS mix at %d client(s): ops/s vs the replay floor", c), targetJSMixFloor, true)
		js.NotMeasured = "the js scenario did not run"
		if r.JS != nil {
			js.NotMeasured = fmt.Sprintf("no mix at concurrency %d with its replay floor (-js-concurrency)", c)
			for i, m := range r.JS.Mixes {
				if m.Concurrency == c && i < len(r.JS.ReplayMixes) {
					f := r.JS.ReplayMixes[i].Total.OpsPerSec
					js.NotMeasured, js.Value, js.Measured = "", ratio(m.Total.OpsPerSec, f), fmt.Sprintf("emulator %.0f ops/s, floor %.0f ops/s", m.Total.OpsPerSec, f)
				}
			}
		}
		rows = append(rows, js)
		if c != 1 {
			continue
		}
		// the same mix as time per operation: what the emulator and
		// PostgreSQL add to each operation over the SDK's own cost
		o := targetRow{Name: "JS mix at 1 client: ms per operation over the replay floor", Target: fmt.Sprintf("<= %.2f ms", targetMixOverFloorMs),
			Limit: targetMixOverFloorMs, Unit: "ms", NotMeasured: js.NotMeasured}
		if r.JS != nil {
			for i, m := range r.JS.Mixes {
				if m.Concurrency == 1 && i < len(r.JS.ReplayMixes) && m.Total.OpsPerSec > 0 && r.JS.ReplayMixes[i].Total.OpsPerSec > 0 {
					f := r.JS.ReplayMixes[i].Total.OpsPerSec
					o.NotMeasured, o.Value = "", 1000/m.Total.OpsPerSec-1000/f
					o.Measured = fmt.Sprintf("emulator %.3f ms/op, floor %.3f ms/op", 1000/m.Total.OpsPerSec, 1000/f)
				}
			}
		}
		rows = append(rows, o)
	}
	p := targetRow{Name: "Go SDK point read p50 minus the replay floor's, 1 client", Target: fmt.Sprintf("<= %.2f ms", targetReadOverFloorMs), Limit: targetReadOverFloorMs, Unit: "ms",
		NotMeasured: "the point scenario did not run"}
	if r.Point != nil && r.Point.ReadPair.Floor.Ops > 0 {
		e, f := r.Point.ReadPair.Emulator.P50, r.Point.ReadPair.Floor.P50
		p.NotMeasured, p.Value, p.Measured = "", e-f, fmt.Sprintf("emulator %.3f ms, floor %.3f ms", e, f)
	}
	rows = append(rows, p)
	s := row("suite cycle vs the baseline build, --ephemeral", targetCycleSpeedup, true)
	switch {
	case r.Containers == nil:
		s.NotMeasured = "the containers scenario did not run"
	case r.Containers.Versus == nil:
		s.NotMeasured = "needs -baseline-bin (make bench BASELINE=rev builds one)"
	default:
		v := r.Containers.Versus
		s.Value, s.Measured = v.Speedup, fmt.Sprintf("p50 baseline %.1f ms, this build %.1f ms", v.Baseline.P50, v.Current.P50)
	}
	rows = append(rows, s)
	bt := row("transactional batch of 100 creates vs 100 sequential creates", targetBatchSpeedup, true)
	bt.NotMeasured = "the batch scenario did not run"
	if b := r.Batch; b != nil && b.Batch.Ops > 0 && b.Single.Ops > 0 {
		bt.NotMeasured, bt.Value = "", ratio(100*b.Single.P50, b.Batch.P50)
		bt.Measured = fmt.Sprintf("batch p50 %.2f ms, 100 x single create p50 %.3f ms = %.1f ms", b.Batch.P50, b.Single.P50, 100*b.Single.P50)
	}
	peer := row("transactional batch of 100 creates vs the in-memory peer's (cosmium)", 1, true)
	peer.NotMeasured = "the peer cannot be fetched here: the Go module proxy refuses github.com/pikami/cosmium (403)"
	rows = append(rows, bt, peer)
	for i := range rows {
		rows[i].Status = rows[i].status()
	}
	return rows
}

// writeTargets writes the Targets section.
func writeTargets(w io.Writer, rows []targetRow) {
	fmt.Fprintln(w, "\nTargets (figures of this run; a miss does not fail the run)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tlimit\tvalue\tstatus\tmeasured\t")
	for _, t := range rows {
		value, measured := fmt.Sprintf("%.2fx", t.Value), t.Measured
		if t.Unit == "ms" {
			value = fmt.Sprintf("%.3f ms", t.Value)
		}
		if t.NotMeasured != "" {
			value, measured = "-", t.NotMeasured
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", t.Name, t.Target, value, t.Status, measured)
	}
	tw.Flush()
}
