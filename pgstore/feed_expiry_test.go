package pgstore

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestReadFeedStepsOverExpiredRowsInIndex: the read feed of a whole
// container whose TTL is on finds its page in an index-only scan of the
// seqlive index (EXPLAIN), not by reading every expired row from the
// table, and still returns exactly the live items in creation order, page
// after page (items with their own ttl, -1 and expired ones included).
func TestReadFeedStepsOverExpiredRowsInIndex(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, i32(3600))
	tbl := itemsTable(c.Num)
	// 50,000 rows, the oldest 45,000 written long ago (expired by the
	// container's defaultTtl); every 7th has its own ttl (50 s: expired
	// unless written recently... and then still live), every 101st never
	// expires.
	_, err := s.pool.Exec(ctx, `INSERT INTO `+tbl+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 100) || '"]', 'id' || g, g, '{"id":"id' || g || '"}',
       CASE WHEN g > 45000 THEN 1000000 ELSE 1000 END,
       CASE WHEN g % 101 = 0 THEN -1 WHEN g % 7 = 0 THEN 50 ELSE NULL END,
       '"e"', g, ''
FROM generate_series(1, 50000) g`)
	if err != nil {
		t.Fatal(err)
	}
	// Expired rows are old: by the time they expire, (auto)vacuum has
	// marked their pages all-visible, which an index-only scan needs.
	if _, err := s.pool.Exec(ctx, `VACUUM (FREEZE, ANALYZE) `+tbl); err != nil {
		t.Fatal(err)
	}
	e := emulator.Expiry{Now: 1000000 + 10, DefaultTTL: c.DefaultTTL}
	p := emulator.ReadItemsParams{Container: c, Limit: 100, Expiry: e}
	sql, a := feedSQL(p)
	rows, err := s.pool.Query(ctx, `EXPLAIN `+sql, a...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	rows.Close()
	if pl := strings.Join(plan, "\n"); !strings.Contains(pl, "Index Only Scan using items_"+itoa(c.Num)+"_seqlive_expiry") {
		t.Errorf("the feed's page is not picked by an index-only scan of the seqlive index:\n%s", pl)
	}

	// The reference: the live rows by the SQL twin of Expiry.Live, in seq
	// order.
	b := args{}
	want, err := collectSeqs(s, ctx, `SELECT seq FROM `+tbl+` WHERE `+livePredicate(e, "", &b)+` ORDER BY seq`, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 5000 || len(want) > 7000 {
		t.Fatalf("%d live rows: the data is not what the test means", len(want))
	}
	var got []int64
	for {
		items, err := s.ReadItems(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			got = append(got, it.Seq)
		}
		if len(items) < p.Limit {
			break
		}
		p.AfterSeq = items[len(items)-1].Seq
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the feed returned %d items, want the %d live ones in seq order", len(got), len(want))
	}
}

func collectSeqs(s *Store, ctx context.Context, sql string, a args) ([]int64, error) {
	rows, err := s.pool.Query(ctx, sql, a...)
	if err != nil {
		return nil, err
	}
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
