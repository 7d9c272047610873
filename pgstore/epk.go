package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Effective partition keys (migration 0025). Every item row carries its
// EPK in the epk column, computed in Go at write time (itemEPK) and bound
// as an argument by every statement that writes a document; the change
// log copies it into its entries. A read confined to an EPK range (a
// partition key range, or x-ms-start-epk/x-ms-end-epk) filters
// `epk >= min AND epk < max` in SQL (epkCond).
//
// The index on (epk) alone: it serves the range filter of every read shape
// (a query's rows, the read feed in seq order, the change feed in lsn
// order) either by a range scan or as a bitmap ANDed with the order's own
// index, and the planner picks by the range's share of the table. A
// composite (epk, seq) or (epk, lsn) index would serve one order only and
// still cost a write each. It costs one index entry per created item;
// replaces keep the value, and a replace is not a HOT update anyway (the
// lsn index changes with every write). The change log has no EPK index:
// its readers walk (coll, seq) from their position and filter, which reads
// what an unfiltered reader reads, and every write would pay for one.
//
// Tables made before the column have it nullable and are queued in
// cosmos.epk_backfill. A background worker started by Open fills them one
// container at a time (fillEPK); a request that filters by EPK on a
// queued container first completes that container's fill itself
// (ensureEPK), so no request filters on a NULL epk. Start-up only reads
// the queue.

// epkFillBatch is how many rows one backfill transaction fills.
const epkFillBatch = 1000

// epkFillInBackground starts the background fill at Open (tests turn it
// off to see a request fill a container first).
var epkFillInBackground = true

// epkLockClass is the advisory lock class (with the container number)
// under which a container's backfill ends: the index is built and the
// queue entry deleted by one process at a time.
const epkLockClass = 0x43455046 // "CEPF"

// epkIndexDDL creates the (epk) index of container n's items table (see
// above).
func epkIndexDDL(n int64) string {
	return `CREATE INDEX IF NOT EXISTS items_` + strconv.FormatInt(n, 10) + `_epk ON ` + itemsTable(n) + ` (epk);`
}

// itemEPK returns the EPK of the items of container c whose canonical
// partition key is pk.
func itemEPK(c emulator.Container, pk string) string {
	return emulator.CanonicalEPK(c.PartitionKey, pk)
}

// epkCond returns the SQL condition that keeps the rows whose column col
// (an epk column) lies in r, its bounds bound in a, or "" when r is nil or
// the whole space. Stored EPKs are upper-case hex; the bounds are made so.
// No stored EPK reaches "FF" (every encoding starts below it), so that
// bound needs no term.
func epkCond(r *emulator.EPKRange, col string, a *args) string {
	if r == nil || r.Full() {
		return ""
	}
	var terms []string
	if r.Min != "" {
		terms = append(terms, col+" >= "+a.add(strings.ToUpper(r.Min))+"::text")
	}
	if max := strings.ToUpper(r.Max); max != "" && max != "FF" {
		terms = append(terms, col+" < "+a.add(max)+"::text")
	}
	return strings.Join(terms, " AND ")
}

// epkBounds returns the bounds of r that filter (sqlgen.Input.EPKMin,
// EPKMax), upper-cased, as epkCond writes them.
func epkBounds(r *emulator.EPKRange) (min, max *string) {
	if r == nil || r.Full() {
		return nil, nil
	}
	if r.Min != "" {
		m := strings.ToUpper(r.Min)
		min = &m
	}
	if m := strings.ToUpper(r.Max); m != "" && m != "FF" {
		max = &m
	}
	return min, max
}

// planEach returns the arguments a of a statement, prefixed, when the
// statement filters by an EPK range (filtered), with
// pgx.QueryExecModeCacheDescribe: it runs as an unnamed statement, planned
// with its arguments every time. A prepared statement (pgx's default)
// switches to a generic plan after five runs, and a generic plan cannot
// see how much of the table an EPK range holds: PostgreSQL's default
// estimate for a range with unknown bounds is 0.5 % of the rows, so it
// walks the order's index (lsn, seq) and filters, reading the whole table
// for a range that holds 1/64 of it (a change feed page 3-5 times slower
// than with the plan for the actual bounds, which reads the range through
// the epk index). Planning each time costs a fraction of a millisecond.
func planEach(filtered bool, a []any) []any {
	if !filtered {
		return a
	}
	return append([]any{pgx.QueryExecModeCacheDescribe}, a...)
}

// epkFilters reports whether r filters anything.
func epkFilters(r *emulator.EPKRange) bool { return r != nil && !r.Full() }

// epkFill is the state of the EPK backfill of the containers made before
// the epk column.
type epkFill struct {
	mu sync.Mutex
	// pending holds the queued containers, each with the mutex that one
	// filler holds at a time; empty once every container is filled, so
	// ensureEPK then costs a map lookup.
	pending map[int64]*sync.Mutex
	wg      sync.WaitGroup
}

// lock returns the mutex of container num while it is queued (nil when it
// is not).
func (f *epkFill) lock(num int64) *sync.Mutex {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending[num]
}

// done dequeues container num.
func (f *epkFill) done(num int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.pending, num)
}

// startEPKFill reads the queue of containers to fill and starts the
// background worker that fills them.
func (s *Store) startEPKFill(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `SELECT num FROM cosmos.epk_backfill ORDER BY num`)
	if err != nil {
		return fmt.Errorf("pgstore: read the EPK backfill queue: %w", err)
	}
	nums, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("pgstore: read the EPK backfill queue: %w", err)
	}
	s.epk.pending = make(map[int64]*sync.Mutex, len(nums))
	for _, n := range nums {
		s.epk.pending[n] = &sync.Mutex{}
	}
	if len(nums) == 0 || !epkFillInBackground {
		return nil
	}
	s.epk.wg.Add(1)
	go func() {
		defer s.epk.wg.Done()
		for _, n := range nums {
			for s.background.Err() == nil {
				err := s.ensureEPKNum(s.background, n)
				if err == nil {
					break
				}
				if s.background.Err() == nil {
					s.log.Warn("pgstore: filling the effective partition keys of a container failed (retried; requests that need them fill them first)", "table", itemsTable(n), "err", err)
				}
				select {
				case <-s.background.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return nil
}

// ensureEPK makes sure that every row of container c has its EPK before a
// read filters by it: when the container is still queued for the
// backfill, it fills it now (waiting for a fill in progress).
func (s *Store) ensureEPK(ctx context.Context, c emulator.Container) error {
	if s.epk.lock(c.Num) == nil {
		return nil
	}
	return classify("fill effective partition keys", s.ensureEPKNum(ctx, c.Num))
}

// ensureEPKNum fills container num's EPKs unless another filler of this
// store did meanwhile.
func (s *Store) ensureEPKNum(ctx context.Context, num int64) error {
	mu := s.epk.lock(num)
	if mu == nil {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if s.epk.lock(num) == nil {
		return nil // filled while this one waited
	}
	if err := s.fillEPK(ctx, num); err != nil {
		return err
	}
	s.epk.done(num)
	return nil
}

// fillEPK fills the NULL epk of container num's rows and change-log
// entries in transactions of at most epkFillBatch rows, then builds the
// epk index and dequeues the container (in the database). Rows locked by a
// writer are skipped and found again by the next pass: a writer sets the
// EPK itself, except a delete (the row goes) or a locking read. The rows
// come first: an entry logged meanwhile copies the row's epk, so once
// every row has one, only entries logged before lack it. A container
// deleted meanwhile is dequeued.
func (s *Store) fillEPK(ctx context.Context, num int64) error {
	c, err := scanContainer(s.pool.QueryRow(ctx, `SELECT `+containerCols+` FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num WHERE c.num = $1`, num))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return s.endEPKFill(ctx, num, false)
	case err != nil:
		return err
	}
	def := c.PartitionKey
	epks := map[string]string{} // per canonical key: keys repeat
	epkOf := func(pk string) string {
		e, ok := epks[pk]
		if !ok {
			if len(epks) > 10000 {
				clear(epks)
			}
			e = emulator.CanonicalEPK(def, pk)
			epks[pk] = e
		}
		return e
	}
	t := itemsTable(num)
	coll := strconv.FormatInt(num, 10)
	passes := []fillTarget{{
		// the rows, in primary key order
		pick: `SELECT pk, id FROM ` + t + ` WHERE (pk, id) > ($1, $2) AND epk IS NULL ORDER BY pk, id LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED`,
		from: func(cur [2]string) []any { return []any{cur[0], cur[1]} },
		fill: `UPDATE ` + t + ` AS r SET epk = v.epk FROM unnest($1::text[], $2::text[], $3::text[]) AS v (pk, id, epk)
WHERE r.pk = v.pk AND r.id = v.id AND r.epk IS NULL`,
		left: `SELECT EXISTS (SELECT 1 FROM ` + t + ` WHERE epk IS NULL)`,
	}, {
		// then the change log's entries, in log order
		pick: `SELECT pk, seq::text FROM cosmos.changes WHERE coll = ` + coll + ` AND seq > $1 AND epk IS NULL ORDER BY seq LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
		from: func(cur [2]string) []any {
			seq, _ := strconv.ParseInt(cur[1], 10, 64)
			return []any{seq}
		},
		fill: `UPDATE cosmos.changes AS r SET epk = v.epk FROM unnest($1::text[], $2::text[], $3::text[]) AS v (pk, seq, epk)
WHERE r.coll = ` + coll + ` AND r.seq = v.seq::bigint AND r.epk IS NULL`,
		left: `SELECT EXISTS (SELECT 1 FROM cosmos.changes WHERE coll = ` + coll + ` AND epk IS NULL)`,
	}}
	for i, target := range passes {
		for {
			more, err := s.fillPass(ctx, epkOf, target)
			var pe *pgconn.PgError
			if i == 0 && errors.As(err, &pe) && pe.Code == "42P01" { // the table was dropped
				return s.endEPKFill(ctx, num, false)
			}
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
	}
	return s.endEPKFill(ctx, num, true)
}

// fillTarget is what one pass of the backfill fills.
type fillTarget struct {
	// pick selects and locks the next rows after a cursor: their
	// canonical partition key and a second column (text), at most the
	// last argument's count, skipping locked rows.
	pick string
	// from returns pick's arguments (without the count) for the cursor
	// (the last row's two columns; zero values at the start).
	from func(cur [2]string) []any
	// fill sets the epk of the picked rows: $1 keys, $2 second columns,
	// $3 EPKs.
	fill string
	// left yields whether a NULL epk remains.
	left string
}

// fillPass runs one pass of the backfill over target, each transaction
// filling the rows it picked, and then reports whether rows remain (rows
// that writers held locked). The transactions set cosmos.epk_fill, which
// the change log's trigger takes for a fill, not a write (migration 0025).
func (s *Store) fillPass(ctx context.Context, epkOf func(string) string, target fillTarget) (more bool, err error) {
	var cur [2]string
	for {
		var n int
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('cosmos.epk_fill', 'on', true)`); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, target.pick, append(target.from(cur), epkFillBatch)...)
			if err != nil {
				return err
			}
			var keys, seconds, epks []string
			var k, second string
			if _, err := pgx.ForEachRow(rows, []any{&k, &second}, func() error {
				keys, seconds, epks = append(keys, k), append(seconds, second), append(epks, epkOf(k))
				return nil
			}); err != nil {
				return err
			}
			if n = len(keys); n == 0 {
				return nil
			}
			cur = [2]string{keys[n-1], seconds[n-1]}
			_, err = tx.Exec(ctx, target.fill, keys, seconds, epks)
			return err
		})
		if err != nil {
			return false, err
		}
		if n < epkFillBatch {
			break
		}
	}
	err = s.pool.QueryRow(ctx, target.left).Scan(&more)
	if more {
		// rows locked by writers: give them a moment
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return more, err
}

// endEPKFill ends container num's backfill in the database: with index,
// it builds the epk index (once every row has its EPK: a plain CREATE
// INDEX, which holds writes of the table for its duration, once); then it
// deletes the queue entry. Several processes may fill one container; one
// at a time ends it (epkLockID).
func (s *Store) endEPKFill(ctx context.Context, num int64, index bool) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::integer, ($2::bigint % 2147483647)::integer)`, int32(epkLockClass), num); err != nil {
			return err
		}
		var queued bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM cosmos.epk_backfill WHERE num = $1)`, num).Scan(&queued); err != nil || !queued {
			return err
		}
		if index {
			// the table may be gone by now: then only the entry goes
			if _, err := tx.Exec(ctx, `DO $$ BEGIN IF to_regclass('`+itemsTable(num)+`') IS NOT NULL THEN `+strings.TrimSuffix(epkIndexDDL(num), ";")+`; END IF; END $$`); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `DELETE FROM cosmos.epk_backfill WHERE num = $1`, num)
		return err
	})
}
