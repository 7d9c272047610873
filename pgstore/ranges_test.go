package pgstore

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestMigrationGivesExistingContainersOneRange: a container made before
// the partition key range catalog existed gets the one range "0" ["",
// "FF"), ranges version 1 and next range id 1.
func TestMigrationGivesExistingContainersOneRange(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var before []migration
	for _, m := range ms {
		if m.version < 26 {
			before = append(before, m)
		}
	}
	if err := applyMigrations(ctx, pool, before); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO cosmos.databases (num, id, rid, ts, etag) VALUES (1, 'olddb', $1, 1, '"e"')`, emulator.DatabaseRID(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO cosmos.containers (num, db_num, id, rid, props, pk_def, ts, etag) VALUES (2, 1, 'old', $1, '{"id":"old"}', '{"paths":["/pk"],"kind":"Hash"}', 7, '"e"')`,
		emulator.ContainerRID(1, 2)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.GetContainer(ctx, "olddb", "old")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ranges) != 1 || c.RangesVersion != 1 || c.NextRangeID != 1 {
		t.Fatalf("ranges %+v version %d next %d", c.Ranges, c.RangesVersion, c.NextRangeID)
	}
	if r := c.Ranges[0]; r.ID != "0" || r.MinInclusive != "" || r.MaxExclusive != "FF" || r.Status != emulator.RangeOnline || len(r.Parents) != 0 || r.TS != 7 {
		t.Fatalf("range %+v", r)
	}
}

// TestSplitRangesStore: a split keeps the parent's row (its id is gone,
// never reused), stores the children, bumps the version and the next id,
// and the cached container sees it at once; a plan naming a range that is
// no longer live fails with 410/1002 and changes nothing.
func TestSplitRangesStore(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	if len(c.Ranges) != 1 || c.NextRangeID != 1 {
		t.Fatalf("new container: %+v next %d", c.Ranges, c.NextRangeID)
	}
	if _, err := s.GetContainer(ctx, "db", c.ID); err != nil { // cached now
		t.Fatal(err)
	}
	split := func(parent string) error {
		_, err := s.SplitRanges(ctx, emulator.SplitRangesParams{DatabaseRef: "db", CollRef: c.ID, Plan: func(cur emulator.Container) ([]emulator.RangeSplit, error) {
			id := cur.NextRangeID
			return []emulator.RangeSplit{{ParentID: parent, Children: [2]emulator.PartitionKeyRange{
				{ID: strconv.Itoa(id), MinInclusive: "", MaxExclusive: "05C1E0", Parents: []string{parent}, RIDPrefix: id, TS: 2},
				{ID: strconv.Itoa(id + 1), MinInclusive: "05C1E0", MaxExclusive: "FF", Parents: []string{parent}, RIDPrefix: id + 1, TS: 2},
			}}}, nil
		}})
		return err
	}
	if err := split("0"); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetContainer(ctx, "db", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ranges) != 2 || got.Ranges[0].ID != "1" || got.Ranges[1].ID != "2" || got.RangesVersion != 2 || got.NextRangeID != 3 {
		t.Fatalf("after the split: %+v version %d next %d", got.Ranges, got.RangesVersion, got.NextRangeID)
	}
	var e *emulator.Error
	if err := split("0"); !errors.As(err, &e) || e.Kind != emulator.KindGone || e.SubStatus != emulator.SubStatusPartitionKeyRangeGone {
		t.Fatalf("splitting a split range: %v, want 410/1002", err)
	}
	var rows int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.partition_key_ranges WHERE coll_num = $1`, c.Num).Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("%d range rows (%v), want 3: the parent kept, its children, nothing from the refused split", rows, err)
	}
}
