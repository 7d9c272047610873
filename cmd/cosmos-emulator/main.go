// Command cosmos-emulator serves the Azure Cosmos DB for NoSQL REST API over
// PostgreSQL.
//
// Every flag has an environment equivalent COSMOS_EMULATOR_<FLAG> (upper
// case, dashes as underscores, e.g. COSMOS_EMULATOR_PG); a flag given on the
// command line wins over the environment.
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
	"strings"
	"syscall"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

func main() {
	cfg, err := ParseFlags(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cosmos-emulator:", err)
		os.Exit(2)
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

// ParseFlags builds the configuration from command-line arguments and the
// environment (getenv), writing usage to out.
func ParseFlags(args []string, getenv func(string) string, out io.Writer) (server.Config, error) {
	var cfg server.Config
	var tlsHosts stringList
	var logLevel string
	fs := flag.NewFlagSet("cosmos-emulator", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8081", "listen address")
	fs.StringVar(&cfg.Protocol, "protocol", "https", "https or http")
	fs.StringVar(&cfg.PG, "pg", "", "PostgreSQL connection string; empty runs a managed private PostgreSQL in --data-dir")
	fs.StringVar(&cfg.DataDir, "data-dir", ".cosmos-emulator", "directory of the managed PostgreSQL cluster and the TLS certificate")
	fs.BoolVar(&cfg.Ephemeral, "ephemeral", false, "run the managed PostgreSQL in a temporary directory removed at exit")
	fs.StringVar(&cfg.Key, "key", wire.WellKnownKey, "master key clients sign requests with")
	fs.StringVar(&cfg.CertFile, "cert", "", "TLS certificate file (PEM); default: a self-signed certificate in --data-dir")
	fs.StringVar(&cfg.CertKeyFile, "cert-key", "", "TLS private key file (PEM) for --cert")
	fs.Var(&tlsHosts, "tls-host", "extra host name or IP for the generated certificate (repeatable, comma-separated)")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&cfg.TTLSweepInterval, "ttl-sweep-interval", time.Second, "pause between TTL sweeps that delete expired items (negative: no background sweeper)")
	fs.IntVar(&cfg.TTLSweepBatch, "ttl-sweep-batch", 1000, "rows deleted per TTL sweep batch (each batch is one short transaction)")
	fs.StringVar(&cfg.Consistency, "consistency", "Session", "the account's default consistency level: "+strings.Join(wire.ConsistencyLevels, ", "))
	fs.StringVar(&cfg.PGBin, "pg-bin", "", "directory of the PostgreSQL programs for the managed cluster (default: PATH, then /usr/lib/postgresql/*/bin)")
	fs.BoolVar(&cfg.FastUnsafeCommit, "fast-unsafe-commit", false, "managed PostgreSQL with synchronous_commit=off: faster writes, but a crash may lose the last ~0.6 s of acknowledged writes")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "longest time to read one request (headers and body)")
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "longest time from the end of a request's headers to the end of its response")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "how long an idle keep-alive connection stays open")
	fs.IntVar(&cfg.MaxConns, "max-connections", server.DefaultMaxConns, "most client connections served at once; more wait to be accepted (negative: no limit)")
	fs.DurationVar(&cfg.ScriptTimeout, "script-timeout", jsengine.DefaultTimeout, "longest execution of a stored procedure, trigger or a query's UDF calls (the service's is 5s)")
	// Environment first, so explicit flags override it.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := "COSMOS_EMULATOR_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(name); v != "" {
			if err := fs.Set(f.Name, v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s=%q: %w", name, v, err)
			}
		}
	})
	if envErr != nil {
		return cfg, envErr
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return cfg, fmt.Errorf("--log-level: %w", err)
	}
	consistency, err := wire.ParseConsistency(cfg.Consistency)
	if err != nil {
		return cfg, fmt.Errorf("--consistency: %w", err)
	}
	cfg.Consistency = consistency
	cfg.TLSHosts = tlsHosts
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return cfg, nil
}

// Run starts the emulator, prints the ready line to out and serves until
// ctx is cancelled, then shuts down gracefully.
func Run(ctx context.Context, cfg server.Config, out io.Writer) error {
	start := time.Now()
	s, err := server.Start(ctx, cfg)
	if err != nil {
		return err
	}
	cfg.Logger.Debug("started", "elapsed", time.Since(start))
	fmt.Fprintf(out, "cosmos-emulator ready: %s\n", s.URL())
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-s.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return errors.Join(serveErr, s.Close(shutdownCtx))
}
