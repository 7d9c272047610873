package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func connect(t *testing.T, connString string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func queryInt(t *testing.T, conn *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

const userTables = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"

func TestNewDatabase(t *testing.T) {
	t.Parallel()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two calls returned the same connection string %q", a)
	}
	ca, cb := connect(t, a), connect(t, b)
	var nameA, nameB string
	ca.QueryRow(context.Background(), "SELECT current_database()").Scan(&nameA)
	cb.QueryRow(context.Background(), "SELECT current_database()").Scan(&nameB)
	if nameA == nameB || !strings.HasPrefix(nameA, "testnewdatabase_") {
		t.Errorf("databases %q and %q: want two distinct names starting with testnewdatabase_", nameA, nameB)
	}
	for _, c := range []*pgx.Conn{ca, cb} {
		if n := queryInt(t, c, userTables); n != 0 {
			t.Errorf("a new database has %d user relations, want 0", n)
		}
	}
	if _, err := ca.Exec(context.Background(), "CREATE TABLE items (id text PRIMARY KEY, doc jsonb)"); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Exec(context.Background(), `INSERT INTO items VALUES ('1', '{"a": 1}')`); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, ca, "SELECT count(*) FROM items"); n != 1 {
		t.Errorf("count = %d, want 1", n)
	}
	if n := queryInt(t, cb, userTables); n != 0 {
		t.Errorf("the second database sees %d user relations, want 0", n)
	}
}

func TestNewDatabaseDroppedAfterTest(t *testing.T) {
	t.Parallel()
	var name string
	var open *pgx.Conn
	t.Run("Sub/Test Name #1", func(t *testing.T) {
		var err error
		// Left open on purpose: the drop must force it closed.
		if open, err = pgx.Connect(context.Background(), NewDatabase(t)); err != nil {
			t.Fatal(err)
		}
		open.QueryRow(context.Background(), "SELECT current_database()").Scan(&name)
	})
	if open == nil {
		t.FailNow()
	}
	defer open.Close(context.Background())
	if !regexp.MustCompile(`^testnewdatabasedroppedaftertest_sub_test_name_1_[0-9a-f]{8}$`).MatchString(name) {
		t.Errorf("database name %q", name)
	}
	admin := connect(t, AdminConnString(t))
	var n int
	if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %q still exists after its test ended", name)
	}
}

// TestNewDatabaseURL runs NewDatabase on a postgres:// URL admin string.
func TestNewDatabaseURL(t *testing.T) {
	admin := AdminConnString(t)
	if os.Getenv(EnvVar) == "" { // the private server: rewrite its string as a URL
		cfg, err := pgconn.ParseConfig(admin)
		if err != nil {
			t.Fatal(err)
		}
		q := url.Values{"host": {cfg.Host}, "port": {fmt.Sprint(cfg.Port)}, "user": {cfg.User}, "sslmode": {"disable"}}
		t.Setenv(EnvVar, (&url.URL{Scheme: "postgres", Path: "/" + cfg.Database, RawQuery: q.Encode()}).String())
	}
	cs := NewDatabase(t)
	if !strings.HasPrefix(cs, "postgres") {
		t.Fatalf("NewDatabase = %q, want a URL", cs)
	}
	var name string
	if err := connect(t, cs).QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "testnewdatabaseurl_") {
		t.Errorf("current_database() = %q", name)
	}
}

func TestDatabaseName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9_]+_[0-9a-f]{8}$`)
	tests := []struct{ in, prefix string }{
		{"TestFoo", "testfoo_"},
		{"TestFoo/sub-case_#2", "testfoo_sub_case_2_"},
		{"Test/ÜnicodeÉ", "test_nicode_"},
		{"///", "test_"},
		{strings.Repeat("TestVeryLong", 20), strings.Repeat("testverylong", 4)},
	}
	for _, tc := range tests {
		a, b := databaseName(tc.in), databaseName(tc.in)
		if a == b {
			t.Errorf("databaseName(%q) twice = %q: want different suffixes", tc.in, a)
		}
		if len(a) > 63 || !valid.MatchString(a) || !strings.HasPrefix(a, tc.prefix) {
			t.Errorf("databaseName(%q) = %q (%d bytes), want [a-z0-9_]{..63} starting with %q", tc.in, a, len(a), tc.prefix)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	tests := []struct {
		in, want string // want: the expected string, or "" to only check parsing
	}{
		{"host=/tmp/run port=5432 user=postgres dbname=postgres sslmode=disable", "host=/tmp/run port=5432 user=postgres dbname=postgres sslmode=disable dbname=x_1"},
		{"host='/tmp/with space' user=postgres", ""},
		{"host=localhost dbname = 'other db' password='p w'", ""},
		{"user=postgres ", ""},
		{"postgres://u:p%40ss@localhost:5433/other?sslmode=disable", "postgres://u:p%40ss@localhost:5433/x_1?sslmode=disable"},
		{"postgresql://localhost", "postgresql://localhost/x_1"},
		{"postgres:///postgres?host=/tmp/run&user=postgres", "postgres:///x_1?host=/tmp/run&user=postgres"},
	}
	for _, tc := range tests {
		got, err := withDatabase(tc.in, "x_1")
		if err != nil {
			t.Errorf("withDatabase(%q): %v", tc.in, err)
			continue
		}
		if tc.want != "" && got != tc.want {
			t.Errorf("withDatabase(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// Everything but the database is kept.
		before, err1 := pgconn.ParseConfig(tc.in)
		after, err2 := pgconn.ParseConfig(got)
		if err1 != nil || err2 != nil {
			t.Errorf("parsing %q / %q: %v / %v", tc.in, got, err1, err2)
			continue
		}
		if after.Database != "x_1" || after.Host != before.Host || after.Port != before.Port ||
			after.User != before.User || after.Password != before.Password {
			t.Errorf("withDatabase(%q) = %q: parses to host %q port %d user %q db %q", tc.in, got, after.Host, after.Port, after.User, after.Database)
		}
	}
	if _, err := withDatabase("host='unterminated", "x_1"); err == nil {
		t.Error("withDatabase of an invalid string: want an error")
	}
}

func TestAdminConnStringFromEnv(t *testing.T) {
	const cs = "postgres://someone@db.invalid:5432/admin"
	t.Setenv(EnvVar, cs)
	p := &private{start: func(context.Context) (*pgserver.Server, error) {
		t.Error("a private server was started although " + EnvVar + " is set")
		return nil, errors.New("unexpected")
	}}
	if got := p.adminConnString(t); got != cs {
		t.Errorf("adminConnString = %q, want %q", got, cs)
	}
}

// recorder is a testing.TB whose Skip and Fatal record the message and stop
// the calling function by panicking.
type recorder struct {
	testing.TB
	skipped, failed string
}

type stopped struct{}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Fatalf(f string, args ...any) {
	r.failed = fmt.Sprintf(f, args...)
	panic(stopped{})
}

func (r *recorder) call(p *private) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
		}
	}()
	p.adminConnString(r)
}

func TestAdminConnStringWithoutPostgres(t *testing.T) {
	t.Setenv(EnvVar, "")
	noBinaries := func(context.Context) (*pgserver.Server, error) {
		return nil, fmt.Errorf("pgserver: %w", pgserver.ErrNoBinaries)
	}

	t.Setenv("CI", "")
	r := &recorder{TB: t}
	r.call(&private{start: noBinaries})
	if r.failed != "" || !strings.Contains(r.skipped, EnvVar) || !strings.Contains(r.skipped, "binaries were not found") {
		t.Errorf("without CI: skipped %q, failed %q; want a skip naming %s and the missing binaries", r.skipped, r.failed, EnvVar)
	}

	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	r.call(&private{start: noBinaries})
	if r.skipped != "" || !strings.Contains(r.failed, EnvVar) {
		t.Errorf("with CI: skipped %q, failed %q; want a failure naming %s", r.skipped, r.failed, EnvVar)
	}

	// Another start failure is never a skip.
	t.Setenv("CI", "")
	r = &recorder{TB: t}
	calls := 0
	p := &private{start: func(context.Context) (*pgserver.Server, error) {
		calls++
		return nil, errors.New("disk full")
	}}
	r.call(p)
	r.call(p)
	if r.skipped != "" || !strings.Contains(r.failed, "disk full") {
		t.Errorf("start error: skipped %q, failed %q; want a failure", r.skipped, r.failed)
	}
	if calls != 1 {
		t.Errorf("start was tried %d times, want once per process", calls)
	}
}

// TestPrivateServerDurability: the private server runs at process
// durability (pgserver.DurabilityProcess): commits wait for their WAL to
// reach the kernel (synchronous_commit on), not for a flush (fsync off).
// A server named by COSMOS_TEST_PG keeps its own settings.
func TestPrivateServerDurability(t *testing.T) {
	if os.Getenv(EnvVar) != "" {
		t.Skipf("%s names the server: its settings are its own", EnvVar)
	}
	t.Parallel()
	c := connect(t, NewDatabase(t))
	for name, want := range map[string]string{"fsync": "off", "synchronous_commit": "on", "full_page_writes": "on"} {
		var got string
		if err := c.QueryRow(context.Background(), "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
