package main

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestStatusLineAndShutdownLog runs the real command with the explorer on
// and off: the status line names the explorer's state (DISABLED when it is
// off, not OK), and on SIGTERM the command logs "stopping" and then
// "stopped" with its uptime and how long the shutdown took, and exits 0.
func TestStatusLineAndShutdownLog(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		statusLine string
	}{
		{"explorer on", []string{"--enable-explorer", "true"}, "PostgreSQL=OK, Gateway=OK, Explorer=OK, Ready=YES"},
		// The testcontainers Go module's arguments.
		{"explorer off", []string{"--enable-explorer", "false"}, "PostgreSQL=OK, Gateway=OK, Explorer=DISABLED, Ready=YES"},
	}
	stopped := regexp.MustCompile(`level=INFO msg=stopped uptime=\S+ shutdown=\S+`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--pg", pgtest.NewDatabase(t), "--port", "0", "--protocol", "http", "--health-port", "0", "--explorer-port", "0"}, tc.args...)
			sc := startCommand(t, args)
			if got := sc.line(t, "PostgreSQL="); got != tc.statusLine {
				t.Errorf("status line %q, want %q", got, tc.statusLine)
			}
			if err := sc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case <-sc.done:
			case <-time.After(time.Minute):
				t.Fatalf("no exit within a minute of SIGTERM; stderr:\n%s", sc.stderr.String())
			}
			stderr := sc.stderr.String()
			if sc.err != nil {
				t.Fatalf("exit: %v; stderr:\n%s", sc.err, stderr)
			}
			if !strings.Contains(stderr, "msg=stopping reason=signal uptime=") {
				t.Errorf("no stopping line in stderr:\n%s", stderr)
			}
			line := stopped.FindString(stderr)
			if line == "" {
				t.Fatalf("no stopped line in stderr:\n%s", stderr)
			}
			t.Logf("%s", line)
		})
	}
}

// TestMicrosoftVariableNotedOnce: each Microsoft variable in use is logged
// once at start, DATA_PATH too (it sets --data-dir through the alias
// --data-path, and was logged for both). The command is stopped early by
// a PostgreSQL that does not answer, after the notes.
func TestMicrosoftVariableNotedOnce(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		vars []string
	}{
		{"DATA_PATH", []string{"DATA_PATH=" + t.TempDir()}, []string{"DATA_PATH"}},
		{"DATA_PATH and PORT", []string{"DATA_PATH=" + t.TempDir(), "PORT=0"}, []string{"DATA_PATH", "PORT"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--pg", "postgres://cosmos@127.0.0.1:1/none?connect_timeout=5", "--health-port", "0", "--explorer-port", "0"}
			code, _, stderr := runCommand(t, t.TempDir(), args, tc.env...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (PostgreSQL unreachable); stderr:\n%s", code, stderr)
			}
			for _, v := range tc.vars {
				if n := strings.Count(stderr, "using "+v+" from Microsoft's emulator variables"); n != 1 {
					t.Errorf("%s noted %d times, want once; stderr:\n%s", v, n, stderr)
				}
			}
		})
	}
}
