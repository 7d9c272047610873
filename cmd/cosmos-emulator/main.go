// Command cosmos-emulator serves the Azure Cosmos DB for NoSQL REST API over
// PostgreSQL.
//
// Every flag has an environment equivalent COSMOS_EMULATOR_<FLAG> (upper
// case, dashes as underscores, e.g. COSMOS_EMULATOR_PG); a flag given on the
// command line wins over the environment. The flags and variables of
// Microsoft's Linux emulator image (PORT, PROTOCOL, ENABLE_EXPLORER,
// --enable-explorer false, ...) are accepted too, below both (msenv.go),
// so the command is a drop-in for the tools that start that image.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
	"github.com/cosmos-emulator/cosmos-emulator/internal/sysmon"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

func main() {
	sysmon.KeepAwake() // first: it may re-execute the command (see package sysmon)
	cfg, err := ParseFlags(os.Args[1:], os.Getenv, os.Stdout)
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, ErrVersion) {
		os.Exit(0)
	}
	if err != nil {
		// One line, like the start-up failures.
		fmt.Fprintln(os.Stderr, "cosmos-emulator: "+strings.Join(strings.Fields(err.Error()), " "))
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, cfg, os.Stdout); err != nil {
		// One line: the cause and the fix (server.StartError).
		fmt.Fprintln(os.Stderr, "cosmos-emulator: "+strings.Join(strings.Fields(err.Error()), " "))
		os.Exit(1)
	}
}

// stringList is a repeatable, comma-separated flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// ErrVersion is returned by ParseFlags after it printed the version
// (--version); the command then exits 0.
var ErrVersion = errors.New("version printed")

// ParseFlags builds the configuration from command-line arguments and the
// environment (getenv): flags, then COSMOS_EMULATOR_<FLAG> variables, then
// Microsoft's emulator variables (msenv.go), then defaults. --help and
// --version write to out and return flag.ErrHelp and ErrVersion; any
// invalid setting is an error of one line naming the flag or variable, the
// value and the accepted values.
func ParseFlags(args []string, getenv func(string) string, out io.Writer) (server.Config, error) {
	var cfg server.Config
	var tlsHosts stringList
	logLevel := "info"
	var ms msSettings
	fs := flag.NewFlagSet("cosmos-emulator", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8081", "listen address: host:port, or a host alone to take the port from --port")
	cfg.Protocol = "https"
	fs.Var(&choice{&cfg.Protocol, []string{"https", "http", "https-insecure"}}, "protocol", "https or http (https-insecure, Microsoft's third value, is https)")
	fs.StringVar(&cfg.PG, "pg", "", "PostgreSQL connection string; empty runs a managed private PostgreSQL in --data-dir")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "directory of the managed PostgreSQL cluster and the TLS certificate (default: ./.cosmos-emulator if the working directory holds one, else the per-user data directory, e.g. ~/.local/share/cosmos-emulator; printed at start)")
	fs.BoolVar(&cfg.Ephemeral, "ephemeral", false, "run the managed PostgreSQL in a temporary directory removed at exit")
	fs.StringVar(&cfg.Key, "key", wire.WellKnownKey, "master key clients sign requests with")
	fs.StringVar(&cfg.CertFile, "cert", "", "TLS certificate file (PEM); default: a self-signed certificate in --data-dir")
	fs.StringVar(&cfg.CertKeyFile, "cert-key", "", "TLS private key file (PEM) for --cert")
	fs.StringVar(&cfg.CertExport, "cert-export", "", "with https, also write the serving certificate (PEM) to this file at start (the image writes it where Microsoft's classic emulator keeps it, for testcontainers-python)")
	fs.Var(&tlsHosts, "tls-host", "extra host name or IP for the generated certificate, also accepted in Host headers (repeatable, comma-separated)")
	var allowedHosts stringList
	fs.Var(&allowedHosts, "allowed-host", "host name requests may name in their Host header besides IP addresses, names without a dot and names under localhost, internal and local, which are always accepted; others get 403, against DNS rebinding (repeatable, comma-separated; * accepts any)")
	fs.Var(&choice{&logLevel, logLevels}, "log-level", "quiet, error, warn, info, debug or trace (debug and trace log every request)")
	fs.DurationVar(&cfg.TTLSweepInterval, "ttl-sweep-interval", time.Second, "pause between TTL sweeps that delete expired items (negative: no background sweeper)")
	fs.IntVar(&cfg.TTLSweepBatch, "ttl-sweep-batch", 1000, "rows deleted per TTL sweep batch while no client request is being served, a quarter of it under load (each batch is one short transaction)")
	fs.StringVar(&cfg.Consistency, "consistency", "Session", "the account's default consistency level: "+strings.Join(wire.ConsistencyLevels, ", "))
	fs.StringVar(&cfg.PGBin, "pg-bin", "", "directory of the PostgreSQL programs for the managed cluster (default: PATH, then /usr/lib/postgresql/*/bin)")
	var durability string
	fs.Var(&choice{&durability, []string{"full", "process", "none"}}, "durability", "what an acknowledged write of the managed PostgreSQL survives: full (flushed to disk: process and OS crashes), process (written to the kernel, not flushed: any process crash, kill -9 included, but not an OS crash; fsync=off), none (acknowledged before it is written: a crash may lose the last ~0.6 s; synchronous_commit=off); default: process with --ephemeral, whose data dies with the process, else full; with --pg the server keeps its own settings")
	fs.BoolVar(&cfg.FastUnsafeCommit, "fast-unsafe-commit", false, "same as --durability none (managed PostgreSQL with synchronous_commit=off: a crash may lose the last ~0.6 s of acknowledged writes)")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "longest time to read one request (headers and body)")
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "longest time from the end of a request's headers to the end of its response")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "how long an idle keep-alive connection stays open")
	fs.IntVar(&cfg.MaxConns, "max-connections", server.DefaultMaxConns, "most client connections served at once: beyond it the longest-idle connection is closed, or, with all busy, the newcomer gets a 503 (negative: no limit)")
	fs.DurationVar(&cfg.ScriptTimeout, "script-timeout", jsengine.DefaultTimeout, "longest execution of a stored procedure, trigger or a query's UDF calls (the service's is 5s)")
	fs.IntVar(&cfg.MinPartitionRanges, "min-partition-ranges", 1, "every container created gets at least this many partition key ranges (a system key or kind Range keeps one), to exercise the SDKs' multi-range code without large throughput; containers above 10,000 RU/s get more anyway, as on the service")
	fs.BoolVar(&cfg.RateLimit, "rate-limit", false, "throttle item requests and stored procedure executions over their container's provisioned RU/s (autoscale: its maximum; shared database: the database's), divided among its partition key ranges, with 429, sub-status 3200 and x-ms-retry-after-ms, as the service does; off: nothing is throttled")
	fs.BoolVar(&cfg.RateLimit, "enable-rate-limiting", false, "same as --rate-limit (the name of Microsoft's classic emulator switch /EnableRateLimiting)")
	fs.DurationVar(&cfg.PageTimeout, "page-timeout", server.DefaultPageTimeout, "longest time one page of a query or read feed runs in PostgreSQL; past it the page ends with the results it holds and a continuation, or with a 408 when it holds none (the service's is 5s)")
	fs.BoolVar(&cfg.ExplorerExposeKey, "explorer-expose-key", false, "let the data explorer (/_explorer/index.html) hand the master key to its pages even when the emulator listens on a non-loopback address; by default only a loopback listener, through a loopback host name, does")
	fs.StringVar(&cfg.FaultsFile, "faults-file", "", "JSON file of fault rules applied from the start, in the form GET /_emulator/faults answers: {\"rules\":[{\"name\":...,\"match\":{...},\"response\":{...}}]}; empty: none (rules can be set at run time under /_emulator/faults)")
	var initData stringList
	fs.Var(&initData, "init-data", "JSON file of databases, containers (the body POST /dbs/{db}/colls takes, plus throughput, items, storedProcedures, triggers, userDefinedFunctions) and items loaded at start, before the ready line: what is absent is created, what exists is left alone (repeatable, comma-separated; loaded in order)")
	fs.BoolVar(&cfg.Reset, "reset", false, "remove every database and everything in it at start, before --init-data loads (POST /_emulator/reset does it at run time)")
	fs.StringVar(&cfg.PprofAddr, "pprof", "", "loopback host:port serving net/http/pprof (/debug/pprof/) for profiling; empty: off")
	var goMaxProcsFlag int
	fs.IntVar(&goMaxProcsFlag, "gomaxprocs", 0, "CPUs the emulator runs Go code on at once; 0: the GOMAXPROCS variable if set, else half the CPUs (at least 1), leaving the rest to PostgreSQL and the clients; negative: Go's own choice")
	defineMicrosoftFlags(fs, &ms, &cfgTargets{certBundle: &cfg.CertBundle, certSecret: &cfg.CertBundlePassword})
	t := track(fs)
	// Weakest first, so that each stronger source overrides.
	if err := t.applyEnv(fs, fromMicrosoftEnv, getenv); err != nil {
		return cfg, err
	}
	if err := t.applyEnv(fs, fromOurEnv, getenv); err != nil {
		return cfg, err
	}
	t.phase = fromFlag
	if err := fs.Parse(joinBoolValues(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(out, fs)
		}
		return cfg, withFlagHint(fs, err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s (see --help)", strings.Join(fs.Args(), " "))
	}
	if ms.version {
		printVersion(out)
		return cfg, ErrVersion
	}
	consistency, err := wire.ParseConsistency(cfg.Consistency)
	if err != nil {
		return cfg, fmt.Errorf("--consistency: %w", err)
	}
	cfg.Consistency = consistency
	cfg.TLSHosts = tlsHosts
	cfg.AllowedHosts = allowedHosts
	cfg.InitData = initData
	cfg.GoMaxProcs = goMaxProcs(goMaxProcsFlag, getenv, runtime.GOMAXPROCS(0))
	notes, err := resolveMicrosoft(fs, &cfg, &ms, t)
	if err != nil {
		return cfg, err
	}
	if err := resolveDurability(&cfg, durability, t); err != nil {
		return cfg, err
	}
	level, quiet := slogLevel(logLevel)
	cfg.LogRequests = ms.logRequests
	var w io.Writer = os.Stderr
	if quiet {
		w = io.Discard
	}
	cfg.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	for _, n := range notes {
		cfg.Logger.Info(n)
	}
	return cfg, nil
}

// resolveDurability sets cfg.Durability from --durability and its alias
// --fast-unsafe-commit (= none): the stronger source wins (a flag over a
// variable); the two given at the same strength with different levels are
// an error. Left unset, Start chooses by the data's lifetime
// (server.Config.Durability).
func resolveDurability(cfg *server.Config, level string, t *tracker) error {
	if !t.set("durability") {
		return nil
	}
	if cfg.FastUnsafeCommit && level != "none" {
		switch fast, lvl := t.src["fast-unsafe-commit"], t.src["durability"]; {
		case fast > lvl:
			level = "none"
		case fast == lvl:
			return fmt.Errorf("%s=true means --durability none, but %s=%s asks for %s: give one of them", t.name["fast-unsafe-commit"], t.name["durability"], level, level)
		}
	}
	cfg.Durability = server.Durability(level)
	cfg.FastUnsafeCommit = level == "none"
	return nil
}

// Run starts the emulator, prints the ready lines to out (readyLines) and
// serves until ctx is cancelled, then shuts down gracefully. It logs
// "stopping" when the shutdown begins and "stopped" with the uptime when it
// is over, so that a log shows whether the process ended on purpose and
// how long a graceful shutdown took.
func Run(ctx context.Context, cfg server.Config, out io.Writer) error {
	start := time.Now()
	s, err := server.Start(ctx, cfg)
	if err != nil {
		return err
	}
	cfg.Logger.Debug("started", "elapsed", time.Since(start))
	io.WriteString(out, readyLines(s, cfg)) //nolint:errcheck
	var serveErr error
	reason := "signal"
	select {
	case <-ctx.Done():
	case serveErr = <-s.Done():
		reason = "the listener failed"
	}
	cfg.Logger.Info("stopping", "reason", reason, "uptime", roundDuration(time.Since(start)))
	stopStart := time.Now()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = errors.Join(serveErr, s.Close(shutdownCtx))
	attrs := []any{"uptime", roundDuration(time.Since(start)), "shutdown", roundDuration(time.Since(stopStart))}
	if err != nil {
		cfg.Logger.Error("stopped", append(attrs, "err", err)...)
	} else {
		cfg.Logger.Info("stopped", attrs...)
	}
	return err
}

// roundDuration rounds d for a log line: milliseconds below a minute,
// seconds above.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// readyLines are what the command prints to stdout once it serves, each
// line for someone waiting on it:
//
//   - "cosmos-emulator ready: <url>", this emulator's ready line (the
//     benchmarks and tests read the URL from it), then the connection
//     string (with a key other than the well-known one, a placeholder
//     stands for the key, so it never reaches a log), then the durability
//     level in force and what it survives;
//   - "Now listening on: <scheme>://<listen address>": the testcontainers
//     Node module waits for it;
//   - the data explorer's page for a browser, when the explorer is on: on
//     its own listener (--explorer-port, plain http by default), else on
//     the main port;
//   - the health server's address, when it runs;
//   - the direct-mode (RNTBD) listener's address, when it runs;
//   - "PostgreSQL=OK, Gateway=OK, Explorer=OK, Ready=YES" and "System is
//     now fully ready to accept requests": Microsoft's status and legacy
//     lines, which hand-written waits match. With the explorer disabled
//     the field says Explorer=DISABLED, as /status does: Microsoft's image
//     still says OK there, but a line that calls a part that is off OK
//     misleads whoever reads it, and the waits that tools build in (the
//     testcontainers modules, which disable the explorer) match "Started"
//     or "Now listening on: ", not this line;
//   - "Started" ending in CRLF, last: the testcontainers Java module waits
//     for a line matching .*Started\r\n$, Go, .NET and Python for
//     "Started".
func readyLines(s *server.Server, cfg server.Config) string {
	key := cfg.Key
	if key != wire.WellKnownKey {
		key = "<the key given with --key or --key-file>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cosmos-emulator ready: %s\n", s.URL())
	fmt.Fprintf(&b, "Connection string: AccountEndpoint=%s;AccountKey=%s;\n", s.URL(), key)
	fmt.Fprintf(&b, "Durability: %s\n", s.DescribeDurability(context.Background()))
	if cfg.PG == "" && !cfg.Ephemeral {
		fmt.Fprintf(&b, "Data directory: %s\n", s.DataDir())
	}
	scheme, _, _ := strings.Cut(s.URL(), "://")
	fmt.Fprintf(&b, "Now listening on: %s://%s\n", scheme, s.ListenAddr())
	if x := s.ExplorerURL(); x != "" {
		fmt.Fprintf(&b, "Data explorer on %s\n", x)
	} else if !cfg.DisableExplorer {
		fmt.Fprintf(&b, "Data explorer on %s_explorer/index.html\n", s.URL())
	}
	if h := s.HealthURL(); h != "" {
		fmt.Fprintf(&b, "Health probes on %s (/alive, /ready, /status)\n", h)
	}
	if p := s.PprofURL(); p != "" {
		fmt.Fprintf(&b, "Profiling on %s/debug/pprof/\n", p)
	}
	if d := s.RNTBDAddr(); d != "" {
		fmt.Fprintf(&b, "Direct mode (RNTBD) on %s\n", d)
	}
	explorer := "OK"
	if cfg.DisableExplorer {
		explorer = "DISABLED"
	}
	fmt.Fprintf(&b, "PostgreSQL=OK, Gateway=OK, Explorer=%s, Ready=YES\n", explorer)
	b.WriteString("System is now fully ready to accept requests\n")
	b.WriteString("Started\r\n")
	return b.String()
}
