package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// InItemTx implements emulator.Store: fn's item operations run in one
// READ COMMITTED transaction on one connection, committed when fn returns
// nil and rolled back otherwise. The item statements are those of the
// single operations (itemOps), so a batch behaves exactly like its
// operations run one by one, except that it commits once and, with
// opts.SharedLSN, that its writes share one LSN (lsnShared).
//
// When a path index refuses a long value (oversize.go), the
// transaction is rolled back, the index dropped and fn run again from the
// start, a bounded number of times.
//
// The transaction costs no round trip of its own: its BEGIN travels with
// its first statement and its COMMIT with whatever it sends last
// (batchTx), and a transaction that sent nothing (every operation refused
// before reaching the store) sends neither.
func (s *Store) InItemTx(ctx context.Context, opts emulator.TxOptions, fn func(emulator.ItemTx) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return classify("begin batch", err)
	}
	defer conn.Release() // the pool drops a connection still in a transaction
	return s.retryOversize(ctx, conn, func(over *oversize) error {
		t := &batchTx{}
		o := itemOps{q: conn, tx: t, over: over, sub: true}
		if opts.SharedLSN {
			o.lsn = lsnShared
		}
		err := fn(o)
		if err != nil || over.hit() {
			// roll back; when a path index refused a long value,
			// retryOversize then drops it and runs fn again
			if t.begun {
				_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			}
			if err == nil {
				err = errOversize
			}
			return err
		}
		return classify("commit batch", t.commit(ctx, conn))
	})
}

// errOversize fails a transaction whose function ignored a write refused
// by a path index, when the retries are exhausted (retryOversize).
var errOversize = classify("write item", errors.New("an index refused a long value"))

// batchTx is the state of a batch's transaction (InItemTx): whether its
// BEGIN was sent, how many write statements it sent, and the rows of its
// first one when that was a run of creates that only inserted
// (createManyStmt on a container without TTL, whose conflicts are DO
// NOTHING).
type batchTx struct {
	begun  bool
	writes int
	coll   int64   // the run's container
	seqs   []int64 // the seqs of the rows it created, ascending
}

// queueBegin queues BEGIN in b ahead of the transaction's first statement
// and reports whether it did (t is nil outside a batch).
func (t *batchTx) queueBegin(b *pgx.Batch) bool {
	if t == nil || t.begun {
		return false
	}
	b.Queue("BEGIN")
	t.begun = true
	return true
}

// wrote counts a write statement.
func (t *batchTx) wrote() {
	if t != nil {
		t.writes++
	}
}

// commit ends the transaction in one round trip: the change-log entries
// of its run of creates when that was its only write (see below), then
// COMMIT.
//
// Such a run is logged by one INSERT ... SELECT of its entries into the
// change log, rather than one insert per row from the commit-time trigger
// (about 10 µs a row, most of a batch's commit). It runs last before
// COMMIT and takes the container's log lock first, as the trigger does at
// commit, so the entries get their seq in commit order and the
// transaction waits for no row lock while it holds that lock. The rows are
// read back from the items table: no later statement of the transaction
// changed them. The setting cosmos.logged_seqs tells the trigger
// (migration 0015) to skip their INSERT events; every seq in the range was
// drawn by the run's one statement, so no other row of the transaction
// falls in it.
func (t *batchTx) commit(ctx context.Context, q querier) error {
	if !t.begun {
		return nil
	}
	b := &pgx.Batch{}
	if t.writes == 1 && len(t.seqs) > 0 {
		b.Queue(`SELECT pg_advisory_xact_lock(1128679015, ($1::bigint % 2147483647)::integer), set_config('cosmos.logged_seqs', $2, true)`,
			t.coll, strconv.FormatInt(t.seqs[0], 10)+":"+strconv.FormatInt(t.seqs[len(t.seqs)-1], 10))
		b.Queue(`INSERT INTO cosmos.changes (coll, seq, op, pk, id, doc_seq, lsn, prev_lsn, crts, etag, body, epk)
SELECT $1, nextval('cosmos.change_seq'), 'c', pk, id, seq, lsn, NULL, ts, etag, body, epk FROM `+itemsTable(t.coll)+`
WHERE seq = ANY($2::bigint[]) ORDER BY seq`, t.coll, t.seqs)
	}
	b.Queue("COMMIT")
	br := q.SendBatch(ctx, b)
	var tag pgconn.CommandTag
	var err error
	for range b.Len() {
		if tag, err = br.Exec(); err != nil {
			break
		}
	}
	if err = errors.Join(err, br.Close()); err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback
	}
	return err // after a failure the connection is still in a transaction: Release drops it
}

// DeletePartitionItems implements emulator.Store: one DELETE of
// at most limit rows of the partition, found through the (pk, id) key.
func (s *Store) DeletePartitionItems(ctx context.Context, c emulator.Container, pk string, limit int) (int64, error) {
	t := itemsTable(c.Num)
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+t+` WHERE pk = $1 AND id IN (SELECT id FROM `+t+` WHERE pk = $1 LIMIT $2)`, pk, limit)
	if err != nil {
		return 0, classify("delete partition", err)
	}
	return tag.RowsAffected(), nil
}

var _ emulator.ItemTx = itemOps{}

// RunItemOps implements emulator.ItemTx: the operations' statements
// go to PostgreSQL in one pgx.Batch (one round trip) and run in order on
// o's querier (a batch's transaction). A run of creates becomes one
// multi-row INSERT (createManyStmt).
func (o itemOps) RunItemOps(ctx context.Context, ops []emulator.ItemOp) ([]emulator.ItemOpResult, error) {
	type unit struct {
		from, to int      // the operations it serves
		one      itemStmt // to == from+1
		logRun   bool     // a run of creates that may log itself (batchTx.commit)
		guard    bool     // one runs under a savepoint (guardedUnique)
	}
	var units []unit
	b := &pgx.Batch{}
	begin := o.tx.queueBegin(b)
	for i := 0; i < len(ops); {
		if j := createRun(ops, i); j-i >= 2 {
			sql, a := createManyStmt(ops[i:j], o.lsnExpr())
			b.Queue(sql, a...)
			units = append(units, unit{from: i, to: j, logRun: o.tx != nil && o.tx.writes == 0 && ops[i].Params.Expiry.DefaultTTL == nil})
			o.tx.wrote()
			i = j
			continue
		}
		var st itemStmt
		p := ops[i].Params
		switch ops[i].Op {
		case emulator.BatchCreate:
			st = createStmt(p, o.lsnExpr())
		case emulator.BatchUpsert:
			st = upsertStmt(p, o.lsnExpr())
		case emulator.BatchReplace:
			st = replaceStmt(p, o.lsnExpr())
		case emulator.BatchRead:
			st = readStmt(p.ItemKey)
		case emulator.BatchDelete:
			st = deleteStmt(p.ItemKey, p.IfMatch, o.lsnExpr())
		default:
			return nil, fmt.Errorf("pipelined item operation %q: %w", ops[i].Op, errors.ErrUnsupported)
		}
		guard := o.guardedUnique(st)
		if guard {
			b.Queue(savepointUnique)
		}
		b.Queue(st.sql, st.args...)
		if guard {
			b.Queue(releaseUnique)
		}
		units = append(units, unit{from: i, to: i + 1, one: st, guard: guard})
		if st.op != opRead {
			o.tx.wrote()
		}
		i++
	}
	br := o.q.SendBatch(ctx, b)
	if begin {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, classify("begin batch", err)
		}
	}
	out := make([]emulator.ItemOpResult, len(ops))
	for _, u := range units {
		if u.guard {
			if _, err := br.Exec(); err != nil { // SAVEPOINT
				_ = br.Close()
				return nil, classify("batch", err)
			}
		}
		if u.one.sql != "" {
			out[u.from] = u.one.scan(br.QueryRow())
			if u.guard && isUniqueKeyViolation(out[u.from].Err) {
				// PostgreSQL skipped the statements after the refused
				// one: undo it, then send the rest again
				_ = br.Close()
				if err := o.undoUnique(ctx, u.one); err != nil {
					return nil, classify("batch", err)
				}
				if u.to == len(ops) {
					return out, nil
				}
				rest, err := o.RunItemOps(ctx, ops[u.to:])
				copy(out[u.to:], rest)
				return out, err
			}
			if u.guard {
				// RELEASE: it fails after a statement that failed in
				// PostgreSQL, whose own error then stands
				var pe *pgconn.PgError
				if _, err := br.Exec(); err != nil && !errors.As(out[u.from].Err, &pe) {
					_ = br.Close()
					return nil, classify("batch", err)
				}
			}
			out[u.from].Err = o.over.note(out[u.from].Err, u.one.num, u.one.body)
		} else {
			rows, err := br.Query()
			if err == nil {
				err = scanCreated(rows, ops[u.from:u.to], out[u.from:u.to])
			}
			if err != nil {
				bodies := make([][]byte, 0, u.to-u.from)
				for _, op := range ops[u.from:u.to] {
					bodies = append(bodies, op.Params.Body)
				}
				out[u.from].Err = classify("create items", o.over.note(err, ops[u.from].Params.Container.Num, bodies...))
			} else if u.logRun {
				o.tx.coll = ops[u.from].Params.Container.Num
				for _, r := range out[u.from:u.to] {
					if r.Err == nil {
						o.tx.seqs = append(o.tx.seqs, r.Item.Seq)
					}
				}
			}
		}
		for _, r := range out[u.from:u.to] {
			if emulator.IsStorageFailure(r.Err) {
				_ = br.Close()
				return nil, r.Err
			}
		}
	}
	return out, classify("batch", br.Close())
}

// createRun returns the end of the run of creates starting at ops[i] that
// one multi-row INSERT can serve: same container and expiry, no key twice
// (an INSERT ... ON CONFLICT DO UPDATE cannot touch a row twice), and
// no unique keys.
func createRun(ops []emulator.ItemOp, i int) int {
	seen := map[[2]string]bool{}
	j := i
	if len(ops[i].Params.Container.Definition().UniqueKeys) > 0 {
		// one refused row would fail the whole INSERT: each create of a
		// container with unique keys is a statement of its own
		return i + 1
	}
	for ; j < len(ops) && ops[j].Op == emulator.BatchCreate; j++ {
		p, first := ops[j].Params, ops[i].Params
		k := [2]string{p.PK, p.ID}
		if seen[k] || p.Container.Num != first.Container.Num || p.Expiry.Now != first.Expiry.Now {
			break
		}
		seen[k] = true
	}
	return j
}

// createManyStmt is createStmt for several items in one statement: the
// rows come from arrays in input order (so their seq, and their lsn when
// lsn is lsnEach, increase in that order), and the statement returns the
// key, seq and lsn of every row it wrote; an item it did not write is a
// conflict.
func createManyStmt(ops []emulator.ItemOp, lsn string) (string, args) {
	n := len(ops)
	pks, ids, bodies, etags, epks := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	tss, ttls := make([]int64, n), make([]*int32, n)
	for k, op := range ops {
		p := op.Params
		pks[k], ids[k], bodies[k], etags[k], tss[k], ttls[k] = p.PK, p.ID, string(p.Body), p.ETag, p.TS, p.TTL
		epks[k] = itemEPK(p.Container, p.PK)
	}
	first := ops[0].Params
	a := args{pks, ids, bodies, tss, ttls, etags, epks}
	sql := `INSERT INTO ` + itemsTable(first.Container.Num) + ` AS i (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT v.pk, v.id, nextval('cosmos.doc_seq'), v.body, v.ts, v.ttl, v.etag, ` + lsn + `, v.epk
FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::integer[], $6::text[], $7::text[]) WITH ORDINALITY AS v (pk, id, body, ts, ttl, etag, epk, n)
ORDER BY v.n
ON CONFLICT (pk, id) DO `
	if first.Expiry.DefaultTTL == nil {
		sql += `NOTHING`
	} else {
		sql += overwriteItem + `, seq = EXCLUDED.seq WHERE (` + livePredicate(first.Expiry, "i.", &a) + `) IS NOT TRUE`
	}
	return sql + ` RETURNING pk, id, seq, lsn`, a
}

// scanCreated reads the rows of a createManyStmt into out: a written item
// gets its seq and lsn, the others ErrConflict.
func scanCreated(rows pgx.Rows, ops []emulator.ItemOp, out []emulator.ItemOpResult) error {
	defer rows.Close()
	at := make(map[[2]string]int, len(ops))
	for k, op := range ops {
		at[[2]string{op.Params.PK, op.Params.ID}] = k
		out[k] = emulator.ItemOpResult{Item: writtenItem(op.Params), Err: emulator.ErrConflict}
	}
	for rows.Next() {
		var pk, id string
		var seq, lsn int64
		if err := rows.Scan(&pk, &id, &seq, &lsn); err != nil {
			return err
		}
		if k, ok := at[[2]string{pk, id}]; ok {
			out[k].Item.Seq, out[k].Item.LSN, out[k].Err = seq, lsn, nil
		}
	}
	return rows.Err()
}
