package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The js scenario (-scenario js) drives the emulator through the official
// JavaScript SDK: compat_test/js/bench.mjs (-js-dir, its phases described
// there) in one Node process, which waits for a go-ahead at each phase
// boundary so that this side samples the CPU time (/proc) of the emulator,
// its PostgreSQL and the replaying proxy, the proxy's forwarded requests
// (0 when the floor is pure) and the emulator's metrics exactly around each
// phase. At one client (mix-1) each operation kind gets a breakdown
// (metrics.go) against its floor from replay-mix-1.

// jsConfig configures the js scenario.
type jsConfig struct {
	dir         string // compat_test/js: bench.mjs and node_modules
	n           int    // measured operations per phase
	concurrency string // comma-separated
}

// jsResult is what the js scenario measured.
type jsResult struct {
	SDK  string `json:"sdk"`
	Node string `json:"node"`
	N    int    `json:"n"`
	// Floor is point reads and health requests, interleaved ("read",
	// "health"); Replay the same through the replaying proxy, then creates
	// and replaces ("create", "replace"): the SDK floor.
	Floor  map[string]latencyStats `json:"floor"`
	Replay map[string]latencyStats `json:"replay"`
	Mixes  []jsMix                 `json:"mixes"`
	// ReplayMixes is the same mixes through the replaying proxy, one per
	// concurrency in the order of Mixes (the floor of each).
	ReplayMixes []jsMix `json:"replay_mixes,omitempty"`
	// ReplayForwarded maps a concurrency to the requests the proxy passed
	// on to the emulator during its replay mix phases (0: all from memory).
	ReplayForwarded map[string]int64 `json:"replay_forwarded,omitempty"`
	// CPU maps a phase name to the CPU time spent during it.
	CPU map[string]phaseCPU `json:"cpu"`
	// Breakdown is mix-1's per operation kind.
	Breakdown []breakdown `json:"breakdown_one_client,omitempty"`
}

// jsMix is one mixed phase as bench.mjs reports it.
type jsMix struct {
	Concurrency int          `json:"concurrency"`
	Total       latencyStats `json:"total"`
	Create      latencyStats `json:"create"`
	Read        latencyStats `json:"read"`
	Replace     latencyStats `json:"replace"`
	Query       latencyStats `json:"query"`
}

// phaseCPU is the CPU time of the emulator process, of PostgreSQL's
// processes and of the replaying proxy's process during one phase, in
// milliseconds, and the wall time.
type phaseCPU struct {
	EmulatorMS float64 `json:"emulator_ms"`
	PostgresMS float64 `json:"postgres_ms"`
	ReplayMS   float64 `json:"replay_ms"`
	Seconds    float64 `json:"seconds"`
}

// procCPU is a CPU snapshot of the emulator, its PostgreSQL and the
// replaying proxy in clock ticks.
type procCPU struct {
	at                     time.Time
	emulator, pgTk, replay int64
}

// sampleProcCPU reads the CPU ticks of the emulator process emuPID, of its
// managed PostgreSQL (the postmasters among its children: each one's own
// time, its live children's and its reaped children's) and of the
// replaying proxy's process replayPID.
func sampleProcCPU(emuPID, replayPID int) procCPU {
	s := procCPU{at: time.Now(), emulator: procTicks(emuPID), replay: procTicks(replayPID)}
	for _, pm := range childrenOf(emuPID) {
		s.pgTk += procTicks(pm) + procChildTicks(pm)
		for _, pid := range descendantsOf(pm) {
			s.pgTk += procTicks(pid)
		}
	}
	return s
}

// since returns the CPU spent from a to s.
func (s procCPU) since(a procCPU) phaseCPU {
	tick := 1000.0 / clockTicks
	return phaseCPU{EmulatorMS: float64(s.emulator-a.emulator) * tick, PostgresMS: float64(s.pgTk-a.pgTk) * tick,
		ReplayMS: float64(s.replay-a.replay) * tick, Seconds: s.at.Sub(a.at).Seconds()}
}

// runJS runs the js scenario on a fresh emulator.
func (b *bench) runJS(ctx context.Context, r *results) (err error) {
	res := &jsResult{}
	r.JS = res
	cfg := b.cfg
	dir, err := filepath.Abs(cfg.js.dir)
	if err != nil {
		return err
	}
	if err := ensureNodeModules(ctx, dir, b.logf); err != nil {
		return err
	}
	emu, err := b.start(ctx, filepath.Join(b.workDir, "js"), "emulator-js.log")
	if err != nil {
		return err
	}
	defer emu.stop()
	replay, err := startReplayProcess(ctx, emu.url)
	if err != nil {
		return err
	}
	defer replay.Close()
	_, metricsClient, err := newSDKClient(emu.url)
	if err != nil {
		return err
	}
	b.logf("js: %d operations per phase through @azure/cosmos (%s)", cfg.js.n, dir)
	res.CPU, res.ReplayForwarded = map[string]phaseCPU{}, map[string]int64{}
	var replayBegun replayStats
	begun := map[string]procCPU{}
	var metricsBefore, metricsAfter map[string]handlerTotals
	result, err := driveBench(ctx, dir, emu.url, replay.URL(), cfg.js.n, cfg.itemSize, cfg.js.concurrency, func(name, what string) (err error) {
		sample := sampleProcCPU(emu.pid(), replay.Pid())
		if rest, ok := strings.CutPrefix(name, "replay-mix-"); ok {
			c, _, _ := strings.Cut(rest, "-")
			st, err := replayStatsOf(ctx, replay.URL())
			if what == "BEGIN" {
				replayBegun = st
			} else {
				res.ReplayForwarded[c] += st.Forwarded - replayBegun.Forwarded
			}
			if err != nil {
				return err
			}
		}
		if name == "mix-1" && what == "BEGIN" {
			metricsBefore, err = docsMetrics(ctx, metricsClient, emu.url)
		} else if name == "mix-1" {
			metricsAfter, err = docsMetrics(ctx, metricsClient, emu.url)
		}
		if what == "BEGIN" {
			begun[name] = sample
		} else {
			res.CPU[name] = sample.since(begun[name])
			b.logf("js: phase %s done in %.2f s", name, res.CPU[name].Seconds)
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(result), res); err != nil {
		return fmt.Errorf("node bench.mjs: %w", err)
	}
	for i, m := range res.Mixes {
		if m.Concurrency != 1 || metricsAfter == nil || i >= len(res.ReplayMixes) {
			continue
		}
		f := res.ReplayMixes[i]
		res.Breakdown = []breakdown{
			newBreakdown("create", m.Create, f.Create, metricsBefore, metricsAfter, "Create"),
			newBreakdown("read", m.Read, f.Read, metricsBefore, metricsAfter, "Read"),
			newBreakdown("replace", m.Replace, f.Replace, metricsBefore, metricsAfter, "Replace"),
			newBreakdown("query", m.Query, f.Query, metricsBefore, metricsAfter, "Query", "QueryPlan"),
		}
	}
	return nil
}

// driveBench runs dir/bench.mjs against endpoint and the replaying proxy,
// calls phase at each "PHASE <name> BEGIN|END" before letting it go on,
// and returns its RESULT line's JSON.
func driveBench(ctx context.Context, dir, endpoint, replay string, n, size int, concs string, phase func(name, what string) error) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not installed (the js scenario drives @azure/cosmos)")
	}
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "bench.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COSMOS_ENDPOINT="+endpoint, "COSMOS_KEY="+emulatorKey, "COSMOS_DB="+newDatabaseID(), "BENCH_REPLAY_ENDPOINT="+replay,
		fmt.Sprintf("BENCH_N=%d", n), fmt.Sprintf("BENCH_SIZE=%d", size), "BENCH_CONCURRENCY="+concs, fmt.Sprintf("BENCH_SEED=%d", min(500, n)), fmt.Sprintf("BENCH_WARMUP=%d", min(300, n)))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting node: %w", err)
	}
	var result string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() && err == nil {
		if r, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok {
			result = r
		} else if p, ok := strings.CutPrefix(sc.Text(), "PHASE "); ok {
			name, what, _ := strings.Cut(p, " ")
			if err = phase(name, what); err == nil {
				_, err = io.WriteString(stdin, "go\n")
			}
		}
	}
	stdin.Close()
	if err != nil {
		_ = cmd.Process.Kill()
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err == nil && result == "" {
		err = errors.New("no RESULT line")
	}
	if err != nil {
		return "", fmt.Errorf("node bench.mjs: %w\n%s", err, stderr.String())
	}
	return result, nil
}

// ensureNodeModules runs npm ci in dir unless @azure/cosmos is installed.
func ensureNodeModules(ctx context.Context, dir string, logf func(string, ...any)) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@azure", "cosmos", "package.json")); err == nil {
		return nil
	}
	logf("js: npm ci in %s", dir)
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// writeJSReport writes the js scenario's tables.
func writeJSReport(w io.Writer, r *jsResult) {
	fmt.Fprintf(w, "\nJS SDK (%s, Node %s, one keep-alive agent, %d operations per phase; ms)\n", r.SDK, r.Node, r.N)
	h, rd, rh, rr := r.Floor["health"], r.Floor["read"], r.Replay["health"], r.Replay["read"]
	fmt.Fprintf(w, "point read p50 / health p50, interleaved: %.3f / %.3f = %.2fx; answered from memory: %.3f / %.3f = %.2fx (create %.3f, replace %.3f)\n",
		rd.P50, h.P50, ratio(rd.P50, h.P50), rr.P50, rh.P50, ratio(rr.P50, rh.P50), r.Replay["create"].P50, r.Replay["replace"].P50)
	fmt.Fprintln(w, "mix      ops/s   p50     p99     floor ops/s  emulator/floor  forwarded  CPU/op: emulator  PostgreSQL")
	for i, m := range r.Mixes {
		var f jsMix
		if i < len(r.ReplayMixes) {
			f = r.ReplayMixes[i]
		}
		c := r.CPU[fmt.Sprintf("mix-%d", m.Concurrency)]
		n := float64(max(m.Total.Ops, 1))
		fmt.Fprintf(w, "c=%-4d %7.0f %7.3f %7.3f %12.0f %15.2f %10d %17.3f %11.3f\n", m.Concurrency, m.Total.OpsPerSec, m.Total.P50, m.Total.P99,
			f.Total.OpsPerSec, ratio(m.Total.OpsPerSec, f.Total.OpsPerSec), r.ReplayForwarded[fmt.Sprint(m.Concurrency)], c.EmulatorMS/n, c.PostgresMS/n)
	}
	if c, ok := r.CPU["replay"]; ok && r.N > 0 {
		fmt.Fprintf(w, "CPU floor: the replaying proxy spent %.3f ms per request (reads and health, interleaved)\n", c.ReplayMS/float64(2*r.N))
	}
	if len(r.Breakdown) > 0 {
		fmt.Fprintln(w, "\nPer operation at one client (ms; handler and phases: the emulator's metrics per operation, a query's plan request included;")
		fmt.Fprintln(w, "remainder: client mean - SDK floor mean - handler mean, i.e. TLS and HTTP outside the handler)")
		writeBreakdowns(w, r.Breakdown)
	}
}
