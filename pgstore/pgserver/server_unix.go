//go:build unix

package pgserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// socketFile is the name of the socket file PostgreSQL creates in the
	// socket directory for Port.
	socketFile = ".s.PGSQL.5432"

	startTimeout = 60 * time.Second
	stopTimeout  = 60 * time.Second
	pollInterval = 5 * time.Millisecond
)

// maxSocketPath is the longest Unix socket path the kernel accepts:
// sizeof(sockaddr_un.sun_path) less the terminating NUL (108 on Linux, 104 on
// the BSDs and macOS).
var maxSocketPath = func() int {
	if runtime.GOOS == "linux" {
		return 107
	}
	return 103
}()

// Start starts a private PostgreSQL server and returns once it accepts
// connections.
//
// Cluster. The cluster lives in DataDir/pgdata. The first Start creates it
// with initdb (superuser "postgres", trust authentication, UTF8, locale C;
// --no-sync unless the cluster persists at DurabilityFull), into
// DataDir/pgdata.initdb renamed when complete, so an interrupted initdb is
// simply redone; later Starts detect PG_VERSION and reuse it, so data
// persists across Stop and Start.
//
// Network. The server listens on no TCP port (listen_addresses is empty),
// only on a Unix socket in DataDir/run (mode 0700). A Unix socket path is
// limited to about 107 bytes, so when DataDir is too long for
// DataDir/run/.s.PGSQL.5432, a fresh directory /tmp/pgserver-sock-* (mode
// 0700, owned by the server's user) is used instead and Stop removes it.
// Server.ConnString names the directory chosen.
//
// Settings. They are passed as -c options on the postgres command line, not
// written to postgresql.conf: shared_buffers=128MB, max_connections=200,
// full_page_writes=on, on Linux wal_sync_method=open_datasync (see
// walSyncMethod), and the durability settings of Options.Durability: by
// default (DurabilityFull) synchronous_commit=on and fsync=on, so a commit
// is acknowledged only once its WAL is flushed to disk and survives a kill
// -9 of PostgreSQL or of this process, and a crash or power cut of the
// machine. DurabilityProcess sets fsync=off (a commit still waits for its
// WAL to reach the kernel: it survives any process crash, not an OS crash);
// DurabilityNone sets synchronous_commit=off (a crash of PostgreSQL or of
// the machine may lose the writes of the last ~0.6 s; the cluster itself
// stays consistent, fsync stays on). initdb runs with --no-sync unless the
// level is DurabilityFull and the cluster persists. A persistent cluster
// run at DurabilityProcess is flushed to disk by the next DurabilityFull
// Start before its server starts (markUnsynced).
//
// Supervision. A goroutine watches the postmaster until Stop. When it exits
// on its own (killed, crashed), the supervisor starts it again at once (with
// a growing pause, at most 5 s, while that fails): PostgreSQL replays its
// WAL, and clients reconnect to the same socket. After a clean shutdown that
// Stop did not ask for (pg_ctl restart), it waits a few seconds for the
// server pg_ctl starts and keeps that one, stopping it at Stop. Its notices
// go to Options.Warnf.
//
// Process. Start runs postgres directly (not through pg_ctl start), in its
// own session, with its output written to DataDir/postgresql.log (the
// previous run's log is kept as postgresql.log.1), and polls postmaster.pid
// every few milliseconds until it names that process and reports it ready,
// the check pg_ctl start -w makes. An existing cluster is ready in about
// 0.1-0.3 s; initdb adds 1-1.5 s. When the
// calling process dies, even by SIGKILL, Linux sends the server SIGINT (a
// fast, clean shutdown), so a private server does not outlive its owner. If
// the server cannot start, the error includes the tail of its log.
//
// Root. PostgreSQL refuses to run as root, so when the calling process runs
// as root, initdb, postgres and pg_ctl run as the "postgres" user if it exists,
// else as "nobody". The cluster and socket directories are then owned by that
// user, and every directory from / down to DataDir is made traversable by it:
// where one is not, Start adds the execute (search) permission for others
// (o+x, never read or write) and reports it through Logf. This is what lets a
// root process keep its DataDir under /root or a 0700 temporary directory.
//
// Exclusivity and recovery. Start holds an flock on DataDir/pgserver.lock
// until Stop; a second Start on the same DataDir fails with an error wrapping
// ErrDataDirInUse. A postmaster.pid left by a killed server is handled by
// PostgreSQL itself (it notices the process is gone); if it names a live
// process that is not PostgreSQL, Start removes it; if a PostgreSQL server
// left over from a previous owner still runs on the cluster, Start stops it
// (pg_ctl stop -m fast) before starting its own.
//
// Binaries are found with FindBinaries unless Options.Binaries is set; when
// none are found the error wraps ErrNoBinaries. Start honours ctx until the
// server is ready; cancelling it later has no effect (use Stop).
func Start(ctx context.Context, opts Options) (_ *Server, err error) {
	t0 := time.Now()
	s := &Server{logf: opts.Logf, warnf: opts.Warnf, ephemeral: opts.Ephemeral, settings: opts.Settings,
		stopping: make(chan struct{}), supervised: make(chan struct{})}
	if s.durability, err = opts.level(); err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	if s.warnf == nil {
		s.warnf = s.logf
	}
	if opts.Binaries != nil {
		s.bin = *opts.Binaries
	} else if s.bin, err = FindBinaries(); err != nil {
		return nil, err
	}
	if !opts.Ephemeral && opts.DataDir == "" {
		return nil, errors.New("pgserver: Options.DataDir is required unless Options.Ephemeral is set")
	}
	var gids map[uint32]bool
	if os.Geteuid() == 0 {
		if gids, err = s.pickUser(); err != nil {
			return nil, err
		}
	}

	// Cleanup on failure, in reverse order of acquisition.
	var undo []func()
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()

	// The data directory.
	if opts.Ephemeral {
		parent := opts.DataDir
		if parent != "" {
			if err := os.MkdirAll(parent, 0o755); err != nil {
				return nil, fmt.Errorf("pgserver: %w", err)
			}
		}
		dir, err := os.MkdirTemp(parent, "pgserver-")
		if err != nil {
			return nil, fmt.Errorf("pgserver: creating the ephemeral data directory: %w", err)
		}
		undo = append(undo, func() { os.RemoveAll(dir) })
		s.dataDir = dir
	} else {
		if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("pgserver: creating the data directory: %w", err)
		}
		s.dataDir = opts.DataDir
	}
	if s.dataDir, err = filepath.Abs(s.dataDir); err != nil {
		return nil, fmt.Errorf("pgserver: %w", err)
	}
	if real, err := filepath.EvalSymlinks(s.dataDir); err == nil {
		s.dataDir = real
	}
	s.pgdata = filepath.Join(s.dataDir, "pgdata")

	// Exclusive use of the data directory.
	if err := s.acquireLock(); err != nil {
		return nil, err
	}
	undo = append(undo, s.releaseLock)

	if s.switchUser {
		if err := ensureTraversable(s.dataDir, s.uid, gids, s.logf); err != nil {
			return nil, err
		}
	}

	// The cluster.
	if err := s.ensureCluster(ctx); err != nil {
		return nil, err
	}

	if err := s.markUnsynced(ctx); err != nil {
		return nil, err
	}

	// The socket directory.
	if err := s.makeSocketDir(); err != nil {
		return nil, err
	}
	if s.tmpSock {
		undo = append(undo, func() { os.RemoveAll(s.sockDir) })
	}

	pm, err := s.launch(ctx)
	if err != nil {
		return nil, err
	}
	s.cur = pm
	s.logf("pgserver: PostgreSQL ready in %v (data %s, socket %s)", time.Since(t0).Round(time.Millisecond), s.dataDir, s.sockDir)
	go s.supervise()
	return s, nil
}

// launch clears what a previous run left (a postmaster still running on the
// cluster, stale socket files) and starts a postmaster, retrying while the
// shared memory of a killed one is still in use.
func (s *Server) launch(ctx context.Context) (*postmaster, error) {
	if err := s.clearStalePostmaster(ctx); err != nil {
		return nil, err
	}
	for _, name := range []string{socketFile, socketFile + ".lock"} {
		if err := os.Remove(filepath.Join(s.sockDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("pgserver: removing a stale socket file: %w", err)
		}
	}
	// Backends of a killed postmaster may still hold its shared memory for
	// a moment; PostgreSQL then refuses to start, so try again briefly.
	for attempt := 1; ; attempt++ {
		pm, err := s.startPostgres(ctx)
		if err == nil {
			return pm, nil
		}
		if attempt == 25 || ctx.Err() != nil || !strings.Contains(err.Error(), "pre-existing shared memory block") {
			return nil, err
		}
		s.logf("pgserver: the shared memory of a previous server is still in use; retrying")
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// supervise restarts PostgreSQL whenever its postmaster exits on its own
// (killed, crashed, or stopped by someone else's pg_ctl) until Stop: the
// new postmaster performs crash recovery from the WAL, then serves again on
// the same socket, so clients only need to reconnect. Failed restarts are
// retried with a growing pause (at most 5 s).
func (s *Server) supervise() {
	defer close(s.supervised)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stopping
		cancel()
	}()
	for {
		s.mu.Lock()
		pm := s.cur
		s.mu.Unlock()
		select {
		case <-s.stopping:
			return
		case <-pm.done:
		}
		t0 := time.Now()
		if pm.waitErr == nil {
			// A clean shutdown that Stop did not ask for: someone ran
			// pg_ctl stop or restart. After a restart, keep the server
			// pg_ctl started instead of fighting over the data directory.
			if next := s.adopt(ctx, pm.proc.Pid); next != nil {
				s.replaced(next)
				s.warnf("pgserver: PostgreSQL was restarted outside the emulator (now pid %d); adopting it. It is not the emulator's child: "+
					"if the emulator is killed, it keeps running until the emulator's next start on %s stops it", next.proc.Pid, s.dataDir)
				continue
			}
		}
		s.warnf("pgserver: PostgreSQL (pid %d) exited unexpectedly (%v); restarting it", pm.proc.Pid, pm.waitErr)
		pause := 100 * time.Millisecond
		for {
			next, err := s.launch(ctx)
			if err == nil {
				s.replaced(next)
				s.warnf("pgserver: PostgreSQL restarted (pid %d) after %v", next.proc.Pid, time.Since(t0).Round(time.Millisecond))
				break
			}
			if ctx.Err() != nil {
				return
			}
			s.warnf("pgserver: restarting PostgreSQL failed (retrying in %v): %v", pause, firstLine(err.Error()))
			select {
			case <-s.stopping:
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, 5*time.Second)
		}
	}
}

// replaced makes next the current postmaster, counted as a restart.
func (s *Server) replaced(next *postmaster) {
	s.mu.Lock()
	s.cur = next
	s.restarts++
	s.mu.Unlock()
}

// adoptGrace is how long the supervisor waits, after a clean shutdown it did
// not ask for, for a server started by someone else's pg_ctl restart.
const adoptGrace = 5 * time.Second

// adopt waits up to adoptGrace for a ready PostgreSQL server other than pid
// on the cluster and returns it, watched by a goroutine that closes its done
// channel when it exits; nil if none appears.
func (s *Server) adopt(ctx context.Context, old int) *postmaster {
	deadline := time.Now().Add(adoptGrace)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if pid, ok := s.readyPid(); ok && pid != old {
			if isPG, _ := isPostgresProcess(pid); isPG {
				proc, _ := os.FindProcess(pid) // never fails on unix
				pm := &postmaster{proc: proc, done: make(chan struct{}), adopted: true}
				go func() {
					defer close(pm.done)
					for processState(pid) == procRunning && ctx.Err() == nil {
						select {
						case <-ctx.Done():
						case <-time.After(200 * time.Millisecond):
						}
					}
				}()
				return pm
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// stopSupervisor ends the supervisor and waits for it; from then on a
// postmaster that exits stays down. Idempotent.
func (s *Server) stopSupervisor() {
	s.stopOnce.Do(func() { close(s.stopping) })
	<-s.supervised
}

// pickUser chooses the unprivileged user to run PostgreSQL as, for a process
// running as root, and returns its groups.
func (s *Server) pickUser() (map[uint32]bool, error) {
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, errors.New("pgserver: running as root, and neither a \"postgres\" nor a \"nobody\" user exists to run PostgreSQL as (PostgreSQL refuses to run as root)")
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 {
		return nil, fmt.Errorf("pgserver: cannot run PostgreSQL as user %q (uid %s, gid %s)", u.Username, u.Uid, u.Gid)
	}
	s.switchUser, s.uid, s.gid, s.userName = true, uint32(uid), uint32(gid), u.Username
	gids := map[uint32]bool{uint32(gid): true}
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if n, err := strconv.ParseUint(id, 10, 32); err == nil {
				gids[uint32(n)] = true
			}
		}
	}
	return gids, nil
}

// acquireLock takes an exclusive, non-blocking flock on DataDir/pgserver.lock.
// The kernel releases it when the process dies, so it never goes stale, and
// the descriptor is close-on-exec, so PostgreSQL does not inherit it.
func (s *Server) acquireLock() error {
	path := filepath.Join(s.dataDir, "pgserver.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("pgserver: opening the lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s is locked by a running server", ErrDataDirInUse, s.dataDir)
		}
		return fmt.Errorf("pgserver: locking %s: %w", path, err)
	}
	s.lock = f
	return nil
}

// releaseLock gives up the data directory lock: explicitly (LOCK_UN), then
// closes its descriptor. Closing alone is not enough: a flock belongs to
// the open file description, and a process forked at that moment by any
// goroutine (os/exec forks, and the child keeps a copy of every descriptor
// until its exec closes the close-on-exec ones) would hold the lock a
// little longer, so that a Start right after a Stop could find the
// directory "in use" (TestRecovery, once, on a loaded machine).
func (s *Server) releaseLock() {
	_ = syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN)
	s.lock.Close()
}

// ensureCluster creates the cluster with initdb unless it exists, and makes
// sure the server's user owns it.
func (s *Server) ensureCluster(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.pgdata, "PG_VERSION")); err == nil {
		return s.chownCluster()
	}
	switch entries, err := os.ReadDir(s.pgdata); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("pgserver: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("pgserver: %s exists but is not a PostgreSQL cluster (it has no PG_VERSION); move it away or choose another DataDir", s.pgdata)
	default:
		if err := os.Remove(s.pgdata); err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
	}

	t0 := time.Now()
	tmp := s.pgdata + ".initdb"
	if err := os.RemoveAll(tmp); err != nil { // an interrupted earlier initdb
		return fmt.Errorf("pgserver: removing %s: %w", tmp, err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if err := s.chown(tmp); err != nil {
		return err
	}
	args := []string{"-D", tmp, "-U", Superuser, "-A", "trust", "-E", "UTF8", "--locale=C"}
	if s.ephemeral || s.durability != DurabilityFull {
		// Nothing to keep across a power cut: skip initdb's final sync.
		args = append(args, "--no-sync")
	}
	cmd := s.command(ctx, s.bin.Initdb, args...)
	cmd.Dir = s.dataDir
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("pgserver: initdb failed: %v\n%s", err, tail(out, 20))
	}
	if err := os.Rename(tmp, s.pgdata); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	s.logf("pgserver: initdb created a new cluster in %s in %v", s.pgdata, time.Since(t0).Round(time.Millisecond))
	return nil
}

// unsyncedMarker is the file in the data directory that says a run without
// fsync (DurabilityProcess) may have left data in the kernel's cache only.
const unsyncedMarker = "pgdata.unsynced"

// markUnsynced keeps a persistent cluster safe across a change of
// durability level. A DurabilityProcess run writes the marker before the
// server starts; a DurabilityFull run that finds it flushes the whole
// cluster to disk (initdb --sync-only) before starting, then removes it:
// a server with fsync=on flushes only the files it writes itself, so the
// pages a run without fsync left unflushed would otherwise stay exposed to
// a power cut (PostgreSQL's documentation of fsync asks for this step).
// DurabilityNone keeps fsync on and changes nothing here.
func (s *Server) markUnsynced(ctx context.Context) error {
	if s.ephemeral {
		return nil // removed by Stop: nothing to keep
	}
	marker := filepath.Join(s.dataDir, unsyncedMarker)
	switch s.durability {
	case DurabilityProcess:
		if err := os.WriteFile(marker, []byte("a run with fsync=off may have left data unflushed; a run with fsync=on syncs the cluster first\n"), 0o600); err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
	case DurabilityFull:
		if _, err := os.Stat(marker); err != nil {
			return nil
		}
		t0 := time.Now()
		if out, err := s.command(ctx, s.bin.Initdb, "--sync-only", "-D", s.pgdata).CombinedOutput(); err != nil {
			return fmt.Errorf("pgserver: flushing the cluster written without fsync (initdb --sync-only) failed: %v\n%s", err, tail(out, 10))
		}
		if err := os.Remove(marker); err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
		s.logf("pgserver: flushed the cluster a run without fsync wrote, in %v", time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// chownCluster gives the cluster to the server's user if another user owns
// it (for example a cluster created by a non-root run, now used as root).
func (s *Server) chownCluster() error {
	if !s.switchUser {
		return nil
	}
	fi, err := os.Stat(s.pgdata)
	if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == s.uid {
		return nil
	}
	s.logf("pgserver: giving %s to user %s", s.pgdata, s.userName)
	err = filepath.WalkDir(s.pgdata, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(s.uid), int(s.gid))
	})
	if err != nil {
		return fmt.Errorf("pgserver: changing the owner of %s: %w", s.pgdata, err)
	}
	return nil
}

// makeSocketDir creates the socket directory: DataDir/run, or a temporary
// directory under /tmp when that path would be too long for a socket address.
func (s *Server) makeSocketDir() error {
	dir := filepath.Join(s.dataDir, "run")
	if len(dir)+1+len(socketFile) <= maxSocketPath {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("pgserver: creating the socket directory: %w", err)
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("/tmp", "pgserver-sock-"); err != nil {
			return fmt.Errorf("pgserver: creating the socket directory: %w", err)
		}
		s.tmpSock = true
		s.logf("pgserver: %s is too long for a Unix socket path; using socket directory %s", s.dataDir, dir)
	}
	s.sockDir = dir
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return s.chown(dir)
}

// clearStalePostmaster deals with a postmaster.pid left by an earlier run.
func (s *Server) clearStalePostmaster(ctx context.Context) error {
	pidFile := filepath.Join(s.pgdata, "postmaster.pid")
	data, err := os.ReadFile(pidFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0]))
	if err != nil || pid <= 0 {
		s.logf("pgserver: removing unreadable %s", pidFile)
		return os.Remove(pidFile)
	}
	switch processState(pid) {
	case procGone:
		// PostgreSQL sees that the process is gone and replaces the file
		// (after checking that no orphaned backend still uses the old
		// shared memory).
		s.logf("pgserver: found the postmaster.pid of a server (pid %d) that no longer runs; PostgreSQL will replace it", pid)
		return nil
	case procZombie:
		// A killed postmaster that nobody reaped: PostgreSQL would take it
		// for a live server.
		s.logf("pgserver: removing %s: its pid %d is a dead, unreaped process", pidFile, pid)
		return os.Remove(pidFile)
	}
	isPG, known := isPostgresProcess(pid)
	if !known {
		return fmt.Errorf("pgserver: %s names pid %d, which is running; if it is not a PostgreSQL server on this cluster, remove the file", pidFile, pid)
	}
	if !isPG {
		s.logf("pgserver: removing stale %s: its pid %d now belongs to another program", pidFile, pid)
		return os.Remove(pidFile)
	}
	// We hold the data directory lock, so this server was left running by
	// an owner that died without stopping it (or started by hand): stop it.
	// A notice, not a progress line: the server was running unowned
	// (typically adopted after a restart by hand, then the emulator was
	// killed), and whoever looks at it should know why it goes away.
	s.warnf("pgserver: replacing a PostgreSQL server (pid %d) found running on %s without an owner (left by an earlier run of the emulator that was killed, or started by hand); stopping it", pid, s.pgdata)
	out, err := s.command(ctx, s.bin.PgCtl, "stop", "-D", s.pgdata, "-m", "fast", "-w",
		"-t", strconv.Itoa(int(stopTimeout/time.Second))).CombinedOutput()
	if err != nil {
		// The leftover server may have been shutting itself down (its
		// owner died, which it notices) and exited while pg_ctl was
		// signalling it: then there is nothing left to stop. pg_ctl also
		// fails once the server has removed its postmaster.pid on the way
		// out, while its process is still ending (seen in CI after a kill
		// -9 of the emulator): wait a moment for the process to end.
		_ = waitExited(pid, 5*time.Second)
		switch processState(pid) {
		case procGone:
			return nil
		case procZombie:
			if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		return fmt.Errorf("pgserver: a PostgreSQL server (pid %d) still runs on %s and pg_ctl stop failed: %v\n%s", pid, s.pgdata, err, tail(out, 10))
	}
	return nil
}

// startPostgres runs the postmaster and waits until it is ready.
func (s *Server) startPostgres(ctx context.Context) (*postmaster, error) {
	s.logPath = filepath.Join(s.dataDir, "postgresql.log")
	if err := os.Rename(s.logPath, s.logPath+".1"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("pgserver: rotating the server log: %w", err)
	}
	logFile, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o640)
	if err != nil {
		return nil, fmt.Errorf("pgserver: creating the server log: %w", err)
	}
	defer logFile.Close()
	if err := s.chown(s.logPath); err != nil {
		return nil, err
	}

	syncCommit, fsync := "on", "on"
	switch s.durability {
	case DurabilityNone:
		syncCommit = "off"
	case DurabilityProcess:
		// The commit waits for its WAL write(2) to the kernel, not for
		// the flush: a killed postmaster or backend loses nothing the
		// kernel holds. full_page_writes stays on: Linux may stop a
		// write(2) of an 8 kB page between its 4 kB memory pages when
		// the writer gets SIGKILL (generic_perform_write checks for a
		// fatal signal per page), so a torn data page is possible even
		// without an OS crash, and only the full-page image in the WAL
		// repairs it. Without fsyncs, full-page images cost WAL
		// volume, not waits.
		fsync = "off"
	}
	cmd := exec.Command(s.bin.Postgres,
		"-D", s.pgdata,
		"-c", "listen_addresses=",
		"-c", "unix_socket_directories="+quoteDirList(s.sockDir),
		"-c", "port="+strconv.Itoa(Port),
		"-c", "shared_buffers=128MB",
		"-c", "max_connections=200",
		"-c", "synchronous_commit="+syncCommit,
		"-c", "fsync="+fsync,
		"-c", "full_page_writes=on",
	)
	if walSyncMethod != "" {
		cmd.Args = append(cmd.Args, "-c", "wal_sync_method="+walSyncMethod)
	}
	names := make([]string, 0, len(s.settings))
	for name := range s.settings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		cmd.Args = append(cmd.Args, "-c", name+"="+s.settings[name])
	}
	cmd.Dir = s.pgdata
	cmd.Env = childEnv()
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = s.sysProcAttr()
	cmd.SysProcAttr.Setsid = true // no terminal signals; Stop and the owner's death decide
	setParentDeathSignal(cmd.SysProcAttr)

	// Linux delivers the parent-death signal when the thread that forked the
	// child exits, not the process. So the child is started from, and waited
	// for on, a goroutine locked to its own thread, which lives exactly as
	// long as the postmaster.
	pm := &postmaster{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		pm.proc = cmd.Process
		started <- nil
		pm.waitErr = cmd.Wait()
		close(pm.done)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("pgserver: starting postgres: %w", err)
	}

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if s.ready(pm) {
			return pm, nil
		}
		select {
		case <-pm.done:
			return nil, fmt.Errorf("pgserver: PostgreSQL exited during startup (%v)%s; the end of %s:\n%s",
				pm.waitErr, s.logFatal(), s.logPath, s.logTail())
		case <-ctx.Done():
			pm.kill()
			return nil, fmt.Errorf("pgserver: waiting for PostgreSQL to start: %w", ctx.Err())
		case <-timer.C:
			pm.kill()
			return nil, fmt.Errorf("pgserver: PostgreSQL was not ready after %v; the end of %s:\n%s",
				startTimeout, s.logPath, s.logTail())
		case <-tick.C:
		}
	}
}

// ready reports whether postmaster.pid names our postmaster and says it
// accepts connections (the check pg_ctl start -w makes).
func (s *Server) ready(pm *postmaster) bool {
	pid, ok := s.readyPid()
	return ok && pid == pm.proc.Pid
}

// readyPid returns the pid postmaster.pid names when its status says the
// server accepts connections.
func (s *Server) readyPid() (int, bool) {
	data, err := os.ReadFile(filepath.Join(s.pgdata, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(data), "\n")
	// Line 1 is the pid, line 8 the status ("ready", "starting", "stopping"...).
	if len(lines) < 8 || strings.TrimSpace(lines[7]) != "ready" {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	return pid, err == nil
}

// kill shuts a postmaster that failed to become ready down: a fast shutdown
// first, then SIGKILL.
func (pm *postmaster) kill() {
	pm.proc.Signal(syscall.SIGINT)
	select {
	case <-pm.done:
	case <-time.After(10 * time.Second):
		pm.proc.Kill()
		<-pm.done
	}
}

// Stop shuts the server down with a fast shutdown (pg_ctl stop -m fast -w:
// open transactions are rolled back, clients disconnected, a checkpoint
// written) and waits until the postmaster has exited. It then releases the
// data directory, removes a temporary socket directory and, for an Ephemeral
// server, the whole data directory. It is idempotent: calls after the first
// do nothing and return nil, as does Stop on a nil *Server. If pg_ctl
// fails, Stop signals the postmaster itself (SIGINT, then SIGKILL after a
// minute). An error means the server could not be stopped cleanly or had
// already exited on its own.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	s.stopSupervisor()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	t0 := time.Now()
	pm := s.cur

	var errs []error
	ran := true
	if pm.adopted { // ours to stop, though not our child
		if err := s.clearStalePostmaster(context.Background()); err != nil {
			errs = append(errs, err)
		}
		<-pm.done // its watcher ends with the supervisor
		// pg_ctl stop -w returns once postmaster.pid is gone, which the
		// postmaster removes just before it exits: wait for the exit
		// itself, as Stop does for a child, so that nothing runs after
		// Stop (TestSupervisor saw it still running on a loaded machine).
		if err := waitExited(pm.proc.Pid, stopTimeout); err != nil {
			errs = append(errs, err)
		}
		return s.release(errs, ran, t0)
	}
	select {
	case <-pm.done:
		ran = false
		errs = append(errs, fmt.Errorf("pgserver: PostgreSQL had exited before Stop (%v); the end of %s:\n%s",
			pm.waitErr, s.logPath, s.logTail()))
		// Someone else's pg_ctl may have started a server on the cluster
		// meanwhile: stop it too, so that DataDir is really released.
		if err := s.clearStalePostmaster(context.Background()); err != nil {
			errs = append(errs, err)
		}
	default:
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout+10*time.Second)
		out, err := s.command(ctx, s.bin.PgCtl, "stop", "-D", s.pgdata, "-m", "fast", "-w",
			"-t", strconv.Itoa(int(stopTimeout/time.Second))).CombinedOutput()
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("pgserver: pg_ctl stop failed: %v\n%s", err, tail(out, 10)))
			pm.proc.Signal(syscall.SIGINT)
		}
		select {
		case <-pm.done:
		case <-time.After(stopTimeout):
			errs = append(errs, errors.New("pgserver: PostgreSQL did not stop; killed it"))
			pm.proc.Kill()
			<-pm.done
		}
	}

	return s.release(errs, ran, t0)
}

// release ends Stop: it releases the data directory and removes the
// temporary directories.
func (s *Server) release(errs []error, ran bool, t0 time.Time) error {
	s.releaseLock()
	if s.tmpSock {
		if err := os.RemoveAll(s.sockDir); err != nil {
			errs = append(errs, fmt.Errorf("pgserver: %w", err))
		}
	}
	if s.ephemeral {
		if err := os.RemoveAll(s.dataDir); err != nil {
			errs = append(errs, fmt.Errorf("pgserver: removing the ephemeral data directory: %w", err))
		}
	}
	if ran {
		s.logf("pgserver: PostgreSQL stopped in %v", time.Since(t0).Round(time.Millisecond))
	}
	return errors.Join(errs...)
}

// command prepares one of the PostgreSQL programs to run as the server's
// user, with PG* variables removed from its environment.
func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.dataDir
	cmd.Env = childEnv()
	cmd.SysProcAttr = s.sysProcAttr()
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func (s *Server) sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if s.switchUser {
		a.Credential = &syscall.Credential{Uid: s.uid, Gid: s.gid} // no supplementary groups
	}
	return a
}

// chown gives path to the server's user when this process runs as root.
func (s *Server) chown(path string) error {
	if !s.switchUser {
		return nil
	}
	if err := os.Chown(path, int(s.uid), int(s.gid)); err != nil {
		return fmt.Errorf("pgserver: %w", err)
	}
	return nil
}

// logTail returns the last lines of this run's server log.
func (s *Server) logTail() string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read the log: %v)", err)
	}
	defer f.Close()
	const max = 8 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		f.Seek(fi.Size()-max, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	return tail(data, 25)
}

// ensureTraversable makes every directory from / down to dir searchable by
// the user uid (with groups gids), adding o+x (or u+x, g+x when that class
// applies) where it is missing.
func ensureTraversable(dir string, uid uint32, gids map[uint32]bool, logf func(string, ...any)) error {
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgserver: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		var bit fs.FileMode
		switch {
		case st.Uid == uid:
			bit = 0o100
		case gids[st.Gid]:
			bit = 0o010
		default:
			bit = 0o001
		}
		if fi.Mode().Perm()&bit == 0 {
			mode := fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) | bit
			if err := os.Chmod(p, mode); err != nil {
				return fmt.Errorf("pgserver: making %s traversable for PostgreSQL's user: %w", p, err)
			}
			logf("pgserver: added search permission to %s (now mode %04o) so that PostgreSQL's user can reach its data directory", p, uint32(mode.Perm()))
		}
		if parent := filepath.Dir(p); parent == p {
			return nil
		}
	}
}

type procStateKind int

const (
	procGone    procStateKind = iota // no such process
	procZombie                       // exited but not reaped
	procRunning                      // alive, or cannot tell it is not
)

// processState tells whether a process with this pid runs.
func processState(pid int) procStateKind {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return procGone
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procRunning // no procfs: trust kill
	}
	// "pid (comm) S ...": the state follows the last ')'.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		switch stat[i+2] {
		case 'Z', 'X':
			return procZombie
		}
	}
	return procRunning
}

// waitExited waits up to timeout for process pid (not a child of ours) to
// be gone or a zombie awaiting its parent.
func waitExited(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for processState(pid) == procRunning {
		if time.Now().After(deadline) {
			return fmt.Errorf("pgserver: PostgreSQL (pid %d) still runs %v after pg_ctl stop", pid, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// isPostgresProcess reports whether pid runs the postgres program; known is
// false when that cannot be told (no /proc).
func isPostgresProcess(pid int) (isPG, known bool) {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		if _, statErr := os.Stat("/proc/self/comm"); statErr != nil {
			return false, false // no procfs
		}
		return false, true // the process vanished meanwhile
	}
	return strings.TrimSpace(string(comm)) == "postgres", true
}

// childEnv is this process's environment without the PG* variables, which
// could redirect the PostgreSQL programs (PGDATA, PGPORT, ...).
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return env
}

// quoteDirList quotes a directory for unix_socket_directories, a
// comma-separated list whose elements may be double-quoted.
func quoteDirList(dir string) string {
	return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"`
}

// logFatal returns ": <message>" for the last FATAL or PANIC line of this
// run's server log (the reason PostgreSQL refused to start), or "".
func (s *Server) logFatal() string {
	lines := strings.Split(s.logTail(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		for _, tag := range []string{"FATAL:", "PANIC:"} {
			if _, msg, ok := strings.Cut(lines[i], tag); ok {
				return ": " + strings.TrimSpace(msg)
			}
		}
	}
	return ""
}

// firstLine returns the first line of a message.
func firstLine(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}

// tail returns the last n lines of out.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(out, []byte("?"))), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
