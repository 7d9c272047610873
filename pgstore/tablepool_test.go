package pgstore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after a minute", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spareNums lists the spare tables' numbers.
func spareNums(t testing.TB, s *Store) []int64 {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT num FROM cosmos.spare_tables ORDER BY num`)
	if err != nil {
		t.Fatal(err)
	}
	nums, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return nums
}

// queryInt runs a query returning one integer.
func queryInt(t testing.TB, s *Store, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// waitTablesSettled waits until s has its spare tables ready, has dropped
// every deleted container's table and has vacuumed the catalogs since.
func waitTablesSettled(t testing.TB, s *Store) {
	t.Helper()
	waitFor(t, "the spare and dropped tables' workers", func() bool {
		return queryInt(t, s, `SELECT count(*) FROM cosmos.spare_tables WHERE ddl_key = $1`, spareDDLKey) == int64(s.tables.size) &&
			queryInt(t, s, `SELECT count(*) FROM cosmos.spare_tables WHERE ddl_key <> $1`, spareDDLKey) == 0 &&
			queryInt(t, s, `SELECT count(*) FROM cosmos.dropped_tables`) == 0 &&
			s.tables.churned.Load() == 0 && !s.tables.vacuuming.Load()
	})
}

// tableExists reports whether the relation cosmos.<name> exists.
func tableExists(t testing.TB, s *Store, name string) bool {
	t.Helper()
	return queryInt(t, s, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'cosmos' AND c.relname = $1`, name) == 1
}

// hasItemsTable checks that container num's items table is complete: the
// table, its lsn index and its change-log trigger.
func hasItemsTable(t testing.TB, s *Store, num int64) {
	t.Helper()
	tbl := "items_" + itoa(num)
	if !tableExists(t, s, tbl) || !tableExists(t, s, tbl+"_lsn") ||
		queryInt(t, s, `SELECT count(*) FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = 'log_change'`, "cosmos."+tbl) != 1 {
		t.Fatalf("container %d: items table, lsn index or change-log trigger missing", num)
	}
}

func createContainer(t testing.TB, s *Store, id string, props string, ttl *int32) emulator.Container {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil && !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatal(err)
	}
	c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(props),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, DefaultTTL: ttl, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSpareTablesClaimedAcrossStores: two stores (two emulator processes)
// on one database create containers concurrently: every create succeeds
// with its own complete items table, the spares ready beforehand are
// claimed (each once), and the pool is refilled to its size, not beyond.
func TestSpareTablesClaimedAcrossStores(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	var stores []*Store
	for range 2 {
		s, err := Open(ctx, dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	a := stores[0]
	if _, err := a.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "4 spare tables", func() bool { return len(spareNums(t, a)) == defaultSpareTables })
	ready := spareNums(t, a)
	var mu sync.Mutex
	var nums []int64
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[g%2]
			for i := range 4 {
				c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: fmt.Sprintf("c%d-%d", g, i), Properties: []byte(`{}`),
					PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				nums = append(nums, c.Num)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	slices.Sort(nums)
	if len(slices.Compact(slices.Clone(nums))) != 24 {
		t.Fatalf("container numbers %v are not 24 distinct ones", nums)
	}
	for _, n := range ready {
		if !slices.Contains(nums, n) {
			t.Errorf("spare %d was not claimed (containers: %v)", n, nums)
		}
	}
	for _, n := range nums {
		hasItemsTable(t, a, n)
	}
	for _, s := range stores {
		waitTablesSettled(t, s)
	}
	spares := spareNums(t, a)
	if len(spares) != defaultSpareTables {
		t.Fatalf("%d spare tables after the refill, want %d", len(spares), defaultSpareTables)
	}
	// Every items table is a container's or a spare's.
	if n := queryInt(t, a, `SELECT count(*) FROM pg_tables WHERE schemaname = 'cosmos' AND tablename LIKE 'items\_%'`); n != 24+defaultSpareTables {
		t.Fatalf("%d items tables, want %d", n, 24+defaultSpareTables)
	}
}

// TestSpareTablesSurviveRestart: the spares made by a store are claimed by
// the next store opened on the database, lowest number first, and the
// dropped tables it left queued are dropped by the next one.
func TestSpareTablesSurviveRestart(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	a, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := createContainer(t, a, "old", `{}`, nil)
	// A deleted container's table, queued but not yet dropped when the
	// store stops (as if it had stopped at once).
	if _, err := a.pool.Exec(ctx, `DELETE FROM cosmos.containers WHERE num = $1`, old.Num); err != nil {
		t.Fatal(err)
	}
	if _, err := a.pool.Exec(ctx, `ALTER TABLE `+itemsTable(old.Num)+` RENAME TO dropped_items_`+itoa(old.Num)+`; INSERT INTO cosmos.dropped_tables (num) VALUES (`+itoa(old.Num)+`)`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "4 spare tables", func() bool { return len(spareNums(t, a)) == defaultSpareTables })
	ready := spareNums(t, a)
	a.Close()

	b, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c := createContainer(t, b, "new", `{}`, nil)
	if c.Num != ready[0] {
		t.Fatalf("the new container has number %d, want the first spare %d (spares %v)", c.Num, ready[0], ready)
	}
	hasItemsTable(t, b, c.Num)
	waitTablesSettled(t, b)
	if tableExists(t, b, "dropped_items_"+itoa(old.Num)) {
		t.Fatal("the table queued before the restart was not dropped")
	}
	if got := spareNums(t, b); len(got) != defaultSpareTables || got[0] != ready[1] {
		t.Fatalf("spares after the claim: %v (before: %v)", got, ready)
	}
}

// TestCreateRightAfterDelete: a container deleted and created again at
// once under the same id is a new, empty container with its own table;
// the old table and its change log are dropped in the background.
func TestCreateRightAfterDelete(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	old := createContainer(t, s, "c", `{}`, nil)
	if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: old, PK: `["p"]`, ID: "a"}, Body: []byte(`{"id":"a"}`), TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContainer(ctx, "db", "c"); err != nil {
		t.Fatal(err)
	}
	c := createContainer(t, s, "c", `{}`, nil)
	if c.Num == old.Num {
		t.Fatal("the new container reuses the old number")
	}
	if _, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: `["p"]`, ID: "a", Expiry: emulator.Expiry{Now: 1}}); !emulator.IsKind(err, emulator.KindNotFound) {
		t.Fatalf("reading the old item in the new container: %v, want not found", err)
	}
	if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: "a"}, Body: []byte(`{"id":"a"}`), TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	waitTablesSettled(t, s)
	if tableExists(t, s, "items_"+itoa(old.Num)) || tableExists(t, s, "dropped_items_"+itoa(old.Num)) {
		t.Fatal("the deleted container's table is still there")
	}
	if n := queryInt(t, s, `SELECT count(*) FROM cosmos.changes WHERE coll = $1`, old.Num); n != 0 {
		t.Fatalf("%d change log entries of the deleted container left", n)
	}
}

// TestDeletedContainerAnswersNotFound: an operation that looked its
// container up before the container (or its database) was deleted gets
// 404, not a write into a table about to be dropped.
func TestDeletedContainerAnswersNotFound(t *testing.T) {
	ctx := context.Background()
	for _, whole := range []bool{false, true} {
		t.Run(fmt.Sprintf("database=%v", whole), func(t *testing.T) {
			s := openStore(t)
			c := createContainer(t, s, "c", `{}`, nil)
			var err error
			if whole {
				err = s.DeleteDatabase(ctx, "db")
			} else {
				err = s.DeleteContainer(ctx, "db", "c")
			}
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: "a"}, Body: []byte(`{"id":"a"}`), TS: 1, ETag: `"e"`})
			if !emulator.IsKind(err, emulator.KindNotFound) {
				t.Fatalf("a write through the stale container: %v, want not found", err)
			}
		})
	}
}

// TestClaimedTableServesItems: containers made from a spare table (with
// TTL and composite indexes, which are added to the spare) store items
// and log their changes like a table made for them.
func TestClaimedTableServesItems(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	waitFor(t, "4 spare tables", func() bool { return len(spareNums(t, s)) == defaultSpareTables })
	for i, tc := range []struct {
		props      string
		ttl        *int32
		expiry     int
		composites int64
	}{
		{props: `{}`},
		{props: `{}`, ttl: i32(100), expiry: 4}, // ts, (pk, ts), exp and the covering seq index
		{props: `{"indexingPolicy":{"compositeIndexes":[[{"path":"/a"},{"path":"/b","order":"descending"}]]}}`, composites: 1},
	} {
		spares := spareNums(t, s)
		c := createContainer(t, s, fmt.Sprint("c", i), tc.props, tc.ttl)
		if !slices.Contains(spares, c.Num) {
			t.Fatalf("case %d: container %d was not made from a spare (%v)", i, c.Num, spares)
		}
		if n := expiryIndexCount(t, s, c.Num); n != tc.expiry {
			t.Fatalf("case %d: %d expiry indexes, want %d", i, n, tc.expiry)
		}
		if n := queryInt(t, s, `SELECT count(*) FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 AND indexname LIKE '%\_c\_%'`, "items_"+itoa(c.Num)); n != tc.composites {
			t.Fatalf("case %d: %d composite indexes, want %d", i, n, tc.composites)
		}
		key := emulator.ItemKey{Container: c, PK: `["p"]`, ID: "a", Expiry: emulator.Expiry{Now: 2, DefaultTTL: tc.ttl}}
		if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: key, Body: []byte(`{"id":"a","v":1}`), TS: 1, ETag: `"e1"`}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReplaceItem(ctx, emulator.WriteItemParams{ItemKey: key, Body: []byte(`{"id":"a","v":2}`), TS: 2, ETag: `"e2"`}); err != nil {
			t.Fatal(err)
		}
		it, err := s.ReadItem(ctx, key)
		if err != nil || string(it.Body) != `{"id":"a","v":2}` {
			t.Fatalf("case %d: read %s, %v", i, it.Body, err)
		}
		if _, err := s.DeleteItem(ctx, key, ""); err != nil {
			t.Fatal(err)
		}
		got, _ := readSummaries(t, s, c, 0)
		if len(got) != 3 || got[0].Op != "c" || got[1].Op != "r" || got[2].Op != "d" {
			t.Fatalf("case %d: change log %+v, want create, replace, delete", i, got)
		}
	}
}

// TestMigrationMarksSparesStale: spares made before a migration are not
// claimed after it (the migrations change the containers' items tables,
// which spares are not among) but dropped, and the pool refilled; so are
// spares made by other DDL (another version of the emulator).
func TestMigrationMarksSparesStale(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	a, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "4 spare tables", func() bool { return len(spareNums(t, a)) == defaultSpareTables })
	before := spareNums(t, a)
	a.Close()
	// A spare of another emulator version, and a migration of this one.
	b, err := Open(ctx, dsn, Options{SpareTables: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(ctx, `UPDATE cosmos.spare_tables SET ddl_key = 'other' WHERE num = $1`, before[0]); err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	ms = append(ms, migration{version: 9999, name: "9999_test.sql", sql: `SELECT 1`})
	if err := applyMigrations(ctx, b.pool, ms); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, b, `SELECT count(*) FROM cosmos.spare_tables WHERE ddl_key = $1`, spareDDLKey); n != 0 {
		t.Fatalf("%d spares still claimable after a migration", n)
	}
	c := createContainer(t, b, "c", `{}`, nil) // the pool is off in b: a table of its own
	if slices.Contains(before, c.Num) {
		t.Fatalf("container %d took a stale spare", c.Num)
	}
	b.Close()

	s, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitTablesSettled(t, s)
	after := spareNums(t, s)
	for _, n := range before {
		if slices.Contains(after, n) || tableExists(t, s, "items_"+itoa(n)) {
			t.Fatalf("stale spare %d was not dropped (spares now %v)", n, after)
		}
	}
	if n := queryInt(t, s, `SELECT count(*) FROM cosmos.spare_tables WHERE ddl_key = $1`, spareDDLKey); n != defaultSpareTables {
		t.Fatalf("%d spares after the refill, want %d", n, defaultSpareTables)
	}
	c2 := createContainer(t, s, "c2", `{}`, nil)
	if !slices.Contains(after, c2.Num) {
		t.Fatalf("container %d was not made from a fresh spare (%v)", c2.Num, after)
	}
}

// catalogBytes is the size of the catalogs that making and dropping
// tables writes, with their indexes.
func catalogBytes(t testing.TB, s *Store) int64 {
	return queryInt(t, s, `SELECT sum(pg_total_relation_size(c))::bigint FROM unnest(ARRAY['pg_class', 'pg_attribute', 'pg_attrdef', 'pg_index', 'pg_depend', 'pg_type', 'pg_constraint', 'pg_trigger']::regclass[]) c`)
}

// TestCatalogCleanAfterChurn: containers created and deleted one after
// another leave the catalogs at their size once the background work has
// settled: the dropped tables' catalog rows are vacuumed and their space
// reused by the next ones. The first churn grows them (the indexes of the
// catalogs spread over the free space they need between two vacuums); a
// second churn of the same size grows them by less than half as much
// (measured: 0-25%; some runs shrink them; on a loaded server a later one
// of up to three). Without the vacuums every churn grows them by as much
// as the first.
func TestCatalogCleanAfterChurn(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	churn := func(prefix string) {
		for i := range 150 {
			id := fmt.Sprint(prefix, i)
			createContainer(t, s, id, `{}`, nil)
			if err := s.DeleteContainer(ctx, "db", id); err != nil {
				t.Fatal(err)
			}
		}
		waitTablesSettled(t, s)
	}
	createContainer(t, s, "keep", `{}`, nil)
	waitTablesSettled(t, s)
	start := catalogBytes(t, s)
	classRows := queryInt(t, s, `SELECT count(*) FROM pg_class`)
	churn("a")
	base := catalogBytes(t, s)
	// A later churn must grow them by less than half as much as the
	// first. On a loaded shared server one vacuum may find the catalogs'
	// dead rows still visible to a snapshot and remove nothing, so up to
	// three churns are tried; without the vacuums every churn grows them
	// alike and all three fail.
	prev := base
	for i, prefix := range []string{"b", "c", "d"} {
		churn(prefix)
		after := catalogBytes(t, s)
		t.Logf("catalog bytes: %d at start, %d after the first churn, %d after churn %d", start, base, after, i+2)
		if after-prev <= (base-start)/2 {
			break
		}
		if i == 2 {
			t.Fatalf("the catalogs grew by %d bytes over the first churn and by %d more over each of three more (last: %d)", base-start, after-prev, after)
		}
		prev = after
	}
	if n := queryInt(t, s, `SELECT count(*) FROM pg_class`); n != classRows {
		t.Fatalf("pg_class has %d rows after the churns, %d before", n, classRows)
	}
}

// TestChangeFeedDoesNotWaitForTableWorkers: a transaction in progress
// that cannot write this database's items (a table worker's, making a
// spare while a client writes and reads its feed, or any transaction of
// another database on the same server) does not hold the feed back, while
// any other transaction of this database does.
func TestChangeFeedDoesNotWaitForTableWorkers(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := createContainer(t, s, "c", `{}`, nil)
	other, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	for _, tc := range []struct {
		name string
		run  func(hold func(pgx.Tx) error) error
		wait bool // the feed holds the new item back
	}{
		{"table worker", func(hold func(pgx.Tx) error) error { return s.backgroundTx(ctx, hold) }, false},
		{"other database", func(hold func(pgx.Tx) error) error { return pgx.BeginFunc(ctx, other, hold) }, false},
		{"this database", func(hold func(pgx.Tx) error) error { return pgx.BeginFunc(ctx, s.pool, hold) }, true},
	} {
		started, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		hold := func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil { // takes a transaction ID
				return err
			}
			close(started)
			<-release
			return nil
		}
		go func() { done <- tc.run(hold) }()
		<-started
		id := "a " + tc.name
		if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id}, Body: []byte(`{}`), TS: 1, ETag: `"e"`}); err != nil {
			t.Fatal(err)
		}
		page, err := s.ReadChanges(ctx, emulator.ChangesParams{Container: c, Limit: 10})
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		found := slices.ContainsFunc(page.Items, func(it emulator.Item) bool { return it.ID == id })
		if found == tc.wait {
			t.Fatalf("%s: a transaction in progress: the new item on the feed: %v", tc.name, found)
		}
	}
}

// TestContainersListedInCreationOrder: a container made without a spare
// (here by a store whose pool is off) draws a number above the spares
// made earlier, so a container created after it from a spare has a lower
// number; the list is still in creation order (migration 0017).
func TestContainersListedInCreationOrder(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	pooled, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pooled.Close()
	waitFor(t, "4 spare tables", func() bool { return len(spareNums(t, pooled)) == defaultSpareTables })
	plain, err := Open(ctx, dsn, Options{SpareTables: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	first := createContainer(t, plain, "first", `{}`, nil)
	second := createContainer(t, pooled, "second", `{}`, nil)
	if second.Num > first.Num {
		t.Fatalf("second container %d claimed no spare below the first's %d", second.Num, first.Num)
	}
	_, list, err := pooled.ListContainers(ctx, "db")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != "first" || list[1].ID != "second" {
		t.Fatalf("containers listed %v, want first then second", list)
	}
}
