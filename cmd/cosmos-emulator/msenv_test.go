package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// TestMicrosoftConfig: Microsoft's variables and flags (as the
// testcontainers modules, Aspire and compose files pass them) map onto the
// configuration, with flags > COSMOS_EMULATOR_* > Microsoft's variables >
// defaults.
func TestMicrosoftConfig(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	const fileKey = "dGhlIGtleSBmcm9tIHRoZSBmaWxl"
	if err := os.WriteFile(keyFile, []byte(fileKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, cfg server.Config)
	}{
		{"defaults", nil, nil, func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "127.0.0.1:8081")
			want(t, "Protocol", cfg.Protocol, "https")
			want(t, "HealthAddr", cfg.HealthAddr, "127.0.0.1:8080")
			want(t, "HealthOptional", cfg.HealthOptional, true)
			want(t, "DisableExplorer", cfg.DisableExplorer, false)
			want(t, "ExplorerExposeKey", cfg.ExplorerExposeKey, false)
			want(t, "LogRequests", cfg.LogRequests, false)
			want(t, "Key", cfg.Key, wire.WellKnownKey)
			wantLevel(t, cfg, slog.LevelInfo)
		}},
		// the port
		{"PORT", nil, env("PORT", "9000"), func(t *testing.T, cfg server.Config) { want(t, "Addr", cfg.Addr, "127.0.0.1:9000") }},
		{"PORT with a host-only COSMOS_EMULATOR_ADDR (the image)", nil, env("PORT", "9000", "COSMOS_EMULATOR_ADDR", "0.0.0.0"), func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "0.0.0.0:9000")
			want(t, "HealthAddr", cfg.HealthAddr, "0.0.0.0:8080")
		}},
		{"host-only IPv6 --addr", []string{"--addr", "[::1]"}, nil, func(t *testing.T, cfg server.Config) { want(t, "Addr", cfg.Addr, "[::1]:8081") }},
		{"COSMOS_EMULATOR_ADDR port beats PORT", nil, env("PORT", "9000", "COSMOS_EMULATOR_ADDR", "0.0.0.0:7000"), func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "0.0.0.0:7000")
		}},
		{"--addr port beats PORT", []string{"--addr", "0.0.0.0:7000"}, env("PORT", "9000"), func(t *testing.T, cfg server.Config) { want(t, "Addr", cfg.Addr, "0.0.0.0:7000") }},
		{"--port beats the port of --addr", []string{"--port", "9000", "--addr", "0.0.0.0:7000"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "0.0.0.0:9000")
		}},
		{"--port beats COSMOS_EMULATOR_ADDR", []string{"--port", "9000"}, env("COSMOS_EMULATOR_ADDR", "0.0.0.0:7000"), func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "0.0.0.0:9000")
		}},
		{"COSMOS_EMULATOR_PORT beats PORT", nil, env("PORT", "9000", "COSMOS_EMULATOR_PORT", "9100"), func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "127.0.0.1:9100")
		}},
		{"PORT 0 picks a free port", nil, env("PORT", "0"), func(t *testing.T, cfg server.Config) { want(t, "Addr", cfg.Addr, "127.0.0.1:0") }},
		// the protocol
		{"PROTOCOL=http", nil, env("PROTOCOL", "http"), func(t *testing.T, cfg server.Config) { want(t, "Protocol", cfg.Protocol, "http") }},
		{"PROTOCOL in capitals", nil, env("PROTOCOL", "HTTP"), func(t *testing.T, cfg server.Config) { want(t, "Protocol", cfg.Protocol, "http") }},
		{"PROTOCOL=https-insecure is https", nil, env("PROTOCOL", "https-insecure"), func(t *testing.T, cfg server.Config) { want(t, "Protocol", cfg.Protocol, "https") }},
		{"COSMOS_EMULATOR_PROTOCOL beats PROTOCOL", nil, env("PROTOCOL", "http", "COSMOS_EMULATOR_PROTOCOL", "https"), func(t *testing.T, cfg server.Config) {
			want(t, "Protocol", cfg.Protocol, "https")
		}},
		{"--protocol beats COSMOS_EMULATOR_PROTOCOL", []string{"--protocol", "http"}, env("COSMOS_EMULATOR_PROTOCOL", "https"), func(t *testing.T, cfg server.Config) {
			want(t, "Protocol", cfg.Protocol, "http")
		}},
		// booleans as two arguments
		{"the Go module's arguments", []string{"--enable-explorer", "false"}, nil, func(t *testing.T, cfg server.Config) { want(t, "DisableExplorer", cfg.DisableExplorer, true) }},
		{"the Go module's arguments and a user's", []string{"--enable-explorer", "false", "--protocol", "https"}, env("PROTOCOL", "http"), func(t *testing.T, cfg server.Config) {
			want(t, "DisableExplorer", cfg.DisableExplorer, true)
			want(t, "Protocol", cfg.Protocol, "https")
		}},
		{"--enable-explorer=false", []string{"--enable-explorer=false"}, nil, func(t *testing.T, cfg server.Config) { want(t, "DisableExplorer", cfg.DisableExplorer, true) }},
		{"-enable-explorer FALSE", []string{"-enable-explorer", "FALSE"}, nil, func(t *testing.T, cfg server.Config) { want(t, "DisableExplorer", cfg.DisableExplorer, true) }},
		{"--enable-explorer alone", []string{"--enable-explorer"}, env("ENABLE_EXPLORER", "false"), func(t *testing.T, cfg server.Config) {
			want(t, "DisableExplorer", cfg.DisableExplorer, false)
		}},
		{"--enable-explorer then a flag", []string{"--enable-explorer", "--protocol", "http"}, env("ENABLE_EXPLORER", "false"), func(t *testing.T, cfg server.Config) {
			want(t, "DisableExplorer", cfg.DisableExplorer, false)
			want(t, "Protocol", cfg.Protocol, "http")
		}},
		{"ENABLE_EXPLORER=false", nil, env("ENABLE_EXPLORER", "false"), func(t *testing.T, cfg server.Config) { want(t, "DisableExplorer", cfg.DisableExplorer, true) }},
		{"--enable-explorer true beats ENABLE_EXPLORER=false", []string{"--enable-explorer", "true"}, env("ENABLE_EXPLORER", "false"), func(t *testing.T, cfg server.Config) {
			want(t, "DisableExplorer", cfg.DisableExplorer, false)
		}},
		{"--explorer-expose-key", []string{"--explorer-expose-key"}, nil, func(t *testing.T, cfg server.Config) { want(t, "ExplorerExposeKey", cfg.ExplorerExposeKey, true) }},
		{"COSMOS_EMULATOR_EXPLORER_EXPOSE_KEY", nil, env("COSMOS_EMULATOR_EXPLORER_EXPOSE_KEY", "true"), func(t *testing.T, cfg server.Config) {
			want(t, "ExplorerExposeKey", cfg.ExplorerExposeKey, true)
		}},
		{"--explorer-expose-key false beats the variable", []string{"--explorer-expose-key", "false"}, env("COSMOS_EMULATOR_EXPLORER_EXPOSE_KEY", "true"), func(t *testing.T, cfg server.Config) {
			want(t, "ExplorerExposeKey", cfg.ExplorerExposeKey, false)
		}},
		{"our boolean as two arguments", []string{"--ephemeral", "true", "--log-requests", "false"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "Ephemeral", cfg.Ephemeral, true)
			want(t, "LogRequests", cfg.LogRequests, false)
		}},
		{"a string value that reads like a boolean", []string{"--pg", "false", "--ephemeral"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "PG", cfg.PG, "false")
			want(t, "Ephemeral", cfg.Ephemeral, true)
		}},
		// the health server
		{"HEALTH_PORT=0 turns it off", nil, env("HEALTH_PORT", "0"), func(t *testing.T, cfg server.Config) { want(t, "HealthAddr", cfg.HealthAddr, "") }},
		{"--health-port -1 turns it off", []string{"--health-port", "-1"}, nil, func(t *testing.T, cfg server.Config) { want(t, "HealthAddr", cfg.HealthAddr, "") }},
		{"HEALTH_PORT given is not optional", nil, env("HEALTH_PORT", "9090"), func(t *testing.T, cfg server.Config) {
			want(t, "HealthAddr", cfg.HealthAddr, "127.0.0.1:9090")
			want(t, "HealthOptional", cfg.HealthOptional, false)
		}},
		{"--health-port 8080 given is not optional", []string{"--health-port", "8080"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "HealthOptional", cfg.HealthOptional, false)
		}},
		// logging
		{"LOG_LEVEL=debug", nil, env("LOG_LEVEL", "debug"), func(t *testing.T, cfg server.Config) { wantLevel(t, cfg, slog.LevelDebug) }},
		{"LOG_LEVEL=trace", nil, env("LOG_LEVEL", "Trace"), func(t *testing.T, cfg server.Config) { wantLevel(t, cfg, slog.LevelDebug) }},
		{"LOG_LEVEL=warn", nil, env("LOG_LEVEL", "warn"), func(t *testing.T, cfg server.Config) { wantLevel(t, cfg, slog.LevelWarn) }},
		{"LOG_LEVEL=quiet", nil, env("LOG_LEVEL", "quiet"), func(t *testing.T, cfg server.Config) {
			if cfg.Logger.Enabled(context.Background(), slog.LevelError) {
				t.Error("quiet logs errors")
			}
		}},
		{"--log-level beats LOG_LEVEL", []string{"--log-level", "error"}, env("LOG_LEVEL", "debug"), func(t *testing.T, cfg server.Config) { wantLevel(t, cfg, slog.LevelError) }},
		{"--log-requests", []string{"--log-requests"}, nil, func(t *testing.T, cfg server.Config) { want(t, "LogRequests", cfg.LogRequests, true) }},
		// certificate, key, data
		{"CERT_PATH and CERT_SECRET", nil, env("CERT_PATH", "/c.pfx", "CERT_SECRET", "pw"), func(t *testing.T, cfg server.Config) {
			want(t, "CertBundle", cfg.CertBundle, "/c.pfx")
			want(t, "CertBundlePassword", cfg.CertBundlePassword, "pw")
		}},
		{"--cert beats CERT_PATH", []string{"--cert", "/c.pem", "--cert-key", "/c.key"}, env("CERT_PATH", "/c.pfx"), func(t *testing.T, cfg server.Config) {
			want(t, "CertBundle", cfg.CertBundle, "")
			want(t, "CertFile", cfg.CertFile, "/c.pem")
		}},
		{"--cert-path beats COSMOS_EMULATOR_CERT", []string{"--cert-path", "/c.pfx"}, env("COSMOS_EMULATOR_CERT", "/c.pem"), func(t *testing.T, cfg server.Config) {
			want(t, "CertBundle", cfg.CertBundle, "/c.pfx")
			want(t, "CertFile", cfg.CertFile, "")
		}},
		{"KEY_FILE", nil, env("KEY_FILE", keyFile), func(t *testing.T, cfg server.Config) { want(t, "Key", cfg.Key, fileKey) }},
		{"--key beats KEY_FILE", []string{"--key", "a2V5"}, env("KEY_FILE", keyFile), func(t *testing.T, cfg server.Config) { want(t, "Key", cfg.Key, "a2V5") }},
		// the classic image's key variable, which testcontainers-python
		// passes with the key its clients sign with
		{"AZURE_COSMOS_EMULATOR_KEY", nil, env("AZURE_COSMOS_EMULATOR_KEY", "a2V5"), func(t *testing.T, cfg server.Config) { want(t, "Key", cfg.Key, "a2V5") }},
		{"COSMOS_EMULATOR_KEY beats AZURE_COSMOS_EMULATOR_KEY", nil, env("AZURE_COSMOS_EMULATOR_KEY", "a2V5", "COSMOS_EMULATOR_KEY", "b3Vy"),
			func(t *testing.T, cfg server.Config) { want(t, "Key", cfg.Key, "b3Vy") }},
		{"KEY_FILE beats AZURE_COSMOS_EMULATOR_KEY", nil, env("AZURE_COSMOS_EMULATOR_KEY", "a2V5", "KEY_FILE", keyFile),
			func(t *testing.T, cfg server.Config) { want(t, "Key", cfg.Key, fileKey) }},
		{"--key-file beats COSMOS_EMULATOR_KEY", []string{"--key-file", keyFile}, env("COSMOS_EMULATOR_KEY", "a2V5"), func(t *testing.T, cfg server.Config) {
			want(t, "Key", cfg.Key, fileKey)
		}},
		{"DATA_PATH", nil, env("DATA_PATH", "/data"), func(t *testing.T, cfg server.Config) { want(t, "DataDir", cfg.DataDir, "/data") }},
		{"COSMOS_EMULATOR_DATA_DIR beats DATA_PATH", nil, env("DATA_PATH", "/data", "COSMOS_EMULATOR_DATA_DIR", "/ours"), func(t *testing.T, cfg server.Config) {
			want(t, "DataDir", cfg.DataDir, "/ours")
		}},
		{"--data-path", []string{"--data-path", "/data"}, nil, func(t *testing.T, cfg server.Config) { want(t, "DataDir", cfg.DataDir, "/data") }},
		// the data explorer's own listener (EXPLORER_PORT, default 1234, optional)
		{"explorer port by default", nil, nil, func(t *testing.T, cfg server.Config) {
			want(t, "ExplorerAddr", cfg.ExplorerAddr, "127.0.0.1:1234")
			want(t, "ExplorerOptional", fmt.Sprint(cfg.ExplorerOptional), "true")
			want(t, "ExplorerProtocol", cfg.ExplorerProtocol, "")
		}},
		{"EXPLORER_PORT given is not optional", nil, env("EXPLORER_PORT", "4321", "EXPLORER_PROTOCOL", "https-insecure"), func(t *testing.T, cfg server.Config) {
			want(t, "ExplorerAddr", cfg.ExplorerAddr, "127.0.0.1:4321")
			want(t, "ExplorerOptional", fmt.Sprint(cfg.ExplorerOptional), "false")
			want(t, "ExplorerProtocol", cfg.ExplorerProtocol, "https")
		}},
		// the direct-mode listener (--rntbd-port, default 10251, optional)
		{"direct mode by default", nil, nil, func(t *testing.T, cfg server.Config) {
			want(t, "RNTBDAddr", cfg.RNTBDAddr, "127.0.0.1:10251")
			want(t, "RNTBDOptional", fmt.Sprint(cfg.RNTBDOptional), "true")
		}},
		{"--rntbd-port given is not optional", []string{"--addr", "0.0.0.0", "--rntbd-port", "10250"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "RNTBDAddr", cfg.RNTBDAddr, "0.0.0.0:10250")
			want(t, "RNTBDOptional", fmt.Sprint(cfg.RNTBDOptional), "false")
		}},
		{"COSMOS_EMULATOR_RNTBD_PORT", nil, env("COSMOS_EMULATOR_RNTBD_PORT", "10252"), func(t *testing.T, cfg server.Config) {
			want(t, "RNTBDAddr", cfg.RNTBDAddr, "127.0.0.1:10252")
		}},
		{"--rntbd-port 0 turns direct mode off", []string{"--rntbd-port", "0"}, nil, func(t *testing.T, cfg server.Config) { want(t, "RNTBDAddr", cfg.RNTBDAddr, "") }},
		{"--explorer-port 0 turns it off", []string{"--explorer-port", "0"}, nil, func(t *testing.T, cfg server.Config) { want(t, "ExplorerAddr", cfg.ExplorerAddr, "") }},
		{"--enable-explorer false: no explorer listener", []string{"--enable-explorer", "false"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "ExplorerAddr", cfg.ExplorerAddr, "")
		}},
		{"explorer port on the host of --addr", []string{"--addr", "0.0.0.0", "--explorer-protocol", "http"}, nil, func(t *testing.T, cfg server.Config) {
			want(t, "ExplorerAddr", cfg.ExplorerAddr, "0.0.0.0:1234")
			want(t, "ExplorerProtocol", cfg.ExplorerProtocol, "http")
		}},
		// accepted, no effect; classic variables ignored
		{"what the modules and Aspire pass", nil, env("ENABLE_TELEMETRY", "false", "EXPLORER_PORT", "1234", "EXPLORER_PROTOCOL", "https",
			"GATEWAY_PUBLIC_ENDPOINT", "cosmosdb", "ENABLE_OTLP_EXPORTER", "false", "ENABLE_CONSOLE_EXPORTER", "false", "VERBOSE", "false",
			"QUERY_BUFFER_SIZE_KB", "8192", "ENABLE_INIT_DATA", "false", "INIT_PATH", "/init"), func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "127.0.0.1:8081")
		}},
		{"Microsoft's flags", []string{"--enable-telemetry", "false", "--explorer-port", "1234", "--enable-otlp", "false", "--verbose", "true",
			"--gateway-endpoint", "cosmosdb", "--query-buffer-size", "65536", "--enable-init-data", "false", "--init-path", "/init"}, nil,
			func(t *testing.T, cfg server.Config) { want(t, "Addr", cfg.Addr, "127.0.0.1:8081") }},
		{"classic variables are ignored", nil, env("AZURE_COSMOS_EMULATOR_PARTITION_COUNT", "None", "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "maybe",
			"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "x"), func(t *testing.T, cfg server.Config) {
			want(t, "Addr", cfg.Addr, "127.0.0.1:8081")
			want(t, "Key", cfg.Key, wire.WellKnownKey)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

// TestMicrosoftConfigErrors: every invalid value is an error of one line
// that names the variable or flag, the value and the accepted values.
func TestMicrosoftConfigErrors(t *testing.T) {
	const accepted = "accepted values are "
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"PROTOCOL=ftp", nil, env("PROTOCOL", "ftp"), []string{`PROTOCOL="ftp"`, accepted + "https, http, https-insecure"}},
		{"--protocol ftp", []string{"--protocol", "ftp"}, nil, []string{`"ftp"`, "-protocol", accepted + "https, http"}},
		{"PORT=abc", nil, env("PORT", "abc"), []string{`PORT="abc"`, accepted + "integers from 0 to 65535"}},
		{"PORT=70000", nil, env("PORT", "70000"), []string{`PORT="70000"`, accepted + "integers from 0 to 65535"}},
		{"PORT=-1", nil, env("PORT", "-1"), []string{`PORT="-1"`, accepted}},
		{"--port abc", []string{"--port", "abc"}, nil, []string{`"abc"`, "-port", accepted}},
		{"ENABLE_EXPLORER=maybe", nil, env("ENABLE_EXPLORER", "maybe"), []string{`ENABLE_EXPLORER="maybe"`, accepted + "true, false"}},
		{"ENABLE_EXPLORER=1", nil, env("ENABLE_EXPLORER", "1"), []string{`ENABLE_EXPLORER="1"`, accepted + "true, false"}},
		{"--enable-explorer maybe", []string{"--enable-explorer", "maybe"}, nil, []string{`"maybe"`, "-enable-explorer", accepted + "true, false"}},
		{"--enable-explorer=maybe", []string{"--enable-explorer=maybe"}, nil, []string{`"maybe"`, "-enable-explorer", accepted + "true, false"}},
		{"ENABLE_TELEMETRY=yes", nil, env("ENABLE_TELEMETRY", "yes"), []string{`ENABLE_TELEMETRY="yes"`, accepted + "true, false"}},
		{"EXPLORER_PORT=x", nil, env("EXPLORER_PORT", "x"), []string{`EXPLORER_PORT="x"`, accepted + "integers from 0 to 65535"}},
		{"EXPLORER_PROTOCOL=ftp", nil, env("EXPLORER_PROTOCOL", "ftp"), []string{`EXPLORER_PROTOCOL="ftp"`, accepted + "http, https, https-insecure"}},
		{"LOG_LEVEL=loud", nil, env("LOG_LEVEL", "loud"), []string{`LOG_LEVEL="loud"`, accepted + "quiet, error, warn, info, debug, trace"}},
		{"--log-level loud", []string{"--log-level", "loud"}, nil, []string{`"loud"`, "-log-level", accepted}},
		{"HEALTH_PORT=99999", nil, env("HEALTH_PORT", "99999"), []string{`HEALTH_PORT="99999"`, accepted + "integers up to 65535"}},
		{"HEALTH_PORT=abc", nil, env("HEALTH_PORT", "abc"), []string{`HEALTH_PORT="abc"`, accepted}},
		{"QUERY_BUFFER_SIZE_KB=0", nil, env("QUERY_BUFFER_SIZE_KB", "0"), []string{`QUERY_BUFFER_SIZE_KB="0"`, accepted + "integers from 1 to 65536"}},
		{"ENABLE_OTLP_EXPORTER=1", nil, env("ENABLE_OTLP_EXPORTER", "1"), []string{`ENABLE_OTLP_EXPORTER="1"`, accepted + "true, false"}},
		{"ENABLE_CONSOLE_EXPORTER=on", nil, env("ENABLE_CONSOLE_EXPORTER", "on"), []string{`ENABLE_CONSOLE_EXPORTER="on"`, accepted}},
		{"VERBOSE=x", nil, env("VERBOSE", "x"), []string{`VERBOSE="x"`, accepted}},
		{"ENABLE_INIT_DATA=x", nil, env("ENABLE_INIT_DATA", "x"), []string{`ENABLE_INIT_DATA="x"`, accepted}},
		{"COSMOS_EMULATOR_PORT=x", nil, env("COSMOS_EMULATOR_PORT", "x"), []string{`COSMOS_EMULATOR_PORT="x"`, accepted}},
		{"KEY_FILE missing", nil, env("KEY_FILE", "/nonexistent/key"), []string{`KEY_FILE="/nonexistent/key"`, "cannot read the key"}},
		{"a stray argument", []string{"--enable-explorer", "false", "serve"}, nil, []string{"unexpected arguments: serve"}},
		{"an unknown flag", []string{"--partition-count", "3"}, nil, []string{"unknown flag --partition-count (--help lists the flags)"}},
		{"a typo", []string{"--protcol", "http"}, nil, []string{"unknown flag --protcol: did you mean --protocol? (--help lists the flags)"}},
		{"a shortened name", []string{"-prot=http"}, nil, []string{"unknown flag --prot: did you mean --protocol?"}},
		{"underscores", []string{"--explorer_port", "0"}, nil, []string{"did you mean --explorer-port?"}},
		{"a prefix of several", []string{"--explorer-p", "0"}, nil, []string{"did you mean --explorer-port or --explorer-protocol?"}},
		{"help misspelt", []string{"--hlep"}, nil, []string{"did you mean --help?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message of several lines: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestHelpAndVersion: --help lists every flag with its variables, ours and
// Microsoft's; --version names the version and revision.
func TestHelpAndVersion(t *testing.T) {
	var out strings.Builder
	if _, err := ParseFlags([]string{"--help"}, func(string) string { return "" }, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: err = %v", err)
	}
	help := out.String()
	for _, w := range []string{"--port int", "COSMOS_EMULATOR_PORT, PORT", "COSMOS_EMULATOR_PROTOCOL, PROTOCOL", "--enable-explorer\n",
		"ENABLE_EXPLORER", "EXPLORER_PORT", "ENABLE_TELEMETRY", "COSMOS_EMULATOR_LOG_LEVEL, LOG_LEVEL", "CERT_PATH", "CERT_SECRET",
		"HEALTH_PORT", "--log-requests", "--version", "--ttl-sweep-interval duration", "COSMOS_EMULATOR_PG\n"} {
		if !strings.Contains(help, w) {
			t.Errorf("--help lacks %q", w)
		}
	}
	for _, m := range microsoftEnv {
		if !strings.Contains(help, m.env) {
			t.Errorf("--help lacks %s", m.env)
		}
	}
	out.Reset()
	if _, err := ParseFlags([]string{"--version"}, func(string) string { return "" }, &out); !errors.Is(err, ErrVersion) {
		t.Fatalf("--version: err = %v", err)
	}
	if !strings.HasPrefix(out.String(), "cosmos-emulator "+server.Version+" (revision ") || strings.Contains(out.String(), "(devel)") {
		t.Errorf("--version printed %q, want cosmos-emulator %s (revision ...)", out.String(), server.Version)
	}
}

// TestMakefileStampsVersion builds the command with the Makefile (make
// build, with VERSION given as a user would) and checks that --version
// names that version and the checkout's revision: the Makefile's -X flags
// reach the variables they name.
func TestMakefileStampsVersion(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "cosmos-emulator")
	start := time.Now()
	build := exec.Command("make", "-s", "-C", "../..", "build", "BIN="+bin, "VERSION=9.8.7-test.1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	t.Logf("make build took %v", time.Since(start))
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	want := "cosmos-emulator 9.8.7-test.1 (revision " + strings.TrimSpace(string(head))
	if !strings.HasPrefix(string(out), want) {
		t.Fatalf("--version printed %q, want it to start with %q", out, want)
	}
}

// TestJoinBoolValues: boolean flags take a following true/false as their
// value; values of other flags are left alone.
func TestJoinBoolValues(t *testing.T) {
	var b bool
	var s string
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&strictBool{&b}, "enable-explorer", "")
	fs.BoolVar(&b, "ephemeral", false, "")
	fs.StringVar(&s, "pg", "", "")
	tests := []struct{ in, want []string }{
		{[]string{"--enable-explorer", "false"}, []string{"--enable-explorer=false"}},
		{[]string{"-enable-explorer", "true", "--pg", "x"}, []string{"-enable-explorer=true", "--pg", "x"}},
		{[]string{"--enable-explorer", "--pg", "false"}, []string{"--enable-explorer", "--pg", "false"}},
		{[]string{"--pg", "--ephemeral", "--ephemeral", "false"}, []string{"--pg", "--ephemeral", "--ephemeral=false"}},
		{[]string{"--ephemeral=true", "false"}, []string{"--ephemeral=true", "false"}},
		{[]string{"--unknown", "false"}, []string{"--unknown", "false"}},
		{[]string{"--", "--ephemeral", "false"}, []string{"--", "--ephemeral", "false"}},
		{[]string{"serve", "--ephemeral", "false"}, []string{"serve", "--ephemeral", "false"}},
		{[]string{"--ephemeral"}, []string{"--ephemeral"}},
	}
	for _, tt := range tests {
		if got := joinBoolValues(fs, tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("joinBoolValues(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// env builds an environment from name, value pairs.
func env(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// wantLevel checks the logger's lowest enabled level.
func wantLevel(t *testing.T, cfg server.Config, level slog.Level) {
	t.Helper()
	ctx := context.Background()
	if !cfg.Logger.Enabled(ctx, level) || cfg.Logger.Enabled(ctx, level-1) {
		t.Errorf("logger level is not %v", level)
	}
}
