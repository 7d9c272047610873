package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func expiryIndexCount(t *testing.T, s *Store, num int64) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 AND indexname LIKE '%_expiry'`,
		"items_"+itoa(num)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// seqIndexes returns the names of the unique indexes whose only key is seq.
func seqIndexes(t *testing.T, s *Store, num int64) []string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT i.indexrelid::regclass::text FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
WHERE i.indrelid = $1::regclass AND i.indisunique AND i.indnkeyatts = 1 AND a.attname = 'seq' ORDER BY 1`, itemsTable(num))
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func itoa(n int64) string { return itemsTable(n)[len("cosmos.items_"):] }

// TestExpiryIndexesFollowContainerTTL: the expiry indexes exist exactly
// while the container's TTL is on.
func TestExpiryIndexesFollowContainerTTL(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	off := newContainer(t, s, nil)
	if n := expiryIndexCount(t, s, off.Num); n != 0 {
		t.Fatalf("TTL off: %d expiry indexes, want 0", n)
	}
	steps := []struct {
		ttl  *int32
		want int
	}{{i32(-1), 4}, {i32(10), 4}, {nil, 0}, {i32(5), 4}}
	for _, st := range steps {
		if _, err := s.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: off.ID, Properties: []byte(`{}`), DefaultTTL: st.ttl, TS: 2, ETag: `"f"`}); err != nil {
			t.Fatal(err)
		}
		if n := expiryIndexCount(t, s, off.Num); n != st.want {
			t.Fatalf("after replace with defaultTtl %v: %d expiry indexes, want %d", deref(st.ttl), n, st.want)
		}
		// exactly one unique index on seq: with TTL on, the one carrying
		// the expiry columns for the read feed
		wantSeq := "cosmos.items_" + itoa(off.Num) + "_seq_idx"
		if st.ttl != nil {
			wantSeq = "cosmos.items_" + itoa(off.Num) + "_seqlive_expiry"
		}
		if got := seqIndexes(t, s, off.Num); len(got) != 1 || got[0] != wantSeq {
			t.Fatalf("after replace with defaultTtl %v: unique seq indexes %v, want [%s]", deref(st.ttl), got, wantSeq)
		}
	}
}

// TestContainerCacheSeesOtherProcessesChanges: two stores (two emulator
// processes) on one database; a change made through one is seen by the
// other's cached lookups, the parsed definition included.
func TestContainerCacheSeesOtherProcessesChanges(t *testing.T) {
	pg := pgtest.NewDatabase(t)
	ctx := context.Background()
	a, err := Open(ctx, pg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, pg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c := newContainer(t, a, nil)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("store b never saw %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// wait until b's listener is connected, so that b caches
	waitFor("its listener connect", func() bool { b.cache.mu.Lock(); defer b.cache.mu.Unlock(); return b.cache.enabled })
	if got, err := b.GetContainer(ctx, "db", c.ID); err != nil || got.DefaultTTL != nil {
		t.Fatalf("b: %v %v", got.DefaultTTL, err)
	}
	if _, err := a.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: c.ID,
		Properties: []byte(`{"computedProperties":[{"name":"cp","query":"SELECT VALUE 1 FROM c"}]}`), DefaultTTL: i32(7), TS: 2, ETag: `"g"`}); err != nil {
		t.Fatal(err)
	}
	waitFor("the new defaultTtl", func() bool {
		got, err := b.GetContainer(ctx, "db", c.ID)
		return err == nil && got.DefaultTTL != nil && *got.DefaultTTL == 7
	})
	if got, _ := b.GetContainer(ctx, "db", c.ID); got.Def == nil || got.Def.ComputedProperties["cp"].Query != "SELECT VALUE 1 FROM c" {
		t.Fatalf("b's cached container after the replace: definition %+v, want the computed property cp", got.Def)
	}
	if err := a.DeleteContainer(ctx, "db", c.ID); err != nil {
		t.Fatal(err)
	}
	waitFor("the deletion", func() bool {
		_, err := b.GetContainer(ctx, "db", c.ID)
		return emulator.IsKind(err, emulator.KindNotFound)
	})
}

// TestContainerDefaultOffer: a container created without an offer of its
// own gets its DefaultOffer only in a database without shared throughput;
// an offer of its own always wins.
func TestContainerDefaultOffer(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	dflt := &emulator.NewOffer{Content: []byte(`{"offerThroughput":400}`)}
	own := &emulator.NewOffer{Content: []byte(`{"offerThroughput":700}`)}
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "plain", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "shared", TS: 1, ETag: `"e"`, Offer: &emulator.NewOffer{Content: []byte(`{"offerThroughput":1000}`)}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		db, id string
		offer  *emulator.NewOffer
		want   string // the container's offer content; "" for none
	}{
		{"plain", "dflt", nil, `{"offerThroughput":400}`},
		{"plain", "own", own, `{"offerThroughput":700}`},
		{"shared", "dflt", nil, ""},
		{"shared", "own", own, `{"offerThroughput":700}`},
	}
	for _, tt := range tests {
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: tt.db, ID: tt.id, Properties: []byte(`{}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`, Offer: tt.offer, DefaultOffer: dflt})
		if err != nil {
			t.Fatal(err)
		}
		offers, err := s.ListOffers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, o := range offers {
			if o.ResourceRID == c.RID {
				got = string(o.Content)
				if o.Resource != c.Self() {
					t.Errorf("%s/%s: offer resource %s, want %s", tt.db, tt.id, o.Resource, c.Self())
				}
			}
		}
		if got != tt.want {
			t.Errorf("%s/%s: offer %q, want %q", tt.db, tt.id, got, tt.want)
		}
	}
}

// TestMigrationSeqLiveIndexExistingContainers: migration 0018 gives
// containers with TTL on, created before it, the seqlive index in place of
// their plain seq index, and leaves containers without TTL alone.
func TestMigrationSeqLiveIndexExistingContainers(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	on, off := newContainer(t, s, i32(10)), newContainer(t, s, nil)
	// Back to the state before 0018.
	name := "items_" + itoa(on.Num)
	if _, err := s.pool.Exec(ctx, `CREATE UNIQUE INDEX `+name+`_seq_idx ON `+itemsTable(on.Num)+` (seq); DROP INDEX cosmos.`+name+`_seqlive_expiry;
DELETE FROM cosmos.schema_migrations WHERE version = 18`); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, s.pool); err != nil {
		t.Fatal(err)
	}
	if got := seqIndexes(t, s, on.Num); len(got) != 1 || got[0] != "cosmos."+name+"_seqlive_expiry" {
		t.Fatalf("TTL on: unique seq indexes %v after the migration", got)
	}
	if got := seqIndexes(t, s, off.Num); len(got) != 1 || got[0] != "cosmos.items_"+itoa(off.Num)+"_seq_idx" {
		t.Fatalf("TTL off: unique seq indexes %v after the migration", got)
	}
}
