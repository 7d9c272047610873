package pgstore

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// querier is what the item statements run on: the pool for a single
// operation, one pgx.Tx for the operations of a batch.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// itemOps runs the item point operations on q. The Store's methods run
// them on the pool; a batch runs them inside its transaction.
type itemOps struct {
	q querier
	// lsn is the SQL expression that gives a write its LSN: lsnEach (the
	// zero value) or, in a transactional batch, lsnShared.
	lsn string
	// tx is the state of a batch's transaction (nil for a single
	// operation), see batchTx.
	tx *batchTx
	// over collects the path indexes that refused a long value (nil:
	// none collected), see oversize.go, and the writes a unique key index
	// refused because of expired rows (uniquekeys.go).
	over *oversize
	// sub runs every write to a container with unique keys under a
	// savepoint (guardedUnique): set inside a transaction, which a refused
	// statement would otherwise abort.
	sub bool
}

// lsnEach draws a new LSN for every write, after making sure that the
// transaction has its transaction ID (pg_current_xact_id assigns one if it
// has none yet; CASE evaluates it first). The latest-version change feed
// (ReadChanges) stops at the first row whose transaction may have run
// beside one still in progress, judged by transaction IDs: a writer that
// drew its LSN before it had an ID (PostgreSQL assigns one only when the
// row is written, a moment later) was invisible to that rule, so a reader
// could move its continuation past a later writer's LSN while this lower
// one was still to commit, and never return it
// (TestWritesHaveTransactionIDBeforeLSN).
const lsnEach = `CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('cosmos.lsn_seq') END`

// lsnShared is the LSN of the current transaction, drawn at its first
// write (cosmos.txn_lsn, migration 0012): every write of a transactional
// batch carries it, as in the service, where a transaction's writes share
// one _lsn. It is an uncorrelated subquery, so a statement evaluates it
// once however many rows it writes.
const lsnShared = `(SELECT cosmos.txn_lsn())`

// lsnExpr returns o's LSN expression.
func (o itemOps) lsnExpr() string {
	if o.lsn == "" {
		return lsnEach
	}
	return o.lsn
}

func itemNotFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return emulator.ErrItemNotFound
	}
	return err
}

// itemStmt is one item point operation as a single statement: its SQL and
// arguments, and how the row it yields becomes the outcome. Every outcome,
// failures included (404, 409, 412), is decided by the statement alone, so
// a batch can send many of them in one round trip (RunItemOps).
type itemStmt struct {
	op   string
	sql  string
	args []any
	scan func(row pgx.Row) emulator.ItemOpResult
	// num and body are the container and the document a create, upsert
	// or replace writes (oversize.note).
	num  int64
	body []byte
	// pk, id and exp are the write's partition key, id and expiry;
	// uniqueKeys are the container's unique keys (uniquekeys.go) and
	// unique reports that it has some.
	pk, id     string
	exp        emulator.Expiry
	uniqueKeys [][][]string
	unique     bool
}

// writing returns st with the container and document it writes.
func (st itemStmt) writing(p emulator.WriteItemParams) itemStmt {
	st.num, st.body = p.Container.Num, p.Body
	st.pk, st.id, st.exp = p.PK, p.ID, p.Expiry
	st.uniqueKeys = p.Container.Definition().UniqueKeys
	st.unique = len(st.uniqueKeys) > 0
	return st
}

// run executes st on o's querier (in a batch's transaction, with its BEGIN
// when st is the first statement).
func (o itemOps) run(ctx context.Context, st itemStmt) emulator.ItemOpResult {
	r := o.exec(ctx, st)
	r.Err = o.over.note(r.Err, st.num, st.body)
	return r
}

// exec is run without noting refused index entries. A write that
// guardedUnique guards runs under a savepoint, in the same round trip.
func (o itemOps) exec(ctx context.Context, st itemStmt) emulator.ItemOpResult {
	if st.op != opRead {
		o.tx.wrote()
	}
	guard := o.guardedUnique(st)
	b := &pgx.Batch{}
	begin := o.tx.queueBegin(b)
	if !begin && !guard {
		return st.scan(o.q.QueryRow(ctx, st.sql, st.args...))
	}
	if guard {
		b.Queue(savepointUnique)
	}
	b.Queue(st.sql, st.args...)
	if guard {
		b.Queue(releaseUnique)
	}
	br := o.q.SendBatch(ctx, b)
	for range b.Len() - 1 - btoi(guard) { // BEGIN, SAVEPOINT
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return emulator.ItemOpResult{Err: classify("begin batch", err)}
		}
	}
	r := st.scan(br.QueryRow())
	err := br.Close()
	if guard && isUniqueKeyViolation(r.Err) {
		// the RELEASE did not run: the transaction waits for the
		// rollback to the savepoint
		if uerr := o.undoUnique(ctx, st); uerr != nil {
			return emulator.ItemOpResult{Err: classify(st.op, uerr)}
		}
		return r
	}
	if err != nil && r.Err == nil {
		r.Err = classify(st.op, err)
	}
	return r
}

// ReadItem implements emulator.Store.
func (s *Store) ReadItem(ctx context.Context, k emulator.ItemKey) (emulator.Item, error) {
	return itemOps{q: s.pool}.ReadItem(ctx, k)
}

// ReadItem reads a live item.
func (o itemOps) ReadItem(ctx context.Context, k emulator.ItemKey) (emulator.Item, error) {
	r := o.run(ctx, readStmt(k))
	return r.Item, r.Err
}

// opRead is the op of readStmt, the one item statement that writes nothing.
const opRead = "read item"

// currentLSNExpr is the last value of cosmos.lsn_seq (CurrentLSN), as a
// column of a point read: 1, the sequence's start, before the first write.
// pg_sequence_last_value reads the sequence's page without the executor's
// scan of it that a (SELECT last_value FROM ...) subquery sets up each
// time: on the 2-CPU benchmark machine, a point read statement after the
// idle gap between two SDK reads took 9-12 us less (103 -> 91-94 us p50;
// without the column, 91 us), and the Go SDK's point read 7 us less.
const currentLSNExpr = `COALESCE(pg_sequence_last_value('cosmos.lsn_seq'), 1)`

func readStmt(k emulator.ItemKey) itemStmt {
	a := args{k.PK, k.ID}
	live := livePredicate(k.Expiry, "", &a)
	return itemStmt{op: opRead, sql: `SELECT seq, body, ts, etag, lsn, ` + currentLSNExpr + ` FROM ` + itemsTable(k.Container.Num) +
		` WHERE pk = $1 AND id = $2 AND ` + live, args: a, scan: func(row pgx.Row) emulator.ItemOpResult {
		it := emulator.Item{ID: k.ID, PK: k.PK}
		var body string
		err := row.Scan(&it.Seq, &body, &it.TS, &it.ETag, &it.LSN, &it.CurrentLSN)
		it.Body = []byte(body)
		return emulator.ItemOpResult{Item: it, Err: classify("read item", itemNotFound(err))}
	}}
}

func writtenItem(p emulator.WriteItemParams) emulator.Item {
	return emulator.Item{ID: p.ID, PK: p.PK, Body: p.Body, TS: p.TS, ETag: p.ETag}
}

// insertItem is the tail of a single-row INSERT of an item (arguments
// writeArgs), the LSN given by the SQL expression lsn.
func insertItem(lsn string) string {
	return ` AS i (pk, id, seq, body, ts, ttl, etag, lsn, epk)
VALUES ($1, $2, nextval('cosmos.doc_seq'), $3, $4, $5, $6, ` + lsn + `, $7)
ON CONFLICT (pk, id) DO `
}

// overwriteItem rewrites a conflicting row. It sets epk too, although an
// item's key (so its EPK) never changes: a row of a table from before the
// epk column may still wait for the backfill (epk.go).
const overwriteItem = `UPDATE SET body = EXCLUDED.body, ts = EXCLUDED.ts, ttl = EXCLUDED.ttl, etag = EXCLUDED.etag, lsn = EXCLUDED.lsn, epk = EXCLUDED.epk`

// writeArgs are the first arguments of the statements that write the
// document of p: $1 pk, $2 id, $3 body, $4 ts, $5 ttl, $6 etag and $7 the
// effective partition key, computed here (itemEPK).
func writeArgs(p emulator.WriteItemParams) args {
	return args{p.PK, p.ID, string(p.Body), p.TS, p.TTL, p.ETag, itemEPK(p.Container, p.PK)}
}

// CreateItem implements emulator.Store. A conflicting row that has expired
// is overwritten (as a new document with a new seq): an expired item is gone
// for every purpose, including its id.
func (s *Store) CreateItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, error) {
	r := s.runSingle(ctx, createStmt(p, lsnEach))
	return r.Item, r.Err
}

// runSingle runs a single operation's statement on the pool, again after
// dropping a path index that refused its document (retryOversize).
func (s *Store) runSingle(ctx context.Context, st itemStmt) emulator.ItemOpResult {
	r := itemOps{q: s.pool}.run(ctx, st)
	if isUniqueKeyViolation(r.Err) && st.exp.DefaultTTL != nil {
		// refused by a unique key: when expired rows held the value, they
		// are gone for every purpose, so remove them and write again
		n, err := s.purgeExpiredHolders(ctx, s.pool, st)
		if err != nil {
			return emulator.ItemOpResult{Err: classify("remove expired items", err)}
		}
		if n > 0 {
			r = itemOps{q: s.pool}.run(ctx, st)
		}
	}
	if _, long := isOversize(r.Err); !long {
		return r // the usual case: nothing to collect
	}
	first := true
	_ = s.retryOversize(ctx, s.pool, func(o *oversize) error {
		if first { // the run above
			first = false
			return o.note(r.Err, st.num, st.body)
		}
		r = itemOps{q: s.pool, over: o}.run(ctx, st)
		return r.Err
	})
	return r
}

// CreateItem is Store.CreateItem on o's querier.
func (o itemOps) CreateItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, error) {
	r := o.run(ctx, createStmt(p, o.lsnExpr()))
	return r.Item, r.Err
}

func createStmt(p emulator.WriteItemParams, lsn string) itemStmt {
	a := writeArgs(p)
	sql := `INSERT INTO ` + itemsTable(p.Container.Num) + insertItem(lsn)
	if p.Expiry.DefaultTTL == nil {
		sql += `NOTHING`
	} else {
		sql += overwriteItem + `, seq = EXCLUDED.seq WHERE (` + livePredicate(p.Expiry, "i.", &a) + `) IS NOT TRUE`
	}
	return itemStmt{op: "create item", sql: sql + ` RETURNING seq, lsn`, args: a, scan: func(row pgx.Row) emulator.ItemOpResult {
		it := writtenItem(p)
		err := row.Scan(&it.Seq, &it.LSN)
		if errors.Is(err, pgx.ErrNoRows) {
			return emulator.ItemOpResult{Item: it, Err: emulator.ErrConflict}
		}
		return emulator.ItemOpResult{Item: it, Err: classify("create item", err)}
	}}.writing(p)
}

// UpsertItem implements emulator.Store. A replaced live item keeps its seq
// (and so its _rid); an expired one is replaced like a new document. With
// IfMatch, a live item whose etag differs is not touched (412).
func (s *Store) UpsertItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, bool, error) {
	r := s.runSingle(ctx, upsertStmt(p, lsnEach))
	return r.Item, r.Created, r.Err
}

// UpsertItem is Store.UpsertItem on o's querier.
func (o itemOps) UpsertItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, bool, error) {
	r := o.run(ctx, upsertStmt(p, o.lsnExpr()))
	return r.Item, r.Created, r.Err
}

// upsertStmt upserts in one INSERT ... ON CONFLICT DO UPDATE. What it
// knows of the item it replaces comes from the conflicting row itself (i.),
// which PostgreSQL locks and reads in its latest committed version, never
// from the statement's snapshot: an upsert that loses the insert race to
// another upsert or create (whose row its snapshot does not see) replaces
// the winner's document, keeping its seq (its _rid), and says it did not
// create it. Created is told by the seq the row ends with: the one this
// statement drew (currval of the sequence its VALUES just advanced, a value
// no other row holds) for an insert or an expired row made anew, the old
// row's for a replace.
func upsertStmt(p emulator.WriteItemParams, lsn string) itemStmt {
	a := writeArgs(p)
	sql := `INSERT INTO ` + itemsTable(p.Container.Num) + insertItem(lsn) + overwriteItem
	if p.Expiry.DefaultTTL != nil {
		sql += `, seq = CASE WHEN ` + livePredicate(p.Expiry, "i.", &a) + ` THEN i.seq ELSE EXCLUDED.seq END`
	}
	if p.IfMatch != "" && p.IfMatch != "*" {
		sql += ` WHERE i.etag = ` + a.add(p.IfMatch) + ` OR (` + livePredicate(p.Expiry, "i.", &a) + `) IS NOT TRUE`
	}
	return itemStmt{op: "upsert item", sql: sql + ` RETURNING seq, lsn, seq = currval('cosmos.doc_seq')`, args: a, scan: func(row pgx.Row) emulator.ItemOpResult {
		it := writtenItem(p)
		var created bool
		err := row.Scan(&it.Seq, &it.LSN, &created)
		if errors.Is(err, pgx.ErrNoRows) {
			// the latest version of a live item, whose etag differed
			return emulator.ItemOpResult{Item: it, Err: emulator.ErrPrecondition}
		}
		return emulator.ItemOpResult{Item: it, Created: created, Err: classify("upsert item", err)}
	}}.writing(p)
}

// ReplaceItem implements emulator.Store.
func (s *Store) ReplaceItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, error) {
	r := s.runSingle(ctx, replaceStmt(p, lsnEach))
	return r.Item, r.Err
}

// ReplaceItem is Store.ReplaceItem on o's querier.
func (o itemOps) ReplaceItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, error) {
	r := o.run(ctx, replaceStmt(p, o.lsnExpr()))
	return r.Item, r.Err
}

func replaceStmt(p emulator.WriteItemParams, lsn string) itemStmt {
	a := writeArgs(p)
	rename := ""
	if p.NewID != "" && p.NewID != p.ID {
		// a rename: a live item with the new id is a unique violation (409)
		rename = `id = ` + a.add(p.NewID) + `, `
	}
	write := `UPDATE ` + itemsTable(p.Container.Num) + ` SET ` + rename + `body = $3, ts = $4, ttl = $5, etag = $6, lsn = ` + lsn + `, epk = $7
WHERE pk = $1 AND id = $2 AND ` + livePredicate(p.Expiry, "", &a)
	sql, a, cond := guarded(p.ItemKey, p.IfMatch, write, `seq, lsn`, `w.seq, w.lsn`, a)
	return itemStmt{op: "replace item", sql: sql, args: a, scan: func(row pgx.Row) emulator.ItemOpResult {
		it := writtenItem(p)
		if rename != "" {
			it.ID = p.NewID
		}
		var seq, lsn *int64
		err := scanGuarded(row, cond, &seq, &lsn)
		if err == nil {
			it.Seq, it.LSN = *seq, *lsn
		}
		return emulator.ItemOpResult{Item: it, Err: classify("replace item", err)}
	}}.writing(p)
}

// guarded completes write (an UPDATE or DELETE of the live item k, without
// RETURNING) into a statement that returns the columns returning of the row
// it wrote, and tells, when it wrote nothing, 404 from 412 (scanGuarded).
//
// Without an If-Match that holds a condition, the statement is the write
// itself and writing nothing means 404: under READ COMMITTED a write that
// finds its row locked waits and then judges the row's latest committed
// version, so a row that a concurrent delete removed (or a replace left
// expired) is no longer there and nothing else can stop the write.
//
// With one (cond is true), the etag is part of the write's condition, and
// when the write touched nothing the statement looks again, only then
// (the CASE evaluates its subquery no sooner), at the item's latest
// committed version through a row lock, which reads that version rather
// than the statement's snapshot: a live item means its etag differed
// (412); none means it is gone (404). Judging by the snapshot instead would
// answer 412 to a write whose item a concurrent delete removed between
// the snapshot and the write. The statement yields exactly one row:
// selected, the returned columns of w (NULL when nothing was written), and
// that verdict (NULL when the write happened).
func guarded(k emulator.ItemKey, ifMatch, write, returning, selected string, a args) (string, args, bool) {
	if ifMatch == "" || ifMatch == "*" {
		return write + ` RETURNING ` + returning, a, false
	}
	write += ` AND etag = ` + a.add(ifMatch)
	live := livePredicate(k.Expiry, "", &a)
	first, _, _ := strings.Cut(selected, ",")
	return `WITH w AS (` + write + ` RETURNING ` + returning + `),
cur AS (SELECT 1 FROM ` + itemsTable(k.Container.Num) + ` WHERE pk = $1 AND id = $2 AND ` + live + ` FOR NO KEY UPDATE)
SELECT ` + selected + `, CASE WHEN ` + first + ` IS NULL THEN EXISTS (SELECT 1 FROM cur) END FROM (VALUES (1)) AS one LEFT JOIN w ON TRUE`, a, true
}

// scanGuarded scans the row of a statement made by guarded (cond as it
// returned) into dest, pointers to nullable columns, and returns the
// outcome: nil when the write happened, else ErrItemNotFound or, when the
// item was live with another etag, ErrPrecondition.
func scanGuarded(row pgx.Row, cond bool, dest ...any) error {
	var live *bool // NULL when the write happened
	if cond {
		dest = append(dest, &live)
	}
	err := row.Scan(dest...)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return emulator.ErrItemNotFound
	case err == nil && live != nil && *live:
		return emulator.ErrPrecondition
	case err == nil && live != nil:
		return emulator.ErrItemNotFound
	}
	return err
}

// DeleteItem implements emulator.Store. Its statement is a transaction of
// its own, so it hands the LSN it reports to the change log's trigger
// (pointDeleteLSN).
func (s *Store) DeleteItem(ctx context.Context, k emulator.ItemKey, ifMatch string) (int64, error) {
	r := itemOps{q: s.pool}.run(ctx, deleteStmt(k, ifMatch, pointDeleteLSN))
	return r.Item.LSN, r.Err
}

// pointDeleteLSN draws a point delete's LSN and stores it in the
// transaction-local setting cosmos.delete_lsn, which the change log's
// commit-time trigger (migration 0011) takes as the logged delete's LSN, so
// that metadata.lsn in the all-versions feed is the LSN the delete
// reported. Only a statement that is its own transaction and deletes at
// most one row may use it.
const pointDeleteLSN = `set_config('cosmos.delete_lsn', nextval('cosmos.lsn_seq')::text, true)::bigint`

// DeleteItem deletes an item on o's querier (a batch's transaction),
// drawing its LSN as o does.
func (o itemOps) DeleteItem(ctx context.Context, k emulator.ItemKey, ifMatch string) (int64, error) {
	r := o.run(ctx, deleteStmt(k, ifMatch, o.lsnExpr()))
	return r.Item.LSN, r.Err
}

// deleteStmt deletes the item k, drawing its LSN with lsn (an SQL
// expression).
func deleteStmt(k emulator.ItemKey, ifMatch, lsn string) itemStmt {
	a := args{k.PK, k.ID}
	write := `DELETE FROM ` + itemsTable(k.Container.Num) + ` WHERE pk = $1 AND id = $2 AND ` + livePredicate(k.Expiry, "", &a)
	sql, a, cond := guarded(k, ifMatch, write, lsn+` AS lsn`, `w.lsn`, a)
	return itemStmt{op: "delete item", sql: sql, args: a, scan: func(row pgx.Row) emulator.ItemOpResult {
		it := emulator.Item{ID: k.ID, PK: k.PK}
		var lsn *int64
		err := scanGuarded(row, cond, &lsn)
		if err == nil {
			it.LSN = *lsn
		}
		return emulator.ItemOpResult{Item: it, Err: classify("delete item", err)}
	}}
}

// ReadItems implements emulator.Store. Besides Limit, it stops reading
// after the first row (not the first) that takes the bodies past
// emulator.MaxResponseBytes: the feed's page ends at or before that row,
// so the rest is not fetched (the statement is cancelled, not drained).
//
// The statement runs under the page's time budget (budget.go); a feed
// page reads rows in the order of an index, so running out means the
// database is overloaded, and the page fails with a 408 rather than
// ending short (the caller reads a short page as the last one).
func (s *Store) ReadItems(ctx context.Context, p emulator.ReadItemsParams) ([]emulator.Item, error) {
	if epkFilters(p.EPK) {
		if err := s.ensureEPK(ctx, p.Container); err != nil {
			return nil, err
		}
	}
	sql, a := feedSQL(p)
	pctx, cancelPage := s.pageContext(ctx)
	defer cancelPage()
	qctx, cancel := context.WithCancel(pctx)
	defer cancel()
	var rows *boundedRows
	fail := func(err error) error {
		if budgetSpent(ctx, pctx, rows, err) {
			return errPageTimeout(s.pageTimeout, err)
		}
		return classify("read items", err)
	}
	rows, err := s.boundedQuery(qctx, s.pool, s.pageTimeout, sql, planEach(epkFilters(p.EPK), a)...)
	if err != nil {
		return nil, fail(err)
	}
	defer rows.Close()
	var items []emulator.Item
	size := 0
	for rows.Next() {
		var it emulator.Item
		var body string
		if err := rows.Scan(&it.PK, &it.ID, &it.Seq, &body, &it.TS, &it.ETag, &it.LSN); err != nil {
			return nil, fail(err)
		}
		it.Body = []byte(body)
		items = append(items, it)
		if size += len(body); size > emulator.MaxResponseBytes && len(items) > 1 {
			cancel() // the page is full: PostgreSQL need not send the rest
			return items, nil
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fail(err)
	}
	return items, nil
}

// feedSQL returns the read feed's statement and its arguments.
//
// A feed of a whole container whose TTL is on first picks the page's seqs
// from the covering index on (seq) INCLUDE (ts, ttl, exp) (expiryIndexesDDL),
// an index-only scan that steps over expired rows not yet swept without
// reading them from the table, then reads just those rows. The page's rows
// are the same as with a plain scan: both parts see one snapshot. A feed
// confined to an EPK range reads the table (the index holds no epk).
func feedSQL(p emulator.ReadItemsParams) (string, args) {
	a := args{p.AfterSeq}
	t := itemsTable(p.Container.Num)
	const cols = `pk, id, seq, body, ts, etag, lsn`
	if p.PK == nil && p.Expiry.DefaultTTL != nil && !epkFilters(p.EPK) {
		sql := `SELECT ` + cols + ` FROM ` + t + ` WHERE seq = ANY(ARRAY(SELECT seq FROM ` + t + ` WHERE seq > $1 AND ` +
			livePredicate(p.Expiry, "", &a) + ` ORDER BY seq LIMIT ` + a.add(p.Limit) + `)) ORDER BY seq`
		return sql, a
	}
	sql := `SELECT ` + cols + ` FROM ` + t + ` WHERE seq > $1`
	if p.PK != nil {
		sql += ` AND pk = ` + a.add(*p.PK)
	}
	if cond := epkCond(p.EPK, "epk", &a); cond != "" {
		sql += ` AND ` + cond
	}
	sql += ` AND ` + livePredicate(p.Expiry, "", &a) + ` ORDER BY seq LIMIT ` + a.add(p.Limit)
	return sql, a
}
