package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// execSeed runs insert, a seeding statement of the form
// "INSERT INTO <table> (pk, id, seq, body, ts, ttl, etag, lsn)\nSELECT ...",
// with args, so that every row also stores its effective partition key
// (the epk column the emulator fills on every write, which SQL cannot
// compute: it is a hash computed in Go). The seedings write the keys
// ["p0"] .. ["p<partitions-1>"]; their EPKs under the container's
// definition travel as two array arguments after args and are joined to
// the rows. A row with another key gets NULL, which the column refuses, so
// a seeding of another key shape fails loudly instead of storing wrong
// EPKs.
func execSeed(ctx context.Context, pool *pgxpool.Pool, table, insert string, partitions int, args ...any) (pgconn.CommandTag, error) {
	num, ok := strings.CutPrefix(table, "cosmos.items_")
	if !ok {
		return pgconn.CommandTag{}, fmt.Errorf("seeding %s: not an items table", table)
	}
	var raw []byte
	if err := pool.QueryRow(ctx, `SELECT pk_def::text FROM cosmos.containers WHERE num = $1`, num).Scan(&raw); err != nil {
		return pgconn.CommandTag{}, fmt.Errorf("pgx: reading the partition key of %s: %w", table, err)
	}
	var def emulator.PartitionKeyDefinition
	if err := json.Unmarshal(raw, &def); err != nil {
		return pgconn.CommandTag{}, fmt.Errorf("the partition key of %s: %w", table, err)
	}
	keys, epks := make([]string, partitions), make([]string, partitions)
	for i := range keys {
		keys[i] = `["p` + strconv.Itoa(i) + `"]`
		epks[i] = emulator.CanonicalEPK(def, keys[i])
	}
	sql, err := seedWithEPK(insert, len(args)+1)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return pool.Exec(ctx, sql, append(args, keys, epks)...)
}

// seedWithEPK rewrites a seeding INSERT ... SELECT (see execSeed) to also
// write epk, looked up by pk in the arrays $first (canonical keys) and
// $first+1 (their EPKs). The seedings write ttl as a bare NULL, which a
// subquery types as text: it is cast back to the column's integer.
func seedWithEPK(insert string, first int) (string, error) {
	const cols = "(pk, id, seq, body, ts, ttl, etag, lsn)"
	head, sel, ok := strings.Cut(insert, "\nSELECT ")
	if !ok || !strings.HasSuffix(head, cols) {
		return "", fmt.Errorf("seeding statement is not of the form INSERT INTO t %s SELECT", cols)
	}
	return fmt.Sprintf(`%s, epk)
SELECT s.pk, s.id, s.seq, s.body, s.ts, s.ttl::integer, s.etag, s.lsn, m.epk FROM (SELECT %s) AS s %s
LEFT JOIN unnest($%d::text[], $%d::text[]) AS m(k, epk) ON m.k = s.pk`,
		strings.TrimSuffix(head, ")"), sel, cols, first, first+1), nil
}
