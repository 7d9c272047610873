package main

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/internal/sysmon"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestCommandRunsWithSysmonAwake: the running command has re-executed
// itself with the setting in its environment (read from /proc), and one
// started with schedtrace=0 keeps it.
func TestCommandRunsWithSysmonAwake(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{nil, "GODEBUG=" + sysmon.Setting},
		{[]string{"GODEBUG=schedtrace=0"}, "GODEBUG=schedtrace=0"},
	} {
		sc := startCommand(t, []string{"--pg", pgtest.NewDatabase(t), "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, tc.extra...)
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(sc.cmd.Process.Pid) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		var godebug []string
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if bytes.HasPrefix(kv, []byte("GODEBUG=")) {
				godebug = append(godebug, string(kv))
			}
		}
		if len(godebug) != 1 || godebug[0] != tc.want {
			t.Errorf("started with %q: GODEBUG of the running command %q, want %q", tc.extra, godebug, tc.want)
		}
	}
}
