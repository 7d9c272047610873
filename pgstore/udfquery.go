package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// Bounds of a page of a query calling user-defined functions: the rows
// one scan statement reads, the argument and result bytes one batch holds,
// and how many rows and how long a page examines before it ends (with a
// continuation after the last row examined) even when it holds fewer
// results than asked.
// (Variables so that tests can lower them.)
var (
	udfBatchRows  = 1000
	udfBatchBytes = 8 << 20
	udfScanRows   = 100_000
	udfPageTime   = 2 * time.Second
	// udfWholeRows and udfWholeBytes bound the candidate rows (and their
	// arguments and results) of a query evaluated over its whole set.
	udfWholeRows  = 100_000
	udfWholeBytes = 64 << 20
)

// runUDFQuery runs one page of a query calling user-defined functions
// (see sqlgen/udf.go): batch after batch, the scan statement reads the
// candidate rows after the position reached with their UDF arguments,
// p.UDFs computes the calls, and the evaluation statement applies the
// rest of the query to the batch. The page ends when it is full, when its
// 4 MB budget is spent, when the rows run out, or at the scan bounds; the
// continuation is the keyset of the last row examined (or returned, when
// the page filled inside a batch), so every result comes exactly once. All
// statements of a page read one snapshot (a read-only REPEATABLE READ
// transaction), so a write between the scan and the evaluation of a batch
// is seen by neither.
//
// Its statements run under the page's context (budget.go): when it ends
// they are cancelled and the page fails with a 408; udfPageTime, well
// within the page budget, ends a page that is merely slow with a
// continuation, and the evaluation statement of a whole-set query runs
// under the budget itself (execPage).
func (s *Store) runUDFQuery(ctx context.Context, p queryRun, hash uint64, cur *sqlgen.Cursor) (emulator.QueryPage, error) {
	pctx, cancel := s.pageContext(ctx)
	defer cancel()
	page, err := s.runUDFPage(pctx, p, hash, cur)
	if budgetSpent(ctx, pctx, nil, err) {
		return emulator.QueryPage{}, errPageTimeout(s.pageTimeout, err)
	}
	return page, err
}

// runUDFPage is runUDFQuery under the page's context.
func (s *Store) runUDFPage(ctx context.Context, p queryRun, hash uint64, cur *sqlgen.Cursor) (emulator.QueryPage, error) {
	if sqlgen.NeedsWholeSet(p.Query) {
		return s.runUDFWhole(ctx, p, hash, cur)
	}
	var taken, skip int64
	if cur != nil {
		taken, skip = cur.Taken, cur.Skip
	}
	st, err := s.translateUDF(ctx, p, cur, nil, false)
	if err != nil {
		return emulator.QueryPage{}, err
	}
	if cur == nil {
		skip = st.Offset
	}
	if err := s.udfPrepare(ctx, p, st); err != nil {
		return emulator.QueryPage{}, err
	}
	limit, capped := int64(p.Page.Limit()), false
	if st.Total >= 0 && !st.Single {
		rem := st.Total - taken
		if rem <= 0 {
			return emulator.QueryPage{Docs: [][]byte{}}, nil
		}
		if rem <= limit {
			limit, capped = rem, true
		}
	}
	tx, done, err := s.udfSnapshot(ctx)
	if err != nil {
		return emulator.QueryPage{}, err
	}
	defer done()

	page := emulator.QueryPage{Docs: [][]byte{}}
	start, scanned, size := time.Now(), 0, 0
	pos := cur
	var cont *sqlgen.Cursor // the continuation's position; nil: none
	for {
		batch, full, err := s.udfScan(ctx, tx, st, p)
		if err != nil {
			return emulator.QueryPage{}, err
		}
		if len(batch.Seqs) == 0 {
			break
		}
		last := batch.last
		ev, err := s.translateUDF(ctx, p, nil, &batch.UDFBatch, false)
		if err != nil {
			return emulator.QueryPage{}, err
		}
		stop, err := func() (bool, error) {
			// not cancelled when the page fills: the rest of the batch is
			// drained (at most udfBatchRows rows), which keeps the
			// transaction usable
			rows, err := tx.Query(ctx, ev.SQL, planEach(epkFilters(p.EPK), ev.Args)...)
			if err != nil {
				return false, classifyQuery(err)
			}
			defer rows.Close()
			for rows.Next() {
				r, err := scanQueryRow(rows, ev, p)
				if err != nil {
					return false, err
				}
				if r.doc == nil {
					continue
				}
				if skip > 0 { // OFFSET
					skip--
					continue
				}
				if int64(len(page.Docs)) == limit || (len(page.Docs) > 0 && size+len(r.doc) > emulator.MaxResponseBytes) {
					return true, nil // more results follow: cont is the last one returned
				}
				size += len(r.doc)
				page.Docs = append(page.Docs, r.doc)
				c := r.cursor
				cont = &c
			}
			return false, classifyQuery(rows.Err())
		}()
		if err != nil {
			return emulator.QueryPage{}, err
		}
		if stop {
			break
		}
		if ev.Single {
			return page, nil
		}
		// every row of the batch is examined
		pos, scanned = &last, scanned+len(batch.Seqs)
		cont = nil
		if !full {
			break // the rows ran out
		}
		if int64(len(page.Docs)) == limit || scanned >= udfScanRows || time.Since(start) >= udfPageTime {
			cont = pos
			break
		}
		if st, err = s.translateUDF(ctx, p, pos, nil, false); err != nil {
			return emulator.QueryPage{}, err
		}
	}
	n := int64(len(page.Docs))
	if cont == nil && p.GatewayFanOut && !capped && n > 0 && n == limit {
		// the gateway's fan-out ends a full page with a continuation (see
		// runQuery)
		cont = pos
	}
	if cont != nil && !(capped && n == limit) {
		c := *cont
		c.Taken, c.Skip = taken+n, skip
		page.Continuation = encodeToken(&c, hash)
	}
	return page, nil
}

// runUDFWhole runs one page of a query calling UDFs that needs its whole
// set (sqlgen.NeedsWholeSet: ORDER BY on a UDF, GROUP BY, DISTINCT,
// aggregates): the scan statement reads every candidate row (at most
// udfWholeRows rows and udfWholeBytes of arguments and results, else
// 400), p.UDFs computes the calls, and the evaluation statement over all
// of them is the query's own page, paged by its own cursor. Every page
// does this again in its snapshot: the results are those of a query over
// stored values as long as the functions are deterministic.
func (s *Store) runUDFWhole(ctx context.Context, p queryRun, hash uint64, cur *sqlgen.Cursor) (emulator.QueryPage, error) {
	st, err := s.translateUDF(ctx, p, nil, nil, true)
	if err != nil {
		return emulator.QueryPage{}, err
	}
	if err := s.udfPrepare(ctx, p, st); err != nil {
		return emulator.QueryPage{}, err
	}
	tx, done, err := s.udfSnapshot(ctx)
	if err != nil {
		return emulator.QueryPage{}, err
	}
	defer done()
	all := sqlgen.UDFBatch{Ords: make([][]int64, st.Joins), Results: make([][]*string, len(st.UDFArgs))}
	bytes := 0
	for {
		b, full, err := s.udfScan(ctx, tx, st, p)
		if err != nil {
			return emulator.QueryPage{}, err
		}
		all.Seqs = append(all.Seqs, b.Seqs...)
		for j := range all.Ords {
			all.Ords[j] = append(all.Ords[j], b.Ords[j]...)
		}
		for k := range all.Results {
			all.Results[k] = append(all.Results[k], b.Results[k]...)
		}
		if bytes += b.bytes; len(all.Seqs) > udfWholeRows || bytes > udfWholeBytes {
			return emulator.QueryPage{}, emulator.BadRequest("The query calls user-defined functions with ORDER BY on a function, GROUP BY, DISTINCT or aggregates, which this emulator evaluates over all the rows its other filters select, and they select more than %d rows (or %d MB of function arguments and results): narrow it with filters that use no user-defined function.", udfWholeRows, udfWholeBytes>>20)
		}
		if !full || st.Single {
			break
		}
		if st, err = s.translateUDF(ctx, p, &b.last, nil, true); err != nil {
			return emulator.QueryPage{}, err
		}
	}
	ev, err := s.translateStage(ctx, p.QueryItemsParams, cur, &sqlgen.UDFStage{Whole: true, Batch: &all})
	if err != nil {
		return emulator.QueryPage{}, err
	}
	p.udf = true
	return s.execPage(ctx, tx, ev, p, hash, nil, scanWindow{})
}

// udfPrepare checks where a UDF query runs and creates the path indexes
// its scan statement st can use.
func (s *Store) udfPrepare(ctx context.Context, p queryRun, st *sqlgen.Statement) error {
	if p.on != nil {
		// (scripts give no UDF caller, so their queries never get here)
		return emulator.BadRequest("User-defined functions are not supported in the queries of scripts.")
	}
	return s.ensureQueryIndexes(ctx, p.QueryItemsParams, st)
}

// udfSnapshot begins the read-only REPEATABLE READ transaction all the
// statements of one page of a UDF query read; done rolls it back. When
// ctx ends while it is open, its backend gets a cancel request (see
// boundedQuery).
func (s *Store) udfSnapshot(ctx context.Context) (tx pgx.Tx, done func(), err error) {
	tx, err = s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, classify("query items", err)
	}
	stop := cancelOnDone(ctx, tx.Conn().PgConn(), nil)
	return tx, func() {
		if stop() {
			// a cancel may still be on its way: the connection is not
			// to be reused
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = tx.Conn().Close(closeCtx)
			cancel()
		}
		_ = tx.Rollback(context.Background())
	}, nil
}

// udfBatch is the rows one scan statement read, with the results of the
// calls, the keyset of its last row and their bytes (arguments and
// results).
type udfBatch struct {
	sqlgen.UDFBatch
	last  sqlgen.Cursor
	bytes int
}

// udfScan runs the scan statement st and computes the UDF calls of its
// rows. full is true when it stopped at a batch bound (more rows may
// follow), false when the rows ran out.
func (s *Store) udfScan(ctx context.Context, tx pgx.Tx, st *sqlgen.Statement, p queryRun) (b udfBatch, full bool, err error) {
	calls := sqlgen.UDFCalls(p.Query)
	b.Ords = make([][]int64, st.Joins)
	b.Results = make([][]*string, len(calls))
	rows, err := tx.Query(ctx, st.SQL, planEach(epkFilters(p.EPK), st.Args)...) // drained when left early (see runUDFQuery)
	if err != nil {
		return b, false, classifyQuery(err)
	}
	defer rows.Close()
	args := make([][]byte, 0, 4)
	for rows.Next() {
		if len(b.Seqs) == udfBatchRows || b.bytes > udfBatchBytes {
			return b, true, nil
		}
		r, err := scanQueryRow(rows, st, p)
		if err != nil {
			return b, false, err
		}
		b.Seqs = append(b.Seqs, r.cursor.Seq)
		for j, o := range r.cursor.Ords {
			b.Ords[j] = append(b.Ords[j], o)
		}
		col := 0
		for k, c := range calls {
			args, undefined := args[:0], false
			for range st.UDFArgs[k] {
				a := r.args[col]
				col++
				if a == nil {
					undefined = true
					continue
				}
				b.bytes += len(*a)
				args = append(args, []byte(*a))
			}
			if st.UDFGuards[k] {
				// the call's value is not used for this row
				undefined = undefined || r.args[col] == nil
				col++
			}
			var res *string
			if !undefined { // an undefined argument skips the call
				out, err := p.UDFs.CallUDF(c.Name, args)
				if err != nil {
					return b, false, err
				}
				if out != nil {
					v := string(out)
					res, b.bytes = &v, b.bytes+len(v)
				}
			}
			b.Results[k] = append(b.Results[k], res)
		}
		b.last = r.cursor
	}
	if len(b.Seqs) == udfBatchRows {
		// the statement's LIMIT: more rows may follow
		return b, true, classifyQuery(rows.Err())
	}
	return b, false, classifyQuery(rows.Err())
}

// translateUDF translates the scan statement of a UDF query after cur
// (batch nil) or its batch evaluation statement for batch, reading
// udfBatchRows rows at a time.
func (s *Store) translateUDF(ctx context.Context, p queryRun, cur *sqlgen.Cursor, batch *sqlgen.UDFBatch, whole bool) (*sqlgen.Statement, error) {
	stage := &sqlgen.UDFStage{Batch: batch, Whole: whole}
	q := p.QueryItemsParams
	q.Page.MaxItems = udfBatchRows
	return s.translateStage(ctx, q, cur, stage)
}
