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

// ReadChanges implements emulator.ChangeFeedStore. Rows stream from one
// statement in LSN order; once the page is full the statement is
// cancelled, so the rest is never fetched.
func (s *Store) ReadChanges(ctx context.Context, p emulator.ChangesParams) (emulator.ChangesPage, error) {
	a := args{p.AfterLSN}
	sql := `SELECT pk, id, seq, body, ts, etag, lsn FROM ` + itemsTable(p.Container.Num) + ` WHERE lsn > $1`
	if p.PK != nil {
		sql += ` AND pk = ` + a.add(*p.PK)
	}
	if p.SinceTS != 0 {
		sql += ` AND ts >= ` + a.add(p.SinceTS)
	}
	scan := p.ScanLimit
	if p.Match == nil {
		scan = p.Limit
	}
	sql += ` AND ` + livePredicate(p.Expiry, "", &a) + ` ORDER BY lsn LIMIT ` + a.add(scan)
	qctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, err := s.pool.Query(qctx, sql, a...)
	if err != nil {
		return emulator.ChangesPage{}, classify("read changes", err)
	}
	defer rows.Close()
	var page emulator.ChangesPage
	size, read := 0, 0
	for rows.Next() {
		var it emulator.Item
		var body string
		if err := rows.Scan(&it.PK, &it.ID, &it.Seq, &body, &it.TS, &it.ETag, &it.LSN); err != nil {
			return emulator.ChangesPage{}, classify("read changes", err)
		}
		read++
		if p.Match != nil && !p.Match(it.PK) {
			page.LastLSN = it.LSN
			continue
		}
		if size += len(body) + 200; size > emulator.MaxResponseBytes && len(page.Items) > 0 {
			return page, nil // this row starts the next page
		}
		it.Body = []byte(body)
		page.Items = append(page.Items, it)
		page.LastLSN = it.LSN
		if len(page.Items) == p.Limit {
			return page, nil
		}
	}
	if err := rows.Err(); err != nil {
		return emulator.ChangesPage{}, classify("read changes", err)
	}
	page.Exhausted = read < scan
	return page, nil
}

// LatestLSN implements emulator.ChangeFeedStore.
func (s *Store) LatestLSN(ctx context.Context, c emulator.Container) (int64, error) {
	var lsn int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(lsn), 0) FROM `+itemsTable(c.Num)).Scan(&lsn)
	return lsn, classify("latest lsn", err)
}

// IssuedLSN implements emulator.ChangeFeedStore.
func (s *Store) IssuedLSN(ctx context.Context) (int64, error) {
	var lsn int64
	err := s.pool.QueryRow(ctx, `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM cosmos.lsn_seq`).Scan(&lsn)
	return lsn, classify("issued lsn", err)
}
