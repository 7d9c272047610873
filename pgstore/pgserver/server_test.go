//go:build unix

package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// requireBinaries skips the test when PostgreSQL is not installed, except on
// CI (CI set), where that is a failure.
func requireBinaries(t *testing.T) {
	t.Helper()
	if _, err := FindBinaries(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must not skip: %v", err)
		}
		t.Skip(err)
	}
}

func start(t *testing.T, opts Options) (*Server, time.Duration) {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	s, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	d := time.Since(t0)
	t.Cleanup(func() { s.Stop() })
	return s, d
}

func connect(t *testing.T, s *Server) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		t.Fatalf("connecting with %q: %v", s.ConnString(), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec1(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func queryString(t *testing.T, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

func stop(t *testing.T, s *Server) {
	t.Helper()
	t0 := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("Stop took %v", time.Since(t0).Round(time.Millisecond))
}

func TestStartStopPersists(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")

	s, d := start(t, Options{DataDir: dir})
	t.Logf("start with initdb: %v", d.Round(time.Millisecond))
	if got, want := s.DataDir(), dir; got != want {
		t.Errorf("DataDir() = %q, want %q", got, want)
	}
	if got, want := s.SocketDir(), filepath.Join(dir, "run"); got != want {
		t.Errorf("SocketDir() = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "PG_VERSION")); err != nil {
		t.Errorf("no cluster in DataDir/pgdata: %v", err)
	}
	conn := connect(t, s)
	exec1(t, conn, "CREATE TABLE kept (id int PRIMARY KEY, doc text)")
	exec1(t, conn, "INSERT INTO kept VALUES (1, 'survives a restart')")

	// The settings Start promises.
	for name, want := range map[string]string{
		"listen_addresses":   "",
		"shared_buffers":     "128MB",
		"max_connections":    "200",
		"synchronous_commit": "on",
		"fsync":              "on",
		"full_page_writes":   "on",
		"server_encoding":    "UTF8",
		"lc_collate":         "C",
	} {
		if got := queryString(t, conn, "SELECT current_setting($1)", name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if walSyncMethod != "" { // else PostgreSQL's platform default
		if got := queryString(t, conn, "SELECT current_setting('wal_sync_method')"); got != walSyncMethod {
			t.Errorf("wal_sync_method = %q, want %q", got, walSyncMethod)
		}
	}
	if got := queryString(t, conn, "SELECT current_user"); got != "postgres" {
		t.Errorf("current_user = %q, want postgres", got)
	}
	conn.Close(context.Background())

	stop(t, s)
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v, want nil", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("postmaster.pid still exists after Stop (err=%v)", err)
	}

	s2, d := start(t, Options{DataDir: dir})
	t.Logf("start with existing cluster: %v", d.Round(time.Millisecond))
	conn = connect(t, s2)
	if got := queryString(t, conn, "SELECT doc FROM kept WHERE id = 1"); got != "survives a restart" {
		t.Errorf("row after restart = %q", got)
	}
	conn.Close(context.Background())

	// A second server cannot take the same data directory.
	if s3, err := Start(context.Background(), Options{DataDir: dir}); !errors.Is(err, ErrDataDirInUse) {
		if s3 != nil {
			s3.Stop()
		}
		t.Errorf("second Start on the same DataDir: err = %v, want ErrDataDirInUse", err)
	}
	stop(t, s2)
}

func TestEphemeral(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	s, d := start(t, Options{Ephemeral: true})
	t.Logf("ephemeral start (initdb included): %v", d.Round(time.Millisecond))
	dir := s.DataDir()
	if _, err := os.Stat(filepath.Join(dir, "pgdata", "PG_VERSION")); err != nil {
		t.Fatalf("ephemeral cluster missing: %v", err)
	}
	conn := connect(t, s)
	exec1(t, conn, "CREATE TABLE t (x int)")
	conn.Close(context.Background())
	stop(t, s)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ephemeral data directory %s still exists after Stop (err=%v)", dir, err)
	}
}

func TestLongDataDirUsesShortSocketDir(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), strings.Repeat("long-directory-name-", 6))
	s, _ := start(t, Options{DataDir: dir})
	sock := s.SocketDir()
	if strings.HasPrefix(sock, dir) {
		t.Fatalf("SocketDir() = %q is inside the long DataDir", sock)
	}
	if n := len(filepath.Join(sock, socketFile)); n > maxSocketPath {
		t.Errorf("socket path is %d bytes long", n)
	}
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode = %v, want 0700", fi.Mode().Perm())
	}
	conn := connect(t, s)
	if got := queryString(t, conn, "SELECT 'ok'"); got != "ok" {
		t.Errorf("got %q", got)
	}
	conn.Close(context.Background())
	stop(t, s)
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary socket dir %s still exists after Stop (err=%v)", sock, err)
	}
}

// TestRecovery covers what a previous run can leave behind: a postmaster.pid
// of a killed server, one naming an unrelated live process, and a server
// still running on the cluster.
func TestRecovery(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := t.TempDir()
	s, _ := start(t, Options{DataDir: dir})
	conn := connect(t, s)
	exec1(t, conn, "CREATE TABLE kept (id int)")
	exec1(t, conn, "INSERT INTO kept VALUES (42)")
	conn.Close(context.Background())
	pidFile := filepath.Join(dir, "pgdata", "postmaster.pid")

	t.Run("killed server", func(t *testing.T) {
		s.stopSupervisor() // as if the owner died with it
		s.cur.proc.Kill()  // SIGKILL: postmaster.pid stays behind
		<-s.cur.done
		if _, err := os.Stat(pidFile); err != nil {
			t.Fatalf("expected a stale postmaster.pid: %v", err)
		}
		if err := s.Stop(); err == nil {
			t.Error("Stop of a server that had died: want an error")
		}
		s, d := start(t, Options{DataDir: dir})
		t.Logf("start over a stale postmaster.pid: %v", d.Round(time.Millisecond))
		conn := connect(t, s)
		if got := queryString(t, conn, "SELECT id::text FROM kept"); got != "42" {
			t.Errorf("row after crash = %q", got)
		}
		conn.Close(context.Background())
		stop(t, s)
	})

	t.Run("pid file names another live process", func(t *testing.T) {
		// This test process is alive and not PostgreSQL.
		content := strconv.Itoa(os.Getpid()) + "\n" + filepath.Join(dir, "pgdata") + "\n1\n5432\n" + filepath.Join(dir, "run") + "\n\n  0  0\nready   \n"
		if err := os.WriteFile(pidFile, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s, _ := start(t, Options{DataDir: dir})
		stop(t, s)
	})

	t.Run("server left running", func(t *testing.T) {
		s, _ := start(t, Options{DataDir: dir})
		// Forget s without stopping it, as a killed owner would: release its
		// lock and detach the postmaster.
		conn := connect(t, s)
		exec1(t, conn, "INSERT INTO kept VALUES (43)")
		conn.Close(context.Background())
		old := s.Pid()
		s.stopSupervisor()
		s.releaseLock()
		s2, d := start(t, Options{DataDir: dir})
		t.Logf("start after stopping a leftover server: %v", d.Round(time.Millisecond))
		select {
		case <-s.cur.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the leftover postmaster (pid %d) still runs", old)
		}
		if s2.Pid() == old {
			t.Fatal("the new server is the old one")
		}
		conn = connect(t, s2)
		// The leftover server was shut down cleanly: no commit was lost.
		if got := queryString(t, conn, "SELECT string_agg(id::text, ',' ORDER BY id) FROM kept"); got != "42,43" {
			t.Errorf("rows = %q, want 42,43", got)
		}
		conn.Close(context.Background())
		stop(t, s2)
		s.mu.Lock()
		s.stopped = true // already stopped by s2's Start; keep the cleanup quiet
		s.mu.Unlock()
	})
}

func TestStartFailureShowsLog(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := t.TempDir()
	s, _ := start(t, Options{DataDir: dir})
	stop(t, s)
	conf := filepath.Join(dir, "pgdata", "postgresql.conf")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nthis is not a setting\n")
	f.Close()
	s, err = Start(context.Background(), Options{DataDir: dir, Logf: t.Logf})
	if err == nil {
		s.Stop()
		t.Fatal("Start with a broken postgresql.conf succeeded")
	}
	t.Logf("error: %v", err)
	if !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("error does not include the server log tail: %v", err)
	}
	// The lock was released: a fixed cluster starts again.
	data, _ := os.ReadFile(conf)
	os.WriteFile(conf, []byte(strings.Replace(string(data), "this is not a setting", "", 1)), 0o600)
	s, _ = start(t, Options{DataDir: dir})
	stop(t, s)
}

func TestStartCancelled(t *testing.T) {
	requireBinaries(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if s, err := Start(ctx, Options{DataDir: dir}); err == nil {
		s.Stop()
		t.Fatal("Start with a cancelled context succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "pgdata")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled initdb left pgdata behind (err=%v)", err)
	}
}

func TestRequiresDataDir(t *testing.T) {
	requireBinaries(t)
	if _, err := Start(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "DataDir") {
		t.Errorf("Start without DataDir: err = %v", err)
	}
}

func TestConnStringQuoting(t *testing.T) {
	for _, host := range []string{"/tmp/run", "/tmp/with space/run", `/tmp/it's/run`, `/tmp/back\slash`} {
		s := &Server{sockDir: host}
		cfg, err := pgconn.ParseConfig(s.ConnString())
		if err != nil {
			t.Errorf("ParseConfig(%q): %v", s.ConnString(), err)
			continue
		}
		if cfg.Host != host || cfg.Port != Port || cfg.User != "postgres" || cfg.Database != "postgres" || cfg.TLSConfig != nil {
			t.Errorf("ParseConfig(%q) = host %q port %d user %q db %q tls %v", s.ConnString(), cfg.Host, cfg.Port, cfg.User, cfg.Database, cfg.TLSConfig != nil)
		}
	}
}

func TestEnsureTraversable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to test permissions for another user")
	}
	base := t.TempDir()
	deep := filepath.Join(base, "a", "b")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base, deep} {
		if err := os.Chmod(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(base, "a"), 0o700|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := ensureTraversable(deep, 4242, map[uint32]bool{4242: true}, t.Logf); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base, filepath.Join(base, "a"), deep} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			t.Errorf("%s mode %v: not searchable by others", p, fi.Mode())
		}
		if fi.Mode().Perm()&0o006 != 0 {
			t.Errorf("%s mode %v: read or write granted to others", p, fi.Mode())
		}
	}
	if fi, _ := os.Stat(filepath.Join(base, "a")); fi.Mode()&os.ModeSticky == 0 {
		t.Errorf("sticky bit lost")
	}
}

// waitFor polls cond every 50 ms for up to a minute (a generous bound, not a
// timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSupervisor kills the postmaster (SIGKILL, as the OOM killer would) or
// restarts it behind the server's back with pg_ctl: the supervisor brings
// PostgreSQL back by itself, crash recovery keeps every committed row, and
// Stop then leaves nothing running.
func TestSupervisor(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T, s *Server)
	}{
		{"kill -9", func(t *testing.T, s *Server) {
			if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}},
		{"pg_ctl restart", func(t *testing.T, s *Server) {
			out, err := s.command(context.Background(), s.bin.PgCtl, "restart", "-D", s.pgdata, "-m", "fast", "-w", "-l", filepath.Join(s.pgdata, "pg_ctl.log"),
				"-o", "-c listen_addresses= -c unix_socket_directories="+quoteDirList(s.sockDir)).CombinedOutput()
			if err != nil {
				t.Fatalf("pg_ctl restart: %v\n%s", err, out)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var warnings []string
			s, _ := start(t, Options{DataDir: t.TempDir(), Warnf: func(f string, a ...any) {
				mu.Lock()
				defer mu.Unlock()
				warnings = append(warnings, fmt.Sprintf(f, a...))
			}})
			conn := connect(t, s)
			exec1(t, conn, "CREATE TABLE kept (id int)")
			for i := range 100 {
				exec1(t, conn, "INSERT INTO kept VALUES ($1)", i)
			}
			conn.Close(context.Background())
			old := s.Pid()
			tc.fault(t, s)
			waitFor(t, "the supervisor's restart", func() bool { return s.Restarts() >= 1 })
			if s.Pid() == old {
				t.Fatal("the postmaster was not replaced")
			}
			var got string
			waitFor(t, "a connection after the restart", func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c, err := pgx.Connect(ctx, s.ConnString())
				if err != nil {
					return false
				}
				defer c.Close(ctx)
				return c.QueryRow(ctx, "SELECT count(*)::text FROM kept").Scan(&got) == nil
			})
			if got != "100" {
				t.Errorf("rows after the restart = %s, want 100 (every acknowledged commit)", got)
			}
			mu.Lock()
			if len(warnings) == 0 || !strings.Contains(warnings[len(warnings)-1], "restarted") {
				t.Errorf("supervisor notices = %q", warnings)
			}
			mu.Unlock()
			pid := s.Pid()
			stop(t, s)
			if processState(pid) == procRunning {
				t.Errorf("postmaster %d still runs after Stop", pid)
			}
		})
	}
}

// TestDurability: each level reaches the server as its settings, the
// older FastUnsafeCommit still means DurabilityNone, and Durability wins
// over it.
func TestDurability(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	for _, tt := range []struct {
		name              string
		opts              Options
		want              Durability
		syncCommit, fsync string
	}{
		{"default", Options{}, DurabilityFull, "on", "on"},
		{"full", Options{Durability: DurabilityFull}, DurabilityFull, "on", "on"},
		{"process", Options{Durability: DurabilityProcess}, DurabilityProcess, "on", "off"},
		{"none", Options{Durability: DurabilityNone}, DurabilityNone, "off", "on"},
		{"FastUnsafeCommit", Options{FastUnsafeCommit: true}, DurabilityNone, "off", "on"},
		{"Durability wins over FastUnsafeCommit", Options{Durability: DurabilityProcess, FastUnsafeCommit: true}, DurabilityProcess, "on", "off"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.opts.Ephemeral = true
			s, _ := start(t, tt.opts)
			if got := s.Durability(); got != tt.want {
				t.Errorf("Durability() = %q, want %q", got, tt.want)
			}
			conn := connect(t, s)
			for name, want := range map[string]string{"synchronous_commit": tt.syncCommit, "fsync": tt.fsync, "full_page_writes": "on"} {
				if got := queryString(t, conn, "SHOW "+name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
	t.Run("unknown level", func(t *testing.T) {
		t.Parallel()
		_, err := Start(context.Background(), Options{Ephemeral: true, Durability: "fast"})
		if err == nil || !strings.Contains(err.Error(), "full, process, none") {
			t.Errorf("Start with Durability \"fast\": %v, want an error naming the accepted values", err)
		}
	})
}

// TestDurabilityChangeFlushes: a persistent cluster run without fsync
// (DurabilityProcess) is marked, and the next DurabilityFull start flushes
// it to disk and removes the mark, so switching a data directory back to
// full durability does not leave the earlier run's pages in the kernel's
// cache only.
func TestDurabilityChangeFlushes(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	marker := filepath.Join(dir, unsyncedMarker)
	var logged []string
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	for _, step := range []struct {
		level     Durability
		marked    bool
		wantFlush bool
	}{
		{DurabilityFull, false, false},
		{DurabilityProcess, true, false},
		{DurabilityNone, true, false}, // fsync on, but it does not flush what came before
		{DurabilityFull, false, true},
		{DurabilityFull, false, false},
	} {
		mu.Lock()
		logged = nil
		mu.Unlock()
		s, d := start(t, Options{DataDir: dir, Durability: step.level, Logf: logf})
		t.Logf("start at %s: %v", step.level, d.Round(time.Millisecond))
		exec1(t, connect(t, s), "CREATE TABLE IF NOT EXISTS t (n int); INSERT INTO t VALUES (1)")
		stop(t, s)
		if _, err := os.Stat(marker); (err == nil) != step.marked {
			t.Errorf("after a run at %s: marker exists = %v, want %v", step.level, err == nil, step.marked)
		}
		mu.Lock()
		flushed := strings.Contains(strings.Join(logged, "\n"), "flushed the cluster")
		mu.Unlock()
		if flushed != step.wantFlush {
			t.Errorf("start at %s: flushed = %v, want %v", step.level, flushed, step.wantFlush)
		}
	}
}

// TestSettings: extra settings reach the server and win over its own.
func TestSettings(t *testing.T) {
	requireBinaries(t)
	t.Parallel()
	s, _ := start(t, Options{Ephemeral: true, Settings: map[string]string{"work_mem": "7MB", "max_connections": "50"}})
	conn := connect(t, s)
	for name, want := range map[string]string{"work_mem": "7MB", "max_connections": "50", "fsync": "on"} {
		if got := queryString(t, conn, "SELECT current_setting($1)", name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
