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
	"sync"
	"testing"
	"time"
)

const helperEnv = "PGSERVER_TEST_OWNER_DIR"

// helperRestartEnv makes the owner process restart PostgreSQL with pg_ctl
// (so that its supervisor adopts the new server) before it reports the pid.
const helperRestartEnv = "PGSERVER_TEST_OWNER_RESTART"

// TestOwnerProcess is not a test: it is the owner process that
// TestOwnerDeathStopsServer starts and kills.
func TestOwnerProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return // only runs as the helper process of TestOwnerDeathStopsServer
	}
	opts := Options{DataDir: dir}
	if os.Getenv(helperRestartEnv) != "" {
		opts.Warnf = func(f string, a ...any) { fmt.Println("WARN", fmt.Sprintf(f, a...)) }
	}
	s, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	if os.Getenv(helperRestartEnv) != "" {
		// PostgreSQL restarted by hand: the supervisor adopts the new
		// postmaster, which is not this process's child.
		old := s.Pid()
		out, err := s.command(context.Background(), s.bin.PgCtl, "restart", "-D", s.pgdata, "-m", "fast", "-w", "-l", filepath.Join(s.pgdata, "pg_ctl.log"),
			"-o", "-c listen_addresses= -c unix_socket_directories="+quoteDirList(s.sockDir)).CombinedOutput()
		if err != nil {
			fmt.Println("ERROR pg_ctl restart:", err, string(out))
			os.Exit(1)
		}
		for s.Restarts() < 1 || s.Pid() == old {
			time.Sleep(20 * time.Millisecond)
		}
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
	cmd, pid, _ := startOwner(t, dir)
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

// TestAdoptedServerReplacedWithNotice: PostgreSQL restarted by hand is
// adopted by the supervisor, with a notice; it is not the owner's child, so
// a kill -9 of the owner leaves it running; the next Start on the data
// directory stops it, and says so in a notice (Warnf, shown at the
// emulator's default log level) rather than at debug level.
func TestAdoptedServerReplacedWithNotice(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := t.TempDir()
	cmd, pid, ownerNotices := startOwner(t, dir, helperRestartEnv+"=1")
	adopted := fmt.Sprintf("restarted outside the emulator (now pid %d); adopting it", pid)
	if !strings.Contains(strings.Join(ownerNotices, "\n"), adopted) {
		t.Errorf("owner's notices %q lack %q", ownerNotices, adopted)
	}
	cmd.Process.Kill() // kill -9: no Stop
	cmd.Wait()
	time.Sleep(500 * time.Millisecond)
	if processState(pid) != procRunning {
		t.Skipf("the adopted postmaster %d did not outlive its owner: nothing to replace", pid)
	}

	var mu sync.Mutex
	var notices []string
	t0 := time.Now()
	s, _ := start(t, Options{DataDir: dir, Warnf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, fmt.Sprintf(f, a...))
	}})
	t.Logf("Start replacing the unowned server took %v", time.Since(t0).Round(time.Millisecond))
	if s.Pid() == pid || processState(pid) == procRunning {
		t.Errorf("the unowned postmaster %d still runs (new pid %d)", pid, s.Pid())
	}
	replaced := fmt.Sprintf("replacing a PostgreSQL server (pid %d) found running on", pid)
	mu.Lock()
	if !strings.Contains(strings.Join(notices, "\n"), replaced) {
		t.Errorf("notices %q lack %q", notices, replaced)
	}
	mu.Unlock()
	stop(t, s)
}

// startOwner starts TestOwnerProcess as a separate process owning a
// server in dir (env adds variables) and reads its output until it
// reports the postmaster's pid; it returns the process, that pid and the
// notices (WARN lines) printed before it. The process is killed at
// cleanup.
func startOwner(t *testing.T, dir string, env ...string) (*exec.Cmd, int, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnerProcess$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+dir), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var notices []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "PID "); ok {
			pid, _ := strconv.Atoi(rest)
			if pid == 0 {
				break
			}
			return cmd, pid, notices
		}
		if rest, ok := strings.CutPrefix(line, "WARN "); ok {
			notices = append(notices, rest)
		}
		if strings.HasPrefix(line, "ERROR") {
			t.Fatal(line)
		}
	}
	t.Fatal("the owner process did not report a postmaster pid")
	return nil, 0, nil
}
