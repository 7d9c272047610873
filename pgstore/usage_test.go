package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestContainerUsage: ContainerUsage counts a container's live items
// exactly up to usageScanRows stored rows (expired ones left out), and
// past that estimates from the planner's row count scaled by the live
// share of the rows it read; the sizes are the items table's, the
// collection's with its indexes.
func TestContainerUsage(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	const now = 1_000_000
	for _, tc := range []struct {
		name        string
		rows        int64
		exact       bool
		live, slack int64 // the live items, and the estimate's allowed distance
	}{
		{"empty", 0, true, 0, 0},
		{"small: exact", 100, true, 80, 0},
		{"at the bound: exact", usageScanRows, true, usageScanRows * 4 / 5, 0},
		{"past the bound: estimated", 5 * usageScanRows, false, 4 * usageScanRows, 2 * usageScanRows / 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newContainer(t, s, i32(-1))
			tbl := itemsTable(c.Num)
			// every fifth item expired (ttl 50 long past), spread evenly
			if _, err := s.pool.Exec(ctx, `INSERT INTO `+tbl+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 10) || '"]', 'id' || g, g, '{"id":"id' || g || '","pad":"' || repeat('x', 200) || '"}', 1000,
       CASE WHEN g % 5 = 0 THEN 50 ELSE NULL END, '"e"', g, ''
FROM generate_series(1, $1::bigint) g`, tc.rows); err != nil {
				t.Fatal(err)
			}
			if _, err := s.pool.Exec(ctx, `ANALYZE `+tbl); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			u, err := s.ContainerUsage(ctx, c, emulator.Expiry{Now: now, DefaultTTL: c.DefaultTTL})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d rows: %+v in %v", tc.rows, u, time.Since(start))
			if tc.exact && u.Documents != tc.live {
				t.Errorf("documents %d, want exactly %d", u.Documents, tc.live)
			}
			if d := u.Documents - tc.live; !tc.exact && (d > tc.slack || d < -tc.slack) {
				t.Errorf("documents %d, want %d ± %d", u.Documents, tc.live, tc.slack)
			}
			if tc.rows > 0 && (u.DocumentsBytes < tc.rows*200 || u.CollectionBytes <= u.DocumentsBytes) {
				t.Errorf("sizes %d (documents) and %d (collection) for %d rows of 200+ bytes", u.DocumentsBytes, u.CollectionBytes, tc.rows)
			}
		})
	}
}
