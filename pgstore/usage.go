package pgstore

import (
	"context"
	"math"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// usageScanRows bounds the rows ContainerUsage reads to count a
// container's live items (a variable so that a test can lower it).
var usageScanRows int64 = 10_000

// ContainerUsage implements emulator.Store, at a cost bounded
// whatever the container's size, since a container read must stay cheap:
//
//   - the sizes are the items table's: pg_table_size (rows and TOAST) for
//     the documents, pg_total_relation_size (with the indexes) for the
//     collection. Both read the relation's file sizes, not its rows.
//   - the count reads at most usageScanRows rows and counts the live
//     ones among them: exact for a container of at most that many stored
//     rows. Past it, the planner's row estimate (pg_class.reltuples, kept
//     by autovacuum and ANALYZE) scaled by the live share of the rows
//     read, and never less than the live rows seen.
//
// Expired items not yet swept take storage until the sweeper deletes them,
// as deleted rows do until PostgreSQL reuses their space.
func (s *Store) ContainerUsage(ctx context.Context, c emulator.Container, e emulator.Expiry) (emulator.ContainerUsage, error) {
	table := itemsTable(c.Num)
	a := args{table, usageScanRows}
	live := livePredicate(e, "", &a)
	var u emulator.ContainerUsage
	var read, seen int64
	var estimate float64
	err := s.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE `+live+`),
		pg_table_size($1::regclass), pg_total_relation_size($1::regclass),
		(SELECT reltuples FROM pg_class WHERE oid = $1::regclass)
		FROM (SELECT ts, ttl, exp FROM `+table+` LIMIT $2) i`, a...).Scan(&read, &seen, &u.DocumentsBytes, &u.CollectionBytes, &estimate)
	if err != nil {
		return u, classify("container usage", err)
	}
	u.Documents = seen
	if read >= usageScanRows && estimate > 0 {
		u.Documents = max(seen, int64(math.Round(estimate*float64(seen)/float64(read))))
	}
	return u, nil
}
