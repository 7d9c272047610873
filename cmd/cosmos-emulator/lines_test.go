package main

import (
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestStatusLineAndShutdownLog runs the real command with the explorer on
// and off: the status line names the explorer's state (DISABLED when it is
// off, not OK); the explorer line points a browser at the page, over plain
// http on the explorer's own port even when the gateway serves https, or
// on the main port when it has no port of its own; and on SIGTERM the
// command logs "stopping" and then "stopped" with its uptime and how long
// the shutdown took, and exits 0.
func TestStatusLineAndShutdownLog(t *testing.T) {
	explorerPort := strconv.Itoa(freePort(t))
	tests := []struct {
		name       string
		args       []string
		statusLine string
		explorer   string // the explorer line; "main" names the main port's page, "" none
	}{
		{"explorer on its port, gateway https", []string{"--protocol", "https", "--explorer-port", explorerPort},
			"PostgreSQL=OK, Gateway=OK, Explorer=OK, Ready=YES", "Data explorer on http://127.0.0.1:" + explorerPort + "/_explorer/index.html"},
		{"explorer on the main port", []string{"--protocol", "http", "--explorer-port", "0"},
			"PostgreSQL=OK, Gateway=OK, Explorer=OK, Ready=YES", "main"},
		// The testcontainers Go module's arguments.
		{"explorer off", []string{"--protocol", "http", "--enable-explorer", "false"},
			"PostgreSQL=OK, Gateway=OK, Explorer=DISABLED, Ready=YES", ""},
	}
	stopped := regexp.MustCompile(`level=INFO msg=stopped uptime=\S+ shutdown=\S+`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--pg", pgtest.NewDatabase(t), "--data-dir", t.TempDir(), "--port", "0", "--health-port", "0"}, tc.args...)
			sc := startCommand(t, args)
			if got := sc.line(t, "PostgreSQL="); got != tc.statusLine {
				t.Errorf("status line %q, want %q", got, tc.statusLine)
			}
			want := tc.explorer
			if want == "main" {
				want = "Data explorer on " + strings.TrimPrefix(sc.line(t, "cosmos-emulator ready: "), "cosmos-emulator ready: ") + "_explorer/index.html"
			}
			var got string
			for _, l := range sc.lines {
				if strings.HasPrefix(l, "Data explorer on ") {
					got = strings.TrimRight(l, "\r\n")
				}
			}
			if got != want {
				t.Errorf("explorer line %q, want %q", got, want)
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
