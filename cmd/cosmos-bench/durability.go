package main

import (
	"context"
	"fmt"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The durability scenario (-scenario durability) starts one emulator per
// --durability level and times -n creates through the Go SDK on each,
// alternating. Target: a create's p50 at process at most 1.2x at none.

// durabilityLevels are the levels, in report order.
var durabilityLevels = []string{"full", "process", "none"}

// durabilityTarget bounds p50(process) / p50(none).
const durabilityTarget = 1.2

// durabilityResult is the durability scenario's results.
type durabilityResult struct {
	Runs            int                  `json:"runs"`
	Warmup          int                  `json:"warmup"`
	Levels          []durabilityLevelRes `json:"levels"`
	ProcessOverNone float64              `json:"create_p50_process_over_none"`
	FullOverNone    float64              `json:"create_p50_full_over_none"`
	Met             bool                 `json:"target_met"`
}

// durabilityLevelRes is one level's creates.
type durabilityLevelRes struct {
	Level  string       `json:"level"`
	Create latencyStats `json:"create"`
}

// runDurability runs the durability scenario.
func (b *bench) runDurability(ctx context.Context, r *results) (err error) {
	res := &durabilityResult{}
	r.Durability = res
	*res = durabilityResult{Runs: b.cfg.n, Warmup: b.cfg.warmup}
	var cs []*azcosmos.ContainerClient
	for _, level := range durabilityLevels {
		run, serr := b.startSDKRun(ctx, "durability-"+level, "--durability", level)
		if serr != nil {
			return fmt.Errorf("--durability %s: %w", level, serr)
		}
		defer run.close()
		c, _, serr := run.createContainer(ctx, "c", nil)
		if serr != nil {
			return serr
		}
		cs = append(cs, c)
	}
	b.logf("durability: %d + %d creates on each level, alternating", b.cfg.warmup, b.cfg.n)
	lat, err := alternate(b.cfg.warmup, b.cfg.n, func(side, i int) error {
		id, pk := fmt.Sprintf("item-%07d", i), fmt.Sprintf("p%d", i%100)
		_, err := cs[side].CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), document(id, pk, 0, b.cfg.itemSize), nil)
		return err
	}, len(cs))
	if err != nil {
		return err
	}
	for j, level := range durabilityLevels {
		res.Levels = append(res.Levels, durabilityLevelRes{Level: level, Create: newLatencyStats(lat[j], 0)})
	}
	full, process, none := res.Levels[0].Create.P50, res.Levels[1].Create.P50, res.Levels[2].Create.P50
	res.ProcessOverNone, res.FullOverNone = ratio(process, none), ratio(full, none)
	res.Met = res.ProcessOverNone > 0 && res.ProcessOverNone <= durabilityTarget
	return nil
}

// writeDurabilityReport writes the durability scenario's table and target.
func writeDurabilityReport(w io.Writer, r *durabilityResult) {
	if len(r.Levels) != len(durabilityLevels) {
		return
	}
	fmt.Fprintf(w, "\ndurability: SDK create, 1 client, one emulator per --durability level (%d creates each after %d warm-up, alternating)\n", r.Runs, r.Warmup)
	for _, l := range r.Levels {
		fmt.Fprintf(w, "  %-8s %.3f ms  p99 %.3f ms  %.2fx\n", l.Level, l.Create.P50, l.Create.P99, ratio(l.Create.P50, r.Levels[2].Create.P50))
	}
	fmt.Fprintf(w, "create p50 process/none: %.2fx (target at most %.1fx: %s); full/none: %.2fx\n", r.ProcessOverNone, durabilityTarget, verdict(r.Met), r.FullOverNone)
}
