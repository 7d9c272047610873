package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The durability scenario (-scenario durability) measures what each
// durability level of the managed cluster costs a write: three emulator
// processes run at once, each on its own data directory and cluster,
// started with --durability full, process and none. Through the Go SDK,
// one client (one connection) each, a create of a -size item runs -warmup
// unmeasured then -n measured times on each emulator, the emulators
// alternating create by create (the order rotates every create), so that
// drift in the machine's speed hits the three alike. It reports p50/p99 of
// each level and the ratios of the p50s, with the target "create p50 in
// process mode within 1.2x of none" (process keeps every acknowledged
// write through any process crash; none may lose the last ~0.6 s).
// It needs the managed cluster: with -pg it is skipped (the levels do not
// apply to an external server).

// durabilityLevels are the levels measured, strongest first.
var durabilityLevels = []string{"full", "process", "none"}

// durabilityTarget is the largest p50 ratio process/none that meets the
// target.
const durabilityTarget = 1.2

// durabilityResult is the durability scenario's results.
type durabilityResult struct {
	Runs   int `json:"runs"`
	Warmup int `json:"warmup"`
	// Levels holds one entry per level of durabilityLevels, in order.
	Levels []durabilityLevelRes `json:"levels"`
	// ProcessOverNone and FullOverNone are p50 ratios.
	ProcessOverNone float64 `json:"create_p50_process_over_none"`
	FullOverNone    float64 `json:"create_p50_full_over_none"`
	Met             bool    `json:"target_met"`
	// Skipped says why the scenario did not run (with -pg).
	Skipped string `json:"skipped,omitempty"`
}

// durabilityLevelRes is one level's create latencies.
type durabilityLevelRes struct {
	Level  string       `json:"level"`
	Create latencyStats `json:"create"`
}

// durabilityEmulator is one emulator of the scenario.
type durabilityEmulator struct {
	level string
	emu   *emulatorProcess
	hc    *http.Client
	db    *azcosmos.DatabaseClient
	c     *azcosmos.ContainerClient
	lat   []time.Duration
}

// runDurability runs the durability scenario.
func (b *bench) runDurability(ctx context.Context, res *durabilityResult) (err error) {
	logf := b.logf
	*res = durabilityResult{Runs: b.cfg.n, Warmup: b.cfg.warmup}
	if b.cfg.pg != "" {
		res.Skipped = "the levels apply to the managed cluster; an external server (-pg) keeps its own settings"
		logf("durability: skipped: %s", res.Skipped)
		return nil
	}
	var emus []*durabilityEmulator
	defer func() {
		for _, e := range emus {
			if e.db != nil {
				if _, derr := e.db.Delete(context.Background(), nil); derr != nil && err == nil {
					err = fmt.Errorf("deleting the benchmark database: %w", derr)
				}
			}
			if e.hc != nil {
				e.hc.CloseIdleConnections()
			}
			e.emu.stop()
		}
	}()
	for _, level := range durabilityLevels {
		logf("durability: starting the emulator with --durability %s", level)
		emu, err := b.start(ctx, filepath.Join(b.workDir, "durability-"+level), "durability-"+level+"-emulator.log", "--durability", level)
		if err != nil {
			return fmt.Errorf("--durability %s: %w", level, err)
		}
		e := &durabilityEmulator{level: level, emu: emu}
		emus = append(emus, e)
		var client *azcosmos.Client
		if client, e.hc, err = newSDKClient(emu.url); err != nil {
			return err
		}
		dbID := newDatabaseID()
		if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
			return fmt.Errorf("--durability %s: creating database: %w", level, err)
		}
		if e.db, err = client.NewDatabase(dbID); err != nil {
			return err
		}
		props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
		if _, err := e.db.CreateContainer(ctx, props, nil); err != nil {
			return fmt.Errorf("--durability %s: creating container: %w", level, err)
		}
		if e.c, err = e.db.NewContainer("c"); err != nil {
			return err
		}
	}
	logf("durability: %d + %d creates on each level, alternating", b.cfg.warmup, b.cfg.n)
	var elapsed time.Duration
	for i := range b.cfg.warmup + b.cfg.n {
		for k := range emus {
			e := emus[(i+k)%len(emus)] // rotate who goes first
			id, pk := fmt.Sprintf("item-%07d", i), fmt.Sprintf("p%d", i%100)
			body := document(id, pk, 0, b.cfg.itemSize)
			t := time.Now()
			if _, err := e.c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), body, nil); err != nil {
				return fmt.Errorf("--durability %s: create %s: %w", e.level, id, err)
			}
			if d := time.Since(t); i >= b.cfg.warmup {
				e.lat = append(e.lat, d)
				elapsed += d
			}
		}
	}
	for _, e := range emus {
		r := durabilityLevelRes{Level: e.level, Create: newLatencyStats(e.lat, elapsed/time.Duration(len(emus)))}
		res.Levels = append(res.Levels, r)
		logf("durability: %s: create p50 %.3f ms, p99 %.3f ms", e.level, r.Create.P50, r.Create.P99)
	}
	full, process, none := res.Levels[0].Create.P50, res.Levels[1].Create.P50, res.Levels[2].Create.P50
	res.ProcessOverNone, res.FullOverNone = ratio(process, none), ratio(full, none)
	res.Met = res.ProcessOverNone > 0 && res.ProcessOverNone <= durabilityTarget
	return nil
}

// writeDurabilityReport writes the durability scenario's table and target.
func writeDurabilityReport(w io.Writer, r *durabilityResult) {
	if r.Skipped != "" {
		fmt.Fprintf(w, "\ndurability: skipped: %s\n", r.Skipped)
		return
	}
	if len(r.Levels) != len(durabilityLevels) {
		return
	}
	fmt.Fprintf(w, "\ndurability: SDK create, 1 client, one emulator per --durability level (%d creates each after %d warm-up, alternating)\n", r.Runs, r.Warmup)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "level\tp50\tp99\tp50 / none")
	for _, l := range r.Levels {
		fmt.Fprintf(tw, "%s\t%.3f ms\t%.3f ms\t%.2fx\n", l.Level, l.Create.P50, l.Create.P99, ratio(l.Create.P50, r.Levels[2].Create.P50))
	}
	tw.Flush()
	fmt.Fprintf(w, "create p50 process/none: %.2fx (target at most %.1fx: %s); full/none: %.2fx\n",
		r.ProcessOverNone, durabilityTarget, verdict(r.Met), r.FullOverNone)
}
