package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// The js scenario (-scenario js) drives the emulator through the official
// JavaScript SDK: compat_test/js/bench.mjs (-js-dir) in one Node process on
// one keep-alive agent. The script announces its phases on stdout and
// waits for a go-ahead line on stdin at each boundary, so this side samples
// the CPU time (/proc utime+stime) of the emulator process and of its
// managed PostgreSQL (the postmaster, its live children, and the children
// it has reaped) exactly around each phase:
//
//   - floor: point reads interleaved one for one with GET /_emulator/health
//     on the same agent; the read p50 over the health p50 is the issue's
//     "JS read at most 2.0x the HTTPS floor";
//   - mix-1, mix-16: create 25 / read 40 / replace 20 / query 15 % at
//     concurrency 1 and 16, ops/s and p50/p99 per operation, and CPU
//     milliseconds per operation of the emulator and of PostgreSQL;
//   - replay-mix-1-a/-b, replay-mix-16-a/-b: the same mix at the same
//     concurrency through the replaying proxy (replay.go), every request
//     answered from memory, half right before and half right after the
//     emulator's mix: the throughput no server can pass, measured in the
//     same moments (the Targets row "JS mix vs the replay floor"). The
//     requests the proxy forwarded during these phases are counted (0
//     when the floor is pure).
//
// The raw pgx statements of the point scenario (INSERT, primary-key SELECT,
// UPDATE) run against the same PostgreSQL afterwards as the SQL floor of
// each operation. With -js-profile, CPU and allocation profiles of the
// emulator are taken (over its --pprof server) during the mix phase of the
// highest concurrency and written to that directory.

// jsConfig configures the js scenario.
type jsConfig struct {
	dir         string // compat_test/js: bench.mjs and node_modules
	n           int    // measured operations per phase
	concurrency string // comma-separated
	profileDir  string // where to write pprof profiles, "" for none
	profileSecs int    // length of the CPU profile
	sqlStats    bool   // run on a PostgreSQL with pg_stat_statements and report the top statements
}

// jsResult is what the js scenario measured.
type jsResult struct {
	SDK   string `json:"sdk"`
	Node  string `json:"node"`
	N     int    `json:"n"`
	Size  int    `json:"size"`
	Floor struct {
		Health latencyStats `json:"health"`
		Read   latencyStats `json:"read"`
	} `json:"floor"`
	// Replay is the SDK floor: point reads and health requests through a
	// proxy that answers them from memory (replay.go), interleaved.
	Replay struct {
		Health  latencyStats `json:"health"`
		Read    latencyStats `json:"read"`
		Create  latencyStats `json:"create"`
		Replace latencyStats `json:"replace"`
	} `json:"replay"`
	Mixes []jsMix `json:"mixes"`
	// ReplayMixes is the same mixes through the replaying proxy, one per
	// concurrency in the order of Mixes (the floor of each).
	ReplayMixes []jsMix `json:"replay_mixes,omitempty"`
	// ReplayForwarded maps a concurrency to the requests the proxy passed
	// on to the emulator during its replay mix phases (0: all from memory).
	ReplayForwarded map[string]int64 `json:"replay_forwarded,omitempty"`
	// CPU maps a phase name to the CPU time spent during it.
	CPU map[string]phaseCPU `json:"cpu"`
	// Raw holds the raw pgx statements' latencies by operation.
	Raw map[string]latencyStats `json:"raw_pgx"`
	// Profiles lists the profile files written (-js-profile).
	Profiles []string `json:"profiles,omitempty"`
	// SQL is the top statements during the mixed phases (-js-sql-stats).
	SQL []sqlStatement `json:"sql,omitempty"`
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
	PostgresMS float64 `json:"postgres_ms"` // -1: not measured (external PostgreSQL)
	ReplayMS   float64 `json:"replay_ms"`
	Seconds    float64 `json:"seconds"`
}

// procCPU is a CPU snapshot of the emulator, its PostgreSQL and the
// replaying proxy in clock ticks.
type procCPU struct {
	at                     time.Time
	emulator, pgTk, replay int64
}

// sampleProcCPU reads the CPU ticks of the emulator process emuPID, of
// the PostgreSQL postmasters pms (pgPostmaster): each server's own time,
// that of its live children and that of the children it has reaped
// (backends that exited), and of the replaying proxy's process replayPID.
func sampleProcCPU(emuPID int, pms []int, replayPID int) procCPU {
	s := procCPU{at: time.Now(), emulator: procTicks(emuPID), replay: procTicks(replayPID)}
	for _, pm := range pms {
		s.pgTk += procTicks(pm) + procChildTicks(pm)
		for _, pid := range descendantsOf(pm) {
			s.pgTk += procTicks(pid)
		}
	}
	return s
}

// pgPostmaster returns the PostgreSQL postmasters serving the emulator:
// the -js-sql-stats server's, or the managed cluster's (the emulator's
// children; none with an external PostgreSQL).
func pgPostmaster(emuPID int, stats *statsServer) []int {
	if stats != nil {
		return []int{stats.srv.Pid()}
	}
	return childrenOf(emuPID)
}

// firstField returns the first comma-separated field of s.
func firstField(s string) string {
	f, _, _ := strings.Cut(s, ",")
	return strings.TrimSpace(f)
}

// since returns the CPU spent from a to s.
func (s procCPU) since(a procCPU, externalPG bool) phaseCPU {
	tick := 1000.0 / clockTicks
	p := phaseCPU{EmulatorMS: float64(s.emulator-a.emulator) * tick, PostgresMS: float64(s.pgTk-a.pgTk) * tick,
		ReplayMS: float64(s.replay-a.replay) * tick, Seconds: s.at.Sub(a.at).Seconds()}
	if externalPG {
		p.PostgresMS = -1
	}
	return p
}

// runJS runs the js scenario on a fresh emulator.
func (b *bench) runJS(ctx context.Context, res *jsResult) (err error) {
	cfg := b.cfg
	node, err := exec.LookPath("node")
	if err != nil {
		return errors.New("node is not installed (the js scenario drives @azure/cosmos)")
	}
	dir, err := filepath.Abs(cfg.js.dir)
	if err != nil {
		return err
	}
	if err := ensureNodeModules(ctx, dir, b.logf); err != nil {
		return err
	}
	var extra []string
	pprofAddr := ""
	if cfg.js.profileDir != "" {
		if pprofAddr, err = freeAddr(); err != nil {
			return err
		}
		extra = append(extra, "--pprof", pprofAddr)
	}
	var stats *statsServer
	if cfg.js.sqlStats {
		if cfg.pg != "" {
			return errors.New("-js-sql-stats runs its own PostgreSQL; leave -pg out")
		}
		if stats, err = startStatsServer(ctx, filepath.Join(b.workDir, "js-sql-stats"), b.logf); err != nil {
			return err
		}
		defer stats.Close() //nolint:errcheck
		extra = append(extra, "--pg", stats.conn)
	}
	dataDir := filepath.Join(b.workDir, "js")
	emu, err := b.start(ctx, dataDir, "emulator-js.log", extra...)
	if err != nil {
		return err
	}
	defer emu.stop()

	replay, err := startReplayProcess(ctx, emu.url)
	if err != nil {
		return err
	}
	defer replay.Close()

	b.logf("js: %d operations per phase through @azure/cosmos (%s)", cfg.js.n, dir)
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "bench.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COSMOS_ENDPOINT="+emu.url, "COSMOS_KEY="+emulatorKey, "COSMOS_DB="+newDatabaseID(),
		"BENCH_REPLAY_ENDPOINT="+replay.URL(), fmt.Sprintf("BENCH_N=%d", cfg.js.n), fmt.Sprintf("BENCH_SIZE=%d", cfg.itemSize), "BENCH_CONCURRENCY="+cfg.js.concurrency)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting node: %w", err)
	}
	res.CPU = map[string]phaseCPU{}
	res.ReplayForwarded = map[string]int64{}
	var replayBegun replayStats
	profilePhase := "mix-" + lastField(cfg.js.concurrency)
	var profWG sync.WaitGroup
	var profErr error
	begun := map[string]procCPU{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var result string
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "RESULT "); ok {
			result = rest
			continue
		}
		phase, ok := strings.CutPrefix(line, "PHASE ")
		if !ok {
			continue
		}
		name, what, _ := strings.Cut(phase, " ")
		sample := sampleProcCPU(emu.pid(), pgPostmaster(emu.pid(), stats), replay.Pid())
		if c, ok := replayMixConcurrency(name); ok {
			st, err := replayStatsOf(ctx, replay.URL())
			if err != nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				return err
			}
			if what == "BEGIN" {
				replayBegun = st
			} else {
				res.ReplayForwarded[c] += st.Forwarded - replayBegun.Forwarded
			}
		}
		switch what {
		case "BEGIN":
			begun[name] = sample
			if stats != nil && name == "mix-"+firstField(cfg.js.concurrency) {
				if err := stats.reset(ctx); err != nil {
					return err
				}
			}
			if name == profilePhase && pprofAddr != "" {
				profWG.Add(1)
				go func() {
					defer profWG.Done()
					res.Profiles, profErr = takeProfiles(ctx, "http://"+pprofAddr, cfg.js.profileDir, cfg.js.profileSecs)
				}()
			}
		case "END":
			res.CPU[name] = sample.since(begun[name], cfg.pg != "")
			if stats != nil && name == profilePhase {
				if res.SQL, err = stats.top(ctx, 12); err != nil {
					return err
				}
			}
			b.logf("js: phase %s done in %.2f s", name, res.CPU[name].Seconds)
			if name == profilePhase && pprofAddr != "" && res.CPU[name].Seconds < float64(cfg.js.profileSecs) {
				b.logf("js: warning: the phase was shorter than the %d s profile, which includes idle time; raise -js-n", cfg.js.profileSecs)
			}
		}
		if _, err := io.WriteString(stdin, "go\n"); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return fmt.Errorf("node: %w\n%s", err, stderr.String())
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("node bench.mjs: %v\n%s", err, stderr.String())
	}
	profWG.Wait()
	if profErr != nil {
		return fmt.Errorf("profiles: %w", profErr)
	}
	if result == "" {
		return fmt.Errorf("node bench.mjs printed no RESULT line\n%s", stderr.String())
	}
	if err := json.Unmarshal([]byte(result), res); err != nil {
		return fmt.Errorf("node bench.mjs: %w", err)
	}

	// SQL floors on the same PostgreSQL, sequential.
	pgConn, err := b.pgConnString(dataDir)
	if stats != nil {
		pgConn, err = stats.conn, nil
	}
	if err != nil {
		return err
	}
	raw, err := newRawBench(ctx, pgConn, 1)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := raw.close(context.Background()); cerr != nil && err == nil {
			err = cerr
		}
	}()
	items := newItemSet(cfg.warmup+cfg.js.n, cfg.itemSize)
	w := workload{warmup: cfg.warmup, n: cfg.js.n, concurrency: 1}
	res.Raw = map[string]latencyStats{}
	for _, op := range []struct {
		name string
		f    opFunc
	}{{"create", raw.create(items)}, {"read", raw.read(items)}, {"replace", raw.replace(items)}} {
		if res.Raw[op.name], _, err = w.run(ctx, op.f); err != nil {
			return fmt.Errorf("raw %s: %w", op.name, err)
		}
	}
	return nil
}

// replayMixConcurrency returns the concurrency of a replay mix phase's
// name ("replay-mix-16-a" → "16"), and whether name is one.
func replayMixConcurrency(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "replay-mix-")
	if !ok {
		return "", false
	}
	c, _, _ := strings.Cut(rest, "-")
	return c, true
}

// lastField returns the last comma-separated field of s.
func lastField(s string) string {
	f := strings.Split(s, ",")
	return strings.TrimSpace(f[len(f)-1])
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

// takeProfiles fetches a CPU profile and an allocation profile (the
// allocations of the same seconds) from the emulator's pprof server at
// base and writes them to dir, returning their paths.
func takeProfiles(ctx context.Context, base, dir string, seconds int) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var (
		mu    sync.Mutex
		paths []string
		errs  []error
		wg    sync.WaitGroup
	)
	for name, path := range map[string]string{
		"cpu.pprof":    fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds),
		"allocs.pprof": fmt.Sprintf("/debug/pprof/allocs?seconds=%d", seconds),
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := filepath.Join(dir, name)
			err := fetchTo(ctx, base+path, out)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else {
				paths = append(paths, out)
			}
		}()
	}
	wg.Wait()
	return paths, errors.Join(errs...)
}

// fetchTo writes the body of GET url to the file out.
func fetchTo(ctx context.Context, url, out string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, b)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeJSReport writes the js scenario's tables.
func writeJSReport(w io.Writer, r *jsResult) {
	fmt.Fprintf(w, "\nJS SDK scenario (%s, Node %s, one process, one keep-alive agent; %d operations per phase, %d-byte items), latencies in ms\n", r.SDK, r.Node, r.N, r.Size)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	h, rd := r.Floor.Health, r.Floor.Read
	fmt.Fprintln(tw, "floor phase (interleaved)\t    p50\t    p99\tratio to floor p50\ttarget\t")
	fmt.Fprintf(tw, "GET /_emulator/health (HTTPS floor)\t%7.3f\t%7.3f\t\t\t\n", h.P50, h.P99)
	fmt.Fprintf(tw, "point read through the SDK\t%7.3f\t%7.3f\t%.2fx\t%s\t\n", rd.P50, rd.P99, ratio(rd.P50, h.P50), "≤ 2.0x: "+verdict(ratio(rd.P50, h.P50) <= 2.0))
	if rh, rr := r.Replay.Health, r.Replay.Read; rh.Ops > 0 {
		fmt.Fprintf(tw, "SDK floor: health through a replaying proxy\t%7.3f\t%7.3f\t\t\t\n", rh.P50, rh.P99)
		fmt.Fprintf(tw, "SDK floor: point read answered from memory\t%7.3f\t%7.3f\t%.2fx\t(no server work: the best any server can do)\t\n", rr.P50, rr.P99, ratio(rr.P50, rh.P50))
		for _, o := range []struct {
			name string
			s    latencyStats
		}{{"create", r.Replay.Create}, {"replace", r.Replay.Replace}} {
			if o.s.Ops > 0 {
				fmt.Fprintf(tw, "SDK floor: %s answered from memory\t%7.3f\t%7.3f\t%.2fx\t(target: 2x + the raw write)\t\n", o.name, o.s.P50, o.s.P99, ratio(o.s.P50, rh.P50))
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "mix\top\t  ops/s\t    p50\t    p99\traw pgx p50\ttarget at c=1 (create, replace: p50 ≤ 2x floor + raw write)\t")
	for _, m := range r.Mixes {
		for _, o := range []struct {
			name string
			s    latencyStats
		}{{"all", m.Total}, {"create", m.Create}, {"read", m.Read}, {"replace", m.Replace}, {"query", m.Query}} {
			rawCol, target := "", ""
			if rs, ok := r.Raw[o.name]; ok {
				rawCol = fmt.Sprintf("%.3f", rs.P50)
				if o.name != "read" && m.Concurrency == 1 {
					// Issue 12: create and replace at most 2x the floor plus the raw write.
					lim := 2*h.P50 + rs.P50
					target = fmt.Sprintf("%.2f ms vs ≤ %.2f: %s", o.s.P50, lim, verdict(o.s.P50 <= lim))
				}
			}
			fmt.Fprintf(tw, "c=%d\t%s\t%7.0f\t%7.3f\t%7.3f\t%s\t%s\t\n", m.Concurrency, o.name, o.s.OpsPerSec, o.s.P50, o.s.P99, rawCol, target)
		}
	}
	tw.Flush()
	if len(r.ReplayMixes) == len(r.Mixes) && len(r.Mixes) > 0 {
		fmt.Fprintln(w, "\nThe same mix through the replaying proxy (every request answered from memory; half right before, half right after each emulator mix)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "mix	emulator ops/s	floor ops/s	emulator/floor	floor p50	floor p99	requests the proxy forwarded	")
		for i, m := range r.Mixes {
			f := r.ReplayMixes[i]
			fmt.Fprintf(tw, "c=%d	%7.0f	%7.0f	%.2f	%7.3f	%7.3f	%d	\n", m.Concurrency, m.Total.OpsPerSec, f.Total.OpsPerSec,
				ratio(m.Total.OpsPerSec, f.Total.OpsPerSec), f.Total.P50, f.Total.P99, r.ReplayForwarded[fmt.Sprint(m.Concurrency)])
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nCPU time per operation (from /proc: emulator process; PostgreSQL = postmaster, its children and reaped children)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\t  ops\twall s\temulator ms/op\tPostgreSQL ms/op\ttotal ms/op\t")
	phases := []string{"floor"}
	for _, m := range r.Mixes {
		phases = append(phases, fmt.Sprintf("mix-%d", m.Concurrency))
	}
	for _, p := range phases {
		c, ok := r.CPU[p]
		if !ok {
			continue
		}
		ops := r.N
		if p == "floor" {
			ops = 2 * r.N // a read and a health request each round
		}
		pg := "n/a"
		total := c.EmulatorMS / float64(ops)
		if c.PostgresMS >= 0 {
			pg = fmt.Sprintf("%.3f", c.PostgresMS/float64(ops))
			total += c.PostgresMS / float64(ops)
		}
		fmt.Fprintf(tw, "%s\t%5d\t%6.2f\t%.3f\t%s\t%.3f\t\n", p, ops, c.Seconds, c.EmulatorMS/float64(ops), pg, total)
	}
	tw.Flush()
	if c, ok := r.CPU["replay"]; ok && r.N > 0 {
		// The CPU floor: the same interleave of point reads and health
		// requests, answered from memory by the replaying proxy, a Go
		// net/http server over TLS on as many CPUs as the emulator's default.
		floor, emu := c.ReplayMS/float64(2*r.N), r.CPU["floor"].EmulatorMS/float64(2*r.N)
		fmt.Fprintf(w, "CPU floor: the replaying proxy (Go net/http over TLS, answering from memory) spent %.3f ms per request over the same\n"+
			"interleave of point reads and health requests; the emulator's floor phase %.3f ms per request = %.2fx that floor\n", floor, emu, ratio(emu, floor))
	}
	for _, p := range r.Profiles {
		fmt.Fprintf(w, "profile: %s (go tool pprof -top %s)\n", p, p)
	}
	writeSQLStats(w, r.SQL, r.N*len(r.Mixes))
}
