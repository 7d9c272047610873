package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// args collects bind arguments and hands out their placeholders.
type args []any

// add appends v and returns its placeholder ($n).
func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// The expiry predicates are written so that PostgreSQL can serve them from
// the two partial indexes of every items table. An item without its own ttl
// takes the container's defaultTtl d, so it is expired exactly when
// ts <= now - d: a range on the (ts) WHERE ttl IS NULL index. An item with
// its own ttl has a stored expiry time exp (ts + ttl, or the largest bigint
// for ttl -1), so it is expired when exp <= now: a range on the (exp) WHERE
// ttl IS NOT NULL index. With the container's TTL off no predicate is
// generated at all.

// livePredicate returns the SQL twin of emulator.Expiry.Live for the row
// columns prefixed by col ("" or "i."), binding its values into a. Use it
// positively in WHERE; negate it as "(...) IS NOT TRUE" to be safe from
// three-valued logic.
func livePredicate(e emulator.Expiry, col string, a *args) string {
	if e.DefaultTTL == nil {
		return "TRUE"
	}
	now := a.add(e.Now)
	own := "(" + col + "ttl IS NOT NULL AND " + col + "exp > " + now + "::bigint)"
	if *e.DefaultTTL == -1 {
		return "(" + col + "ttl IS NULL OR " + own + ")"
	}
	cut := a.add(e.Now - int64(*e.DefaultTTL))
	return "((" + col + "ttl IS NULL AND " + col + "ts > " + cut + "::bigint) OR " + own + ")"
}

// expiredPredicate is the negation of livePredicate.
func expiredPredicate(e emulator.Expiry, a *args) string {
	if e.DefaultTTL == nil {
		return "FALSE"
	}
	now := a.add(e.Now)
	own := "(ttl IS NOT NULL AND exp <= " + now + "::bigint)"
	if *e.DefaultTTL == -1 {
		return own
	}
	cut := a.add(e.Now - int64(*e.DefaultTTL))
	return "((ttl IS NULL AND ts <= " + cut + "::bigint) OR " + own + ")"
}

// vacuumState tracks swept rows and the background vacuum (see noteSwept).
type vacuumState struct {
	mu      sync.Mutex
	swept   map[int64]int64
	running bool
	wg      sync.WaitGroup
}

// trimState remembers the latest change-log trim of DeleteExpired.
type trimState struct {
	mu sync.Mutex
	// now is the unix time of the latest trim; empty says it deleted
	// nothing (and did not fail).
	now   int64
	empty bool
}

// due reports whether a trim as of now is worth running: not when the
// latest one ran as of the same second and found nothing (its cutoffs are
// the same, and entries written since are younger than them).
func (t *trimState) due(now int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !(t.empty && t.now == now)
}

// done records a trim as of now that deleted n rows (err: failed).
func (t *trimState) done(now int64, n int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now, t.empty = now, n == 0 && err == nil
}

// ttlContainers lists the containers whose TTL is on.
func (s *Store) ttlContainers(ctx context.Context) ([]emulator.Container, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+containerCols+` FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num WHERE c.default_ttl IS NOT NULL ORDER BY c.num`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Container, error) { return scanContainer(r) })
}

// sweepLockTimeout bounds how long a sweep batch waits for a lock: the
// sweeper yields to DDL (a container being deleted) instead of queueing
// in front of it.
const sweepLockTimeout = "200ms"

// DeleteExpired physically deletes up to limit expired items, across every
// container whose TTL is on, as of unix time now. Each container's batch is
// its own short transaction; rows are picked with FOR UPDATE SKIP LOCKED,
// so concurrent sweepers (several emulator processes on one database) never
// wait for each other, never delete a row twice and cannot deadlock; the
// DELETE re-checks expiry, so a row rewritten meanwhile (its _ts refreshed)
// survives. A container deleted meanwhile is skipped. It returns how many
// rows it deleted; errors of individual containers are joined. Each call
// also trims the change log (trimChangeLog, up to limit rows per
// container), which the count leaves out, except when the previous call's
// trim was as of the same second now and deleted nothing: a sweep's many
// batches in one second then trim once, not once per batch (with the
// change log's oldest entries inside the retention window, each trim read
// limit of them per container for nothing).
func (s *Store) DeleteExpired(ctx context.Context, now int64, limit int) (int, error) {
	cs, err := s.ttlContainers(ctx)
	if err != nil {
		return 0, fmt.Errorf("pgstore: sweep: list containers: %w", err)
	}
	total := 0
	var errs []error
	for _, c := range cs {
		if total >= limit || ctx.Err() != nil {
			break
		}
		n, err := s.deleteExpiredIn(ctx, c, now, limit-total)
		total += n
		if err != nil {
			errs = append(errs, fmt.Errorf("pgstore: sweep %s/%s: %w", c.DatabaseID, c.ID, err))
		}
	}
	if ctx.Err() == nil && s.trim.due(now) {
		n, err := s.trimChangeLog(ctx, now, limit)
		s.trim.done(now, n, err)
		if err != nil {
			errs = append(errs, fmt.Errorf("pgstore: trim change log: %w", err))
		}
	}
	return total, errors.Join(errs...)
}

// deleteLoggingSwept runs sql on tx, a DELETE of expired rows of
// container num that returns pk, id, lsn, epk, and logs the deleted rows
// as expired at now (logSwept; the transaction has cosmos.sweep_logged on,
// so the change log's trigger skipped them). It returns how many it
// deleted.
func deleteLoggingSwept(ctx context.Context, tx pgx.Tx, num, now int64, sql string, a []any) (int, error) {
	rows, err := tx.Query(ctx, sql, a...)
	if err != nil {
		return 0, err
	}
	var pks, ids []string
	var epks []*string
	var lsns []int64
	var pk, id string
	var epk *string // NULL in a row still waiting for the EPK backfill
	var lsn int64
	if _, err := pgx.ForEachRow(rows, []any{&pk, &id, &lsn, &epk}, func() error {
		pks, ids, lsns, epks = append(pks, pk), append(ids, id), append(lsns, lsn), append(epks, epk)
		return nil
	}); err != nil {
		return 0, err
	}
	return len(pks), logSwept(ctx, tx, num, now, pks, ids, lsns, epks)
}

func (s *Store) deleteExpiredIn(ctx context.Context, c emulator.Container, now int64, limit int) (int, error) {
	e := emulator.Expiry{Now: now, DefaultTTL: c.DefaultTTL}
	a := args{limit}
	pred := expiredPredicate(e, &a)
	t := itemsTable(c.Num)
	sql := `DELETE FROM ` + t + ` WHERE ctid = ANY(ARRAY(SELECT ctid FROM ` + t + ` WHERE ` + pred +
		` LIMIT $1 FOR UPDATE SKIP LOCKED)) AND ` + pred + ` RETURNING pk, id, lsn, epk`
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// synchronous_commit off for this transaction only: its commit
		// does not wait for the WAL flush. A purge lost in a crash is
		// simply redone by a later sweep (the rows are still expired and
		// already invisible to every read: expiry is filtered in SQL); the
		// flush still happens, in the background.
		// cosmos.sweep_logged: the change log's trigger skips this
		// transaction's deletes (migration 0018), logSwept logs them.
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true), set_config('synchronous_commit', 'off', true), set_config('cosmos.sweep_logged', 'on', true)`,
			sweepLockTimeout); err != nil {
			return err
		}
		deleted, err := deleteLoggingSwept(ctx, tx, c.Num, now, sql, a)
		n = int64(deleted)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "55P03") {
		// dropped meanwhile, or locked by DDL: nothing to do now
		return 0, nil
	}
	if err == nil {
		s.noteSwept(c.Num, n, int(n) < limit)
	}
	return int(n), err
}

// logSwept writes the change log's entries of a sweep batch's purges (the
// rows deleted, in the order deleted), as the change log's trigger would
// one by one (migration 0010 and later): a delete with timeToLiveExpired,
// a new LSN each, made at the sweeper's time now. One INSERT ... SELECT
// instead of a trigger call and an insert per row, which made a sweep
// batch cost about 1.6 times as much (BenchmarkSweepBatch). It takes the
// container's log lock first, as the trigger does at commit, so the
// entries get their seq in commit order; it must be the transaction's
// last statement before COMMIT.
func logSwept(ctx context.Context, tx pgx.Tx, coll, now int64, pks, ids []string, lsns []int64, epks []*string) error {
	if len(pks) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT pg_advisory_xact_lock(1128679015, ($1::bigint % 2147483647)::integer)`, coll)
	b.Queue(`INSERT INTO cosmos.changes (coll, seq, op, pk, id, lsn, prev_lsn, crts, ttl_expired, epk)
SELECT $1, nextval('cosmos.change_seq'), 'd', d.pk, d.id, nextval('cosmos.lsn_seq'), d.lsn, $2, true, d.epk
FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY AS d(pk, id, lsn, epk, i) ORDER BY d.i`, coll, now, pks, ids, lsns, epks)
	return tx.SendBatch(ctx, b).Close()
}

// vacuumSQL is the statement of a background vacuum of table (a variable
// so that a test can make it slow).
var vacuumSQL = func(table string) string { return `VACUUM (SKIP_LOCKED, ANALYZE) ` + table }

// vacuumAfterRows is how many swept rows of one table trigger a VACUUM:
// deleted rows stay in the table and its indexes as dead tuples until a
// vacuum, and reads of the live items would wade through them until
// autovacuum gets to it.
const vacuumAfterRows = 20000

// noteSwept counts deleted rows per table and, once the table's backlog is
// drained (drained: the last batch came back short) after enough deletes,
// starts a background VACUUM (ANALYZE) of it, so that it does not compete
// with the sweep itself. SKIP_LOCKED makes it give way when another process
// vacuums the same table; at most one vacuum per store runs at a time.
func (s *Store) noteSwept(num int64, n int64, drained bool) {
	s.vacuum.mu.Lock()
	defer s.vacuum.mu.Unlock()
	if s.vacuum.swept == nil {
		s.vacuum.swept = map[int64]int64{}
	}
	s.vacuum.swept[num] += n
	if !drained || s.vacuum.swept[num] < vacuumAfterRows || s.vacuum.running {
		return
	}
	s.vacuum.swept[num] = 0
	s.vacuum.running = true
	s.vacuum.wg.Add(1)
	go func() {
		defer s.vacuum.wg.Done()
		// Close cancels it (s.background ends): PostgreSQL gets a cancel
		// request and the vacuum stops without holding Close up.
		ctx, cancel := context.WithTimeout(s.background, 10*time.Minute)
		defer cancel()
		if _, err := s.pool.Exec(ctx, vacuumSQL(itemsTable(num))); err != nil && s.background.Err() == nil {
			s.log.Warn("pgstore: background vacuum failed", "table", itemsTable(num), "err", err)
		}
		s.vacuum.mu.Lock()
		s.vacuum.running = false
		s.vacuum.mu.Unlock()
	}()
}

// ContainerStats implements emulator.Store: stored rows and live items of
// every container (a count over each items table).
func (s *Store) ContainerStats(ctx context.Context, now int64) ([]emulator.ContainerStats, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+containerCols+` FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num ORDER BY c.num`)
	if err != nil {
		return nil, classify("stats", err)
	}
	cs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Container, error) { return scanContainer(r) })
	if err != nil {
		return nil, classify("stats", err)
	}
	out := make([]emulator.ContainerStats, 0, len(cs))
	for _, c := range cs {
		st, err := s.CountItems(ctx, c, emulator.Expiry{Now: now, DefaultTTL: c.DefaultTTL})
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// CountItems counts container c's stored rows and live items under e
// (a full count; ContainerStats reports it for every container).
func (s *Store) CountItems(ctx context.Context, c emulator.Container, e emulator.Expiry) (emulator.ContainerStats, error) {
	a := args{}
	st := emulator.ContainerStats{Database: c.DatabaseID, Container: c.ID}
	// a full scan: bounded by the page budget like a query (budget.go)
	pctx, cancel := s.pageContext(ctx)
	defer cancel()
	rows, err := s.boundedQuery(pctx, s.pool, s.pageTimeout, `SELECT count(*), count(*) FILTER (WHERE `+livePredicate(e, "", &a)+`), coalesce(sum(length(body)) FILTER (WHERE `+livePredicate(e, "", &a)+`), 0) FROM `+itemsTable(c.Num), a...)
	var br *boundedRows
	if err == nil {
		br = rows
		defer rows.Close()
		if rows.Next() {
			err = rows.Scan(&st.StoredRows, &st.LiveItems, &st.LiveBytes)
		}
		if err == nil {
			err = rows.Err()
		}
	}
	if budgetSpent(ctx, pctx, br, err) {
		return st, errPageTimeout(s.pageTimeout, err)
	}
	if err != nil {
		return st, classify("count items", err)
	}
	return st, nil
}
