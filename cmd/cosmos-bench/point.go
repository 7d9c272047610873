package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// The point scenario measures the emulator's ready time on a fresh data
// directory and on the same one again, its RSS (PostgreSQL not counted),
// create, read, query by id and replace of a ~1 KB item through the Go SDK
// against raw pgx on the same PostgreSQL, with handler time and CPU per
// operation, GET /_emulator/health, and reads against the replaying proxy
// (readsVsFloor).

// Targets of the point scenario.
const (
	targetFreshReady    = 5.0  // seconds, fresh data directory
	targetExistingReady = 1.0  // seconds, existing cluster
	targetIdleRSS       = 40.0 // MB, emulator process only
)

// pointResult is the point scenario's results.
type pointResult struct {
	ReadyFresh    float64    `json:"ready_fresh_seconds"`
	ReadyExisting float64    `json:"ready_existing_seconds"`
	IdleMB        float64    `json:"idle_rss_mb"`
	AfterMB       float64    `json:"after_benchmark_rss_mb"`
	Ops           []opResult `json:"operations"`
	// Health times GET /_emulator/health over the SDK's connection.
	Health    latencyStats `json:"health"`
	HealthCPU perOpCPU     `json:"health_cpu_ms"`
	// ReadPair is reads through the emulator and the replaying proxy, and
	// FloorHealth health requests through the proxy, alternating (the
	// Targets row "Go SDK point read minus the replay floor");
	// FloorCPUms is the proxy's CPU per request.
	FloorHealth latencyStats `json:"sdk_floor_health"`
	FloorCPUms  float64      `json:"sdk_floor_proxy_cpu_ms"`
	ReadPair    readPair     `json:"point_read_vs_replay_floor"`
	Read        breakdown    `json:"point_read_breakdown"`
	// RawBetween is a raw pgx read of the same items alternating with
	// them: one statement on a PostgreSQL that has been idle as long as
	// between two SDK reads (the Ops rows' raw pgx runs in a tight loop).
	RawBetween latencyStats `json:"raw_pgx_read_between_sdk_reads"`
}

// readPair is one client's point reads of the same items through the
// emulator and through the replaying proxy, alternating one for one.
type readPair struct {
	Emulator latencyStats `json:"emulator"`
	Floor    latencyStats `json:"replay_floor"`
}

// opResult compares one point operation through the emulator and raw.
type opResult struct {
	Op            string       `json:"op"`
	Emulator      latencyStats `json:"emulator_sdk"`
	HandlerMeanMs float64      `json:"emulator_handler_mean_ms"`
	Raw           latencyStats `json:"raw_pgx"`
	CPU           perOpCPU     `json:"cpu_ms_per_op"`
}

// perOpCPU is CPU time per operation in ms, from /proc: the emulator
// process and PostgreSQL (-1 when not measured).
type perOpCPU struct {
	Emulator float64 `json:"emulator"`
	Postgres float64 `json:"postgres"`
}

// runPoint runs the point scenario.
func (b *bench) runPoint(ctx context.Context, r *results) (err error) {
	res := &pointResult{}
	r.Point = res
	cfg, logf := b.cfg, b.logf
	dataDir := filepath.Join(b.workDir, "data")
	logf("starting %s on a fresh data directory", filepath.Base(b.bin))
	first, err := b.start(ctx, dataDir, "emulator-1.log")
	if err != nil {
		return err
	}
	res.ReadyFresh = first.ready.Seconds()
	first.stop()
	run, err := b.startSDKRun(ctx, "data")
	if err != nil {
		return err
	}
	defer run.close()
	emu := run.emu
	res.ReadyExisting = emu.ready.Seconds()
	if res.IdleMB, err = idleRSS(ctx, emu, cfg.idleWait); err != nil {
		return err
	}
	raw, err := newRawBench(ctx, run.pool)
	if err != nil {
		return err
	}
	c, _, err := run.createContainer(ctx, "items", nil)
	if err != nil {
		return err
	}
	sdk := &sdkBench{endpoint: emu.url, http: run.hc, db: run.db, container: c}
	items := newItemSet(cfg.warmup+cfg.n, cfg.itemSize)
	for _, op := range []struct {
		name, metric string
		sdk, raw     opFunc
	}{
		{"create", "Create", sdk.create(items), raw.op(items, rawInsert, false)},
		{"read", "Read", sdk.read(items), raw.op(items, rawSelect, false)},
		{"query", "Query", sdk.query(items), raw.op(items, rawSelect, false)},
		{"replace", "Replace", sdk.replace(items), raw.op(items, rawUpdate, true)},
	} {
		logf("%s: SDK via the emulator, then raw pgx", op.name)
		r := opResult{Op: op.name}
		before, err := docsMetrics(ctx, sdk.http, emu.url)
		if err != nil {
			return err
		}
		cpu0 := emu.cpu()
		if r.Emulator, err = measure(cfg.warmup, cfg.n, func(i int) error { return op.sdk(ctx, i) }); err != nil {
			return fmt.Errorf("%s through the SDK: %w", op.name, err)
		}
		r.CPU = perOp(emu.cpu().since(cpu0), cfg.warmup+cfg.n)
		after, err := docsMetrics(ctx, sdk.http, emu.url)
		if err != nil {
			return err
		}
		r.HandlerMeanMs = after[op.metric].meanMs(before[op.metric])
		if r.Raw, err = measure(cfg.warmup, cfg.n, func(i int) error { return op.raw(ctx, i) }); err != nil {
			return fmt.Errorf("raw %s: %w", op.name, err)
		}
		res.Ops = append(res.Ops, r)
	}
	if res.AfterMB, err = rssMB(emu.pid()); err != nil {
		return err
	}
	logf("HTTP floor: GET /_emulator/health")
	cpu0 := emu.cpu()
	health := sdk.health()
	if res.Health, err = measure(cfg.warmup, cfg.n, func(i int) error { return health(ctx, i) }); err != nil {
		return fmt.Errorf("health requests: %w", err)
	}
	res.HealthCPU = perOp(emu.cpu().since(cpu0), cfg.warmup+cfg.n)
	logf("point reads through the emulator and through a replaying proxy, and health through it, alternating")
	lat, cpuMs, bd, err := readsVsFloor(ctx, sdk, raw.op(items, rawSelect, false), emu.url, sdk.db.ID(), items, cfg.n)
	if err == nil {
		res.ReadPair, res.FloorHealth, res.RawBetween, res.FloorCPUms, res.Read = readPair{lat[0], lat[1]}, lat[2], lat[3], cpuMs, bd
	}
	return err
}

// idleRSS waits d with no traffic and returns the emulator's VmRSS in MB.
func idleRSS(ctx context.Context, e *emulatorProcess, d time.Duration) (float64, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-e.exited:
		return 0, fmt.Errorf("the emulator exited unexpectedly: %v (log: %s)", e.exitErr, e.logPath)
	case <-time.After(d):
	}
	return rssMB(e.pid())
}

// writePointReport writes the point scenario's tables.
func writePointReport(w io.Writer, r *pointResult) {
	fmt.Fprintf(w, "\nready: fresh data directory %.2f s (target < %.0f s: %s), existing cluster %.2f s (< %.0f s: %s)\n",
		r.ReadyFresh, targetFreshReady, verdict(r.ReadyFresh < targetFreshReady), r.ReadyExisting, targetExistingReady, verdict(r.ReadyExisting < targetExistingReady))
	fmt.Fprintf(w, "emulator RSS (PostgreSQL not counted): idle %.1f MB (target < %.0f MB: %s), after the benchmark %.1f MB\n",
		r.IdleMB, targetIdleRSS, verdict(r.IdleMB < targetIdleRSS), r.AfterMB)
	fmt.Fprintln(w, "\nPoint operations, Go SDK (ms)        p50     p99  handler mean  raw pgx p50  emulator CPU  PostgreSQL CPU")
	for _, o := range r.Ops {
		fmt.Fprintf(w, "  %-34s %7.3f %7.3f %13.3f %12.3f %13.3f %15.3f\n", o.Op, o.Emulator.P50, o.Emulator.P99, o.HandlerMeanMs, o.Raw.P50, o.CPU.Emulator, o.CPU.Postgres)
	}
	fmt.Fprintf(w, "  %-34s %7.3f %7.3f %13s %12s %13.3f %15.3f\n", "GET /_emulator/health", r.Health.P50, r.Health.P99, "", "", r.HealthCPU.Emulator, r.HealthCPU.Postgres)
	fmt.Fprintf(w, "SDK floor (replaying proxy): read p50 %.3f ms, health p50 %.3f ms = %.2fx; the proxy's CPU %.3f ms per request\n",
		r.ReadPair.Floor.P50, r.FloorHealth.P50, ratio(r.ReadPair.Floor.P50, r.FloorHealth.P50), r.FloorCPUms)
	fmt.Fprintf(w, "point reads alternating with the floor: p50 %.3f ms vs %.3f ms; per read (ms, means):\n", r.ReadPair.Emulator.P50, r.ReadPair.Floor.P50)
	writeBreakdowns(w, []breakdown{r.Read})
	fmt.Fprintf(w, "raw pgx read alternating with them (PostgreSQL idle as between SDK reads): p50 %.3f ms, mean %.3f ms; in a tight loop (above): p50 %.3f ms\n",
		r.RawBetween.P50, r.RawBetween.Mean, rawReadP50(r.Ops))
}

// rawReadP50 returns the tight-loop raw pgx read's p50 of ops (0 when the
// read did not run).
func rawReadP50(ops []opResult) float64 {
	for _, o := range ops {
		if o.Op == "read" {
			return o.Raw.P50
		}
	}
	return 0
}

// verdict renders a target check.
func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}
