package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Container create and delete keep DDL off the request's path (migration
// 0016). Creating an items table with its indexes costs several
// milliseconds (each index build of a WAL-logged table syncs its file to
// disk), and committing a DROP TABLE forces a WAL flush and unlinks files;
// test suites create and delete a container per test.
//
//   - Create: a background worker keeps a few spare items tables ready
//     (cosmos.spare_tables): complete tables cosmos.items_<num>, with their
//     primary key, seq and lsn indexes and change-log trigger, each for a
//     container number drawn from cosmos.resource_num_seq when the spare is
//     made. CreateContainer claims one in its own transaction (DELETE ...
//     FOR UPDATE SKIP LOCKED: several emulator processes on one database
//     never claim the same spare and never wait for each other) and gives
//     the container that number, so the table needs no rename; the indexes
//     that depend on the container's properties (expiry, composite) are
//     still created in the transaction, the path indexes later, lazily.
//     With no spare ready it creates the table itself, as before. Spares
//     live in the database, so they survive restarts; one process at a
//     time refills (a transaction-level advisory lock), so there are at
//     most spareTables of them. A spare made by other DDL than this
//     binary's (its ddl_key differs) is never claimed but dropped, and a
//     migration marks every spare stale (migrate), so a claimed table is
//     always the table this binary would make.
//   - Delete: the request's transaction renames the items table to
//     cosmos.dropped_items_<num>, which takes the table's exclusive lock as
//     DROP TABLE did (waiting for that container's operations in flight,
//     and only for them; afterwards its name no longer resolves, so a late
//     operation gets 404), queues it in cosmos.dropped_tables and deletes
//     the metadata, so the id can be created again at once. A background
//     worker drops the queued tables and the containers' change log, up
//     to dropBatch per transaction.
//   - Catalog: dropping tables, and less so creating them, leaves dead
//     rows in PostgreSQL's catalogs (pg_class, pg_attribute, pg_depend...),
//     which would grow the data directory until autovacuum gets there. The
//     dropping worker vacuums those catalogs after every
//     catalogVacuumTables tables the two workers dropped or made, and
//     catalogVacuumQuiet after the last one, so their free space is reused
//     and the data directory returns to its size once a churn of
//     containers ends.

// defaultSpareTables is how many spare items tables are kept ready by
// default (Options.SpareTables).
const defaultSpareTables = 4

// spareLockID is the advisory lock that serialises refills of the spare
// tables between emulator processes sharing a database.
const spareLockID = 0x436f736d7370 // "Cosmsp"

// catalogVacuumTables is how many tables dropped or made by the workers
// trigger a vacuum of the catalogs.
const catalogVacuumTables = 100

// catalogVacuumQuiet is how long after the workers' last table the
// catalogs are vacuumed (if any was dropped or made since the last vacuum).
const catalogVacuumQuiet = 2 * time.Second

// catalogVacuumSQL vacuums the catalogs that creating and dropping a table
// writes, and the store's own bookkeeping tables. SKIP_LOCKED skips a table
// another session holds; a role that may not vacuum a catalog gets a
// warning (not an error) and the rest is vacuumed.
const catalogVacuumSQL = `VACUUM (SKIP_LOCKED) pg_catalog.pg_class, pg_catalog.pg_attribute, pg_catalog.pg_attrdef,
pg_catalog.pg_index, pg_catalog.pg_depend, pg_catalog.pg_type, pg_catalog.pg_constraint, pg_catalog.pg_trigger,
pg_catalog.pg_statistic, cosmos.spare_tables, cosmos.dropped_tables, cosmos.containers`

// spareDDLKey identifies the DDL that makes an items table (see
// newItemsTableDDL): a hash of its text for a placeholder number.
var spareDDLKey = func() string {
	h := sha256.Sum256([]byte(newItemsTableDDL(0)))
	return hex.EncodeToString(h[:8])
}()

// newItemsTableDDL is the DDL of a container's items table as every
// container has it whatever its properties: the table, its indexes (the
// unique seq index in its TTL-off form: a container created with TTL on
// swaps it for the covering one, expiryIndexesDDL; the epk index) and its
// change-log trigger.
func newItemsTableDDL(n int64) string {
	return itemsTableDDL(n) + "\n" + expiryIndexesDDL(n, false) + "\n" + lsnIndexDDL(n) + "\n" + epkIndexDDL(n) + "\n" + changeLogTriggerDDL(n)
}

// droppedTable is the name of a deleted container's items table until the
// background worker drops it.
func droppedTable(n int64) string { return "cosmos.dropped_items_" + strconv.FormatInt(n, 10) }

// tableWork is the state of the two background workers of this file.
type tableWork struct {
	size   int           // spare tables to keep; 0: none
	refill chan struct{} // pokes the refilling worker
	drop   chan struct{} // pokes the dropping worker
	wg     sync.WaitGroup
	// churned counts the tables dropped or made since the last vacuum of
	// the catalogs (counted before the transaction that drops or makes
	// one commits).
	churned atomic.Int64
	// vacuuming is set while the catalogs are vacuumed.
	vacuuming atomic.Bool
}

// poke wakes a worker without blocking: a pending poke is enough.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// startTableWorkers starts the refilling and dropping workers under
// s.background, each woken once at start (spares may be missing, tables
// may be queued from before a restart).
func (s *Store) startTableWorkers(size int) {
	s.tables.size = size
	s.tables.refill = make(chan struct{}, 1)
	s.tables.drop = make(chan struct{}, 1)
	poke(s.tables.refill)
	poke(s.tables.drop)
	s.tables.wg.Add(2)
	go func() {
		defer s.tables.wg.Done()
		s.refillLoop(s.background)
	}()
	go func() {
		defer s.tables.wg.Done()
		s.dropLoop(s.background)
	}()
}

// claimSpare takes a spare items table in tx (the creating container's
// transaction: rolled back, the spare is back in the pool). It returns the
// spare's container number, or ok false when none is ready.
func (s *Store) claimSpare(ctx context.Context, tx pgx.Tx) (num int64, ok bool, err error) {
	if s.tables.size <= 0 {
		return 0, false, nil
	}
	var exists bool
	err = tx.QueryRow(ctx, `DELETE FROM cosmos.spare_tables WHERE num = (
  SELECT num FROM cosmos.spare_tables WHERE ddl_key = $1 ORDER BY num LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING num, to_regclass('cosmos.items_' || num) IS NOT NULL`, spareDDLKey).Scan(&num, &exists)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	// A spare whose table someone dropped by hand is forgotten.
	return num, exists, nil
}

// refillLoop keeps s.tables.size spare tables, refilling when poked.
func (s *Store) refillLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.tables.refill:
		}
		for ctx.Err() == nil {
			more, err := s.refillOnce(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("pgstore: making a spare items table failed (container creates make their own until the next attempt)", "err", err)
				}
				break
			}
			if !more {
				break
			}
			poke(s.tables.drop) // the catalogs' vacuum is decided there
		}
	}
}

// refillOnce does one step of the refill in its own transaction: drops one
// stale spare, or makes one spare if fewer than s.tables.size are ready. It
// reports whether there may be more to do; it does nothing while another
// process refills.
func (s *Store) refillOnce(ctx context.Context) (more bool, err error) {
	err = s.backgroundTx(ctx, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(spareLockID)).Scan(&locked); err != nil || !locked {
			return err
		}
		var stale int64
		err := tx.QueryRow(ctx, `SELECT num FROM cosmos.spare_tables WHERE ddl_key <> $1 LIMIT 1 FOR UPDATE SKIP LOCKED`, spareDDLKey).Scan(&stale)
		if err == nil {
			_, err = tx.Exec(ctx, `DROP TABLE IF EXISTS `+itemsTable(stale)+`; DELETE FROM cosmos.spare_tables WHERE num = `+strconv.FormatInt(stale, 10))
			more = err == nil
			s.tables.churned.Add(1)
			return err
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var ready int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM cosmos.spare_tables WHERE ddl_key = $1`, spareDDLKey).Scan(&ready); err != nil || ready >= s.tables.size {
			return err
		}
		var num int64
		if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.resource_num_seq')`).Scan(&num); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, newItemsTableDDL(num)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO cosmos.spare_tables (num, ddl_key) VALUES ($1, $2)`, num, spareDDLKey)
		more = err == nil
		s.tables.churned.Add(1)
		return err
	})
	return more, err
}

// retireTables renames the items tables of containers nums, which tx is
// deleting, to their dropped names and queues them for the dropping worker.
// The rename takes each table's exclusive lock, like DROP TABLE.
func retireTables(ctx context.Context, tx pgx.Tx, nums []int64) error {
	if len(nums) == 0 {
		return nil
	}
	var b strings.Builder
	for _, n := range nums {
		b.WriteString(`ALTER TABLE IF EXISTS ` + itemsTable(n) + ` RENAME TO dropped_items_` + strconv.FormatInt(n, 10) + ";\n")
	}
	b.WriteString(`INSERT INTO cosmos.dropped_tables (num) VALUES `)
	for i, n := range nums {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + strconv.FormatInt(n, 10) + ")")
	}
	b.WriteString(` ON CONFLICT DO NOTHING`)
	_, err := tx.Exec(ctx, b.String())
	return err
}

// dropLoop drops the queued tables when poked and vacuums the catalogs
// after catalogVacuumTables tables dropped or made, or catalogVacuumQuiet
// after the last one.
func (s *Store) dropLoop(ctx context.Context) {
	for {
		var quiet <-chan time.Time
		if s.tables.churned.Load() > 0 {
			quiet = time.After(catalogVacuumQuiet)
		}
		select {
		case <-ctx.Done():
			return
		case <-quiet:
			s.vacuumCatalogs(ctx)
			continue
		case <-s.tables.drop:
		}
		if s.tables.churned.Load() >= catalogVacuumTables {
			s.vacuumCatalogs(ctx)
		}
		for ctx.Err() == nil {
			dropped, err := s.dropOnce(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("pgstore: dropping a deleted container's items table failed (retried at the next container delete or restart)", "err", err)
				}
				break
			}
			if dropped == 0 {
				break
			}
			if s.tables.churned.Load() >= catalogVacuumTables {
				s.vacuumCatalogs(ctx)
			}
		}
	}
}

// dropBatch bounds the tables dropped in one transaction: one commit
// (whose WAL flush a drop forces) for several, so the worker keeps up with
// a fast churn.
const dropBatch = 16

// dropOnce drops up to dropBatch queued tables and their containers'
// change log in one transaction; it reports how many it dropped.
func (s *Store) dropOnce(ctx context.Context) (dropped int, err error) {
	err = s.backgroundTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT num FROM cosmos.dropped_tables ORDER BY num LIMIT $1 FOR UPDATE SKIP LOCKED`, dropBatch)
		if err != nil {
			return err
		}
		nums, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(nums) == 0 {
			return err
		}
		names := make([]string, len(nums))
		for i, n := range nums {
			names[i] = droppedTable(n)
		}
		if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+strings.Join(names, ", ")); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM cosmos.changes WHERE coll = ANY($1)`, nums); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM cosmos.dropped_tables WHERE num = ANY($1)`, nums); err != nil {
			return err
		}
		dropped = len(nums)
		s.tables.churned.Add(int64(len(nums)))
		return nil
	})
	return dropped, err
}

// backgroundAppName is the application_name of a table worker's session
// while its transaction runs (see unsettledSQL).
const backgroundAppName = "cosmos-emulator-table-worker"

// backgroundTx runs fn in a transaction marked as a table worker's (SET
// LOCAL application_name, before it has a transaction ID), which the
// change feed does not wait for (see unsettledSQL). fn must not write
// items.
func (s *Store) backgroundTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL application_name = '`+backgroundAppName+`'`); err != nil {
			return err
		}
		return fn(tx)
	})
}

// vacuumCatalogs runs catalogVacuumSQL, logging a failure, and resets the
// count of tables churned.
func (s *Store) vacuumCatalogs(ctx context.Context) {
	s.tables.vacuuming.Store(true)
	defer s.tables.vacuuming.Store(false)
	s.tables.churned.Store(0)
	if _, err := s.pool.Exec(ctx, catalogVacuumSQL); err != nil && ctx.Err() == nil {
		s.log.Warn("pgstore: vacuuming the catalogs after dropped tables failed", "err", err)
	}
}
