// Command cosmos-bench measures the emulator end to end: every figure of
// docs/benchmarks.md comes from one of its scenarios, which the docs name
// with their commands. -scenario picks them, comma-separated: point,
// durability, js, containers, batch (the default: the Targets rows,
// targets.go), ttl, query, scale, changefeed, sproc, udf, ranges, or all.
// Each starts its own emulator (-bin) on a fresh data directory; most share
// one runner (runner.go): start, seed, alternate, report. Targets are
// reported (met or MISSED), never asserted: the exit status says whether
// the run worked. Results print as tables, or as JSON with -json.
//
//	go build -o bin/cosmos-emulator ./cmd/cosmos-emulator
//	go run ./cmd/cosmos-bench [-scenario point,js] [-n 2000] [-emulator-args "--durability=process"] [-json]
//
// It runs on Linux (it reads /proc); the js scenario needs node.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// config holds the command-line flags.
type config struct {
	scenario     string // comma-separated scenario names, or all
	scenarios    map[string]bool
	bin          string
	emulatorArgs []string
	n            int
	warmup       int
	itemSize     int
	idleWait     time.Duration
	readyTimeout time.Duration
	jsonOut      bool
	ttl          ttlConfig
	query        queryConfig
	cf           cfConfig
	batch        batchConfig
	sproc        sprocConfig
	udf          udfConfig
	js           jsConfig
	containers   containersConfig
	scale        scaleConfig
	ranges       rangesConfig
}

// scenarios are the scenarios in the order a run performs them ("all"
// selects every one), each running into its part of the results.
var scenarios = []struct {
	name string
	run  func(b *bench, ctx context.Context, r *results) error
}{
	{"point", (*bench).runPoint},
	{"durability", (*bench).runDurability},
	{"js", (*bench).runJS},
	{"containers", (*bench).runContainers},
	{"ttl", (*bench).runTTL},
	{"query", (*bench).runQuery},
	{"scale", (*bench).runScale},
	{"changefeed", (*bench).runChangeFeed},
	{"batch", (*bench).runBatch},
	{"sproc", (*bench).runSproc},
	{"udf", (*bench).runUDF},
	{"ranges", (*bench).runRanges},
}

// scenarioNames are the names of scenarios, in order.
var scenarioNames = func() (names []string) {
	for _, s := range scenarios {
		names = append(names, s.name)
	}
	return names
}()

// defaultScenarios is what make bench runs without -scenario: those that
// measure the Targets rows (targets.go).
const defaultScenarios = "point,durability,js,containers,batch"

func main() {
	if len(os.Args) == 3 && os.Args[1] == replayProxyArg {
		// A child process serving the replaying proxy (replay.go).
		if err := serveReplayProxy(os.Args[2], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "cosmos-bench replay proxy:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cosmos-bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, cfg, os.Stderr)
	if res != nil {
		res.Targets = checkTargets(res)
		if cfg.jsonOut {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			if encErr := enc.Encode(res); encErr != nil && err == nil {
				err = encErr
			}
		} else {
			printReport(os.Stdout, res)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cosmos-bench:", err)
		os.Exit(1)
	}
}

// parseFlags parses the command line, writing usage to out.
func parseFlags(args []string, out io.Writer) (config, error) {
	var cfg config
	var emuArgs string
	fs := flag.NewFlagSet("cosmos-bench", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.scenario, "scenario", defaultScenarios, "what to measure, comma-separated: "+strings.Join(scenarioNames, ", ")+", or all (see docs/benchmarks.md)")
	fs.StringVar(&cfg.bin, "bin", "bin/cosmos-emulator", "emulator binary to start")
	fs.StringVar(&emuArgs, "emulator-args", "", "extra emulator flags, separated by spaces (no quoting), appended to --data-dir and --addr")
	fs.IntVar(&cfg.n, "n", 2000, "measured operations per operation kind")
	fs.IntVar(&cfg.warmup, "warmup", 200, "unmeasured warm-up operations per operation kind")
	fs.IntVar(&cfg.itemSize, "size", 1024, "size in bytes of the item JSON the client sends")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the results as JSON instead of tables")
	fs.IntVar(&cfg.ttl.items, "ttl-items", 1_000_000, "ttl: items stored in the big container")
	fs.IntVar(&cfg.ttl.live, "ttl-live", 100_000, "ttl: how many of them are live (the rest have expired)")
	fs.IntVar(&cfg.ttl.batch, "ttl-batch", 1000, "ttl: the emulator's --ttl-sweep-batch")
	fs.IntVar(&cfg.ttl.reads, "ttl-reads", 3000, "ttl: measured SDK point reads before the sweep (after -warmup)")
	fs.IntVar(&cfg.ttl.feedRuns, "ttl-feed-runs", 5, "ttl: runs of the full read feed (single-partition reads run 10 times as often)")
	fs.DurationVar(&cfg.ttl.window, "ttl-window", time.Second, "ttl: length of the alternating windows without and with a sweep")
	fs.IntVar(&cfg.query.large, "query-large", 100_000, "query: items in the large container (a multiple of 1000)")
	fs.IntVar(&cfg.query.size, "query-size", 400, "query: size in bytes of each item's JSON")
	fs.IntVar(&cfg.query.runs, "query-n", 300, "query: measured runs of each query on each container")
	fs.IntVar(&cfg.ranges.ranges, "ranges", 16, "ranges: partition key ranges of the second container (at least 2)")
	fs.IntVar(&cfg.ranges.runs, "ranges-n", 1000, "ranges: measured runs of each operation on each container")
	fs.IntVar(&cfg.scale.large, "scale-items", 1_000_000, "scale: items in the large container (a multiple of 100)")
	fs.IntVar(&cfg.scale.runs, "scale-n", 1000, "scale: measured runs of each operation on each container")
	fs.IntVar(&cfg.scale.warmup, "scale-warmup", 200, "scale: unmeasured runs of each operation on each container")
	fs.IntVar(&cfg.cf.items, "cf-items", 100_000, "changefeed: items in the container whose change feed is drained")
	fs.StringVar(&cfg.js.dir, "js-dir", "compat_test/js", "js: directory of bench.mjs and its node_modules (npm ci runs there if @azure/cosmos is missing)")
	fs.IntVar(&cfg.js.n, "js-n", 2000, "js: measured operations per phase")
	fs.StringVar(&cfg.js.concurrency, "js-concurrency", "1,16", "js: comma-separated concurrencies of the mixed phases")
	fs.IntVar(&cfg.containers.n, "containers-n", 100, "containers: timed container creates and deletes")
	fs.IntVar(&cfg.containers.churn, "churn", 1000, "containers: containers created and deleted in the churn")
	fs.IntVar(&cfg.containers.cycles, "cycles", 10, "containers: test suite cycles")
	fs.StringVar(&cfg.containers.baselineBin, "baseline-bin", "", "containers: an earlier emulator build (make bench BASELINE=rev builds one): the suite cycle on it and on -bin, both --ephemeral, alternating")
	fs.IntVar(&cfg.batch.runs, "batch-n", 200, "batch: measured single creates and transactional batches of 100 creates")
	fs.IntVar(&cfg.batch.bulkItems, "bulk-items", 10_000, "batch: items created in bulk (requests of 100)")
	fs.IntVar(&cfg.sproc.runs, "sproc-n", 300, "sproc: measured executions of each stored procedure")
	fs.IntVar(&cfg.udf.items, "udf-items", 10_000, "udf: items in the container the UDF queries read")
	fs.IntVar(&cfg.udf.runs, "udf-n", 20, "udf: measured runs of each query")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	// Settings no documented figure varies.
	cfg.idleWait, cfg.readyTimeout = 2*time.Second, 2*time.Minute
	cfg.ttl.partitions, cfg.ttl.size, cfg.query.small, cfg.query.warmup = 1000, 400, 1000, 20
	cfg.scale.small, cfg.scale.size, cfg.scale.hot, cfg.cf.page, cfg.cf.size = 1000, 1024, 100, 1000, 400
	cfg.ranges.items, cfg.ranges.warmup = 1000, 200
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	cfg.emulatorArgs = strings.Fields(emuArgs)
	cfg.scenarios = map[string]bool{}
	for _, name := range strings.Split(cfg.scenario, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "all":
			for _, n := range scenarioNames {
				cfg.scenarios[n] = true
			}
		case slices.Contains(scenarioNames, name):
			cfg.scenarios[name] = true
		default:
			return cfg, fmt.Errorf("-scenario: %q is not one of %s or all", name, strings.Join(scenarioNames, ", "))
		}
	}
	return cfg, validate(cfg)
}

// validate checks the flags' values.
func validate(cfg config) error {
	for name, v := range map[string]int{"-n": cfg.n, "-udf-items": cfg.udf.items, "-udf-n": cfg.udf.runs, "-sproc-n": cfg.sproc.runs, "-batch-n": cfg.batch.runs,
		"-bulk-items": cfg.batch.bulkItems, "-cf-items": cfg.cf.items, "-js-n": cfg.js.n, "-containers-n": cfg.containers.n, "-cycles": cfg.containers.cycles,
		"-ttl-batch": cfg.ttl.batch, "-ttl-reads": cfg.ttl.reads, "-ttl-feed-runs": cfg.ttl.feedRuns, "-query-n": cfg.query.runs, "-scale-n": cfg.scale.runs, "-ranges-n": cfg.ranges.runs} {
		if v < 1 {
			return fmt.Errorf("%s must be at least 1", name)
		}
	}
	switch {
	case cfg.warmup < 0 || cfg.scale.warmup < 0 || cfg.containers.churn < 0 || cfg.itemSize < 128 || cfg.query.size < 256 || cfg.ttl.window <= 0:
		return errors.New("-warmup, -scale-warmup and -churn must not be negative, -size at least 128, -query-size at least 256, -ttl-window positive")
	case cfg.ttl.live < 1000 || cfg.ttl.live%1000 != 0 || cfg.ttl.live >= cfg.ttl.items:
		return errors.New("-ttl-live must be a multiple of 1000 below -ttl-items")
	case cfg.query.large%1000 != 0 || cfg.query.large <= 1000 || cfg.scale.large%100 != 0 || cfg.scale.large <= 1000:
		return errors.New("-query-large must be a multiple of 1000 and -scale-items of 100, both above 1000")
	case cfg.ranges.ranges < 2:
		return errors.New("-ranges must be at least 2")
	}
	return nil
}

// run performs the scenarios cfg selects. It returns the results gathered
// so far even when it fails part-way, so they can still be printed.
func run(ctx context.Context, cfg config, logw io.Writer) (*results, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(logw, "cosmos-bench: "+format+"\n", args...) }
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("emulator binary: %w (build it with make build, or name it with -bin)", err)
	}
	workDir, err := os.MkdirTemp("", "cosmos-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(workDir)
	res := &results{Config: runConfig{Scenario: cfg.scenario, Binary: bin, EmulatorArgs: cfg.emulatorArgs,
		CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), Started: time.Now().UTC(), LoadAvg: loadAvg()}}
	b := &bench{cfg: cfg, bin: bin, workDir: workDir, logf: logf}
	for _, s := range scenarios {
		if cfg.scenarios[s.name] {
			if err := s.run(b, ctx, res); err != nil {
				return res, fmt.Errorf("%s scenario: %w", s.name, err)
			}
		}
	}
	return res, nil
}

// bench is what the scenarios of a run share.
type bench struct {
	cfg     config
	bin     string // the emulator binary, absolute
	workDir string // the run's temporary directory
	logf    func(format string, args ...any)
}

// start starts the emulator on dataDir (short: the managed cluster's socket
// path must fit about 107 bytes) at a free port, with -emulator-args and
// extra, logging to logName in workDir.
func (b *bench) start(ctx context.Context, dataDir, logName string, extra ...string) (*emulatorProcess, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"--data-dir", dataDir, "--addr", addr}
	args = append(args, b.cfg.emulatorArgs...)
	args = append(args, extra...)
	return startEmulator(ctx, b.bin, args, filepath.Join(b.workDir, logName), b.cfg.readyTimeout)
}

// ratio returns a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
