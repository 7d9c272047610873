package pgserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const helperEnv = "PGSERVER_TEST_OWNER_DIR"

// TestOwnerProcess is not a test: it is the owner process that
// TestOwnerDeathStopsServer starts and kills.
func TestOwnerProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return // only runs as the helper process of TestOwnerDeathStopsServer
	}
	s, err := Start(context.Background(), Options{DataDir: dir})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("PID", s.Pid())
	time.Sleep(time.Minute) // until killed
	os.Exit(1)
}

// TestOwnerDeathStopsServer kills (SIGKILL) a process that started a server
// and checks that the server shuts down cleanly by itself.
func TestOwnerDeathStopsServer(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnerProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "PID "); ok {
			pid, _ = strconv.Atoi(rest)
			break
		}
		if strings.HasPrefix(line, "ERROR") {
			t.Fatal(line)
		}
	}
	if pid == 0 {
		t.Fatal("the owner process did not report a postmaster pid")
	}
	cmd.Process.Kill()
	cmd.Wait()

	t0 := time.Now()
	for processState(pid) == procRunning {
		if time.Since(t0) > 20*time.Second {
			t.Fatalf("postmaster %d still runs %v after its owner was killed", pid, time.Since(t0))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("postmaster exited %v after its owner was killed", time.Since(t0).Round(time.Millisecond))
	// A clean (fast) shutdown removes postmaster.pid; a crash would not.
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid remains after the owner's death (err=%v): the shutdown was not clean", err)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "postgresql.log")); err == nil {
		if !strings.Contains(string(log), "fast shutdown request") {
			t.Errorf("no fast shutdown in the server log:\n%s", log)
		}
	}
	s, _ := start(t, Options{DataDir: dir})
	stop(t, s)
}
