// Package emulatortest starts the whole emulator in-process for tests: the
// real server (server.Start) on a random port with HTTPS, over a fresh
// database of a real PostgreSQL (COSMOS_TEST_PG, or a private server started
// from the local PostgreSQL binaries; see pgtest). It hands out
// azcosmos clients ready to talk to it. Test-only.
//
// Durability: the data dies with the test, so writes wait for no disk
// flush, yet an acknowledged write survives a kill -9 of PostgreSQL or of
// the emulator (process durability, server.DurabilityProcess): Start's
// database lives on pgtest's private server, which runs at that level (a
// server named by COSMOS_TEST_PG keeps its own settings, and
// Emulator.Durability reports DurabilityExternal for both), and
// StartManaged's ephemeral cluster defaults to it (WithDurability changes
// it).
//
// Layout: the package sits at the top of the module, beside the layers it
// assembles (server, wire, pgstore) rather than inside the domain package
// emulator, so that every import arrow of the emulator points inwards: the
// domain imports no outer layer and no test helper. The former path
// emulator/emulatortest forwards here for one release.
package emulatortest

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// Key is the master key of the test emulators (the well-known one).
const Key = wire.WellKnownKey

// Main runs a test package that uses emulatortest; call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }
//
// It stops the private PostgreSQL server, if one was started, after the
// tests.
func Main(m *testing.M) int { return pgtest.Main(m) }

// Emulator is a running in-process emulator.
type Emulator struct {
	*server.Server
	// Endpoint is the https URL, e.g. https://127.0.0.1:40123/.
	Endpoint string
	// PG is the connection string of the emulator's own database.
	PG  string
	cfg server.Config
}

// Option adjusts the server configuration.
type Option func(*server.Config)

// WithClock makes the emulator read time from clock.
func WithClock(c *emulator.Clock) Option { return func(cfg *server.Config) { cfg.Clock = c } }

// WithFrozenClock makes emulator time stand still at t0 (it then moves
// only through Clock().Advance / SetOffset), so TTL tests never race the
// wall clock.
func WithFrozenClock(t0 time.Time) Option {
	return func(cfg *server.Config) { cfg.Clock = emulator.NewClock(func() time.Time { return t0 }) }
}

// WithoutBackgroundSweeper disables the periodic TTL sweeper; sweeps then
// run only through Sweep or the control endpoint.
func WithoutBackgroundSweeper() Option {
	return func(cfg *server.Config) { cfg.TTLSweepInterval = -1 }
}

// WithSweeper sets the background sweeper's interval and batch size.
func WithSweeper(interval time.Duration, batch int) Option {
	return func(cfg *server.Config) { cfg.TTLSweepInterval, cfg.TTLSweepBatch = interval, batch }
}

// WithKey sets the master key (base64) the emulator accepts instead of
// Key; clients from Client and raw requests signed with Key are then
// refused.
func WithKey(key string) Option { return func(cfg *server.Config) { cfg.Key = key } }

// WithProtocol selects "http" or "https" (the default).
func WithProtocol(p string) Option { return func(cfg *server.Config) { cfg.Protocol = p } }

// WithScriptLimits sets the time bound (0: default) and the memory guard
// (0: default) of server-side scripts.
func WithScriptLimits(timeout time.Duration, maxMemory uint64) Option {
	return func(cfg *server.Config) { cfg.ScriptTimeout, cfg.ScriptMaxMemory = timeout, maxMemory }
}

// WithPageTimeout sets the time budget of one query or feed page (0:
// default), so tests can make a query outlast it quickly.
func WithPageTimeout(d time.Duration) Option {
	return func(cfg *server.Config) { cfg.PageTimeout = d }
}

// WithMinPartitionRanges gives every container the emulator creates at
// least n partition key ranges (--min-partition-ranges), so that the
// SDKs' multi-range code paths (fan-out, per-range continuations, feed
// ranges) run without provisioning over 10,000 RU/s.
func WithMinPartitionRanges(n int) Option {
	return func(cfg *server.Config) { cfg.MinPartitionRanges = n }
}

// Durability is what an acknowledged write survives (server.Durability),
// for WithDurability and Emulator.Durability.
type Durability = server.Durability

// The durability levels of a managed cluster (server.DurabilityFull and
// the others), and the level an emulator on the shared test server
// reports.
const (
	DurabilityFull     = server.DurabilityFull
	DurabilityProcess  = server.DurabilityProcess
	DurabilityNone     = server.DurabilityNone
	DurabilityExternal = server.DurabilityExternal
)

// WithDurability sets the durability level of a managed cluster
// (StartManaged; --durability): DurabilityFull, DurabilityProcess
// (StartManaged's default: the cluster dies with the test) or
// DurabilityNone. It has no effect on Start, whose database lives on the
// shared test server (see Start).
func WithDurability(level Durability) Option {
	return func(cfg *server.Config) { cfg.Durability = level }
}

// WithRateLimit turns throttling on (--rate-limit): requests over their
// container's provisioned RU/s are answered 429 with sub-status 3200 and
// x-ms-retry-after-ms, as the service answers them.
func WithRateLimit() Option { return func(cfg *server.Config) { cfg.RateLimit = true } }

// WithInitData loads init data files (--init-data: databases, containers,
// items and scripts, in the format of package emulator/seed) before the
// emulator serves; what exists already is left alone.
func WithInitData(paths ...string) Option {
	return func(cfg *server.Config) { cfg.InitData = append(cfg.InitData, paths...) }
}

// WithDirectMode starts the direct-mode (RNTBD) listener on a free
// loopback port (server.Config.RNTBDAddr; Server.RNTBDAddr names it).
func WithDirectMode() Option { return func(cfg *server.Config) { cfg.RNTBDAddr = "127.0.0.1:0" } }

// WithReset removes every database at start (--reset), before the init
// data loads: for an emulator started over a database that holds data.
func WithReset() Option { return func(cfg *server.Config) { cfg.Reset = true } }

// SplitRange splits live partition key range id of container coll in
// database db at the middle of its hash space (or at EPK at, when not "")
// and returns the two children, failing the test on error. Requests that
// name id afterwards get 410/1002, as after a split on the service.
func (e *Emulator) SplitRange(t testing.TB, db, coll, id, at string) []emulator.PartitionKeyRange {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kids, err := e.SplitPartitionKeyRange(ctx, db, coll, id, at)
	if err != nil {
		t.Fatalf("emulatortest: split range %s of %s/%s: %v", id, db, coll, err)
	}
	return kids
}

// Reset removes every database and everything in it through POST
// /_emulator/reset, signed with the emulator's master key, for suites that
// share one emulator and want a clean slate between tests (cheaper than
// deleting the databases one by one, and than starting an emulator per
// test); the clock, the fault rules and the settings stay. It fails the
// test on error.
func (e *Emulator) Reset(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	key, err := base64.StdEncoding.DecodeString(e.key())
	if err != nil {
		t.Fatalf("emulatortest: reset: key: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(e.Endpoint, "/")+"/_emulator/reset", nil)
	if err != nil {
		t.Fatalf("emulatortest: reset: %v", err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2018-12-31")
	req.Header.Set("Authorization", wire.MasterAuthorization(key, http.MethodPost, "_emulator", "_emulator/reset", date))
	hc := HTTPClient()
	defer hc.CloseIdleConnections() // a client per call: leave no connection behind
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("emulatortest: reset: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("emulatortest: reset: %d %s", resp.StatusCode, body)
	}
}

// key is the master key the emulator accepts.
func (e *Emulator) key() string {
	if e.cfg.Key != "" {
		return e.cfg.Key
	}
	return Key
}

// FaultRule is a fault rule (wire.FaultRule): what requests it matches,
// what it answers and its bounds.
type FaultRule = wire.FaultRule

// FaultMatch selects the requests of a FaultRule (wire.FaultMatch).
type FaultMatch = wire.FaultMatch

// FaultResponse is what a FaultRule does (wire.FaultResponse).
type FaultResponse = wire.FaultResponse

// InjectFault sets the fault rule name (replacing one of that name) and
// removes it when the test ends; it fails the test for an invalid rule.
// FaultHits reads how many faults it injected.
func (e *Emulator) InjectFault(t testing.TB, name string, rule FaultRule) {
	t.Helper()
	if _, err := e.Faults().Put(name, rule); err != nil {
		t.Fatalf("emulatortest: fault rule %q: %v", name, err)
	}
	t.Cleanup(func() { e.Faults().Delete(name) })
}

// FaultHits returns how many faults the rule name has injected (0 for no
// such rule), as GET /_emulator/faults reports them.
func (e *Emulator) FaultHits(name string) int64 {
	st, _ := e.Faults().Get(name)
	return st.Hits
}

// Start starts an emulator over a fresh database and stops it when the test
// ends.
func Start(t testing.TB, opts ...Option) *Emulator {
	t.Helper()
	return StartOn(t, pgtest.NewDatabase(t), opts...)
}

// StartManaged starts an emulator on a managed PostgreSQL cluster of its own
// in a temporary directory (as --ephemeral does), for tests that fault
// PostgreSQL itself (KillPostgres). Without local PostgreSQL binaries it
// skips the test, except under CI (CI set), where that is a failure.
func StartManaged(t testing.TB, opts ...Option) *Emulator {
	t.Helper()
	if _, err := pgserver.FindBinaries(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("emulatortest: CI must not skip: %v", err)
		}
		t.Skipf("emulatortest: %v", err)
	}
	return StartOn(t, "", append([]Option{func(cfg *server.Config) { cfg.Ephemeral = true }}, opts...)...)
}

// KillPostgres kills the managed postmaster with SIGKILL, as a crash or the
// OOM killer would, and returns its pid; the emulator's supervisor restarts
// it. It fails the test for an emulator without a managed cluster.
func (e *Emulator) KillPostgres(t testing.TB) int {
	t.Helper()
	pg := e.ManagedPostgres()
	if pg == nil {
		t.Fatal("emulatortest: KillPostgres needs an emulator started with StartManaged")
	}
	pid := pg.Pid()
	proc, err := os.FindProcess(pid)
	if err == nil {
		err = proc.Kill()
	}
	if err != nil {
		t.Fatalf("emulatortest: killing postmaster %d: %v", pid, err)
	}
	return pid
}

// StartOn starts an emulator over the database pg (for restart tests and
// several emulators sharing one database).
func StartOn(t testing.TB, pg string, opts ...Option) *Emulator {
	t.Helper()
	level := slog.LevelWarn
	if os.Getenv("COSMOS_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	cfg := server.Config{
		Addr: "127.0.0.1:0", Protocol: "https", PG: pg, DataDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(logWriter(t), &slog.HandlerOptions{Level: level})),
	}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := server.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("emulatortest: start: %v", err)
	}
	e := &Emulator{Server: s, Endpoint: s.URL(), PG: s.ConnString(), cfg: cfg}
	t.Cleanup(func() { e.Stop(t) })
	return e
}

func logWriter(t testing.TB) io.Writer {
	if os.Getenv("COSMOS_TEST_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}

// Stop shuts the emulator down gracefully (idempotent).
func (e *Emulator) Stop(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Close(ctx); err != nil {
		t.Errorf("emulatortest: stop: %v", err)
	}
}

// HTTPClient returns an http.Client that trusts the emulator's self-signed
// certificate (verification skipped, as the SDKs' own emulator tests do).
func HTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // test client of a self-signed local emulator
		ForceAttemptHTTP2: true,
	}, Timeout: time.Minute}
}

// Client returns an azcosmos client for the emulator using the master key.
func (e *Emulator) Client(t testing.TB) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(Key)
	if err != nil {
		t.Fatalf("emulatortest: credential: %v", err)
	}
	c, err := azcosmos.NewClientWithKey(e.Endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{
			Transport: HTTPClient(),
			Retry:     policy.RetryOptions{MaxRetries: -1},
		},
	})
	if err != nil {
		t.Fatalf("emulatortest: client: %v", err)
	}
	return c
}

// IdleInTransaction returns how many PostgreSQL backends connected to the
// emulator's database sit idle inside an open transaction (state "idle in
// transaction" in pg_stat_activity): at rest there are none, and one that
// stays is a request that left its transaction open and held its
// connection. It fails the test when PostgreSQL cannot be asked.
func (e *Emulator) IdleInTransaction(t testing.TB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, e.PG)
	if err != nil {
		t.Fatalf("emulatortest: connect to PostgreSQL: %v", err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
		t.Fatalf("emulatortest: pg_stat_activity: %v", err)
	}
	return n
}
