package pgstore

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// changeSummary is the part of a change-log entry a test compares.
type changeSummary struct {
	Op         string
	ID         string
	Body       string
	PrevIsLast bool // PrevLSN is the LSN of the item's previous logged write
	TTLExpired bool
	CRTS       int64
}

func readSummaries(t *testing.T, s *Store, c emulator.Container, after int64) ([]changeSummary, []emulator.Change) {
	t.Helper()
	page, err := s.ReadChangeLog(context.Background(), emulator.ReadChangeLogParams{Container: c, AfterSeq: after, Limit: 1000})
	chs := page.Changes
	if err != nil {
		t.Fatal(err)
	}
	lastLSN := map[string]int64{}
	var out []changeSummary
	for i, ch := range chs {
		if i > 0 && ch.Seq <= chs[i-1].Seq {
			t.Fatalf("entries out of order: %d after %d", ch.Seq, chs[i-1].Seq)
		}
		prev, seen := lastLSN[ch.ID]
		out = append(out, changeSummary{Op: string(ch.Op), ID: ch.ID, Body: string(ch.Body),
			PrevIsLast: seen && ch.PrevLSN == prev, TTLExpired: ch.TTLExpired, CRTS: ch.CRTS})
		lastLSN[ch.ID] = ch.LSN
	}
	return out, chs
}

// TestChangeLogRecordsEveryWrite: create, replace, upsert (of an existing
// and of a new item) and delete each log one entry, in order, with the
// previous version's LSN; a rolled-back write logs nothing.
func TestChangeLogRecordsEveryWrite(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	w := func(id, body string, ts int64) emulator.WriteItemParams {
		return emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id}, Body: []byte(body), TS: ts, ETag: fmt.Sprintf(`"%d"`, ts)}
	}
	if _, err := s.CreateItem(ctx, w("a", `{"id":"a","v":1}`, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceItem(ctx, w("a", `{"id":"a","v":2}`, 11)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.UpsertItem(ctx, w("a", `{"id":"a","v":3}`, 12)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.UpsertItem(ctx, w("b", `{"id":"b"}`, 13)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateItem(ctx, w("a", `{"id":"a","v":9}`, 14)); !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatalf("conflicting create: %v", err)
	}
	if _, err := s.DeleteItem(ctx, emulator.ItemKey{Container: c, PK: `["p"]`, ID: "a"}, ""); err != nil {
		t.Fatal(err)
	}
	// A transaction that writes and rolls back.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, etag, lsn, epk) VALUES ('["p"]', 'x', nextval('cosmos.doc_seq'), '{}', 15, '"x"', nextval('cosmos.lsn_seq'), '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM `+itemsTable(c.Num)+` WHERE id = 'b'`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	got, chs := readSummaries(t, s, c, 0)
	for i := range got {
		got[i].CRTS = 0 // the delete's time is the wall clock here
	}
	want := []changeSummary{
		{Op: "c", ID: "a", Body: `{"id":"a","v":1}`},
		{Op: "r", ID: "a", Body: `{"id":"a","v":2}`, PrevIsLast: true},
		{Op: "r", ID: "a", Body: `{"id":"a","v":3}`, PrevIsLast: true},
		{Op: "c", ID: "b", Body: `{"id":"b"}`},
		{Op: "d", ID: "a", PrevIsLast: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("change log:\n got %+v\nwant %+v", got, want)
	}
	last, err := s.LastChange(ctx, c)
	if err != nil || last != chs[len(chs)-1].Seq {
		t.Fatalf("LastChange = %d, %v; want %d", last, err, chs[len(chs)-1].Seq)
	}
	// Deleting the container drops its history (in the background).
	if err := s.DeleteContainer(ctx, "db", c.ID); err != nil {
		t.Fatal(err)
	}
	waitTablesSettled(t, s)
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.changes WHERE coll = $1`, c.Num).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d entries left after the container was deleted (%v)", n, err)
	}
}

// TestChangeLogSweptExpiry: the sweeper's purge is logged as a delete with
// the ttl-expired flag at the sweeper's time, and only once the item has
// expired; a create over an expired, unswept item logs its expiry first.
func TestChangeLogSweptExpiry(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, i32(10))
	e := func(now int64) emulator.Expiry { return emulator.Expiry{Now: now, DefaultTTL: c.DefaultTTL} }
	w := func(id string, ts int64) emulator.WriteItemParams {
		return emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id, Expiry: e(ts)}, Body: []byte(`{"id":"` + id + `"}`), TS: ts, ETag: `"e"`}
	}
	for _, id := range []string{"a", "b"} {
		if _, err := s.CreateItem(ctx, w(id, 100)); err != nil {
			t.Fatal(err)
		}
	}
	// Not yet expired at 109: nothing purged, nothing logged.
	if n, err := s.DeleteExpired(ctx, 109, 100); err != nil || n != 0 {
		t.Fatalf("sweep at 109: %d, %v", n, err)
	}
	got, chs := readSummaries(t, s, c, 0)
	if len(got) != 2 {
		t.Fatalf("before expiry: %+v", got)
	}
	after := chs[1].Seq
	// b is re-created at 111 over its expired row (before any sweep).
	if _, err := s.CreateItem(ctx, w("b", 111)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteExpired(ctx, 112, 100); err != nil || n != 1 {
		t.Fatalf("sweep at 112: %d, %v", n, err)
	}
	got, _ = readSummaries(t, s, c, after)
	want := []changeSummary{
		{Op: "d", ID: "b", TTLExpired: true, CRTS: 111},
		{Op: "c", ID: "b", Body: `{"id":"b"}`, CRTS: 111},
		{Op: "d", ID: "a", TTLExpired: true, CRTS: 112},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("change log after expiry:\n got %+v\nwant %+v", got, want)
	}
	// A user delete after the sweep is not marked as an expiry.
	if _, err := s.DeleteItem(ctx, emulator.ItemKey{Container: c, PK: `["p"]`, ID: "b", Expiry: e(112)}, ""); err != nil {
		t.Fatal(err)
	}
	_, chs = readSummaries(t, s, c, after)
	if last := chs[len(chs)-1]; last.Op != 'd' || last.TTLExpired {
		t.Fatalf("user delete logged as %+v", last)
	}
}

// TestSweepLogsItsPurges: a sweep logs each purged item once, as a delete
// with the ttl-expired flag at the sweeper's time, the item's last LSN as
// the previous one and a new LSN each, in batches; it writes these entries
// itself (one statement per batch, logSwept), so they are the same with
// the change log's trigger disabled, and the trigger adds none of its own.
func TestSweepLogsItsPurges(t *testing.T) {
	for _, trigger := range []bool{true, false} {
		t.Run(fmt.Sprint("trigger ", trigger), func(t *testing.T) {
			s := openStore(t)
			ctx := context.Background()
			c := newContainer(t, s, i32(10))
			e := emulator.Expiry{Now: 100, DefaultTTL: c.DefaultTTL}
			ids := []string{"a", "b", "c", "d", "e"}
			for i, id := range ids {
				body := `{"id":"` + id + `"}`
				if i == 1 {
					body = `{"id":"b","ttl":50}` // its own ttl: not expired at 120
				}
				p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id, Expiry: e}, Body: []byte(body), TS: 100, ETag: `"e"`}
				if i == 1 {
					p.TTL = i32(50)
				}
				if _, err := s.CreateItem(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			_, before := readSummaries(t, s, c, 0)
			if len(before) != len(ids) {
				t.Fatalf("%d entries after the creates", len(before))
			}
			if !trigger {
				if _, err := s.pool.Exec(ctx, `ALTER TABLE `+itemsTable(c.Num)+` DISABLE TRIGGER log_change`); err != nil {
					t.Fatal(err)
				}
			}
			swept := 0
			for {
				n, err := s.DeleteExpired(ctx, 120, 2)
				if err != nil {
					t.Fatal(err)
				}
				swept += n
				if n < 2 {
					break
				}
			}
			if swept != 4 {
				t.Fatalf("swept %d rows, want 4", swept)
			}
			got, chs := readSummaries(t, s, c, 0)
			got, chs = got[len(ids):], chs[len(ids):]
			var gotIDs []string
			maxLSN := before[len(before)-1].LSN
			for i, g := range got {
				gotIDs = append(gotIDs, g.ID)
				if g.Op != "d" || !g.TTLExpired || g.CRTS != 120 || g.Body != "" {
					t.Errorf("entry %d: %+v, want a ttl-expired delete at 120", i, g)
				}
				var created emulator.Change
				for _, b := range before {
					if b.ID == g.ID {
						created = b
					}
				}
				if chs[i].PrevLSN != created.LSN {
					t.Errorf("%s: previous LSN %d, want its create's %d", g.ID, chs[i].PrevLSN, created.LSN)
				}
				if chs[i].LSN <= maxLSN {
					t.Errorf("%s: LSN %d not after %d", g.ID, chs[i].LSN, maxLSN)
				}
				maxLSN = chs[i].LSN
			}
			slices.Sort(gotIDs)
			if !slices.Equal(gotIDs, []string{"a", "c", "d", "e"}) {
				t.Fatalf("purges logged: %v, want a, c, d, e once each", gotIDs)
			}
		})
	}
}

// TestChangeLogRetention: the sweep trims entries older than the
// container's changeFeedPolicy.retentionDuration (minutes), or the default
// window, in bounded batches, and keeps the rest.
func TestChangeLogRetention(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	mk := func(id, props string) emulator.Container {
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(props),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	short := mk("short", `{"id":"short","changeFeedPolicy":{"retentionDuration":2}}`)
	dflt := mk("default", `{"id":"default"}`)
	for _, c := range []emulator.Container{short, dflt} {
		for i := 0; i < 5; i++ {
			ts := int64(1000 + i*60) // one write a minute
			p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: fmt.Sprint(i)}, Body: []byte(`{}`), TS: ts, ETag: `"e"`}
			if _, err := s.CreateItem(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func(c emulator.Container) int {
		_, chs := readSummaries(t, s, c, 0)
		return len(chs)
	}
	// At 1301, with 2 minutes' retention, the writes before 1181 go (0..3;
	// the one at 1240 stays), at most 3 per container and call.
	now := int64(1000 + 5*60 + 1)
	if _, err := s.trimChangeLog(ctx, now, 3); err != nil {
		t.Fatal(err)
	}
	if got := count(short); got != 2 {
		t.Fatalf("after one bounded trim %d entries left, want 2", got)
	}
	if _, err := s.DeleteExpired(ctx, now, 3); err != nil {
		t.Fatal(err)
	}
	if got := count(short); got != 1 {
		t.Fatalf("after the sweep %d entries left, want 1", got)
	}
	if got := count(dflt); got != 5 {
		t.Fatalf("default retention: %d entries left, want 5", got)
	}
	// Past the default window everything of the default container goes.
	if _, err := s.trimChangeLog(ctx, now+int64(emulator.DefaultChangeFeedRetention.Seconds()), 100); err != nil {
		t.Fatal(err)
	}
	if got := count(dflt); got != 0 {
		t.Fatalf("past the default retention %d entries left", got)
	}
}

// TestChangeLogKeepsATransactionTogether: a read that fills its limit
// inside a transaction's entries gets the rest of that transaction too.
func TestChangeLogKeepsATransactionTogether(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	insert := `INSERT INTO ` + itemsTable(c.Num) + ` (pk, id, seq, body, ts, etag, lsn, epk) VALUES ('["p"]', $1, nextval('cosmos.doc_seq'), '{}', 1, '"e"', nextval('cosmos.lsn_seq'), '')`
	if _, err := s.pool.Exec(ctx, insert, "solo"); err != nil {
		t.Fatal(err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		if _, err := tx.Exec(ctx, insert, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, insert, "after"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{1, []string{"solo"}},
		{2, []string{"solo", "t1", "t2", "t3"}},
		{4, []string{"solo", "t1", "t2", "t3"}},
		{5, []string{"solo", "t1", "t2", "t3", "after"}},
	} {
		page, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, ch := range page.Changes {
			ids = append(ids, ch.ID)
		}
		if !reflect.DeepEqual(ids, tc.want) {
			t.Errorf("limit %d: %v, want %v", tc.limit, ids, tc.want)
		}
	}
}

// TestChangeLogReaderMissesNothing: a reader following the log while
// several writers commit concurrently sees every entry exactly once (the
// log is in commit order, so a position once passed never gains entries).
// Half the writers write single creates, the others batches and bulk
// requests of three creates (logged by their own statement at commit).
// With a sweeper purging the items as they come (they are expired at its
// time), it also sees each purge exactly once (logged by the sweep's own
// statement, logSwept).
func TestChangeLogReaderMissesNothing(t *testing.T) {
	for _, sweep := range []bool{false, true} {
		t.Run(fmt.Sprint("sweep ", sweep), func(t *testing.T) { testChangeLogReaderMissesNothing(t, sweep) })
	}
}

func testChangeLogReaderMissesNothing(t *testing.T, sweep bool) {
	s := openStore(t)
	ctx := context.Background()
	var ttl *int32
	if sweep {
		ttl = i32(10)
	}
	c := newContainer(t, s, ttl)
	const writers, perWriter = 4, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	stop := make(chan struct{})
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		for sweep {
			if _, err := s.DeleteExpired(ctx, 1000, 5); err != nil {
				errs <- err
				return
			}
			select {
			case <-stop:
				for { // the rest
					n, err := s.DeleteExpired(ctx, 1000, 100)
					if err != nil {
						errs <- err
					}
					if err != nil || n == 0 {
						return
					}
				}
			default:
			}
		}
	}()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i += 3 {
				var ops []emulator.ItemOp
				for k := i; k < i+3; k++ {
					ops = append(ops, emulator.ItemOp{Op: emulator.BatchCreate, Params: emulator.WriteItemParams{
						ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: fmt.Sprintf("%d-%d", w, k)}, Body: []byte(`{}`), TS: 1, ETag: `"e"`}})
				}
				var err error
				if w%2 == 0 {
					for _, op := range ops {
						if _, err = s.CreateItem(ctx, op.Params); err != nil {
							break
						}
					}
				} else {
					err = s.InItemTx(ctx, emulator.TxOptions{SharedLSN: w == 1}, func(st emulator.ItemTx) error {
						_, err := st.RunItemOps(ctx, ops)
						return err
					})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(stop); <-swept; close(done) }()
	seen := map[string]int{}
	var after int64
	for finished := false; ; {
		select {
		case <-done:
			finished = true
		default:
		}
		page, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, AfterSeq: after, Limit: 7})
		if err != nil {
			t.Fatal(err)
		}
		chs := page.Changes
		for _, ch := range chs {
			seen[ch.ID+string(ch.Op)]++
			after = ch.Seq
		}
		if finished && len(chs) == 0 {
			break
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := writers * perWriter
	if sweep {
		want *= 2 // each item's create and purge
	}
	if len(seen) != want {
		t.Fatalf("the reader saw %d of %d entries", len(seen), want)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s seen %d times", id, n)
		}
	}
}

// BenchmarkChangeLogWrite measures what the change-log trigger costs a
// single write: point creates and replaces with the trigger (log) and with
// it dropped (nolog).
//
//	go test -run '^$' -bench BenchmarkChangeLogWrite -benchtime 3000x ./pgstore/
func BenchmarkChangeLogWrite(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		b.Fatal(err)
	}
	next := 0
	for _, logged := range []bool{true, false} {
		name := "log"
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: fmt.Sprint(logged), Properties: []byte(`{}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
		if err != nil {
			b.Fatal(err)
		}
		if !logged {
			name = "nolog"
			if _, err := s.pool.Exec(ctx, `DROP TRIGGER log_change ON `+itemsTable(c.Num)); err != nil {
				b.Fatal(err)
			}
		}
		first := fmt.Sprint(next)
		body := []byte(`{"id":"x","pk":"p","payload":"` + strings.Repeat("x", 500) + `"}`)
		b.Run("create/"+name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: fmt.Sprint(next)}, Body: body, TS: 1, ETag: `"e"`}
				next++
				if _, err := s.CreateItem(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("replace/"+name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: first}, Body: body, TS: int64(i), ETag: `"e"`}
				if _, err := s.ReplaceItem(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMigrationLogsExistingContainers: migration 0010 gives the items
// tables of containers created before it the change-log trigger.
func TestMigrationLogsExistingContainers(t *testing.T) {
	ctx := context.Background()
	// No spare tables: their triggers would hold on to the function.
	s, err := Open(ctx, pgtest.NewDatabase(t), Options{SpareTables: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newContainer(t, s, nil)
	// Back to the state before 0010: no log, no trigger, not recorded.
	if _, err := s.pool.Exec(ctx, `DROP TRIGGER log_change ON `+itemsTable(c.Num)+`;
DROP TABLE cosmos.changes; DROP FUNCTION cosmos.log_change(); DROP SEQUENCE cosmos.change_seq;
DELETE FROM cosmos.schema_migrations WHERE version = 10`); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, s.pool); err != nil {
		t.Fatal(err)
	}
	p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: "a"}, Body: []byte(`{}`), TS: 1, ETag: `"e"`}
	if _, err := s.CreateItem(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, _ := readSummaries(t, s, c, 0)
	if len(got) != 1 || got[0].Op != "c" || got[0].ID != "a" {
		t.Fatalf("change log after the migration: %+v", got)
	}
}

// TestChangeLogEPKFilter: with an effective partition key range a read
// keeps the entries whose epk lies in it (filtered in SQL), finishes a
// transaction it keeps entries of, and, when it comes back short, reports
// the horizon as read, so the continuation moves past other ranges'
// entries.
func TestChangeLogEPKFilter(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	insert := `INSERT INTO ` + itemsTable(c.Num) + ` (pk, id, seq, body, ts, etag, lsn, epk) VALUES ($1, $2, nextval('cosmos.doc_seq'), '{}', 1, '"e"', nextval('cosmos.lsn_seq'), $3)`
	// x1 y1 y2 [x2 x3] y3 x4: the bracketed pair in one transaction.
	for _, w := range [][]string{{"x1"}, {"y1"}, {"y2"}, {"x2", "x3"}, {"y3"}, {"x4"}} {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range w {
			pk := `["` + id[:1] + `"]`
			if _, err := tx.Exec(ctx, insert, pk, id, itemEPK(c, pk)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, Limit: 100})
	if err != nil || len(all.Changes) != 7 {
		t.Fatalf("%d entries, %v", len(all.Changes), err)
	}
	seq := func(i int) int64 { return all.Changes[i].Seq }
	horizon := seq(6)
	x := pointRange(itemEPK(c, `["x"]`))
	for _, tc := range []struct {
		name        string
		epk         *emulator.EPKRange
		after       int64
		limit       int
		want        []string
		wantScanned int64
	}{
		{"limit", x, 0, 1, []string{"x1"}, seq(0)},
		{"full page keeps its transaction", x, 0, 2, []string{"x1", "x2", "x3"}, seq(4)},
		{"short page reads to the horizon", x, seq(0), 10, []string{"x2", "x3", "x4"}, horizon},
		{"nothing in range", pointRange(itemEPK(c, `["y"]`)), seq(5), 10, nil, horizon},
		{"empty sub-range", &emulator.EPKRange{Min: "00", Max: "01"}, 0, 10, nil, horizon},
		{"full range", &emulator.EPKRange{Min: "", Max: "FF"}, 0, 100, []string{"x1", "y1", "y2", "x2", "x3", "y3", "x4"}, seq(6)},
		{"nothing after", x, seq(6), 10, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, AfterSeq: tc.after, Limit: tc.limit, EPK: tc.epk})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, ch := range page.Changes {
				ids = append(ids, ch.ID)
			}
			if !slices.Equal(ids, tc.want) || page.ScannedTo != tc.wantScanned {
				t.Errorf("got %v scanned to %d, want %v scanned to %d", ids, page.ScannedTo, tc.want, tc.wantScanned)
			}
		})
	}
}

// TestChangeLogWritersCommitTogether: two transactions writing one
// container can both be past their commit-time logging at once (they hold
// the container's log lock shared, so their commits share WAL flushes),
// and a reader waits for both to end before it reads, then sees both
// entries in seq order.
func TestChangeLogWritersCommitTogether(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	insert := `INSERT INTO ` + itemsTable(c.Num) + ` (pk, id, seq, body, ts, etag, lsn, epk) VALUES ('["p"]', $1, nextval('cosmos.doc_seq'), '{}', 1, '"e"', nextval('cosmos.lsn_seq'), '')`
	var txs []pgx.Tx
	for _, id := range []string{"first", "second"} {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		// The deferred trigger runs now instead of at COMMIT; with an
		// exclusive lock the second would wait for the first to end.
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '5s'`); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, insert, id); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SET CONSTRAINTS ALL IMMEDIATE`); err != nil {
			t.Fatalf("%s: logging while another writer is in its commit: %v", id, err)
		}
		txs = append(txs, tx)
	}
	type result struct {
		page emulator.ChangeLogPage
		err  error
	}
	got := make(chan result, 1)
	go func() {
		page, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, Limit: 10})
		got <- result{page, err}
	}()
	// The reader's exclusive request waits behind the writers' shared locks.
	for i := 0; ; i++ {
		var waiting bool
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock' AND NOT granted)`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if i == 500 {
			t.Fatal("the reader never waited for the writers")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case r := <-got:
		t.Fatalf("the reader returned while writers were committing: %+v %v", r.page, r.err)
	default:
	}
	for i := len(txs) - 1; i >= 0; i-- {
		if err := txs[i].Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r := <-got
	if r.err != nil {
		t.Fatal(r.err)
	}
	var ids []string
	for _, ch := range r.page.Changes {
		ids = append(ids, ch.ID)
	}
	if !reflect.DeepEqual(ids, []string{"first", "second"}) {
		t.Fatalf("entries %v, want [first second]", ids)
	}
}

// TestSweepTrimsOncePerSecond: the sweep's change-log trim runs once per
// second of emulator time while it finds nothing to delete (a sweep's many
// batches in that second would each read the oldest entries again), and
// again at the next second or after a trim that deleted something.
func TestSweepTrimsOncePerSecond(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	write := func(id string, ts int64) {
		t.Helper()
		p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id}, Body: []byte(`{}`), TS: ts, ETag: `"e"`}
		if _, err := s.CreateItem(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	entries := func() int {
		_, chs := readSummaries(t, s, c, 0)
		return len(chs)
	}
	retention := int64(emulator.DefaultChangeFeedRetention.Seconds())
	now := 1000 + retention
	sweep := func(now int64) {
		t.Helper()
		if _, err := s.DeleteExpired(ctx, now, 100); err != nil {
			t.Fatal(err)
		}
	}
	write("recent", now)
	sweep(now) // trims nothing
	// An entry already older than the retention when written (the
	// change log's crts is the writer's time).
	write("old", 999)
	tests := []struct {
		step string
		now  int64
		want int
	}{
		{"same second after an empty trim: skipped", now, 2},
		{"next second: trimmed", now + 1, 1},
	}
	for _, tt := range tests {
		sweep(tt.now)
		if got := entries(); got != tt.want {
			t.Fatalf("%s: %d entries, want %d", tt.step, got, tt.want)
		}
	}
	// A trim that deleted something does not suppress the next one.
	write("old2", 999)
	sweep(now + 1)
	if got := entries(); got != 1 {
		t.Fatalf("same second after a trim that deleted: %d entries, want 1", got)
	}
}
