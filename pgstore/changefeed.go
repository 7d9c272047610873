package pgstore

import (
	"context"
	"strconv"

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
// sessions are only looked up when a transaction is in progress. A
// transaction that ends between the snapshot and that look-up is not
// recognised and is waited for, which is safe (the next read gets past
// it).
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
// statement in LSN order; once the page is full the statement is
// cancelled, so the rest is never fetched.
//
// A write takes its LSN when its statement runs but becomes visible when
// its transaction commits, so a transaction still in progress may commit
// an LSN below one already visible. The scan therefore stops at the first
// row that is not settled (see unsettledSQL): the continuation never moves
// past a change that may still appear below it, and the rows from there on
// come with a later read, once the transactions that were in progress have
// ended.
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
	sql := `SELECT pk, id, seq, body, ts, etag, lsn, ` + unsettledSQL + ` FROM ` + itemsTable(p.Container.Num) + ` WHERE lsn > $1`
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
	scan := p.Limit + maxTxnRows
	sql += ` AND ` + livePredicate(p.Expiry, "", &a) + ` ORDER BY lsn LIMIT ` + a.add(scan)
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := s.pool.Query(qctx, sql, planEach(epkFilters(p.EPK), a)...)
	if err != nil {
		return emulator.ChangesPage{}, classify("read changes", err)
	}
	defer rows.Close()
	var page emulator.ChangesPage
	size, read := 0, 0
	// the current LSN's first item on the page, and the LSN before it
	group, before := 0, int64(0)
	for rows.Next() {
		var it emulator.Item
		var body string
		var unsettled bool
		if err := rows.Scan(&it.PK, &it.ID, &it.Seq, &body, &it.TS, &it.ETag, &it.LSN, &unsettled); err != nil {
			return emulator.ChangesPage{}, classify("read changes", err)
		}
		if unsettled {
			// not exhausted: the continuation stays before this row (its
			// LSN's other rows are of the same transaction, unsettled too)
			return page, nil
		}
		cost := len(body) + 200 // the row's share of the response
		if it.LSN != page.LastLSN {
			full := len(page.Items) >= p.Limit ||
				(len(page.Items) > 0 && size+cost > emulator.MaxResponseBytes)
			if full {
				return page, nil // this LSN starts the next page
			}
			group, before = len(page.Items), page.LastLSN
		}
		read++
		page.LastLSN = it.LSN
		size += cost
		it.Body = []byte(body)
		page.Items = append(page.Items, it)
	}
	if err := rows.Err(); err != nil {
		return emulator.ChangesPage{}, classify("read changes", err)
	}
	page.Exhausted = read < scan
	if !page.Exhausted && before != 0 {
		// the row limit may have cut the last LSN's rows: they all come
		// with the next page
		page.Items, page.LastLSN = page.Items[:group], before
	}
	return page, nil
}

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
