package pgstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), pgtest.NewDatabase(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func newContainer(t testing.TB, s *Store, defaultTTL *int32) emulator.Container {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil && !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatal(err)
	}
	c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: fmt.Sprintf("c%p", defaultTTL), Properties: []byte(`{"id":"c"}`),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, DefaultTTL: defaultTTL, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func i32(v int32) *int32 { return &v }

// TestLivePredicateMatchesExpiryLive checks the SQL predicates against the
// Go definition (emulator.Expiry.Live) for every combination of container
// defaultTtl, item ttl and age around the expiry boundary.
func TestLivePredicateMatchesExpiryLive(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	defaults := []*int32{nil, i32(-1), i32(1), i32(100)}
	itemTTLs := []*int32{nil, i32(-1), i32(1), i32(100)}
	ages := []int64{0, 1, 2, 99, 100, 101}
	const ts = 1000
	for _, d := range defaults {
		for _, it := range itemTTLs {
			for _, age := range ages {
				e := emulator.Expiry{Now: ts + age, DefaultTTL: d}
				want := e.Live(ts, it)
				var live, expired bool
				row := ` FROM (SELECT $1::bigint AS ts, $2::integer AS ttl, CASE WHEN $2::integer = -1 THEN 9223372036854775807 ELSE $1::bigint + $2::integer END AS exp) r`
				a := args{int64(ts), it}
				if err := s.pool.QueryRow(ctx, `SELECT coalesce(`+livePredicate(e, "", &a)+`, false)`+row, a...).Scan(&live); err != nil {
					t.Fatal(err)
				}
				b := args{int64(ts), it}
				if err := s.pool.QueryRow(ctx, `SELECT coalesce(`+expiredPredicate(e, &b)+`, false)`+row, b...).Scan(&expired); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("default=%v item=%v age=%d", deref(d), deref(it), age)
				if live != want {
					t.Errorf("%s: live predicate %v, Expiry.Live %v", name, live, want)
				}
				if expired == want {
					t.Errorf("%s: expired predicate %v must be the negation of live %v", name, expired, want)
				}
			}
		}
	}
}

func deref(p *int32) any {
	if p == nil {
		return "absent"
	}
	return *p
}

// TestExpiryUsesIndexes asserts with EXPLAIN that, on a large container
// with many expired rows, the sweeper's selection and the live-item reads
// are served by the expiry indexes rather than a scan of the container.
func TestExpiryUsesIndexes(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, i32(3600))
	tbl := itemsTable(c.Num)
	// 200,000 rows: ~90% written long ago (expired), some with their own
	// ttl, 1% that never expire.
	_, err := s.pool.Exec(ctx, `INSERT INTO `+tbl+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 100) || '"]', 'id' || g, g, '{"id":"id' || g || '"}',
       CASE WHEN g % 10 = 0 THEN 1000000 ELSE 1000 END,
       CASE WHEN g % 7 = 0 THEN 50 WHEN g % 101 = 0 THEN -1 ELSE NULL END,
       '"e"', g, ''
FROM generate_series(1, 200000) g`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+tbl); err != nil {
		t.Fatal(err)
	}
	e := emulator.Expiry{Now: 1000000 + 10, DefaultTTL: c.DefaultTTL}
	explain := func(sql string, a args) string {
		rows, err := s.pool.Query(ctx, `EXPLAIN `+sql, a...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		return strings.Join(plan, "\n")
	}
	b := args{}
	count := `SELECT count(*) FROM ` + tbl + ` WHERE ` + livePredicate(e, "", &b)
	c2 := args{}
	feed := `SELECT id FROM ` + tbl + ` WHERE pk = '["p1"]' AND ` + livePredicate(e, "", &c2) + ` ORDER BY seq LIMIT 100`
	// The sweeper's selection right after most rows expired is best served
	// by a plain scan that stops at LIMIT (most rows qualify); once the
	// backlog is gone and expired rows are rare, it must use the indexes.
	a := args{1000}
	sweepRare := `SELECT ctid FROM ` + tbl + ` WHERE ` + expiredPredicate(emulator.Expiry{Now: 1000000 + 100, DefaultTTL: i32(1000000)}, &a) + ` LIMIT $1 FOR UPDATE SKIP LOCKED`
	for name, plan := range map[string]string{
		"live items (count)":                  explain(count, b),
		"read feed of a partition":            explain(feed, c2),
		"sweeper selection, few expired rows": explain(sweepRare, a),
	} {
		if strings.Contains(plan, "Seq Scan") || !strings.Contains(plan, "Index") {
			t.Errorf("%s is not served by an index:\n%s", name, plan)
		} else {
			t.Logf("%s plan:\n%s", name, plan)
		}
	}
	// and the sweeper really deletes exactly the expired rows
	var expired, live int64
	a2, b2 := args{}, args{}
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE `+expiredPredicate(e, &a2)+`) FROM `+tbl, a2...).Scan(&expired); err != nil {
		t.Fatal(err)
	}
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE `+livePredicate(e, "", &b2)+`) FROM `+tbl, b2...).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if expired+live != 200000 || live == 0 || expired == 0 {
		t.Fatalf("expired %d + live %d != 200000", expired, live)
	}
	total := 0
	for {
		n, err := s.DeleteExpired(ctx, e.Now, 5000)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n < 5000 {
			break
		}
	}
	if int64(total) != expired {
		t.Fatalf("DeleteExpired removed %d rows, want %d", total, expired)
	}
	st, err := s.CountItems(ctx, c, e)
	if err != nil {
		t.Fatal(err)
	}
	if st.StoredRows != live || st.LiveItems != live {
		t.Fatalf("after sweeping: %+v, want %d stored and live", st, live)
	}
}
