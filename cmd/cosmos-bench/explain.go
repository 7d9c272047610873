package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// -ttl-explain prints EXPLAIN (ANALYZE, BUFFERS) of the statements the
// emulator runs for the ttl scenario's operations. The SQL below is a copy of
// what pgstore builds (items.go ReadItem and feedSQL, expiry.go
// deleteExpiredIn and the expiry predicates) for a container whose
// defaultTtl is set, with the same placeholders: keep it in step with
// pgstore when that changes. The emulator's pgx pool prepares each statement
// once per connection, and PostgreSQL switches a prepared statement to a
// generic plan after five executions when that looks no more expensive, so
// each statement is explained twice: with a custom plan (the parameters
// known) and with the generic plan. Everything runs in a transaction that is
// rolled back, so the sweep batch deletes nothing.

// liveSQL and expiredSQL are pgstore's predicates with now and now -
// defaultTtl in the placeholders $now and $cut.
func liveSQL(now, cut int) string {
	return fmt.Sprintf("((ttl IS NULL AND ts > $%d::bigint) OR (ttl IS NOT NULL AND exp > $%d::bigint))", cut, now)
}

func expiredSQL(now, cut int) string {
	return fmt.Sprintf("((ttl IS NULL AND ts <= $%d::bigint) OR (ttl IS NOT NULL AND exp <= $%d::bigint))", cut, now)
}

// explain prints the custom and generic plans of sql with args.
func (s *ttlStore) explain(ctx context.Context, logf func(string, ...any), title, sql string, args ...any) {
	lits := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		default:
			lits[i] = fmt.Sprint(v)
		}
	}
	var out strings.Builder
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `PREPARE bench_explain AS `+sql); err != nil {
			return err
		}
		// Prepared statements outlive transactions.
		defer tx.Exec(ctx, `DEALLOCATE bench_explain`) //nolint:errcheck // rolled back anyway
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = `+mode); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `EXPLAIN (ANALYZE, BUFFERS) EXECUTE bench_explain(`+strings.Join(lits, ", ")+`)`, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				return err
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			fmt.Fprintf(&out, "  -- %s\n", strings.TrimPrefix(mode, "force_"))
			for _, l := range lines {
				out.WriteString("  " + l + "\n")
			}
		}
		return errRollback
	})
	if err != nil && err != errRollback {
		logf("explain %s: %v", title, err)
		return
	}
	logf("EXPLAIN %s\n  %s\n%s", title, strings.ReplaceAll(sql, "\n", "\n  "), out.String())
}

// errRollback rolls the EXPLAIN transaction back.
var errRollback = fmt.Errorf("rollback")

// explainAll explains the point read and read-feed statements on both
// containers as of emulator time now.
func (s *ttlStore) explainAll(ctx context.Context, logf func(string, ...any), when string, now int64) {
	k := s.lay.key(s.lay.cfg.live / 2)
	s.explain(ctx, logf, "point read, "+ttlBigID+", "+when,
		`SELECT seq, body, ts, etag, lsn FROM `+s.big+` WHERE pk = $1 AND id = $2 AND `+liveSQL(3, 4),
		`["`+k.pk+`"]`, k.id, now, now-ttlDefaultTTL)
	s.explainFeeds(ctx, logf, when, s.big, now)
	s.explainFeeds(ctx, logf, when, s.liveOnly, now)
}

// explainFeeds explains the first page of both read feeds on table.
func (s *ttlStore) explainFeeds(ctx context.Context, logf func(string, ...any), when, table string, now int64) {
	name := ttlBigID
	if table == s.liveOnly {
		name = ttlLiveID
	}
	s.explain(ctx, logf, "read feed, one partition, first page, "+name+", "+when,
		`SELECT pk, id, seq, body, ts, etag, lsn FROM `+table+` WHERE seq > $1 AND pk = $2 AND `+liveSQL(3, 4)+` ORDER BY seq LIMIT $5`,
		0, `["p42"]`, now, now-ttlDefaultTTL, ttlFeedPage+1)
	s.explain(ctx, logf, "read feed, all items, first page, "+name+", "+when,
		`SELECT pk, id, seq, body, ts, etag, lsn FROM `+table+` WHERE seq = ANY(ARRAY(SELECT seq FROM `+table+` WHERE seq > $1 AND `+liveSQL(2, 3)+` ORDER BY seq LIMIT $4)) ORDER BY seq`,
		0, now, now-ttlDefaultTTL, ttlFeedPage+1)
}

// explainSweep explains one sweep batch of batch rows on the big table (its
// DELETE; the batch's change-log entries are one INSERT ... SELECT of the
// returned rows, expiry.go logSwept, not explained here).
func (s *ttlStore) explainSweep(ctx context.Context, logf func(string, ...any), batch int, now int64) {
	pred := expiredSQL(2, 3)
	s.explain(ctx, logf, "sweep batch of "+strconv.Itoa(batch)+" rows, "+ttlBigID,
		`DELETE FROM `+s.big+` WHERE ctid = ANY(ARRAY(SELECT ctid FROM `+s.big+` WHERE `+pred+
			` LIMIT $1 FOR UPDATE SKIP LOCKED)) AND `+pred+` RETURNING pk, id, lsn`,
		batch, now, now-ttlDefaultTTL)
}
