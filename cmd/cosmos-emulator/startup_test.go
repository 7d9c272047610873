package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
)

// runCommand runs the real command (this test binary re-executed as main)
// with args and the environment extra, TMPDIR set to tmp, and returns its
// exit code and output.
func runCommand(t *testing.T, tmp string, args []string, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "TMPDIR="+tmp)
	cmd.Env = append(cmd.Env, extra...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running the command: %v", err)
	}
	return code, out.String(), errOut.String()
}

// processesUnder lists the command lines of running processes that mention
// dir (a managed postmaster names its data directory).
func processesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		line := string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		if strings.Contains(line, dir) && !strings.Contains(line, "-test.") {
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
				continue // a zombie: it has exited
			}
			found = append(found, e.Name()+": "+line)
		}
	}
	return found
}

// TestStartupFailures runs the command in each way it cannot start: it must
// exit with status 1 and print exactly one line that names the cause and
// the fix (never a Go panic), leaving no temporary directory and no
// PostgreSQL process behind.
func TestStartupFailures(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to look for leftover processes")
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A data directory in use: a managed cluster already runs there.
	inUse := t.TempDir()
	haveBinaries := true
	if _, err := pgserver.FindBinaries(); err != nil {
		haveBinaries = false
	} else {
		pg, err := pgserver.Start(context.Background(), pgserver.Options{DataDir: filepath.Join(inUse, "postgres")})
		if err != nil {
			t.Fatal(err)
		}
		defer pg.Stop()
	}

	tests := []struct {
		name    string
		args    []string
		needsPG bool
		want    []string // substrings of the single line
	}{
		{"port in use", []string{"--ephemeral", "--addr", busy.Addr().String()}, false,
			[]string{"cannot listen on " + busy.Addr().String(), "address already in use", "--addr"}},
		{"unreachable --pg", []string{"--addr", "127.0.0.1:0", "--pg", "postgres://nobody:secret@127.0.0.1:1/db?connect_timeout=5"}, false,
			[]string{"cannot connect to PostgreSQL at 127.0.0.1:1", "connection refused", "--pg"}},
		{"invalid --pg", []string{"--addr", "127.0.0.1:0", "--pg", "postgres://x:y@host:notaport/db"}, false,
			[]string{"connection string (--pg) is not valid"}},
		{"data dir in use", []string{"--addr", "127.0.0.1:0", "--data-dir", inUse}, true,
			[]string{"the data directory " + inUse + " is in use by another running emulator", "--data-dir", "--ephemeral"}},
		{"bad --key", []string{"--ephemeral", "--addr", "127.0.0.1:0", "--key", "not base64!"}, false,
			[]string{"master key (--key) is not valid base64", "leave --key out"}},
		{"no PostgreSQL binaries", []string{"--ephemeral", "--addr", "127.0.0.1:0", "--pg-bin", "/nonexistent/bin"}, false,
			[]string{"/nonexistent/bin does not hold the PostgreSQL programs", "--pg-bin"}},
		// This one fails after the managed PostgreSQL has started: it must
		// be stopped and its temporary directory removed.
		{"bad certificate after PostgreSQL started", []string{"--ephemeral", "--addr", "127.0.0.1:0", "--cert", "/nonexistent.pem", "--cert-key", "/nonexistent.key"}, true,
			[]string{"cannot load the TLS certificate", "--cert"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needsPG && !haveBinaries {
				t.Skip("PostgreSQL is not installed")
			}
			tmp := t.TempDir()
			code, stdout, stderr := runCommand(t, tmp, tc.args)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "cosmos-emulator: ") || strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Fatalf("stderr is not one cosmos-emulator line:\n%s", stderr)
			}
			t.Log(lines[0])
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("message %q does not contain %q", lines[0], w)
				}
			}
			if strings.Contains(lines[0], "secret") {
				t.Errorf("message %q shows the password", lines[0])
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				var names []string
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Errorf("left behind in TMPDIR: %v", names)
			}
			if procs := processesUnder(t, tmp); len(procs) != 0 {
				t.Errorf("processes left running: %q", procs)
			}
		})
	}
}
