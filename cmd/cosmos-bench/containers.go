package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The containers scenario (-scenario containers) measures, through the Go
// SDK: container create and delete; a churn of -churn containers with the
// catalog and data directory before and once the background cleanup has
// settled, and the ready time before and after; the suite cycle (suiteCycle)
// by step; with -baseline-bin, the suite cycle on that build and on -bin,
// both --ephemeral, alternating (the Targets row).

// containersConfig configures the containers scenario.
type containersConfig struct {
	n           int    // timed container creates and deletes
	churn       int    // containers created and dropped in the churn
	cycles      int    // suite cycles
	baselineBin string // an earlier build to compare the suite cycle with, "" for none
}

// containersResult is what the containers scenario measured.
type containersResult struct {
	Create       latencyStats `json:"container_create"`
	Delete       latencyStats `json:"container_delete"`
	Churn        int          `json:"churn_containers"`
	ChurnSeconds float64      `json:"churn_seconds"`
	// Before and Settled are the catalog before the churn and once the
	// background work after it settled.
	Before  catalogState `json:"before_churn"`
	Settled catalogState `json:"settled_after_churn"`
	// ReadyBefore and ReadyAfter are the ready times (existing cluster)
	// before and after the churn, in seconds.
	ReadyBefore float64          `json:"ready_before_churn"`
	ReadyAfter  float64          `json:"ready_after_churn"`
	Cycle       latencyStats     `json:"suite_cycle"`
	CycleSteps  []cycleStepStats `json:"suite_cycle_steps"`
	// Versus is the suite cycle against the baseline build (-baseline-bin),
	// nil without it.
	Versus *cycleVersus `json:"suite_cycle_vs_baseline,omitempty"`
}

// cycleVersus is the suite cycle on the baseline binary and on -bin, both
// --ephemeral, alternating; Speedup is Baseline.P50 / Current.P50.
type cycleVersus struct {
	Baseline latencyStats `json:"baseline"`
	Current  latencyStats `json:"current"`
	Speedup  float64      `json:"speedup_p50"`
}

// cycleStepStats is one step of the suite cycle over all measured cycles:
// its time per cycle and its HTTP requests per cycle.
type cycleStepStats struct {
	Step     string       `json:"step"`
	Stats    latencyStats `json:"time"`
	Requests float64      `json:"requests_per_cycle"`
}

// catalogState is the size of PostgreSQL's catalog and data directory.
type catalogState struct {
	PGClassRows int64   `json:"pg_class_rows"`
	DataMB      float64 `json:"data_dir_mb_without_wal"`
}

// runContainers runs the containers scenario on a fresh emulator.
func (b *bench) runContainers(ctx context.Context, r *results) (err error) {
	res := &containersResult{}
	r.Containers = res
	cfg := b.cfg.containers
	dataDir := filepath.Join(b.workDir, "cont")
	emu, err := b.start(ctx, dataDir, "emulator-containers-1.log")
	if err != nil {
		return err
	}
	emu.stop()
	if emu, err = b.start(ctx, dataDir, "emulator-containers-2.log"); err != nil {
		return err
	}
	res.ReadyBefore = emu.ready.Seconds()
	defer func() { emu.stop() }()
	client, _, err := newSDKClient(emu.url)
	if err != nil {
		return err
	}
	dbID := newDatabaseID()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
		return fmt.Errorf("creating database: %w", err)
	}
	db, err := client.NewDatabase(dbID)
	if err != nil {
		return err
	}
	createDelete := func(id string) (c, d time.Duration, err error) {
		t0 := time.Now()
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			return 0, 0, fmt.Errorf("creating container %s: %w", id, err)
		}
		c = time.Since(t0)
		cc, _ := db.NewContainer(id)
		t0 = time.Now()
		if _, err := cc.Delete(ctx, nil); err != nil {
			return 0, 0, fmt.Errorf("deleting container %s: %w", id, err)
		}
		return c, time.Since(t0), nil
	}
	b.logf("containers: %d timed container creates and deletes", cfg.n)
	var creates, deletes []time.Duration
	for i := range 10 + cfg.n { // 10 of warm-up
		c, d, err := createDelete(fmt.Sprintf("t%d", i))
		if err != nil {
			return err
		}
		if i >= 10 {
			creates, deletes = append(creates, c), append(deletes, d)
		}
	}
	res.Create, res.Delete = newLatencyStats(creates, 0), newLatencyStats(deletes, 0)
	if cfg.churn > 0 {
		pool, err := b.connectPG(ctx, dataDir)
		if err != nil {
			return err
		}
		defer pool.Close()
		pgdata := filepath.Join(dataDir, "postgres", "pgdata")
		measure := func(s *catalogState) error { // once settled: spares made, tables dropped
			if err := waitSettled(ctx, pool); err != nil {
				return err
			}
			*s, err = measureCatalog(ctx, pool, pgdata)
			return err
		}
		if err := measure(&res.Before); err != nil {
			return err
		}
		b.logf("containers: churn of %d containers", cfg.churn)
		res.Churn = cfg.churn
		t0 := time.Now()
		for i := range cfg.churn {
			if _, _, err := createDelete(fmt.Sprintf("churn%d", i)); err != nil {
				return err
			}
		}
		res.ChurnSeconds = time.Since(t0).Seconds()
		if _, err := db.Delete(ctx, nil); err != nil {
			return fmt.Errorf("deleting database: %w", err)
		}
		if err := measure(&res.Settled); err != nil {
			return err
		}
		pool.Close()
		emu.stop()
		if emu, err = b.start(ctx, dataDir, "emulator-containers-3.log"); err != nil {
			return err
		}
		res.ReadyAfter = emu.ready.Seconds()
	}
	if err := b.runCycles(ctx, emu.url, res); err != nil || cfg.baselineBin == "" {
		return err
	}
	emu.stop() // idle, but it holds memory and a PostgreSQL
	return b.runCycleVersus(ctx, res)
}

// runCycles runs the suite cycles (-cycles, after one unmeasured) against
// the emulator at url into res.
func (b *bench) runCycles(ctx context.Context, url string, res *containersResult) error {
	n := b.cfg.containers.cycles
	b.logf("containers: %d suite cycles", n)
	client, _, err := newSDKClient(url)
	if err != nil {
		return err
	}
	var cycles []time.Duration
	stepTimes := make([][]time.Duration, len(cycleSteps))
	stepRequests := make([]int, len(cycleSteps))
	for i := range n + 1 {
		s := time.Now()
		steps, err := suiteCycle(ctx, client, fmt.Sprintf("cycle%d", i))
		if err != nil {
			return err
		}
		if i == 0 {
			continue // warm-up
		}
		cycles = append(cycles, time.Since(s))
		for j, st := range steps {
			stepTimes[j] = append(stepTimes[j], st.Time)
			stepRequests[j] += st.Requests
		}
	}
	res.Cycle = newLatencyStats(cycles, 0)
	for j, name := range cycleSteps {
		res.CycleSteps = append(res.CycleSteps, cycleStepStats{Step: name, Stats: newLatencyStats(stepTimes[j], 0), Requests: float64(stepRequests[j]) / float64(n)})
	}
	return nil
}

// runCycleVersus runs the suite cycle alternately (alternate) on the
// baseline binary (-baseline-bin) and on -bin, each started with
// --ephemeral (-bin also gets -emulator-args, which an older build may not
// know), one warm-up cycle each, then -cycles on each.
func (b *bench) runCycleVersus(ctx context.Context, res *containersResult) error {
	baseline, err := filepath.Abs(b.cfg.containers.baselineBin)
	if err != nil {
		return err
	}
	b.logf("containers: suite cycles on %s and on %s, alternating", baseline, b.bin)
	var clients [2]*azcosmos.Client
	for i, bin := range []string{baseline, b.bin} {
		addr, err := freeAddr()
		if err != nil {
			return err
		}
		args := []string{"--ephemeral", "--addr", addr}
		if i == 1 {
			args = append(args, b.cfg.emulatorArgs...)
		}
		emu, err := startEmulator(ctx, bin, args, filepath.Join(b.workDir, fmt.Sprintf("emulator-cycle-%d.log", i)), b.cfg.readyTimeout)
		if err != nil {
			return fmt.Errorf("%s: %w", bin, err)
		}
		defer emu.stop()
		if clients[i], _, err = newSDKClient(emu.url); err != nil {
			return err
		}
	}
	lat, err := alternate(1, b.cfg.containers.cycles, func(side, i int) error {
		_, err := suiteCycle(ctx, clients[side], fmt.Sprintf("vs%d", i))
		return err
	}, 2)
	if err != nil {
		return err
	}
	v := &cycleVersus{Baseline: newLatencyStats(lat[0], 0), Current: newLatencyStats(lat[1], 0)}
	v.Speedup = ratio(v.Baseline.P50, v.Current.P50)
	res.Versus = v
	return nil
}

// cycleSteps are the steps of suiteCycle, in order.
var cycleSteps = [...]string{"create database", "create container", "create 100 items", "10 queries", "delete database"}

// cycleStep is what one step of suiteCycle cost in one cycle: its wall
// time and the HTTP requests the SDK sent for it.
type cycleStep struct {
	Time     time.Duration
	Requests int
}

// suiteCycle is a test suite's typical cycle: create a database and a
// container, create 100 items over 10 partition keys, run 10
// single-partition queries (one per key, each returning 10 items), delete
// the database. It returns each step's cost (see cycleSteps).
func suiteCycle(ctx context.Context, client *azcosmos.Client, prefix string) ([len(cycleSteps)]cycleStep, error) {
	var steps [len(cycleSteps)]cycleStep
	dbID := prefix + "-" + newDatabaseID()
	db, _ := client.NewDatabase(dbID)
	c, _ := db.NewContainer("c")
	do := []func(ctx context.Context) error{
		func(ctx context.Context) error {
			_, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil)
			return err
		},
		func(ctx context.Context) error {
			_, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
			return err
		},
		func(ctx context.Context) error {
			for i := range 100 {
				pk := fmt.Sprintf("p%d", i%10)
				body := fmt.Sprintf(`{"id":"i%d","pk":%q,"n":%d,"name":"item %d"}`, i, pk, i, i)
				if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(body), nil); err != nil {
					return fmt.Errorf("item %d: %w", i, err)
				}
			}
			return nil
		},
		func(ctx context.Context) error {
			for i := range 10 {
				pk := fmt.Sprintf("p%d", i)
				docs, _, err := sdkQuery(ctx, c, "SELECT * FROM c WHERE c.pk = @pk", azcosmos.NewPartitionKeyString(pk), []azcosmos.QueryParameter{{Name: "@pk", Value: pk}})
				if err == nil && len(docs) != 10 {
					err = fmt.Errorf("query of %s returned %d items, want 10", pk, len(docs))
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
		func(ctx context.Context) error {
			_, err := db.Delete(ctx, nil)
			return err
		},
	}
	for i, f := range do {
		d, n, err := counted(ctx, f)
		if err != nil {
			return steps, fmt.Errorf("suite cycle: %s: %w", cycleSteps[i], err)
		}
		steps[i] = cycleStep{Time: d, Requests: n}
	}
	return steps, nil
}

// waitSettled waits, at most 20 s, until the emulator has dropped the
// deleted containers' tables (cosmos.dropped_tables empty) and then
// vacuumed pg_class, as it does a moment after its last drop.
func waitSettled(ctx context.Context, pool *pgxpool.Pool) error {
	var emptied time.Time
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		var queued int64
		var vacuumed *time.Time
		err := pool.QueryRow(ctx, `SELECT (SELECT last_vacuum FROM pg_stat_sys_tables WHERE relname = 'pg_class')`).Scan(&vacuumed)
		if err == nil {
			err = pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.dropped_tables`).Scan(&queued)
		}
		if err != nil {
			return fmt.Errorf("waiting for the cleanup: %w", err)
		}
		switch {
		case queued > 0:
			emptied = time.Time{}
		case emptied.IsZero():
			emptied = time.Now()
		case vacuumed != nil && vacuumed.After(emptied):
			return nil
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// measureCatalog reads the catalog's size through pool and, when pgdata is
// not empty, the data directory's without pg_wal.
func measureCatalog(ctx context.Context, pool *pgxpool.Pool, pgdata string) (catalogState, error) {
	s := catalogState{DataMB: -1}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_class`).Scan(&s.PGClassRows); err != nil {
		return s, fmt.Errorf("catalog: %w", err)
	}
	if pgdata != "" {
		var n int64
		_ = filepath.WalkDir(pgdata, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == "pg_wal" {
				return filepath.SkipDir
			}
			if fi, ierr := d.Info(); err == nil && ierr == nil && d.Type().IsRegular() {
				n += fi.Size()
			}
			return nil // files come and go under a running server
		})
		s.DataMB = float64(n) / (1 << 20)
	}
	return s, nil
}

// writeContainersReport writes the containers scenario's tables.
func writeContainersReport(w io.Writer, r *containersResult) {
	fmt.Fprintln(w, "\nContainers (Go SDK, one client; ms)    p50      p90      p99")
	for _, l := range []struct {
		name string
		s    latencyStats
	}{{"container create (target p50 < 5 ms)", r.Create}, {"container delete (target p50 < 5 ms)", r.Delete}, {"suite cycle", r.Cycle}} {
		fmt.Fprintf(w, "  %-38s %7.2f  %7.2f  %7.2f\n", l.name, l.s.P50, l.s.P90, l.s.P99)
	}
	if v := r.Versus; v != nil {
		fmt.Fprintf(w, "suite cycle, both --ephemeral, alternating: baseline p50 %.1f ms, this build %.1f ms: %.2fx faster\n", v.Baseline.P50, v.Current.P50, v.Speedup)
	}
	fmt.Fprintln(w, "suite cycle by step (p50 ms, HTTP requests per cycle):")
	for _, st := range r.CycleSteps {
		fmt.Fprintf(w, "  %-18s %7.1f  %5.1f\n", st.Step, st.Stats.P50, st.Requests)
	}
	if r.Churn > 0 {
		fmt.Fprintf(w, "churn of %d containers in %.1f s: pg_class rows %d before, %d settled after (%s); data directory without pg_wal %.1f / %.1f MB; ready %.2f / %.2f s\n",
			r.Churn, r.ChurnSeconds, r.Before.PGClassRows, r.Settled.PGClassRows, verdict(r.Settled.PGClassRows <= r.Before.PGClassRows),
			r.Before.DataMB, r.Settled.DataMB, r.ReadyBefore, r.ReadyAfter)
	}
}
