package pgserver

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Port is the port number the server is configured with. It listens on no
// TCP port at all; the number only names its Unix socket file
// (".s.PGSQL.5432" in the socket directory), and it is part of ConnString.
const Port = 5432

// Superuser is the name of the cluster's superuser, created by initdb, and
// the user that ConnString connects as.
const Superuser = "postgres"

// ErrDataDirInUse is wrapped by the error Start returns when another Server,
// in this process or in another one, is running on the same DataDir.
var ErrDataDirInUse = errors.New("pgserver: data directory is in use by another pgserver")

// Options configures Start.
type Options struct {
	// DataDir is the directory that holds the cluster (DataDir/pgdata), the
	// Unix socket directory (DataDir/run, see Server.SocketDir), the server
	// log (DataDir/postgresql.log, the previous run's in postgresql.log.1)
	// and a lock file (DataDir/pgserver.lock). It is created if missing, and
	// the cluster in it is reused on the next Start, so data persists.
	// Required unless Ephemeral is set; if both are set, the temporary
	// directory is created inside DataDir.
	DataDir string

	// Ephemeral makes Start use a fresh temporary directory (under
	// os.TempDir, or inside DataDir if set) as the data directory, with a
	// freshly initialised cluster; Stop removes it.
	Ephemeral bool

	// Logf, if not nil, receives progress and log lines (initdb, start,
	// stop, permission fixes, recovery from a previous run). It may be
	// called from Start, Stop and the supervisor goroutine.
	Logf func(format string, args ...any)

	// Warnf, if not nil, receives the supervisor's notices: the postmaster
	// exited on its own, a restart failed, PostgreSQL was restarted. It is
	// called from the supervisor goroutine. Default: Logf.
	Warnf func(format string, args ...any)

	// Durability is how far an acknowledged commit survives (see
	// Durability); empty means DurabilityFull, or DurabilityNone when
	// FastUnsafeCommit is set.
	Durability Durability

	// FastUnsafeCommit is the older name of DurabilityNone, kept for its
	// callers: when Durability is empty and this is set, the server runs
	// with synchronous_commit=off. Durability, when set, wins.
	FastUnsafeCommit bool

	// Binaries, if not nil, names the PostgreSQL programs to use instead of
	// the ones FindBinaries finds.
	Binaries *Binaries

	// Settings are extra server settings (name to value, passed as -c
	// name=value after the server's own, so they win), for tools: the
	// benchmark loads pg_stat_statements with them. The emulator sets
	// none; durability settings given here are the caller's choice.
	Settings map[string]string
}

// Durability is a level of commit durability of the managed server: what
// an acknowledged write survives.
type Durability string

// The durability levels, strongest first.
const (
	// DurabilityFull (synchronous_commit=on, fsync=on) acknowledges a
	// commit once its WAL is on stable storage: it survives a kill -9 of
	// PostgreSQL or of its owner, and a crash or power cut of the machine.
	DurabilityFull Durability = "full"
	// DurabilityProcess (synchronous_commit=on, fsync=off) acknowledges a
	// commit once its WAL has been written to the operating system: it
	// survives a kill -9 of PostgreSQL or of its owner (the kernel holds
	// the data and PostgreSQL replays its WAL from there), but a crash or
	// power cut of the machine can lose recent writes or corrupt the
	// cluster, as nothing is flushed. Meant for data that dies with the
	// process anyway (temporary clusters, test servers): their writes then
	// wait for no flush.
	DurabilityProcess Durability = "process"
	// DurabilityNone (synchronous_commit=off, fsync=on) acknowledges a
	// commit before its WAL is written: a crash of PostgreSQL or of the
	// machine can lose the writes acknowledged in the last ~0.6 s (three
	// wal_writer_delay periods); the cluster itself stays consistent.
	DurabilityNone Durability = "none"
)

// Durabilities lists the levels, strongest first (for flag help and
// validation).
var Durabilities = []Durability{DurabilityFull, DurabilityProcess, DurabilityNone}

// ParseDurability returns the level named s (full, process or none, in any
// case), or an error naming the accepted values.
func ParseDurability(s string) (Durability, error) {
	for _, d := range Durabilities {
		if strings.EqualFold(strings.TrimSpace(s), string(d)) {
			return d, nil
		}
	}
	return "", fmt.Errorf("durability %q: accepted values are full, process, none", s)
}

// Describe says in a few words what an acknowledged write survives at
// level d, for start-up lines and help, e.g. "survives process crashes;
// not an OS crash".
func (d Durability) Describe() string {
	switch d {
	case DurabilityFull:
		return "survives process and OS crashes"
	case DurabilityProcess:
		return "survives process crashes; not an OS crash"
	case DurabilityNone:
		return "a crash may lose the last ~0.6 s of writes"
	}
	return "unknown durability level"
}

// level returns the durability the options ask for.
func (o Options) level() (Durability, error) {
	switch {
	case o.Durability != "":
		return ParseDurability(string(o.Durability))
	case o.FastUnsafeCommit:
		return DurabilityNone, nil
	}
	return DurabilityFull, nil
}

// Durability returns the durability level the server runs with.
func (s *Server) Durability() Durability { return s.durability }

// Server is a running private PostgreSQL server started by Start. Its
// methods are safe for concurrent use.
type Server struct {
	bin        Binaries
	dataDir    string // absolute
	pgdata     string // dataDir/pgdata
	sockDir    string // directory of the Unix socket
	tmpSock    bool   // sockDir is a fallback temporary directory, removed by Stop
	ephemeral  bool   // dataDir is removed by Stop
	logPath    string // the server log of this run
	logf       func(format string, args ...any)
	warnf      func(format string, args ...any)
	durability Durability
	settings   map[string]string

	// The user the PostgreSQL programs run as when this process is root.
	switchUser bool
	uid, gid   uint32
	userName   string

	lock *os.File // holds the flock on dataDir/pgserver.lock

	// cur is the running postmaster, a child of this process. The
	// supervisor replaces it when it restarts PostgreSQL; guarded by mu.
	cur *postmaster

	mu       sync.Mutex
	stopped  bool
	restarts int

	stopping   chan struct{} // closed by Stop: the supervisor must end
	stopOnce   sync.Once
	supervised chan struct{} // closed when the supervisor goroutine has ended
}

// Pid returns the process id of the running postmaster (for diagnostics
// and fault-injection tests).
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.proc.Pid
}

// postmaster is one run of the postgres server process.
type postmaster struct {
	proc    *os.Process
	done    chan struct{} // closed once the process has exited and been reaped
	waitErr error         // its exit status; read after done is closed
	// adopted: started by someone else (pg_ctl restart), not our child;
	// done is closed by a watcher when it exits or the supervisor stops.
	adopted bool
}

// Restarts returns how many times the supervisor restarted PostgreSQL after
// its postmaster exited on its own.
func (s *Server) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// ConnString returns a pgx- and libpq-compatible keyword/value connection
// string that reaches the server over its Unix socket as the superuser
// "postgres" (trust authentication, no password) and opens the database
// "postgres", for example
//
//	host=/var/lib/cosmos/run port=5432 user=postgres dbname=postgres sslmode=disable
//
// The socket directory is only reachable by the server's user and root.
func (s *Server) ConnString() string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable",
		quoteConnValue(s.sockDir), Port, Superuser)
}

// DataDir returns the absolute path of the data directory (for an Ephemeral
// server, the temporary directory Start created).
func (s *Server) DataDir() string { return s.dataDir }

// SocketDir returns the directory that holds the server's Unix socket:
// DataDir/run, or a directory under /tmp when that path would be too long for
// a Unix socket address (see Start).
func (s *Server) SocketDir() string { return s.sockDir }

// LogFile returns the path of the server log of this run.
func (s *Server) LogFile() string { return s.logPath }

// quoteConnValue quotes a value for a keyword/value connection string when
// it needs it (empty, or containing spaces, quotes or backslashes).
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\f\v'\\") {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
	return "'" + r.Replace(v) + "'"
}
