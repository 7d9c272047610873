package pgstore

import (
	"context"
	"strconv"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

var _ emulator.ChangeFeedStore = (*Store)(nil)

// lsnIndexDDL creates the (lsn) index of a container's items table, which
// serves the change feed (rows in LSN order after a continuation) and
// LatestLSN. Migration 0009 creates it for the containers made before it.
func lsnIndexDDL(n int64) string {
	return `CREATE INDEX IF NOT EXISTS items_` + strconv.FormatInt(n, 10) + `_lsn ON ` + itemsTable(n) + ` (lsn);`
}

// unsettledSQL is true for a row written by a transaction that may have
// run concurrently with one still in progress: its xmin is not older than
// the oldest transaction in progress (age() measures both from the same
// point). A negative age is an xmin from before a transaction ID
// wraparound, i.e. very old: settled.
//
// Transaction IDs are the whole server's, but only some transactions can
// write this database's items; those that cannot are not waited for:
// the store's table workers (application_name backgroundAppName while
// they run, see tablepool.go), autovacuum (an ANALYZE takes a transaction
// ID), and every session of another database (a server shared by several
// emulators or test databases: another database's migration or long batch
// would otherwise hold this feed back for its whole duration). The
// sessions are only looked up when a transaction is in progress.
//
// The look-up reads pg_stat_activity, which PostgreSQL reads once per
// transaction, at its first use, and keeps until the transaction ends.
// ReadChanges therefore reads it in a statement of its own before the
// scan, in the scan's read-committed transaction (activityFirstSQL), so
// the sessions are those of a moment before the scan's snapshot: every
// transaction the snapshot sees in progress that already had its ID then
// is named with its database, and one not named got its ID after that
// moment, so after every write acknowledged before the read began. Such a
// transaction is waited for (it may be of this database), which never
// holds back an acknowledged write: that write's ID is older. Looked up
// after the snapshot (as a lone statement, LatestLSN, does), a transaction
// of another database that ended in between is not named and is waited
// for: safe, but a write acknowledged before the read could be held back.
//
// Either way a transaction that is not named is waited for, and a
// transaction of this database always is: the rule never lets a
// continuation pass an LSN that an earlier-numbered write still in
// progress may commit below (see ReadChanges).
const unsettledSQL = `age(xmin) BETWEEN 0 AND age(((SELECT CASE WHEN pg_snapshot_xmin(sn) = pg_snapshot_xmax(sn) THEN pg_snapshot_xmax(sn)
  ELSE coalesce((SELECT min(x) FROM pg_snapshot_xip(sn) x WHERE x::text::bigint % 4294967296 NOT IN (
    SELECT backend_xid::text::bigint FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND (application_name = '` + backgroundAppName + `'
      OR backend_type = 'autovacuum worker' OR datname IS DISTINCT FROM current_database()))),
  pg_snapshot_xmax(sn)) END FROM pg_current_snapshot() sn)::text::bigint % 4294967296)::text::xid)`

// maxTxnRows bounds how many rows share one LSN (the writes of a
// transactional batch, which holds at most emulator.MaxBatchOperations),
// and so how many a page takes in beyond its item count.
const maxTxnRows = emulator.MaxBatchOperations

// ReadChanges implements emulator.ChangeFeedStore. Rows stream from one
// statement in LSN order, at most the page's item count plus maxTxnRows.
//
// A write takes its LSN when its statement runs but becomes visible when
// its transaction commits, so a transaction still in progress may commit
// an LSN below one already visible. The scan therefore stops at the first
// row that is not settled (see unsettledSQL): the continuation never moves
// past a change that may still appear below it.
//
// A read must also include every write acknowledged before it began. A
// row is held back only by a transaction of this database (or one whose
// database is unknown, which began after the read did, see unsettledSQL)
// that was in progress at the scan's snapshot and whose ID is older than
// the row's. When the scan stops at such a row with room left on the page,
// the read waits, for at most the page budget, until the transactions of
// this database that were in progress at that snapshot have ended
// (awaitWriters), then scans once more: every row the first scan saw is
// settled for the second, so an acknowledged write comes with the page,
// and a write that took an earlier LSN and committed in the meantime comes
// before it, in order, rather than being passed over. A transaction that
// outlasts the budget (a long script or batch) is not passed either: the
// page ends before the rows it holds back, which come with a later read.
//
// A page ends only between two LSNs. The continuation is an LSN (the next
// page reads the rows above it), and the writes of one transactional
// batch share one LSN (lsnShared), so they stay on one page, as the
// service keeps them: a page that reaches its item count or its byte
// budget still takes the rows that follow while they carry the same LSN
// (at most maxTxnRows, of at most one batch's size), and a scan that ends
// at its row limit gives back the rows of its last LSN, which may go on
// beyond the limit.
func (s *Store) ReadChanges(ctx context.Context, p emulator.ChangesParams) (emulator.ChangesPage, error) {
	a := args{p.AfterLSN}
	sql := `SELECT pk, id, seq, body, ts, etag, lsn, ` + unsettledSQL + `, (SELECT pg_snapshot_xmax(pg_current_snapshot()))::text::bigint FROM ` +
		itemsTable(p.Container.Num) + ` WHERE lsn > $1`
	switch {
	case p.PK != nil && p.PKPrefix:
		sql += ` AND starts_with(pk, ` + a.add(*p.PK) + `::text)`
	case p.PK != nil:
		sql += ` AND pk = ` + a.add(*p.PK)
	}
	if p.SinceTS != 0 {
		sql += ` AND ts >= ` + a.add(p.SinceTS)
	}
	if cond := epkCond(p.EPK, "epk", &a); cond != "" {
		if err := s.ensureEPK(ctx, p.Container); err != nil {
			return emulator.ChangesPage{}, err
		}
		sql += ` AND ` + cond
	}
	sql += ` AND ` + livePredicate(p.Expiry, "", &a) + ` ORDER BY lsn LIMIT ` + a.add(scan(p))
	q := planEach(epkFilters(p.EPK), a)
	page, xmax, err := s.scanChanges(ctx, p, sql, q)
	if err != nil || xmax == 0 || !s.awaitWriters(ctx, xmax) {
		return page, err
	}
	page, _, err = s.scanChanges(ctx, p, sql, q)
	return page, err
}

// activityFirstSQL reads pg_stat_activity so that the transaction keeps
// the sessions of this moment for its later statements (see unsettledSQL).
const activityFirstSQL = `SELECT count(*) FROM pg_stat_activity`

// scanChanges runs ReadChanges' statement sql with arguments q, in a
// read-committed transaction whose first statement is activityFirstSQL,
// and makes the page of its rows. xmax is the scan snapshot's xmax when
// the scan stopped at a row that is not settled while the page had room
// left, else 0.
func (s *Store) scanChanges(ctx context.Context, p emulator.ChangesParams, sql string, q []any) (page emulator.ChangesPage, xmax int64, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return page, 0, classify("read changes", err)
	}
	// Released in a transaction (an error on the way), the connection is
	// closed rather than pooled.
	defer conn.Release()
	// one round trip: without arguments, pgx sends both statements in one
	// simple query
	if _, err := conn.Exec(ctx, `BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY; `+activityFirstSQL); err != nil {
		return page, 0, classify("read changes", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `ROLLBACK`) //nolint:errcheck // read-only; a failure closes the connection
	rows, err := conn.Query(ctx, sql, q...)
	if err != nil {
		return page, 0, classify("read changes", err)
	}
	defer rows.Close()
	size, read := 0, 0
	// the current LSN's first item on the page, and the LSN before it
	group, before := 0, int64(0)
	for rows.Next() {
		var it emulator.Item
		var body string
		var unsettled bool
		var snapXmax int64
		if err := rows.Scan(&it.PK, &it.ID, &it.Seq, &body, &it.TS, &it.ETag, &it.LSN, &unsettled, &snapXmax); err != nil {
			return emulator.ChangesPage{}, 0, classify("read changes", err)
		}
		cost := len(body) + 200 // the row's share of the response
		full := it.LSN != page.LastLSN && (len(page.Items) >= p.Limit ||
			(len(page.Items) > 0 && size+cost > emulator.MaxResponseBytes))
		if full {
			return page, 0, nil // this LSN starts the next page
		}
		if unsettled {
			// not exhausted: the continuation stays before this row (its
			// LSN's other rows are of the same transaction, unsettled too)
			return page, snapXmax, nil
		}
		if it.LSN != page.LastLSN {
			group, before = len(page.Items), page.LastLSN
		}
		read++
		page.LastLSN = it.LSN
		size += cost
		it.Body = []byte(body)
		page.Items = append(page.Items, it)
	}
	if err := rows.Err(); err != nil {
		return emulator.ChangesPage{}, 0, classify("read changes", err)
	}
	page.Exhausted = read < scan(p)
	if !page.Exhausted && before != 0 {
		// the row limit may have cut the last LSN's rows: they all come
		// with the next page
		page.Items, page.LastLSN = page.Items[:group], before
	}
	return page, 0, nil
}

// scan is how many rows ReadChanges' statement reads at most.
func scan(p emulator.ChangesParams) int { return p.Limit + maxTxnRows }

// writersSQL counts the sessions of this database whose transaction is
// one of those a snapshot of xmax $1 saw in progress (its ID is older than
// xmax), other than those unsettledSQL does not wait for.
const writersSQL = `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL
  AND application_name IS DISTINCT FROM '` + backgroundAppName + `' AND backend_type IS DISTINCT FROM 'autovacuum worker'
  AND age(backend_xid) > age(($1::bigint % 4294967296)::text::xid)`

// awaitWriters waits until no transaction of this database that a
// snapshot of xmax saw in progress is still running (writersSQL), polling
// with a growing pause of up to settlePoll. It gives up, reporting false,
// once the page budget has passed, when ctx ends or a look-up fails.
// These are the transactions that held back a change feed scan: writes,
// which end in milliseconds, unless a long script or batch is among them.
func (s *Store) awaitWriters(ctx context.Context, xmax int64) bool {
	deadline := time.Now().Add(s.pageTimeout)
	for pause := time.Millisecond; ; pause = min(2*pause, settlePoll) {
		var n int
		if err := s.pool.QueryRow(ctx, writersSQL, xmax).Scan(&n); err != nil {
			return false
		}
		if n == 0 {
			return true
		}
		if time.Now().Add(pause).After(deadline) {
			return false
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// settlePoll is the longest pause between two look-ups of awaitWriters.
const settlePoll = 16 * time.Millisecond

// LatestLSN implements emulator.ChangeFeedStore: the highest lsn among
// settled rows (see ReadChanges), found walking the lsn index backwards.
func (s *Store) LatestLSN(ctx context.Context, c emulator.Container) (int64, error) {
	var lsn int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT lsn FROM `+itemsTable(c.Num)+` WHERE NOT `+unsettledSQL+` ORDER BY lsn DESC LIMIT 1), 0)`).Scan(&lsn)
	return lsn, classify("latest lsn", err)
}

// IssuedLSN implements emulator.ChangeFeedStore.
func (s *Store) IssuedLSN(ctx context.Context) (int64, error) {
	var lsn int64
	err := s.pool.QueryRow(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM cosmos.lsn_seq`).Scan(&lsn)
	return lsn, classify("issued lsn", err)
}
