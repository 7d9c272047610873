// Command cosmos-bench measures the emulator end to end. -scenario picks
// what, as a comma-separated list: point, durability, js, containers, batch
// (these five by default), ttl, query, scale, changefeed, sproc, udf, ranges, storage, or all (every one, one
// after the other, each with its own emulator processes and data
// directory). The js scenario (the JavaScript SDK under a mixed load, its
// HTTPS floor, CPU time per operation, optional pprof profiles) is
// described in js.go, the containers scenario (container create/delete, a
// churn of containers, a test suite's cycle) in containers.go, the
// changefeed scenario in changefeed.go, the sproc scenario (stored
// procedure executions) in sproc.go, the udf scenario (queries calling a
// user-defined function) in udf.go, the durability scenario (creates at
// each --durability level, alternating) in durability.go, the storage
// scenario (what storing a document costs in WAL and latency, today's
// table shapes against others) in storage.go.
//
// The point scenario measures, in one run:
//
//  1. Ready time: it starts the emulator binary (-bin) as a subprocess on a
//     fresh data directory and times it until it prints its ready line
//     (a fresh cluster, so initdb is included), stops it with SIGTERM,
//     starts it again on the same data directory and times that too (an
//     existing cluster).
//  2. Memory: the VmRSS of the emulator process (PostgreSQL's processes are
//     separate and not counted) a moment after each start with no traffic,
//     and again after the point-operation benchmark.
//  3. Point operations: create, read and replace of a ~1 KB item through the
//     official Go SDK (azcosmos) against the second emulator process, and
//     the equivalent raw pgx statements (INSERT, primary-key SELECT, UPDATE
//     on a table bench_raw(pk, id, body)) against the same PostgreSQL
//     database; for each, ops/s, p50 and p99, and the emulator/raw ratio of
//     the p50s.
//
// The ttl scenario (see ttl.go) measures a container with many expired
// items that have not been swept yet (-ttl-items, -ttl-live): the TTL
// sweeper's throughput for each --ttl-sweep-batch of -ttl-batches, SDK point
// reads without and during a sweep, and read feeds and queries against a
// container holding only the live items. It seeds the items tables directly
// through pgx and takes a few minutes with the defaults (1,000,000 items,
// 900,000 expired).
//
// The ranges scenario (see ranges.go) measures point reads and
// single-partition queries on a container of one partition key range
// against one of -ranges (16), alternating, as a ratio.
//
// The scale scenario (see scale.go) measures point reads, single-partition
// queries and creates through the SDK on a container of -scale-small items
// against one of -scale-items (1,000,000), interleaved, against the target
// "p50 at most 1.2x".
//
// The query scenario (see query.go) measures item queries through the SDK
// (equality and range filters across partitions; ORDER BY+TOP, COUNT and
// GROUP BY in one partition, and over all items addressed to partition key
// range 0 as the SDKs with a query pipeline send them) on a container of
// -query-large items against one of -query-small items, the first run of
// each (which builds the path index it needs) timed separately.
//
// Targets are measured and reported (met or MISSED), never asserted: the
// exit status says only whether the run itself worked.
//
// By default the emulator manages its own PostgreSQL in the temporary data
// directory, and the raw statements reach that cluster over its Unix socket;
// with -pg the emulator runs with --pg against that database and the raw
// statements use it as well. Results are printed as a table, or as JSON with
// -json; progress goes to stderr.
//
// Usage (make bench builds the emulator first; BENCHARGS passes flags):
//
//	go build -o bin/cosmos-emulator ./cmd/cosmos-emulator
//	go run ./cmd/cosmos-bench [-n 2000] [-warmup 200] [-concurrency 1] [-json]
//	go run ./cmd/cosmos-bench -scenario js [-js-n 2000] [-js-concurrency 1,16] [-js-profile dir] [-js-profile-seconds 5] [-js-sql-stats]
//	go run ./cmd/cosmos-bench -scenario containers [-containers-n 100] [-churn 1000] [-cycles 10] [-reset-dbs 10] [-reset-containers 5] [-reset-rounds 3] [-baseline-bin bin/cosmos-emulator-9d640b9]
//	go run ./cmd/cosmos-bench -scenario ttl [-ttl-items 1000000] [-ttl-live 100000] [-ttl-batches 1000,5000] [-ttl-explain]
//	go run ./cmd/cosmos-bench -scenario query [-query-small 1000] [-query-large 100000] [-query-n 300] [-query-warmup 20]
//	go run ./cmd/cosmos-bench -scenario scale [-scale-items 1000000] [-scale-small 1000] [-scale-n 1000] [-scale-warmup 200] [-scale-explain]
//	go run ./cmd/cosmos-bench -scenario changefeed [-cf-items 100000] [-cf-page 1000] [-cf-size 400]
//	go run ./cmd/cosmos-bench -scenario sproc [-sproc-n 300]
//	go run ./cmd/cosmos-bench -scenario udf [-udf-items 10000] [-udf-n 20]
//	go run ./cmd/cosmos-bench -scenario ranges [-ranges 16] [-ranges-items 1000] [-ranges-n 1000] [-ranges-warmup 200]
//	go run ./cmd/cosmos-bench -scenario storage [-storage-n 500] [-storage-rounds 4] [-storage-rows 20000] [-storage-query-n 30] [-storage-other-bin path]
//
// It runs on Linux (it reads /proc for memory and CPU figures). The js
// scenario needs node, and npm ci in -js-dir if @azure/cosmos is missing.
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
	"strconv"
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
	pg           string
	n            int
	warmup       int
	concurrency  int
	itemSize     int
	idleWait     time.Duration
	readyTimeout time.Duration
	http1        bool
	jsonOut      bool
	keep         bool
	verbose      bool
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
	storage      storageConfig
}

// scenarioNames lists the scenarios in the order a run performs them; "all"
// selects every one.
var scenarioNames = []string{"point", "durability", "js", "containers", "ttl", "query", "scale", "changefeed", "batch", "sproc", "udf", "ranges", "storage"}

// defaultScenarios is what make bench runs without -scenario: those that
// measure the Targets rows (targets.go).
const defaultScenarios = "point,durability,js,containers,batch"

// has reports whether the run includes scenario name.
func (c config) has(name string) bool { return c.scenarios[name] }

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
	fs.StringVar(&cfg.scenario, "scenario", defaultScenarios, "what to measure, comma-separated: point (ready time, memory, point operations), durability (SDK create p50 with --durability full, process and none, alternating), js (the JS SDK: mixed load at two concurrencies, HTTPS floor, CPU per operation), containers (container create/delete, a churn of containers, the test suite cycle), ttl (expired items: sweeper, reads during sweeps, feeds and queries), query (item queries on a small and a large container), scale (point reads, single-partition queries and creates on 1,000 against 1,000,000 items), changefeed (a change feed drain), batch (transactional batch and bulk creates against single creates), sproc (stored procedure executions), udf (queries calling a user-defined function), ranges (point reads and single-partition queries on a container of 1 partition key range against one of -ranges), storage (create and replace latency and WAL bytes per write end to end, and the same for several shapes of the items table and change log, with query latency on each), or all")
	fs.StringVar(&cfg.bin, "bin", "bin/cosmos-emulator", "emulator binary to start")
	fs.StringVar(&emuArgs, "emulator-args", "", "extra emulator flags, separated by spaces (no quoting), appended to --data-dir and --addr")
	fs.StringVar(&cfg.pg, "pg", "", "external PostgreSQL connection string: run the emulator with --pg and the raw statements against it (default: the emulator's managed cluster)")
	fs.IntVar(&cfg.n, "n", 2000, "measured operations per operation kind")
	fs.IntVar(&cfg.warmup, "warmup", 200, "unmeasured warm-up operations per operation kind")
	fs.IntVar(&cfg.concurrency, "concurrency", 1, "concurrent clients (goroutines) per benchmark")
	fs.IntVar(&cfg.itemSize, "size", 1024, "size in bytes of the item JSON the client sends")
	fs.DurationVar(&cfg.idleWait, "idle-wait", 2*time.Second, "how long the emulator idles after ready before its RSS is read")
	fs.DurationVar(&cfg.readyTimeout, "ready-timeout", 2*time.Minute, "how long to wait for the emulator's ready line")
	fs.BoolVar(&cfg.http1, "http1", false, "make the SDK use HTTP/1.1 instead of HTTP/2 (which it negotiates by default)")
	fs.BoolVar(&cfg.jsonOut, "json", false, "print the results as JSON instead of a table")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary data directory (and the emulator logs in it)")
	fs.BoolVar(&cfg.verbose, "v", false, "copy the emulator's log (its stderr) to stderr")
	var batches string
	fs.IntVar(&cfg.ttl.items, "ttl-items", 1_000_000, "ttl: items stored in the big container")
	fs.IntVar(&cfg.ttl.live, "ttl-live", 100_000, "ttl: how many of them are live (the rest have expired)")
	fs.IntVar(&cfg.ttl.partitions, "ttl-partitions", 1000, "ttl: logical partitions the items spread over")
	fs.IntVar(&cfg.ttl.size, "ttl-size", 400, "ttl: size in bytes of each item's JSON")
	fs.StringVar(&batches, "ttl-batches", "1000,5000", "ttl: --ttl-sweep-batch values to measure, comma-separated (the targets are checked on the first)")
	fs.IntVar(&cfg.ttl.reads, "ttl-reads", 3000, "ttl: measured SDK point reads per phase (after -warmup unmeasured ones)")
	fs.IntVar(&cfg.ttl.feedRuns, "ttl-feed-runs", 5, "ttl: runs of the full read feed (the median is reported; single-partition feeds and queries run 10 times as often)")
	fs.BoolVar(&cfg.ttl.interleave, "ttl-interleave", false, "ttl: spread the live items evenly over the creation order instead of making them the newest")
	fs.DurationVar(&cfg.ttl.window, "ttl-window", time.Second, "ttl: sweep under reads in alternating windows of this length, with and without a sweep, and report the median of the pairs' p99 ratios (0: one sweep, reads throughout)")
	fs.BoolVar(&cfg.ttl.longTx, "ttl-long-tx", false, "ttl: also sweep the backlog (first batch size) while another connection holds a transaction's snapshot open")
	fs.BoolVar(&cfg.ttl.explain, "ttl-explain", false, "ttl: print EXPLAIN (ANALYZE, BUFFERS) of the sweep batch, point read and read-feed statements to stderr")
	fs.IntVar(&cfg.query.small, "query-small", 1000, "query: items in the small container (a multiple of 1000)")
	fs.IntVar(&cfg.query.large, "query-large", 100_000, "query: items in the large container (a multiple of 1000)")
	fs.IntVar(&cfg.query.size, "query-size", 400, "query: size in bytes of each item's JSON")
	fs.IntVar(&cfg.query.runs, "query-n", 300, "query: measured runs of each query on each container")
	fs.IntVar(&cfg.query.warmup, "query-warmup", 20, "query: unmeasured runs of each query on each container, after the first (timed) one")
	fs.IntVar(&cfg.ranges.ranges, "ranges", 16, "ranges: partition key ranges of the second container (at least 2)")
	fs.IntVar(&cfg.ranges.items, "ranges-items", 1000, "ranges: items in each container")
	fs.IntVar(&cfg.ranges.runs, "ranges-n", 1000, "ranges: measured runs of each operation on each container")
	fs.IntVar(&cfg.ranges.warmup, "ranges-warmup", 200, "ranges: unmeasured runs of each operation on each container")
	fs.StringVar(&cfg.storage.otherBin, "storage-other-bin", "", "storage: a second emulator build whose end-to-end figures alternate round by round with -bin's")
	fs.IntVar(&cfg.storage.n, "storage-n", 500, "storage: creates (and as many replaces) per round")
	fs.IntVar(&cfg.storage.rounds, "storage-rounds", 4, "storage: measured rounds, after one unmeasured")
	fs.IntVar(&cfg.storage.rows, "storage-rows", 20_000, "storage: documents in each table shape for the query timings")
	fs.IntVar(&cfg.storage.queryRuns, "storage-query-n", 30, "storage: measured runs of each query on each table shape")
	fs.IntVar(&cfg.scale.large, "scale-items", 1_000_000, "scale: items in the large container (a multiple of 100)")
	fs.IntVar(&cfg.scale.small, "scale-small", 1000, "scale: items in the small container (a multiple of 100)")
	fs.IntVar(&cfg.scale.size, "scale-size", 1024, "scale: size in bytes of each item's JSON")
	fs.IntVar(&cfg.scale.runs, "scale-n", 1000, "scale: measured runs of each operation on each container")
	fs.IntVar(&cfg.scale.warmup, "scale-warmup", 200, "scale: unmeasured runs of each operation on each container")
	fs.IntVar(&cfg.scale.hot, "scale-hot", 100, "scale: distinct items of the hot reads (at most -scale-small)")
	fs.BoolVar(&cfg.scale.explain, "scale-explain", false, "scale: print EXPLAIN (ANALYZE, BUFFERS) of a point read on each container to stderr")
	fs.IntVar(&cfg.cf.items, "cf-items", 100_000, "changefeed: items in the container whose change feed is drained")
	fs.IntVar(&cfg.cf.page, "cf-page", 1000, "changefeed: x-ms-max-item-count of each change feed page")
	fs.IntVar(&cfg.cf.size, "cf-size", 400, "changefeed: size in bytes of each item's JSON")
	fs.StringVar(&cfg.js.dir, "js-dir", "compat_test/js", "js: directory of bench.mjs and its node_modules (npm ci runs there if @azure/cosmos is missing)")
	fs.IntVar(&cfg.js.n, "js-n", 2000, "js: measured operations per phase")
	fs.StringVar(&cfg.js.concurrency, "js-concurrency", "1,16", "js: comma-separated concurrencies of the mixed phases")
	fs.StringVar(&cfg.js.profileDir, "js-profile", "", "js: directory to write CPU and allocation profiles of the emulator to, taken during the last mixed phase (runs the emulator with --pprof)")
	fs.IntVar(&cfg.js.profileSecs, "js-profile-seconds", 5, "js: length of the profiles (make the last mixed phase last longer with -js-n)")
	fs.BoolVar(&cfg.js.sqlStats, "js-sql-stats", false, "js: run the emulator on a private PostgreSQL with pg_stat_statements (same settings as the managed one) and print the statements of the mixed phases by execution time")
	fs.IntVar(&cfg.containers.n, "containers-n", 100, "containers: timed container creates and deletes")
	fs.IntVar(&cfg.containers.churn, "churn", 1000, "containers: containers created and deleted in the churn")
	fs.IntVar(&cfg.containers.cycles, "cycles", 10, "containers: test suite cycles")
	fs.IntVar(&cfg.containers.resetDBs, "reset-dbs", 10, "containers: databases of the reset comparison (POST /_emulator/reset against deleting them one by one)")
	fs.IntVar(&cfg.containers.resetContainers, "reset-containers", 5, "containers: containers per database of the reset comparison (20 items each)")
	fs.IntVar(&cfg.containers.resetRounds, "reset-rounds", 3, "containers: rounds of each way of the reset comparison (0: skip it)")
	fs.StringVar(&cfg.containers.baselineBin, "baseline-bin", "", "containers: an earlier emulator build (make bench BASELINE=rev builds one): run the suite cycle on it and on -bin, both --ephemeral, alternating, and report the speed-up")
	fs.IntVar(&cfg.batch.runs, "batch-n", 200, "batch: measured single creates and transactional batches of 100 creates")
	fs.IntVar(&cfg.sproc.runs, "sproc-n", 300, "sproc: measured executions of each stored procedure")
	fs.IntVar(&cfg.udf.items, "udf-items", 10_000, "udf: items in the container the UDF queries read")
	fs.IntVar(&cfg.udf.runs, "udf-n", 20, "udf: measured runs of each query")
	fs.IntVar(&cfg.batch.bulkItems, "bulk-items", 10_000, "batch: items created in bulk (requests of 100)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	for _, f := range strings.Split(batches, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-ttl-batches: %q is not a positive number", f)
		}
		cfg.ttl.batches = append(cfg.ttl.batches, n)
	}
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
	switch {
	case cfg.n < 1:
		return cfg, errors.New("-n must be at least 1")
	case cfg.warmup < 0:
		return cfg, errors.New("-warmup must not be negative")
	case cfg.concurrency < 1:
		return cfg, errors.New("-concurrency must be at least 1")
	case cfg.itemSize < 128:
		return cfg, errors.New("-size must be at least 128")
	case cfg.udf.items < 1 || cfg.udf.runs < 1:
		return cfg, errors.New("-udf-items and -udf-n must be positive")
	case cfg.js.n < 1 || cfg.js.profileSecs < 1:
		return cfg, errors.New("-js-n and -js-profile-seconds must be at least 1")
	case cfg.containers.resetRounds < 0 || (cfg.containers.resetRounds > 0 && (cfg.containers.resetDBs < 1 || cfg.containers.resetContainers < 1)):
		return cfg, errors.New("-reset-rounds must be 0 or more, and -reset-dbs and -reset-containers at least 1")
	case cfg.containers.n < 1 || cfg.containers.churn < 0 || cfg.containers.cycles < 1:
		return cfg, errors.New("-containers-n and -cycles must be at least 1, -churn not negative")
	case cfg.sproc.runs < 1:
		return cfg, errors.New("-sproc-n must be at least 1")
	case cfg.cf.items < 1 || cfg.cf.page < 1 || cfg.cf.size < 128:
		return cfg, errors.New("-cf-items and -cf-page must be positive and -cf-size at least 128")
	case cfg.batch.runs < 1 || cfg.batch.bulkItems < 1:
		return cfg, errors.New("-batch-n and -bulk-items must be at least 1")
	case cfg.ttl.items < 1 || cfg.ttl.live < 1 || cfg.ttl.live > cfg.ttl.items:
		return cfg, errors.New("-ttl-items and -ttl-live must be positive, with -ttl-live at most -ttl-items")
	case cfg.ttl.partitions < 1 || cfg.ttl.partitions > cfg.ttl.live:
		return cfg, errors.New("-ttl-partitions must be between 1 and -ttl-live")
	case cfg.ttl.size < 128:
		return cfg, errors.New("-ttl-size must be at least 128")
	case cfg.ttl.reads < 1 || cfg.ttl.feedRuns < 1:
		return cfg, errors.New("-ttl-reads and -ttl-feed-runs must be at least 1")
	case cfg.query.small < 1000 || cfg.query.small%1000 != 0 || cfg.query.large%1000 != 0 || cfg.query.large <= cfg.query.small:
		return cfg, errors.New("-query-small and -query-large must be multiples of 1000, -query-large the larger")
	case cfg.query.size < 256:
		return cfg, errors.New("-query-size must be at least 256")
	case cfg.scale.small < scalePerPartition || cfg.scale.small%scalePerPartition != 0 || cfg.scale.large%scalePerPartition != 0 || cfg.scale.large <= cfg.scale.small:
		return cfg, errors.New("-scale-small and -scale-items must be multiples of 100, -scale-items the larger")
	case cfg.scale.size < 256 || cfg.scale.runs < 1 || cfg.scale.warmup < 0 || cfg.scale.hot < 1 || cfg.scale.hot > cfg.scale.small:
		return cfg, errors.New("-scale-size must be at least 256, -scale-n at least 1, -scale-warmup not negative, -scale-hot between 1 and -scale-small")
	case cfg.query.runs < 1 || cfg.query.warmup < 0:
		return cfg, errors.New("-query-n must be at least 1 and -query-warmup not negative")
	case cfg.storage.n < 1 || cfg.storage.rounds < 1 || cfg.storage.rows < 100 || cfg.storage.queryRuns < 1:
		return cfg, errors.New("-storage-n, -storage-rounds and -storage-query-n must be at least 1, -storage-rows at least 100")
	case cfg.ranges.ranges < 2 || cfg.ranges.items < 1 || cfg.ranges.runs < 1 || cfg.ranges.warmup < 0:
		return cfg, errors.New("-ranges must be at least 2, -ranges-items and -ranges-n at least 1, -ranges-warmup not negative")
	}
	return cfg, nil
}

// run performs the scenarios cfg selects. It returns the results gathered
// so far even when it fails part-way, so they can still be printed.
func run(ctx context.Context, cfg config, logw io.Writer) (_ *results, err error) {
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
	if cfg.keep {
		logf("keeping %s", workDir)
	} else {
		defer os.RemoveAll(workDir)
	}
	res := &results{
		Config: runConfig{
			Scenario: cfg.scenario,
			Binary:   bin, EmulatorArgs: cfg.emulatorArgs, ExternalPG: cfg.pg != "",
			HTTP1: cfg.http1, N: cfg.n, Warmup: cfg.warmup, Concurrency: cfg.concurrency, ItemSize: cfg.itemSize,
			CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), Started: time.Now().UTC(),
			LoadAvg: loadAvg(),
		},
	}
	b := &bench{cfg: cfg, bin: bin, workDir: workDir, emuLog: io.Discard, logf: logf}
	if cfg.verbose {
		b.emuLog = logw
	}
	if cfg.has("point") {
		res.Point = true
		if err := b.runPoint(ctx, res); err != nil {
			return res, fmt.Errorf("point scenario: %w", err)
		}
	}
	if cfg.has("durability") {
		res.Durability = &durabilityResult{}
		if err := b.runDurability(ctx, res.Durability); err != nil {
			return res, fmt.Errorf("durability scenario: %w", err)
		}
	}
	if cfg.has("js") {
		res.JS = &jsResult{}
		if err := b.runJS(ctx, res.JS); err != nil {
			return res, fmt.Errorf("js scenario: %w", err)
		}
	}
	if cfg.has("containers") {
		res.Containers = &containersResult{}
		if err := b.runContainers(ctx, res.Containers); err != nil {
			return res, fmt.Errorf("containers scenario: %w", err)
		}
	}
	if cfg.has("ttl") {
		res.TTL = &ttlResult{}
		err := b.runTTL(ctx, res.TTL)
		res.TTL.check()
		if err != nil {
			return res, fmt.Errorf("ttl scenario: %w", err)
		}
	}
	if cfg.has("query") {
		res.Query = &queryResult{}
		err := b.runQuery(ctx, res.Query)
		res.Query.check()
		if err != nil {
			return res, fmt.Errorf("query scenario: %w", err)
		}
	}
	if cfg.has("scale") {
		res.Scale = &scaleResult{}
		err := b.runScale(ctx, res.Scale)
		res.Scale.check()
		if err != nil {
			return res, fmt.Errorf("scale scenario: %w", err)
		}
	}
	if cfg.has("changefeed") {
		res.ChangeFeed = &cfResult{}
		err := b.runChangeFeed(ctx, res.ChangeFeed)
		res.ChangeFeed.check()
		if err != nil {
			return res, fmt.Errorf("changefeed scenario: %w", err)
		}
	}
	if cfg.has("batch") {
		res.Batch = &batchResult{}
		if err := b.runBatch(ctx, res.Batch); err != nil {
			return res, fmt.Errorf("batch scenario: %w", err)
		}
	}
	if cfg.has("sproc") {
		res.Sproc = &sprocResult{}
		if err := b.runSproc(ctx, res.Sproc); err != nil {
			return res, fmt.Errorf("sproc scenario: %w", err)
		}
	}
	if cfg.has("udf") {
		res.UDF = &udfResult{}
		if err := b.runUDF(ctx, res.UDF); err != nil {
			return res, fmt.Errorf("udf scenario: %w", err)
		}
	}
	if cfg.has("ranges") {
		res.Ranges = &rangesResult{}
		if err := b.runRanges(ctx, res.Ranges); err != nil {
			return res, fmt.Errorf("ranges scenario: %w", err)
		}
	}
	if cfg.has("storage") {
		res.Storage = &storageResult{}
		if err := b.runStorage(ctx, res.Storage); err != nil {
			return res, fmt.Errorf("storage scenario: %w", err)
		}
	}
	return res, nil
}

// bench is what the scenarios of a run share.
type bench struct {
	cfg     config
	bin     string    // the emulator binary, absolute
	workDir string    // the run's temporary directory
	emuLog  io.Writer // where the emulators' logs are copied (besides their files)
	logf    func(format string, args ...any)
}

// start starts the emulator on dataDir (a directory under workDir, short on
// purpose: the managed cluster's socket, dataDir/postgres/run/.s.PGSQL.5432,
// must fit a Unix socket address of about 107 bytes) at a free port, with
// the user's -emulator-args followed by extra, and logs to logName in
// workDir.
func (b *bench) start(ctx context.Context, dataDir, logName string, extra ...string) (*emulatorProcess, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"--data-dir", dataDir, "--addr", addr}
	if b.cfg.pg != "" {
		args = append(args, "--pg", b.cfg.pg)
	}
	args = append(args, b.cfg.emulatorArgs...)
	args = append(args, extra...)
	return startEmulator(ctx, b.bin, args, filepath.Join(b.workDir, logName), b.emuLog, b.cfg.readyTimeout)
}

// runPoint runs the point scenario: ready times, memory, and point
// operations through the SDK against raw pgx.
func (b *bench) runPoint(ctx context.Context, res *results) (err error) {
	cfg, logf, bin := b.cfg, b.logf, b.bin
	dataDir := filepath.Join(b.workDir, "data")
	start := func(n int) (*emulatorProcess, error) {
		return b.start(ctx, dataDir, fmt.Sprintf("emulator-%d.log", n))
	}

	// 1. Fresh start: initdb (managed cluster), migrations, certificate.
	logf("starting %s on a fresh data directory %s", filepath.Base(bin), dataDir)
	first, err := start(1)
	if err != nil {
		return err
	}
	res.Startup.Fresh = seconds(first.ready)
	logf("fresh start ready in %v; idling %v", first.ready.Round(time.Millisecond), cfg.idleWait)
	idle, err := idleRSS(ctx, first, cfg.idleWait)
	if err != nil {
		first.stop()
		return err
	}
	res.Memory.IdleFreshMB = idle
	res.Startup.FirstStop = seconds(first.stop())
	if first.exitErr != nil {
		logf("warning: the first emulator process exited with %v (log: %s)", first.exitErr, first.logPath)
	}

	// 2. Existing cluster: this process also serves the point benchmark.
	logf("starting it again on the same data directory")
	emu, err := start(2)
	if err != nil {
		return err
	}
	defer func() {
		d := emu.stop()
		res.Startup.Stop = seconds(d)
		if emu.exitErr != nil {
			logf("warning: the emulator exited with %v (log: %s)", emu.exitErr, emu.logPath)
		}
	}()
	res.Startup.Existing = seconds(emu.ready)
	res.Config.Endpoint = emu.url
	logf("existing-cluster start ready in %v at %s; idling %v", emu.ready.Round(time.Millisecond), emu.url, cfg.idleWait)
	if res.Memory.IdleMB, err = idleRSS(ctx, emu, cfg.idleWait); err != nil {
		return err
	}

	// 3. Point operations, SDK against the emulator and raw pgx against its
	// database.
	pgConn, err := b.pgConnString(dataDir)
	if err != nil {
		return err
	}
	res.Config.PGConn = pgConn
	raw, err := newRawBench(ctx, pgConn, cfg.concurrency)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := raw.close(context.Background()); cerr != nil && err == nil {
			err = cerr
		}
	}()
	res.Config.PGVersion = raw.version
	sdk, err := newSDKBench(ctx, emu.url, cfg.concurrency, cfg.http1)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := sdk.close(context.Background()); cerr != nil && err == nil {
			err = cerr
		}
	}()
	items := newItemSet(cfg.warmup+cfg.n, cfg.itemSize)
	w := workload{warmup: cfg.warmup, n: cfg.n, concurrency: cfg.concurrency}
	for _, op := range []struct {
		name   string
		sdk    opFunc
		raw    opFunc
		rawSQL string
	}{
		{"create", sdk.create(items), raw.create(items), "INSERT"},
		{"read", sdk.read(items), raw.read(items), "SELECT by primary key"},
		{"query", sdk.query(items), raw.read(items), "SELECT by primary key"},
		{"replace", sdk.replace(items), raw.replace(items), "UPDATE by primary key"},
	} {
		logf("%s: SDK via the emulator", op.name)
		metricsOp := strings.ToUpper(op.name[:1]) + op.name[1:]
		before, err := docsHandlerTotals(ctx, sdk.http, emu.url, metricsOp)
		if err != nil {
			return err
		}
		cpu0 := emu.cpu()
		es, eh, err := w.run(ctx, op.sdk)
		if err != nil {
			return fmt.Errorf("%s through the SDK: %w", op.name, err)
		}
		cpu := w.perOp(emu.cpu().since(cpu0, cfg.pg != ""))
		after, err := docsHandlerTotals(ctx, sdk.http, emu.url, metricsOp)
		if err != nil {
			return err
		}
		logf("%s: raw pgx %s", op.name, op.rawSQL)
		rs, _, err := w.run(ctx, op.raw)
		if err != nil {
			return fmt.Errorf("raw %s: %w", op.name, err)
		}
		res.Ops = append(res.Ops, opResult{Op: op.name, RawSQL: op.rawSQL, Emulator: es, EmulatorHTTP: eh, HandlerMeanMs: after.meanMs(before), Raw: rs, P50Ratio: ratio(es.P50, rs.P50), CPU: cpu})
	}
	if res.Memory.AfterBenchMB, err = rssMB(emu.pid()); err != nil {
		return err
	}
	logf("HTTP floor: GET /_emulator/health")
	cpu0 := emu.cpu()
	if res.HTTPFloor, _, err = w.run(ctx, sdk.health()); err != nil {
		return fmt.Errorf("health requests: %w", err)
	}
	res.HTTPFloorCPU = w.perOp(emu.cpu().since(cpu0, cfg.pg != ""))
	logf("SDK floor: point reads and health through a replaying proxy")
	if res.SDKFloorHealth, res.SDKFloorRead, res.SDKFloorCPUms, err = sdkFloor(ctx, emu.url, sdk.db.ID(), items, cfg.n, cfg.http1); err != nil {
		return err
	}
	logf("point reads through the emulator and through a replaying proxy, alternately")
	if res.ReadPair.Emulator, res.ReadPair.Floor, err = readVsFloor(ctx, sdk, emu.url, sdk.db.ID(), items, cfg.n, cfg.http1); err != nil {
		return err
	}
	res.Config.Protocol = sdk.protocol()
	res.Memory.PeakMB, _ = hwmMB(emu.pid())
	logf("idling %v after the benchmark", cfg.idleWait)
	if res.Memory.AfterBenchIdleMB, err = idleRSS(ctx, emu, cfg.idleWait); err != nil {
		return err
	}
	if cfg.pg == "" {
		res.Memory.Postgres = postgresMemory(dataDir)
	}
	return nil
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

// ratio returns a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// seconds converts d to float seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }
