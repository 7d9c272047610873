package pgstore

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSweepBatch: what one sweep batch of 1000 expired 400-byte rows
// costs per row, and the WAL it writes, as the sweeper does it (its
// purges logged by one INSERT ... SELECT, logSwept: "set") against the
// same DELETE with its purges logged row by row by the change log's
// trigger, as before migration 0018 ("trigger"), and as the sweeper does
// it with the trigger disabled ("set-off": what the trigger's early return
// for the sweep's deletes still costs). The modes alternate twice within
// one run, on a freshly seeded and checkpointed table each time. Measured
// 2026-11-26 (2 shared cores, load 1.5): trigger 13.8-13.9 µs/row, set
// 8.6-9.0, set-off 7.0-8.4; WAL about 1.2 KB a row in every mode (mostly
// full-page images after the checkpoint).
//
//	go test -run '^$' -bench BenchmarkSweepBatch -benchtime 20x ./pgstore/
func BenchmarkSweepBatch(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	c := newContainer(b, s, i32(3600))
	t := itemsTable(c.Num)
	const rows, batch, now = 20000, 1000, 1_000_000
	exec := func(sql string, a ...any) {
		if _, err := s.pool.Exec(ctx, sql, a...); err != nil {
			b.Fatal(err)
		}
	}
	wal := func() int64 {
		var v int64
		if err := s.pool.QueryRow(ctx, `SELECT pg_current_wal_lsn() - '0/0'::pg_lsn`).Scan(&v); err != nil {
			b.Fatal(err)
		}
		return v
	}
	seq := int64(0)
	trigger := func() int {
		var n int64
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		if _, err := tx.Exec(ctx, `SELECT set_config('cosmos.ttl_expired', 'on', true), set_config('cosmos.now', $1, true)`, strconv.Itoa(now)); err != nil {
			b.Fatal(err)
		}
		tag, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE ctid = ANY(ARRAY(SELECT ctid FROM `+t+` WHERE ttl IS NULL AND ts <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)) AND ttl IS NULL AND ts <= $1`, now-3600, batch)
		if err != nil {
			b.Fatal(err)
		}
		n = tag.RowsAffected()
		if err := tx.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		return int(n)
	}
	set := func() int {
		n, err := s.deleteExpiredIn(ctx, c, now, batch)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	for _, mode := range []struct {
		name  string
		sweep func() int
	}{{"trigger", trigger}, {"set", set}, {"set-off", set}, {"trigger", trigger}, {"set", set}, {"set-off", set}} {
		b.Run(mode.name, func(b *testing.B) {
			if mode.name == "set-off" {
				exec(`ALTER TABLE ` + t + ` DISABLE TRIGGER log_change`)
			} else {
				exec(`ALTER TABLE ` + t + ` ENABLE TRIGGER log_change`)
			}
			var d time.Duration
			var walBytes, swept int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				exec(`INSERT INTO `+t+` (pk, id, seq, body, ts, etag, lsn, epk)
SELECT '["p' || (g % 100) || '"]', 'id' || g, g, '{"id":"id' || g || '","pad":"' || repeat('x', 360) || '"}', 1000, '"e"', g, ''
FROM generate_series($1::bigint, $2::bigint) g`, seq+1, seq+rows)
				seq += rows
				exec(`VACUUM ` + t)
				exec(`CHECKPOINT`)
				w0 := wal()
				b.StartTimer()
				start := time.Now()
				for {
					n := mode.sweep()
					swept += int64(n)
					if n < batch {
						break
					}
				}
				d += time.Since(start)
				b.StopTimer()
				walBytes += wal() - w0
			}
			b.ReportMetric(float64(d.Microseconds())/float64(swept), "µs/row")
			b.ReportMetric(float64(walBytes)/float64(swept), "WAL-B/row")
		})
	}
}
