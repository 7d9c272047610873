package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The containers scenario (-scenario containers) measures what test suites
// do around their data, through the official Go SDK:
//
//   - container create and delete, each timed, -containers-n times (a
//     suite creates one container per test);
//   - a churn of -churn containers created and deleted one after another,
//     with PostgreSQL's catalog (pg_class rows and the size of pg_class)
//     and data directory (without pg_wal, and pg_wal apart) measured before,
//     right after, and once the emulator's background work has settled
//     (the deleted containers' tables dropped and the catalogs vacuumed:
//     waitSettled), and the emulator's ready time on the same data
//     directory before and after;
//   - the typical suite cycle: create a database, a container, 100 items,
//     run 10 single-partition queries, delete the database, -cycles times,
//     total time each;
//   - with -baseline-bin, the suite cycle on two emulators started side by
//     side in the default mode of emulatortest (--ephemeral, nothing else):
//     the baseline binary and -bin, one cycle on each in turn (the order
//     swapped every round, so that neither always runs first), -cycles
//     rounds; the ratio of the p50s is the Targets row "suite cycle vs
//     the baseline build".

// containersConfig configures the containers scenario.
type containersConfig struct {
	n           int    // timed container creates and deletes
	churn       int    // containers created and dropped in the churn
	cycles      int    // suite cycles
	baselineBin string // an earlier build to compare the suite cycle with, "" for none
}

// containersResult is what the containers scenario measured.
type containersResult struct {
	Create latencyStats `json:"container_create"`
	Delete latencyStats `json:"container_delete"`
	Churn  int          `json:"churn_containers"`
	// ChurnSeconds is the wall time of the churn.
	ChurnSeconds float64      `json:"churn_seconds"`
	Before       catalogState `json:"before_churn"`
	After        catalogState `json:"after_churn"`
	// Settled is the state once the background work after the churn
	// settled, SettleSeconds after the churn's end.
	Settled       catalogState `json:"settled_after_churn"`
	SettleSeconds float64      `json:"settle_seconds"`
	// ReadyBefore and ReadyAfter are the ready times (existing cluster)
	// before and after the churn, in seconds.
	ReadyBefore float64      `json:"ready_before_churn"`
	ReadyAfter  float64      `json:"ready_after_churn"`
	Cycle       latencyStats `json:"suite_cycle"`
	// CycleSteps breaks the cycle down by step (cycleSteps).
	CycleSteps []cycleStepStats `json:"suite_cycle_steps"`
	// Versus is the suite cycle against the baseline build (-baseline-bin),
	// nil without it.
	Versus *cycleVersus `json:"suite_cycle_vs_baseline,omitempty"`
}

// cycleVersus is the suite cycle on the baseline binary and on -bin, both
// --ephemeral, alternating.
type cycleVersus struct {
	BaselineBin string       `json:"baseline_binary"`
	Baseline    latencyStats `json:"baseline"`
	Current     latencyStats `json:"current"`
	// Speedup is Baseline.P50 / Current.P50.
	Speedup float64 `json:"speedup_p50"`
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
	PGClassRows  int64   `json:"pg_class_rows"`
	PGClassBytes int64   `json:"pg_class_bytes"`
	Tables       int64   `json:"user_tables"`
	DataMB       float64 `json:"data_dir_mb_without_wal"` // -1: external PostgreSQL
	WALMB        float64 `json:"pg_wal_mb"`
}

// runContainers runs the containers scenario on a fresh emulator.
func (b *bench) runContainers(ctx context.Context, res *containersResult) (err error) {
	cfg := b.cfg
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

	client, _, err := newSDKClient(emu.url, 1, cfg.http1)
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
	props := func(id string) azcosmos.ContainerProperties {
		return azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	}
	createDelete := func(id string) (c, d time.Duration, err error) {
		t0 := time.Now()
		if _, err := db.CreateContainer(ctx, props(id), nil); err != nil {
			return 0, 0, fmt.Errorf("creating container %s: %w", id, err)
		}
		c = time.Since(t0)
		cc, err := db.NewContainer(id)
		if err != nil {
			return 0, 0, err
		}
		t0 = time.Now()
		if _, err := cc.Delete(ctx, nil); err != nil {
			return 0, 0, fmt.Errorf("deleting container %s: %w", id, err)
		}
		return c, time.Since(t0), nil
	}

	b.logf("containers: %d timed container creates and deletes", cfg.containers.n)
	for i := range 10 { // warm-up
		if _, _, err := createDelete(fmt.Sprintf("w%d", i)); err != nil {
			return err
		}
	}
	var creates, deletes []time.Duration
	t0 := time.Now()
	for i := range cfg.containers.n {
		c, d, err := createDelete(fmt.Sprintf("t%d", i))
		if err != nil {
			return err
		}
		creates, deletes = append(creates, c), append(deletes, d)
	}
	el := time.Since(t0)
	res.Create, res.Delete = newLatencyStats(creates, el), newLatencyStats(deletes, el)

	if cfg.containers.churn == 0 { // no churn: straight to the cycles
		return b.cyclesAndVersus(ctx, emu, res)
	}
	pgConn, err := b.pgConnString(dataDir)
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, pgConn)
	if err != nil {
		return fmt.Errorf("pgx: %w", err)
	}
	defer pool.Close()
	pgdata := ""
	if cfg.pg == "" {
		pgdata = filepath.Join(dataDir, "postgres", "pgdata")
	}
	if err := waitSettled(ctx, pool); err != nil { // the same state as after: spares made, tables dropped
		return err
	}
	if res.Before, err = measureCatalog(ctx, pool, pgdata); err != nil {
		return err
	}
	b.logf("containers: churn of %d containers", cfg.containers.churn)
	res.Churn = cfg.containers.churn
	t0 = time.Now()
	for i := range cfg.containers.churn {
		if _, _, err := createDelete(fmt.Sprintf("churn%d", i)); err != nil {
			return err
		}
	}
	res.ChurnSeconds = time.Since(t0).Seconds()
	if _, err := db.Delete(ctx, nil); err != nil {
		return fmt.Errorf("deleting database: %w", err)
	}
	churnEnd := time.Now()
	if res.After, err = measureCatalog(ctx, pool, pgdata); err != nil {
		return err
	}
	b.logf("containers: waiting for the background cleanup after the churn")
	if err := waitSettled(ctx, pool); err != nil {
		return err
	}
	res.SettleSeconds = time.Since(churnEnd).Seconds()
	if res.Settled, err = measureCatalog(ctx, pool, pgdata); err != nil {
		return err
	}
	pool.Close()
	emu.stop()
	if emu, err = b.start(ctx, dataDir, "emulator-containers-3.log"); err != nil {
		return err
	}
	res.ReadyAfter = emu.ready.Seconds()
	return b.cyclesAndVersus(ctx, emu, res)
}

// cyclesAndVersus runs the suite cycles on emu, then stops it and, with
// -baseline-bin, compares the cycle with the baseline build's.
func (b *bench) cyclesAndVersus(ctx context.Context, emu *emulatorProcess, res *containersResult) error {
	if err := b.runCycles(ctx, emu.url, res); err != nil {
		return err
	}
	if b.cfg.containers.baselineBin == "" {
		return nil
	}
	emu.stop() // idle, but it holds memory and a PostgreSQL
	return b.runCycleVersus(ctx, res)
}

// runCycles runs the suite cycles (-cycles, after one unmeasured) against
// the emulator at url into res.
func (b *bench) runCycles(ctx context.Context, url string, res *containersResult) error {
	cfg := b.cfg
	b.logf("containers: %d suite cycles", cfg.containers.cycles)
	client, _, err := newSDKClient(url, 1, cfg.http1)
	if err != nil {
		return err
	}
	if _, err := suiteCycle(ctx, client, "warm"); err != nil {
		return err
	}
	var cycles []time.Duration
	stepTimes := make([][]time.Duration, len(cycleSteps))
	stepRequests := make([]int, len(cycleSteps))
	t0 := time.Now()
	for i := range cfg.containers.cycles {
		s := time.Now()
		steps, err := suiteCycle(ctx, client, fmt.Sprintf("cycle%d", i))
		if err != nil {
			return err
		}
		cycles = append(cycles, time.Since(s))
		for j, st := range steps {
			stepTimes[j] = append(stepTimes[j], st.Time)
			stepRequests[j] += st.Requests
		}
	}
	res.Cycle = newLatencyStats(cycles, time.Since(t0))
	for j, name := range cycleSteps {
		res.CycleSteps = append(res.CycleSteps, cycleStepStats{Step: name, Stats: newLatencyStats(stepTimes[j], 0),
			Requests: float64(stepRequests[j]) / float64(cfg.containers.cycles)})
	}
	return nil
}

// runCycleVersus runs the suite cycle alternately on the baseline binary
// (-baseline-bin) and on -bin, each started with --ephemeral (the mode of
// emulatortest; -bin also gets -emulator-args, which an older build may
// not know), one warm-up cycle each, then -cycles rounds of one cycle on
// each, the first of a round alternating between them.
func (b *bench) runCycleVersus(ctx context.Context, res *containersResult) error {
	cfg := b.cfg
	baseline, err := filepath.Abs(cfg.containers.baselineBin)
	if err != nil {
		return err
	}
	start := func(bin, log string, extra []string) (*emulatorProcess, error) {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		args := append([]string{"--ephemeral", "--addr", addr}, extra...)
		return startEmulator(ctx, bin, args, filepath.Join(b.workDir, log), b.emuLog, cfg.readyTimeout)
	}
	b.logf("containers: %d suite cycles on %s and on %s, alternating", cfg.containers.cycles, baseline, b.bin)
	type side struct {
		emu    *emulatorProcess
		client *azcosmos.Client
		lat    []time.Duration
	}
	var sides [2]*side // 0: baseline, 1: current
	for i, bin := range []string{baseline, b.bin} {
		var extra []string
		if i == 1 {
			extra = cfg.emulatorArgs
		}
		emu, err := start(bin, fmt.Sprintf("emulator-cycle-%d.log", i), extra)
		if err != nil {
			return fmt.Errorf("%s: %w", bin, err)
		}
		defer emu.stop()
		client, _, err := newSDKClient(emu.url, 1, cfg.http1)
		if err != nil {
			return err
		}
		if _, err := suiteCycle(ctx, client, "warm"); err != nil {
			return fmt.Errorf("%s: %w", bin, err)
		}
		sides[i] = &side{emu: emu, client: client}
	}
	t0 := time.Now()
	for r := range cfg.containers.cycles {
		for k := range 2 {
			sd := sides[(r+k)%2]
			s := time.Now()
			if _, err := suiteCycle(ctx, sd.client, fmt.Sprintf("vs%d", r)); err != nil {
				return err
			}
			sd.lat = append(sd.lat, time.Since(s))
		}
	}
	el := time.Since(t0)
	v := &cycleVersus{BaselineBin: baseline, Baseline: newLatencyStats(sides[0].lat, el), Current: newLatencyStats(sides[1].lat, el)}
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
	db, err := client.NewDatabase(dbID)
	if err != nil {
		return steps, err
	}
	c, err := db.NewContainer("c")
	if err != nil {
		return steps, err
	}
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
				if err != nil {
					return err
				}
				if len(docs) != 10 {
					return fmt.Errorf("query of %s returned %d items, want 10", pk, len(docs))
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

// settleTimeout bounds waitSettled.
const settleTimeout = 20 * time.Second

// waitSettled waits, at most settleTimeout, until the emulator has dropped
// the tables of the deleted containers (cosmos.dropped_tables is empty:
// pgstore drops them in the background) and then vacuumed pg_class (it
// vacuums the catalogs a moment after its last drop). An emulator without
// that work waits out the timeout, leaving autovacuum the same time.
func waitSettled(ctx context.Context, pool *pgxpool.Pool) error {
	deadline := time.Now().Add(settleTimeout)
	var emptied time.Time
	for time.Now().Before(deadline) {
		var queue *string
		var vacuumed *time.Time
		err := pool.QueryRow(ctx, `SELECT to_regclass('cosmos.dropped_tables')::text, (SELECT last_vacuum FROM pg_stat_sys_tables WHERE relname = 'pg_class')`).Scan(&queue, &vacuumed)
		var queued int64
		if err == nil && queue != nil {
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
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// measureCatalog reads the catalog's size through pool and, when pgdata is
// not empty, the data directory's.
func measureCatalog(ctx context.Context, pool *pgxpool.Pool, pgdata string) (catalogState, error) {
	var s catalogState
	err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_class), pg_total_relation_size('pg_class'),
	(SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema'))`).Scan(&s.PGClassRows, &s.PGClassBytes, &s.Tables)
	if err != nil {
		return s, fmt.Errorf("catalog: %w", err)
	}
	s.DataMB, s.WALMB = -1, -1
	if pgdata != "" {
		all := dirBytes(pgdata)
		wal := dirBytes(filepath.Join(pgdata, "pg_wal"))
		s.DataMB, s.WALMB = float64(all-wal)/(1<<20), float64(wal)/(1<<20)
	}
	return s, nil
}

// dirBytes returns the total size of the regular files below dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // files come and go under a running server
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// writeContainersReport writes the containers scenario's tables.
func writeContainersReport(w io.Writer, r *containersResult) {
	fmt.Fprintln(w, "\nContainers scenario (Go SDK, one client; latencies in ms)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\t  count\t    p50\t    p90\t    p99\ttarget\t")
	fmt.Fprintf(tw, "container create\t%7d\t%7.2f\t%7.2f\t%7.2f\tp50 < 5 ms: %s\t\n", r.Create.Ops, r.Create.P50, r.Create.P90, r.Create.P99, verdict(r.Create.P50 < 5))
	fmt.Fprintf(tw, "container delete\t%7d\t%7.2f\t%7.2f\t%7.2f\tp50 < 5 ms: %s\t\n", r.Delete.Ops, r.Delete.P50, r.Delete.P90, r.Delete.P99, verdict(r.Delete.P50 < 5))
	fmt.Fprintf(tw, "suite cycle (db, container, 100 items, 10 queries, delete db)\t%7d\t%7.1f\t%7.1f\t%7.1f\t(mean %.1f ms)\t\n", r.Cycle.Ops, r.Cycle.P50, r.Cycle.P90, r.Cycle.P99, r.Cycle.Mean)
	tw.Flush()
	if v := r.Versus; v != nil {
		fmt.Fprintf(w, "suite cycle, both --ephemeral, alternating: baseline %s p50 %.1f ms (p90 %.1f), this build p50 %.1f ms (p90 %.1f): %.2fx faster\n",
			v.BaselineBin, v.Baseline.P50, v.Baseline.P90, v.Current.P50, v.Current.P90, v.Speedup)
	}
	if len(r.CycleSteps) > 0 {
		fmt.Fprintln(w, "\nSuite cycle by step (per cycle; ms)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "step\t    p50\t    p90\t   mean\trequests\tper request (mean)\t")
		for _, st := range r.CycleSteps {
			per := 0.0
			if st.Requests > 0 {
				per = st.Stats.Mean / st.Requests
			}
			fmt.Fprintf(tw, "%s\t%7.1f\t%7.1f\t%7.1f\t%8.1f\t%7.2f\t\n", st.Step, st.Stats.P50, st.Stats.P90, st.Stats.Mean, st.Requests, per)
		}
		tw.Flush()
	}
	if r.Churn == 0 {
		return
	}
	fmt.Fprintf(w, "\nChurn: %d containers created and deleted in %.1f s\n", r.Churn, r.ChurnSeconds)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tbefore\tafter\tsettled (%.1f s after)\t\n", r.SettleSeconds)
	row := func(name string, f func(catalogState) string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", name, f(r.Before), f(r.After), f(r.Settled))
	}
	row("pg_class rows", func(c catalogState) string { return fmt.Sprint(c.PGClassRows) })
	row("pg_class size (with indexes)", func(c catalogState) string { return kb(c.PGClassBytes) })
	row("user tables", func(c catalogState) string { return fmt.Sprint(c.Tables) })
	if r.Before.DataMB >= 0 {
		row("data directory without pg_wal", func(c catalogState) string { return fmt.Sprintf("%.1f MB", c.DataMB) })
		row("pg_wal", func(c catalogState) string { return fmt.Sprintf("%.1f MB", c.WALMB) })
	}
	fmt.Fprintf(tw, "ready time, existing cluster\t%.2f s\t\t%.2f s\t\n", r.ReadyBefore, r.ReadyAfter)
	tw.Flush()
	var notes []string
	if r.Settled.PGClassRows > r.Before.PGClassRows {
		notes = append(notes, fmt.Sprintf("pg_class grew by %d rows: MISSED", r.Settled.PGClassRows-r.Before.PGClassRows))
	} else {
		notes = append(notes, "pg_class rows: no growth, ok")
	}
	if r.Before.DataMB >= 0 {
		// 1 MB of slack: free-space and visibility maps, statistics.
		grew := r.Settled.DataMB - r.Before.DataMB
		notes = append(notes, fmt.Sprintf("data directory once settled: %+.1f MB (%s)", grew, verdict(grew < 1)))
	}
	fmt.Fprintln(w, strings.Join(notes, "; "))
}

// kb renders a byte count in kB.
func kb(n int64) string { return fmt.Sprintf("%d kB", n/1024) }
