package pgstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestAutoIndexConcurrentQueries: a query creating path indexes and
// another one starting meanwhile on the same container (both then create
// the same indexes, writing the container's set of known indexes at the
// same moments) share that set safely, and every index is created once.
// Meant for -race. Note that the race detector did not catch the unlocked
// version of this code: it counts the I/O and the sync.Pool hand-offs
// between the two goroutines (pgx's socket writes and reads, fmt's
// printer pool in indexName) as synchronisation, and the runtime's
// "concurrent map writes" check needs the writes to overlap in time.
func TestAutoIndexConcurrentQueries(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	s, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newContainer(t, s, nil)
	c.Properties = []byte(`{"indexingPolicy":{"includedPaths":[{"path":"/*"}]}}`)
	c.Def, _ = emulator.ParseContainerDefinition(c.Properties)
	insertDocs(t, s, c, 50000, 0) // index builds take a moment
	query := func(text string) error {
		q, err := emulator.ParseQuery(text)
		if err != nil {
			return err
		}
		_, err = s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2}, Query: q, Text: text, Page: emulator.PageRequest{MaxItems: 1}})
		return err
	}
	if err := query("SELECT * FROM c WHERE c.first = 1"); err != nil { // the container's known indexes are loaded
		t.Fatal(err)
	}
	// 15 terms: a WHERE gets at most 16 index conditions (sqlgen's
	// maxSargable), so each term here gets its own index.
	var terms []string
	for i := 0; i < 15; i++ {
		terms = append(terms, fmt.Sprintf("c.p%d = 1", i))
	}
	many := "SELECT * FROM c WHERE " + strings.Join(terms, " AND ")
	watcher, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(ctx)
	indexes := func() int {
		var n int
		_ = watcher.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE tablename = $1 AND indexname LIKE '%\_p\_%'`, "items_"+itoa(c.Num)).Scan(&n)
		return n
	}
	first := make(chan error, 1)
	go func() { first <- query(many) }()
	waitUntil(t, "the first query create some indexes", func() bool { return indexes() >= 4 })
	if err := query(many); err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if got := indexes(); got != 16 {
		t.Fatalf("%d path indexes, want 16", got)
	}
}

// logRecorder is a slog.Handler keeping the messages it receives.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Level.String()+" "+rec.Message)
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

func (r *logRecorder) has(substr string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		if strings.Contains(m, substr) {
			return true
		}
	}
	return false
}

// waitUntil polls ok until it holds; the bound only keeps a broken build
// from hanging (it is not a performance threshold).
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestListenerFailuresAreLogged: when the metadata listener's connection
// is killed, the failure is logged, and so is its reconnection.
func TestListenerFailuresAreLogged(t *testing.T) {
	rec := &logRecorder{}
	s, err := Open(context.Background(), pgtest.NewDatabase(t), Options{Logger: slog.New(rec)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	enabled := func() bool { s.cache.mu.Lock(); defer s.cache.mu.Unlock(); return s.cache.enabled }
	waitUntil(t, "the listener connect", enabled)
	var killed int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN `+metadataChannel+`'`).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d listeners (%v)", killed, err)
	}
	waitUntil(t, "the failure logged", func() bool { return rec.has("WARN pgstore: the metadata listener lost its connection") })
	waitUntil(t, "the reconnection logged", func() bool { return rec.has("INFO pgstore: the metadata listener reconnected") })
	waitUntil(t, "the cache on again", enabled)
}

// TestCloseCancelsBackgroundVacuum: Close does not wait for a background
// vacuum to finish; it cancels it (the statement ends in PostgreSQL).
func TestCloseCancelsBackgroundVacuum(t *testing.T) {
	saved := vacuumSQL
	defer func() { vacuumSQL = saved }()
	vacuumSQL = func(table string) string { return `SELECT pg_sleep(3600), 'vacuum ` + table + `'` }
	dsn := pgtest.NewDatabase(t)
	s, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newContainer(t, s, nil)
	s.noteSwept(c.Num, vacuumAfterRows, true)
	other := openStore(t) // to watch the server side
	running := func() bool {
		var n int
		_ = other.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(3600), ''vacuum %' AND state = 'active'`).Scan(&n)
		return n > 0
	}
	waitUntil(t, "the vacuum start", running)
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // a hang guard, not a threshold
		t.Fatal("Close waited for the background vacuum")
	}
	waitUntil(t, "the vacuum statement end in PostgreSQL", func() bool { return !running() })
}
