package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvVar is the environment variable that names an existing PostgreSQL
// server to test against instead of a private one.
const EnvVar = "COSMOS_TEST_PG"

// maxIdentifier is PostgreSQL's identifier length limit (NAMEDATALEN-1 bytes).
const maxIdentifier = 63

// Main runs the tests of a package (call it from TestMain:
// `func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }`) and, after
// m.Run, stops the private server if one was started, removing its
// temporary directory. It returns m.Run's exit code, or 1 if that was 0 and
// the server could not be stopped cleanly.
func Main(m *testing.M) int {
	code := m.Run()
	if err := shared.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: stopping the private PostgreSQL server: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// AdminConnString returns a connection string for a database on which the
// caller may create and drop databases: the value of COSMOS_TEST_PG if it is
// set (returned as is: any pgx connection string or URL), else the
// ConnString of a private, ephemeral pgserver started on first use, once per
// process (thread-safe; later calls reuse it, and Main stops it). If neither
// is possible because PostgreSQL binaries were not found, it calls t.Skip
// with a message naming COSMOS_TEST_PG, or t.Fatal if the CI environment
// variable is non-empty (CI must never silently skip). Any other failure to
// start the server is a t.Fatal.
func AdminConnString(t testing.TB) string {
	t.Helper()
	return shared.adminConnString(t)
}

// NewDatabase creates a fresh, empty database for the test and returns a
// connection string for it, derived from AdminConnString. Its name is t.Name()
// lowercased, with every character outside [a-z0-9_] replaced by '_',
// truncated, plus a random suffix, so parallel tests and reruns never collide.
// A t.Cleanup drops it (DROP DATABASE ... WITH (FORCE), which also ends
// connections still open). It skips or fails like AdminConnString.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := AdminConnString(t)
	name := databaseName(t.Name())
	connString, err := withDatabase(admin, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	ident := pgx.Identifier{name}.Sanitize()
	if err := adminExec(admin, "CREATE DATABASE "+ident); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := adminExec(admin, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	return connString
}

// adminExec runs one statement on a new connection to the admin database.
func adminExec(admin, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// private is the lazily started private server of this process.
type private struct {
	start func(context.Context) (*pgserver.Server, error)

	mu      sync.Mutex
	started bool
	srv     *pgserver.Server
	err     error
	// dockerConn and dockerStop are set when PostgreSQL runs in a Docker
	// container (no local binaries, but a Docker engine).
	dockerConn string
	dockerStop func() error
}

var shared = &private{start: startEphemeral}

func startEphemeral(ctx context.Context) (*pgserver.Server, error) {
	// The shared test server's databases die with the tests, so its
	// commits wait for no flush (a flushed create took 2.1-2.8 ms against
	// 0.77 ms in cmd/cosmos-bench's durability scenario). Process rather
	// than none: the same bench put process within 1-2% of none, and an
	// acknowledged write then survives a kill -9 of the server, as
	// emulatortest promises for its default; none could lose the last
	// writes. Tests of durability start their own managed cluster.
	opts := pgserver.Options{Ephemeral: true, Durability: pgserver.DurabilityProcess}
	if testing.Verbose() {
		opts.Logf = func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "pgtest: "+format+"\n", args...)
		}
	}
	return pgserver.Start(ctx, opts)
}

func (p *private) adminConnString(t testing.TB) string {
	t.Helper()
	if cs := os.Getenv(EnvVar); cs != "" {
		return cs
	}
	p.mu.Lock()
	if !p.started {
		p.started = true
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		p.srv, p.err = p.start(ctx)
		if errors.Is(p.err, pgserver.ErrNoBinaries) {
			// No local PostgreSQL: try a container when a Docker engine runs.
			if cs, stop, derr := startDocker(ctx); derr == nil {
				p.dockerConn, p.dockerStop, p.err = cs, stop, nil
			} else {
				p.err = fmt.Errorf("%w; %v", p.err, derr)
			}
		}
		cancel()
	}
	srv, err, dockerConn := p.srv, p.err, p.dockerConn
	p.mu.Unlock()
	if dockerConn != "" {
		return dockerConn
	}

	if errors.Is(err, pgserver.ErrNoBinaries) || errors.Is(err, errors.ErrUnsupported) {
		msg := fmt.Sprintf("pgtest: no PostgreSQL to test against: %s is not set and PostgreSQL binaries were not found (%v); set %s to a connection string or install PostgreSQL",
			EnvVar, err, EnvVar)
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set, so this is a failure, not a skip)")
		}
		t.Skip(msg)
	}
	if err != nil {
		t.Fatalf("pgtest: starting a private PostgreSQL server: %v", err)
	}
	return srv.ConnString()
}

func (p *private) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dockerStop != nil {
		err := p.dockerStop()
		p.dockerStop, p.dockerConn, p.started = nil, "", false
		return err
	}
	if p.srv == nil {
		return nil
	}
	err := p.srv.Stop()
	p.srv, p.started, p.err = nil, false, nil
	return err
}

// databaseName makes a database name from a test name: [a-z0-9_] only,
// truncated so that "_" and 8 random hex digits fit in 63 bytes.
func databaseName(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else if s := b.String(); len(s) > 0 && s[len(s)-1] != '_' {
			b.WriteByte('_')
		}
	}
	base := strings.Trim(b.String(), "_")
	if base == "" {
		base = "test"
	}
	var suffix [4]byte
	rand.Read(suffix[:])
	if max := maxIdentifier - 1 - 2*len(suffix); len(base) > max {
		base = strings.TrimRight(base[:max], "_")
	}
	return base + "_" + hex.EncodeToString(suffix[:])
}

// withDatabase returns connString with its database replaced by dbname,
// which must be a plain [a-z0-9_] name. For a postgres:// or postgresql://
// URL the path is replaced; for a keyword/value string " dbname=<name>" is
// appended (the last occurrence of a keyword wins). The result is checked by
// parsing it.
func withDatabase(connString, dbname string) (string, error) {
	var out string
	if strings.HasPrefix(connString, "postgres://") || strings.HasPrefix(connString, "postgresql://") {
		u, err := url.Parse(connString)
		if err != nil {
			return "", fmt.Errorf("parsing the connection URL: %w", err)
		}
		u.Path, u.RawPath = "/"+dbname, ""
		out = u.String()
	} else {
		out = strings.TrimRight(connString, " \t\n\r") + " dbname=" + dbname
	}
	cfg, err := pgconn.ParseConfig(out)
	if err != nil {
		return "", fmt.Errorf("parsing the connection string: %w", err)
	}
	if cfg.Database != dbname {
		return "", fmt.Errorf("cannot set the database of connection string %q: got %q", redact(connString), cfg.Database)
	}
	return out, nil
}

// redact hides a password in a URL before it is shown in a message.
func redact(connString string) string {
	if u, err := url.Parse(connString); err == nil && u.User != nil {
		return u.Redacted()
	}
	if strings.Contains(connString, "password") {
		return "(a connection string with a password)"
	}
	return connString
}
