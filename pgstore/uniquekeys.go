package pgstore

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// Unique keys. Each unique key of a container's uniqueKeyPolicy is a
// UNIQUE index of its items table, made with the table's other
// policy-dependent indexes when the container is created (a pooled table
// included) and never changed after (the policy cannot change). Its key is
// the partition key, then one cosmos.unique_value per path (migration
// 0029: the value, JSON null when missing, or a digest of a long one), so
// that uniqueness is per logical partition and holds under concurrency:
// PostgreSQL makes the second of two racing writers wait for the first and
// then refuses it (SQLSTATE 23505, which classify makes the service's 409).
//
// The service answers a unique key violation with the same 409 as a
// duplicate id, text included (reference §3.1, recorded), so nothing tells
// the two apart here either.
//
// Expired items not yet swept still hold their index entries. They are
// gone for every purpose, so a write refused only because of them removes
// them and runs again: a single operation right away (runSingle), a
// transaction from its start after rolling back (retryOversize), since its
// change-log entries are written at commit. The removal is logged as the
// TTL sweeper logs its purges (an expiry). Deleted items leave no row
// behind (the change log keeps their tombstones elsewhere), so they never
// hold a value.
//
// Inside a transaction (a batch, a stored procedure) a refused statement
// would abort the whole transaction, while a failed operation must leave
// it usable (emulator.Store.InItemTx): there, every write of a container with
// unique keys runs under a savepoint, rolled back to when the index refuses
// it. Single operations need none.

// uniqueIndexName matches the names of the unique key indexes, and only
// them.
var uniqueIndexName = regexp.MustCompile(`^items_[0-9]+_u_[0-9]+$`)

// savepointUnique and releaseUnique start and end the savepoint of a
// guarded write (guardedUnique), sent in the write's round trip.
const (
	savepointUnique = `SAVEPOINT cosmos_unique`
	releaseUnique   = `RELEASE SAVEPOINT cosmos_unique`
)

// uniqueValueExpr is the index expression of the value at path in the
// jsonb expression doc. Path segments are client text: they are written as
// quoted literals (sqlgen.PathExpr), the way path indexes write them, and
// CREATE INDEX takes no bind arguments. A segment that is not valid UTF-8
// can match no property of a document (jsonb holds only UTF-8), so the
// value there is always missing (a NULL constant).
func uniqueValueExpr(doc string, path []string) string {
	for _, s := range path {
		if !utf8.ValidString(s) {
			return "cosmos.unique_value(NULL::jsonb)"
		}
	}
	return "cosmos.unique_value(" + sqlgen.PathExpr(doc, path) + ")"
}

// uniqueKeyIndexesDDL creates the unique key indexes of container num
// ("" when its properties declare none). The table is new and empty, so
// the indexes take no time to build.
func uniqueKeyIndexesDDL(num int64, d *emulator.ContainerDefinition) string {
	var b strings.Builder
	for k, key := range d.UniqueKeys {
		cols := []string{"cosmos.unique_pk(pk)"}
		for _, path := range key {
			cols = append(cols, "("+uniqueValueExpr("doc", path)+")")
		}
		b.WriteString("\nCREATE UNIQUE INDEX items_" + strconv.FormatInt(num, 10) + "_u_" + strconv.Itoa(k) +
			" ON " + itemsTable(num) + " (" + strings.Join(cols, ", ") + ");")
	}
	return b.String()
}

// isUniqueKeyViolation reports whether err is a unique key index refusing
// a write.
func isUniqueKeyViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && uniqueIndexName.MatchString(pe.ConstraintName)
}

// docExpr is the jsonb document of the body text expression body, exactly
// as the items table's generated doc column computes it (itemsTableDDL):
// U+0000, which jsonb cannot hold, becomes U+FFFD.
func docExpr(body string) string {
	return `(CASE WHEN strpos(` + body + `, '\u0000') = 0 THEN ` + body + `::jsonb
        ELSE regexp_replace(` + body + `, '(?<!\\)((?:\\\\)*)\\u0000', '\1\\ufffd', 'g')::jsonb END)`
}

// expiredHoldersSQL selects (with selectCols) or deletes (selectCols "")
// the expired rows of st's partition, other than st's item, that hold one
// of its document's unique key values, as of st's expiry. It uses the
// (pk, id) key to find the partition's rows; the expiry is not indexed
// per partition for every row, but a partition is what one write touches.
func expiredHoldersSQL(st itemStmt, selectCols string) (string, args) {
	a := args{st.pk, st.id, string(st.body)}
	var keys []string
	for _, key := range st.uniqueKeys {
		var eq []string
		for _, path := range key {
			eq = append(eq, uniqueValueExpr("doc", path)+" = "+uniqueValueExpr("(SELECT d FROM nd)", path))
		}
		keys = append(keys, "("+strings.Join(eq, " AND ")+")")
	}
	t := itemsTable(st.num)
	where := ` WHERE pk = $1 AND id <> $2 AND ` + expiredPredicate(st.exp, &a) + ` AND (` + strings.Join(keys, " OR ") + `)`
	with := `WITH nd AS (SELECT ` + docExpr("$3::text") + ` AS d) `
	if selectCols != "" {
		return with + `SELECT ` + selectCols + ` FROM ` + t + where, a
	}
	return with + `DELETE FROM ` + t + where + ` RETURNING pk, id, lsn, epk`, a
}

// hasExpiredHolder reports, on q (inside the transaction st ran in),
// whether an expired row holds one of st's unique key values: then the
// index refused st only because of items that are gone.
func hasExpiredHolder(ctx context.Context, q querier, st itemStmt) (bool, error) {
	sql, a := expiredHoldersSQL(st, "1")
	var found bool
	err := q.QueryRow(ctx, `SELECT EXISTS (`+sql+`)`, a...).Scan(&found)
	return found, err
}

// purgeExpiredHolders deletes, in a transaction of its own, the expired
// rows that hold one of st's unique key values, logging them as the TTL
// sweeper logs its purges (deleteExpiredIn: expiries at the write's time),
// and returns how many it deleted. b is the pool, or the connection of a
// transaction that was rolled back (retryOversize).
func (s *Store) purgeExpiredHolders(ctx context.Context, b beginner, st itemStmt) (int, error) {
	if st.exp.DefaultTTL == nil {
		return 0, nil
	}
	sql, a := expiredHoldersSQL(st, "")
	var n int
	err := pgx.BeginFunc(ctx, b, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('cosmos.sweep_logged', 'on', true)`); err != nil {
			return err
		}
		var err error
		n, err = deleteLoggingSwept(ctx, tx, st.num, st.exp.Now, sql, a)
		return err
	})
	return n, err
}

// beginner is what can begin a transaction: the pool or one of its
// connections.
type beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// guardedUnique reports whether st runs under a savepoint on o: a write
// to a container with unique keys, inside a transaction.
func (o itemOps) guardedUnique(st itemStmt) bool {
	return o.sub && st.op != opRead && st.unique
}

// undoUnique rolls the transaction back to the savepoint of st, a
// guarded statement that a unique key index refused, and ends the
// savepoint. When only expired rows held st's values, it notes st for
// removing them and running the transaction again (retryOversize).
func (o itemOps) undoUnique(ctx context.Context, st itemStmt) error {
	if _, err := o.q.Exec(ctx, `ROLLBACK TO SAVEPOINT cosmos_unique; RELEASE SAVEPOINT cosmos_unique`); err != nil {
		return err
	}
	if o.over == nil || st.exp.DefaultTTL == nil {
		return nil
	}
	found, err := hasExpiredHolder(ctx, o.q, st)
	if err != nil {
		return err
	}
	if found {
		o.over.noteUnique(st)
	}
	return nil
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
