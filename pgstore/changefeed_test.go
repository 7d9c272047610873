package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func lsnIndexExists(t *testing.T, s *Store, num int64) bool {
	t.Helper()
	var ok bool
	if err := s.pool.QueryRow(context.Background(), `SELECT to_regclass($1) IS NOT NULL`, "cosmos.items_"+strconv.FormatInt(num, 10)+"_lsn").Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestLSNIndexMigration: a new container gets the (lsn) index, and
// migration 0009 gives it to the containers made before it.
func TestLSNIndexMigration(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	if !lsnIndexExists(t, s, c.Num) {
		t.Fatal("a new container has no lsn index")
	}
	// As before the migration: no index, 0009 not recorded.
	if _, err := s.pool.Exec(ctx, `DROP INDEX cosmos.items_`+strconv.FormatInt(c.Num, 10)+`_lsn; DELETE FROM cosmos.schema_migrations WHERE version = 9`); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, s.pool); err != nil {
		t.Fatal(err)
	}
	if !lsnIndexExists(t, s, c.Num) {
		t.Fatal("migration 0009 did not index the existing container")
	}
}

// TestReadChangesStopsAtItsBudget: a change feed page over large documents
// ends at the 4 MB budget (at least one document) and is served by the lsn
// index.
func TestReadChangesStopsAtItsBudget(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	insertDocs(t, s, c, 10, 1<<20)
	p := emulator.ChangesParams{Container: c, Limit: 100}
	var got []int64
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("the feed does not end")
		}
		page, err := s.ReadChanges(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, it := range page.Items {
			size += len(it.Body)
			got = append(got, it.LSN)
		}
		if size > emulator.MaxResponseBytes && len(page.Items) > 1 {
			t.Fatalf("page of %d bytes in %d documents", size, len(page.Items))
		}
		if page.Exhausted {
			break
		}
		p.AfterLSN = page.LastLSN
	}
	if len(got) != 10 || got[0] != 1 || got[9] != 10 {
		t.Fatalf("lsns = %v, want 1..10", got)
	}
	var plan string
	rows, err := s.pool.Query(ctx, `EXPLAIN SELECT pk FROM `+itemsTable(c.Num)+` WHERE lsn > 5 ORDER BY lsn LIMIT 10`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan += line + "\n"
	}
	if !strings.Contains(plan, "_lsn") {
		t.Errorf("the change feed scan does not use the lsn index:\n%s", plan)
	}
}

// TestReadChangesWaitsForTransactionsInProgress: a transaction that took
// its LSN but has not committed keeps the continuation before that LSN,
// even when a later LSN is already visible; once it commits, the change
// is read. The read waits for that transaction for at most the page budget
// (short here: the transaction outlasts it).
func TestReadChangesWaitsForTransactionsInProgress(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.NewDatabase(t), Options{PageTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c := newContainer(t, s, nil)
	write := func(q interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}, id string) {
		t.Helper()
		if _, err := q.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, etag, lsn, epk)
VALUES ('["p"]', $1, nextval('cosmos.doc_seq'), '{"id":"'||$1||'"}', 1, '"e"', nextval('cosmos.lsn_seq'), '')`, id); err != nil {
			t.Fatal(err)
		}
	}
	read := func(after int64) emulator.ChangesPage {
		t.Helper()
		page, err := s.ReadChanges(ctx, emulator.ChangesParams{Container: c, AfterLSN: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	write(s.pool, "a")
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	write(tx, "b")         // takes the next LSN, not committed yet
	write(s.pool, "c")
	page := read(0)
	if len(page.Items) != 1 || page.Items[0].ID != "a" || page.Exhausted {
		t.Fatalf("with b in progress: %+v, want a only, not exhausted", page)
	}
	latest, err := s.LatestLSN(ctx, c)
	if err != nil || latest != page.LastLSN {
		t.Fatalf("LatestLSN = %d, %v; want %d (a's)", latest, err, page.LastLSN)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	page = read(page.LastLSN)
	if len(page.Items) != 2 || page.Items[0].ID != "b" || page.Items[1].ID != "c" || !page.Exhausted {
		t.Fatalf("after the commit: %+v, want b, c", page)
	}
}

// TestReadChangesIncludesWritesCommittedWhileItWaits: a read that finds a
// later write committed while a transaction of the same database holds an
// earlier LSN waits for that transaction instead of ending its page there:
// once it commits, the page has both writes, in LSN order. The test commits
// only after the read is seen waiting (its session's last statement is
// writersSQL in pg_stat_activity).
func TestReadChangesIncludesWritesCommittedWhileItWaits(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	insert := `INSERT INTO ` + itemsTable(c.Num) + ` (pk, id, seq, body, ts, etag, lsn, epk)
VALUES ('["p"]', $1, nextval('cosmos.doc_seq'), '{}', 1, '"e"', ` + lsnEach + `, '')`
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	// the lower LSN, not committed yet
	if _, err := tx.Exec(ctx, insert, "early"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, insert, "acked"); err != nil {
		t.Fatal(err)
	}
	type result struct {
		page emulator.ChangesPage
		err  error
	}
	done := make(chan result, 1)
	go func() {
		page, err := s.ReadChanges(ctx, emulator.ChangesParams{Container: c, Limit: 10})
		done <- result{page, err}
	}()
	for waiting := false; !waiting; {
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database() AND query = $1)`, writersSQL).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-done:
			t.Fatalf("the read ended while the early write was in progress: %+v, %v", r.page, r.err)
		default:
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	var ids []string
	for _, it := range r.page.Items {
		ids = append(ids, it.ID)
	}
	if fmt.Sprint(ids) != "[early acked]" || !r.page.Exhausted {
		t.Fatalf("page = %v (exhausted %v), want [early acked], exhausted", ids, r.page.Exhausted)
	}
}

// TestReadChangesKeepsTransactionsTogether: the changes of one
// transactional batch (one LSN) come on one page even past its item
// count; the next LSN starts the next page.
func TestReadChangesKeepsTransactionsTogether(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	insert := func(lsn string) string {
		return `INSERT INTO ` + itemsTable(c.Num) + ` (pk, id, seq, body, ts, etag, lsn, epk)
SELECT '["p"]', $1 || g, nextval('cosmos.doc_seq'), '{}', 1, '"e"', ` + lsn + `, '' FROM generate_series(1, $2) g`
	}
	if _, err := s.pool.Exec(ctx, insert(lsnEach), "single", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, insert(lsnShared), "batch", 3); err != nil { // one transaction, one LSN
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, insert(lsnEach), "after", 1); err != nil {
		t.Fatal(err)
	}
	var pages [][]string
	p := emulator.ChangesParams{Container: c, Limit: 2}
	for len(pages) < 5 {
		page, err := s.ReadChanges(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		if len(ids) == 0 {
			break
		}
		pages = append(pages, ids)
		p.AfterLSN = page.LastLSN
	}
	want := "[[single1 batch1 batch2 batch3] [after1]]"
	if got := fmt.Sprint(pages); got != want {
		t.Fatalf("pages = %s, want %s", got, want)
	}
}
