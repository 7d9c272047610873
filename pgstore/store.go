package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationLockID is the advisory lock that serialises migrations between
// emulator processes sharing a database.
const migrationLockID = 0x436f736d6f73 // "Cosmos"

// Store is the PostgreSQL implementation of emulator.Store. It is safe for
// concurrent use; Close releases its connections.
type Store struct {
	pool    *pgxpool.Pool
	cache   *containerCache
	autoIdx autoIndexes
	vacuum  vacuumState
	trim    trimState
	tables  tableWork
	epk     epkFill
	// codePointCollation: the database orders text by code point (C).
	codePointCollation bool
	// background is the context of the store's own work (the metadata
	// listener, vacuums); Close cancels it.
	background     context.Context
	stopBackground context.CancelFunc
	listenDone     chan struct{}
	log            *slog.Logger
	// pageTimeout is the time budget of one page (Options.PageTimeout).
	pageTimeout time.Duration
	// scriptSlots bounds the scripts holding a pool connection at once
	// (see InScriptTx).
	scriptSlots chan struct{}
}

// scriptSlotCount is how many scripts may hold a pool connection at once
// with a pool of maxConns: half of it, at least one, so that scripts
// running near their time limit cannot take every connection from the
// requests of other clients (and the store's own background work).
func scriptSlotCount(maxConns int32) int {
	return max(1, int(maxConns)/2)
}

var _ emulator.Store = (*Store)(nil)

// Options tune Open.
type Options struct {
	// MaxConns bounds the connection pool (default: pgxpool's, at least 8).
	MaxConns int32
	// Logger receives what the store's background work cannot return to
	// a caller: failures and reconnects of the metadata listener, failed
	// background vacuums, failures of the spare and dropped items tables'
	// workers (nil: slog.Default()).
	Logger *slog.Logger
	// SpareTables is how many empty items tables are kept ready for
	// container creates (see tablepool.go): 0 means 4, a negative value
	// none (every create then makes its table in its own transaction).
	SpareTables int
	// PageTimeout is the time budget of one page of a query (ReadMany
	// included: the SDKs send it as queries) or a read feed, and of the
	// other statements a request runs over a container's items (counts): past it the statement is cancelled in
	// PostgreSQL and the page ends with the results it holds and a
	// continuation after the last, or, holding none, fails with a 408
	// (see budget.go). 0 means DefaultPageTimeout.
	PageTimeout time.Duration
}

// sessionSettings are sent in the startup packet of every connection, so
// they override whatever the server, the database or the role sets (ALTER
// DATABASE/ROLE ... SET): the meaning of the generated SQL depends on them.
//
//   - standard_conforming_strings=on: the SQL text quotes strings as
//     '...' with quotes doubled (sqlgen.QuoteLiteral, the items table DDL,
//     SQL function bodies of the migrations, which PostgreSQL parses in the
//     calling session); with it off a backslash would escape the closing
//     quote and the rest of a literal would become SQL.
//   - client_encoding=UTF8: the text is UTF-8; in a client encoding such
//     as GBK or SJIS a multi-byte character can swallow the byte after it.
//   - extra_float_digits=1, TimeZone=UTC, DateStyle=ISO,
//     IntervalStyle=postgres: the text form of numbers and times that the
//     query functions produce (float8 to text, date parts).
//   - jit=off: PostgreSQL's JIT compilation (on by default where the
//     server has it) starts once a statement's estimated cost passes
//     jit_above_cost, which nested correlated subqueries reach at once;
//     compiling their plans costs far more than it saves (sqlgen's
//     BenchmarkDeepSubqueries: 64 nested FROM subqueries over 2,000
//     items took 10 s with it, 1.1 s without; cosmos-bench's query
//     scenario measured the same either way, docs/benchmarks.md).
//
// backslash_quote and escape_string_warning only matter to strings with
// backslash escapes, which the store never writes once
// standard_conforming_strings is on; they are left alone. The two settings
// PostgreSQL reports to the client (standard_conforming_strings,
// client_encoding) are checked on every new connection (checkSession).
var sessionSettings = map[string]string{
	"standard_conforming_strings": "on",
	"client_encoding":             "UTF8",
	"extra_float_digits":          "1",
	"TimeZone":                    "UTC",
	"DateStyle":                   "ISO",
	"IntervalStyle":               "postgres",
	"jit":                         "off",
}

// checkSession refuses a connection whose reported settings differ from
// sessionSettings (for example an options parameter in the connection
// string that overrides them).
func checkSession(_ context.Context, conn *pgx.Conn) error {
	for _, k := range []string{"standard_conforming_strings", "client_encoding"} {
		if got := conn.PgConn().ParameterStatus(k); got != sessionSettings[k] {
			return fmt.Errorf("pgstore: the connection has %s=%q; the store needs %q (remove what overrides it from the connection string)", k, got, sessionSettings[k])
		}
	}
	return nil
}

// Open connects to the database in connString (a pgx connection string or
// URL), applies pending migrations and returns the store. Every connection
// runs with sessionSettings.
func Open(ctx context.Context, connString string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("pgstore: parse connection string: %w", err)
	}
	return openConfig(ctx, cfg, opts)
}

// openConfig is Open with a parsed configuration (tests wrap its dialer).
func openConfig(ctx context.Context, cfg *pgxpool.Config, opts Options) (*Store, error) {
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	} else if cfg.MaxConns < 8 {
		cfg.MaxConns = 8
	}
	for k, v := range sessionSettings {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	cfg.AfterConnect = checkSession
	cfg.ConnConfig.Tracer = phaseTracer{}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	pageTimeout := opts.PageTimeout
	if pageTimeout <= 0 {
		pageTimeout = DefaultPageTimeout
	}
	s := &Store{pool: pool, log: log, pageTimeout: pageTimeout, cache: newContainerCache(), listenDone: make(chan struct{}), autoIdx: autoIndexes{known: map[int64]map[string]bool{}, blocked: map[int64]map[string]bool{}},
		scriptSlots: make(chan struct{}, scriptSlotCount(cfg.MaxConns))}
	var collate string
	if err := pool.QueryRow(ctx, `SELECT datcollate FROM pg_database WHERE datname = current_database()`).Scan(&collate); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: read the database collation: %w", err)
	}
	s.codePointCollation = collate == "C" || collate == "POSIX"
	s.background, s.stopBackground = context.WithCancel(context.Background())
	if err := s.startEPKFill(ctx); err != nil {
		s.stopBackground()
		pool.Close()
		return nil, err
	}
	go s.listen(s.background, s.listenDone)
	spares := opts.SpareTables
	if spares == 0 {
		spares = defaultSpareTables
	}
	s.startTableWorkers(max(spares, 0))
	return s, nil
}

// Close stops the metadata listener and the items tables' workers,
// cancels a background vacuum in progress and closes the connection pool.
func (s *Store) Close() {
	s.stopBackground()
	<-s.listenDone
	s.vacuum.wg.Wait()
	s.tables.wg.Wait()
	s.epk.wg.Wait()
	s.pool.Close()
}

// Pool returns the underlying pool (for benchmarks and diagnostics).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("pgstore: migration file %q must be named NNNN_name.sql", e.Name())
		}
		b, err := fs.ReadFile(migrationFS, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies the pending migrations in one transaction, holding a
// transaction-scoped advisory lock so concurrent starters wait for each other.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	return applyMigrations(ctx, pool, ms)
}

// applyMigrations is migrate with the migrations ms. When it applies any,
// it marks every spare items table stale (see tablepool.go): a migration
// changes the items tables of the containers, which spares are not.
func applyMigrations(ctx context.Context, pool *pgxpool.Pool, ms []migration) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit this is a no-op
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLockID)); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS cosmos;
CREATE TABLE IF NOT EXISTS cosmos.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("pgstore: migrate: bootstrap: %w", err)
	}
	// Every migration not yet recorded is applied, in version order: a
	// database that saw a later version first (two branches landing in
	// either order) still gets the earlier one.
	rows, err := tx.Query(ctx, `SELECT version FROM cosmos.schema_migrations`)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	ran := false
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("pgstore: migration %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO cosmos.schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return fmt.Errorf("pgstore: migration %s: %w", m.name, err)
		}
		ran = true
	}
	if ran {
		if _, err := tx.Exec(ctx, `DO $$ BEGIN IF to_regclass('cosmos.spare_tables') IS NOT NULL THEN UPDATE cosmos.spare_tables SET ddl_key = 'stale'; END IF; END $$`); err != nil {
			return fmt.Errorf("pgstore: migrate: mark spare tables stale: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: migrate: commit: %w", err)
	}
	return nil
}

// itemsTable returns the name of a container's items table. n is the
// container's internal number, never client input.
func itemsTable(n int64) string { return "cosmos.items_" + strconv.FormatInt(n, 10) }

// Ping checks that PostgreSQL answers (for the health endpoint). A dead
// pooled connection is discarded and the check retried once on a new one.
func (s *Store) Ping(ctx context.Context) error {
	err := s.pool.Ping(ctx)
	if err != nil && ctx.Err() == nil {
		err = s.pool.Ping(ctx)
	}
	return err
}

// IsUnavailable reports whether err means that PostgreSQL cannot be reached
// or is not accepting work right now: a failed connection attempt, a
// connection lost mid-request, or a server shutting down, starting up or
// recovering from a crash (SQLSTATE classes 08 and 57P, 53300). Such
// failures are temporary: the request may be retried.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || pe.Code == "53300"
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ENOENT) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	// pgx reports a connection it closed after a failure as "conn closed";
	// pgconn.SafeToRetry marks errors raised before anything was sent.
	return pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed")
}

// msgUnavailable is the message of the 503 sent while PostgreSQL is
// unreachable (the same words as wire.MsgUnavailable).
const msgUnavailable = "The emulator's database is unreachable or restarting; retry the request shortly."

// classify maps PostgreSQL errors to emulator error kinds: a missing items
// table means the container was deleted meanwhile (404), a unique violation
// is a conflict (409), an unreachable database is 503 (IsUnavailable),
// anything else stays internal (500).
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var ee *emulator.Error
	if errors.As(err, &ee) {
		if ee.Kind == emulator.KindInternal && IsUnavailable(err) {
			return &emulator.Error{Kind: emulator.KindUnavailable, Message: msgUnavailable, Err: err}
		}
		return err
	}
	if IsUnavailable(err) {
		return &emulator.Error{Kind: emulator.KindUnavailable, Message: msgUnavailable, Err: err}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", op, emulator.ErrResourceNotFound)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "42P01": // undefined_table: the container is gone
			return &emulator.Error{Kind: emulator.KindNotFound, Message: emulator.MsgResourceNotFound, Err: err}
		case "23505": // unique_violation
			return &emulator.Error{Kind: emulator.KindConflict, Message: emulator.MsgConflict, Err: err}
		case "23503": // foreign_key_violation: the owner vanished meanwhile
			return &emulator.Error{Kind: emulator.KindNotFound, Message: emulator.MsgResourceNotFound, Err: err}
		case "40001", "40P01": // serialization failure, deadlock
			return &emulator.Error{Kind: emulator.KindUnavailable, Message: "A concurrent change conflicted with this request; retry it.", Err: err}
		}
	}
	return &emulator.Error{Kind: emulator.KindInternal, Message: "The emulator's database failed: " + op, Err: err}
}
