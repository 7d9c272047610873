package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, addr, proto, pg, dataDir string, ephemeral bool, hosts []string, sweep time.Duration, batch int)
		err   bool
	}{
		{"defaults", nil, nil, func(t *testing.T, addr, proto, pg, dataDir string, eph bool, hosts []string, sweep time.Duration, batch int) {
			if addr != "127.0.0.1:8081" || proto != "https" || pg != "" || dataDir != "" || eph || len(hosts) != 0 || sweep != time.Second || batch != 1000 {
				t.Fatalf("defaults: %s %s %q %s %v %v %v %d", addr, proto, pg, dataDir, eph, hosts, sweep, batch)
			}
		}, false},
		{"environment", nil, map[string]string{"COSMOS_EMULATOR_ADDR": "0.0.0.0:9000", "COSMOS_EMULATOR_PG": "postgres://x", "COSMOS_EMULATOR_EPHEMERAL": "true", "COSMOS_EMULATOR_TLS_HOST": "a,b", "COSMOS_EMULATOR_TTL_SWEEP_INTERVAL": "250ms"},
			func(t *testing.T, addr, proto, pg, dataDir string, eph bool, hosts []string, sweep time.Duration, batch int) {
				if addr != "0.0.0.0:9000" || pg != "postgres://x" || !eph || strings.Join(hosts, ",") != "a,b" || sweep != 250*time.Millisecond {
					t.Fatalf("env: %s %q %v %v %v", addr, pg, eph, hosts, sweep)
				}
			}, false},
		{"flags win over environment", []string{"--addr", "127.0.0.1:1", "--protocol", "http", "--tls-host", "x", "--tls-host", "y"}, map[string]string{"COSMOS_EMULATOR_ADDR": "0.0.0.0:9000"},
			func(t *testing.T, addr, proto, pg, dataDir string, eph bool, hosts []string, sweep time.Duration, batch int) {
				if addr != "127.0.0.1:1" || proto != "http" || strings.Join(hosts, ",") != "x,y" {
					t.Fatalf("flags: %s %s %v", addr, proto, hosts)
				}
			}, false},
		{"bad log level", []string{"--log-level", "loud"}, nil, nil, true},
		{"bad env value", nil, map[string]string{"COSMOS_EMULATOR_EPHEMERAL": "maybe"}, nil, true},
		{"stray argument", []string{"serve"}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if err == nil {
				tt.check(t, cfg.Addr, cfg.Protocol, cfg.PG, cfg.DataDir, cfg.Ephemeral, cfg.TLSHosts, cfg.TTLSweepInterval, cfg.TTLSweepBatch)
			}
		})
	}
}

// TestRun runs the real program on a random port: it prints the ready line,
// serves, and shuts down gracefully when its context ends (as on SIGTERM).
func TestRun(t *testing.T) {
	cfg, err := ParseFlags([]string{"--addr", "127.0.0.1:0", "--pg", pgtest.NewDatabase(t), "--data-dir", t.TempDir()}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, pw); pw.Close() }()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "cosmos-emulator ready: ")
	if !ok || !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("ready line %q", line)
	}
	// The durability line: with --pg, the server's own settings.
	for line = ""; !strings.HasPrefix(line, "Durability: "); {
		if line, err = br.ReadString('\n'); err != nil {
			t.Fatalf("no Durability line: %v", err)
		}
	}
	if want := "Durability: external (--pg: the server's own settings, fsync="; !strings.HasPrefix(line, want) {
		t.Errorf("durability line %q, want it to start with %q", line, want)
	}
	go io.Copy(io.Discard, br)                                                                             //nolint:errcheck
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed test server
	for _, p := range []string{"_emulator/health", "_explorer/emulator.pem"} {
		resp, err := hc.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", p, resp.StatusCode)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v after a graceful shutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

func TestMain(m *testing.M) { pgtestMain(m) }

// TestParseFlagsReliability: the durability, PostgreSQL-binaries and HTTP
// limit flags, their defaults and environment variables.
func TestParseFlagsReliability(t *testing.T) {
	cfg, err := ParseFlags(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.FastUnsafeCommit || cfg.PGBin != "" || cfg.ReadTimeout != server.DefaultReadTimeout || cfg.WriteTimeout != server.DefaultWriteTimeout ||
		cfg.IdleTimeout != server.DefaultIdleTimeout || cfg.MaxConns != server.DefaultMaxConns {
		t.Errorf("defaults: %+v", cfg)
	}
	env := map[string]string{"COSMOS_EMULATOR_FAST_UNSAFE_COMMIT": "true", "COSMOS_EMULATOR_PG_BIN": "/opt/pg/bin", "COSMOS_EMULATOR_READ_TIMEOUT": "10s"}
	cfg, err = ParseFlags([]string{"--idle-timeout", "3s", "--write-timeout", "1m", "--max-connections", "7"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.FastUnsafeCommit || cfg.PGBin != "/opt/pg/bin" || cfg.ReadTimeout != 10*time.Second || cfg.IdleTimeout != 3*time.Second ||
		cfg.WriteTimeout != time.Minute || cfg.MaxConns != 7 {
		t.Errorf("set: %+v", cfg)
	}
}

// TestParseFlagsPprof: the profiling server is off by default and takes
// its address from --pprof or COSMOS_EMULATOR_PPROF, the flag winning.
func TestParseFlagsPprof(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, ""},
		{[]string{"--pprof", "127.0.0.1:6060"}, nil, "127.0.0.1:6060"},
		{nil, map[string]string{"COSMOS_EMULATOR_PPROF": "localhost:7070"}, "localhost:7070"},
		{[]string{"--pprof=127.0.0.1:1"}, map[string]string{"COSMOS_EMULATOR_PPROF": "localhost:7070"}, "127.0.0.1:1"},
	} {
		cfg, err := ParseFlags(c.args, func(k string) string { return c.env[k] }, io.Discard)
		if err != nil || cfg.PprofAddr != c.want {
			t.Errorf("%v %v: PprofAddr %q, %v; want %q", c.args, c.env, cfg.PprofAddr, err, c.want)
		}
	}
}

// TestParseFlagsMinPartitionRanges: every container gets one range unless
// --min-partition-ranges or COSMOS_EMULATOR_MIN_PARTITION_RANGES raises
// the minimum, the flag winning.
func TestParseFlagsMinPartitionRanges(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want int
	}{
		{nil, nil, 1},
		{nil, map[string]string{"COSMOS_EMULATOR_MIN_PARTITION_RANGES": "4"}, 4},
		{[]string{"--min-partition-ranges", "7"}, map[string]string{"COSMOS_EMULATOR_MIN_PARTITION_RANGES": "4"}, 7},
	} {
		cfg, err := ParseFlags(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.MinPartitionRanges != tc.want {
			t.Errorf("%v %v: MinPartitionRanges = %d, want %d", tc.args, tc.env, cfg.MinPartitionRanges, tc.want)
		}
	}
}

// TestParseFlagsDurability: --durability and COSMOS_EMULATOR_DURABILITY,
// the alias --fast-unsafe-commit, and the level Start then runs with
// (server.Config.DurabilityLevel): by the data's lifetime unless asked.
func TestParseFlagsDurability(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want server.Durability
		err  string
	}{
		{"default: a data directory is full", nil, nil, server.DurabilityFull, ""},
		{"default: ephemeral is process", []string{"--ephemeral"}, nil, server.DurabilityProcess, ""},
		{"ephemeral from the environment", nil, map[string]string{"COSMOS_EMULATOR_EPHEMERAL": "true"}, server.DurabilityProcess, ""},
		{"explicit full wins over ephemeral", []string{"--ephemeral", "--durability", "full"}, nil, server.DurabilityFull, ""},
		{"explicit process on a data directory", []string{"--durability=process"}, nil, server.DurabilityProcess, ""},
		{"none", []string{"--durability", "none"}, nil, server.DurabilityNone, ""},
		{"any case", []string{"--durability", "Process"}, nil, server.DurabilityProcess, ""},
		{"from the environment", nil, map[string]string{"COSMOS_EMULATOR_DURABILITY": "process"}, server.DurabilityProcess, ""},
		{"the flag wins over the environment", []string{"--durability", "full"}, map[string]string{"COSMOS_EMULATOR_DURABILITY": "none"}, server.DurabilityFull, ""},
		{"alias --fast-unsafe-commit", []string{"--fast-unsafe-commit"}, nil, server.DurabilityNone, ""},
		{"alias on an ephemeral cluster", []string{"--ephemeral", "--fast-unsafe-commit"}, nil, server.DurabilityNone, ""},
		{"alias from the environment", nil, map[string]string{"COSMOS_EMULATOR_FAST_UNSAFE_COMMIT": "true"}, server.DurabilityNone, ""},
		{"alias flag wins over the level's variable", []string{"--fast-unsafe-commit"}, map[string]string{"COSMOS_EMULATOR_DURABILITY": "full"}, server.DurabilityNone, ""},
		{"level flag wins over the alias's variable", []string{"--durability", "process"}, map[string]string{"COSMOS_EMULATOR_FAST_UNSAFE_COMMIT": "true"}, server.DurabilityProcess, ""},
		{"alias false changes nothing", []string{"--fast-unsafe-commit=false", "--durability", "process"}, nil, server.DurabilityProcess, ""},
		{"both flags agreeing", []string{"--fast-unsafe-commit", "--durability", "none"}, nil, server.DurabilityNone, ""},
		{"external server keeps its settings, nothing refused", []string{"--pg", "postgres://h/db", "--durability", "none"}, nil, server.DurabilityExternal, ""},
		{"external server by default", []string{"--pg", "postgres://h/db"}, nil, server.DurabilityExternal, ""},
		{"unknown level", []string{"--durability", "fast"}, nil, "", "full, process, none"},
		{"unknown level in the environment", nil, map[string]string{"COSMOS_EMULATOR_DURABILITY": "sync"}, "", "COSMOS_EMULATOR_DURABILITY"},
		{"both flags contradicting", []string{"--fast-unsafe-commit", "--durability", "full"}, nil, "", "--fast-unsafe-commit=true means --durability none, but --durability=full"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := cfg.DurabilityLevel(); got != tt.want || err != nil {
				t.Errorf("level = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
