package main

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestScaleSeed seeds items tables (created by pgstore, as the emulator
// does) with scaleSeedSQL and checks what the scale scenario relies on:
// every item has a body of exactly the requested size whose id and
// partition key are the ones scaleKey gives, each partition holds
// scalePerPartition items, and the filter query returns the same number of
// results in every partition at every size.
func TestScaleSeed(t *testing.T) {
	ctx := context.Background()
	s, pool := newSeedStore(t)
	const now, size = 1_800_000_000, 1024
	q, err := emulator.ParseQuery("SELECT * FROM c WHERE c.pk = @pk AND c.n >= @x")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1000, 3000} {
		id := "scale-" + strconv.Itoa(n)
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(`{"id":"` + id + `"}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
		if err != nil {
			t.Fatal(err)
		}
		table := "cosmos.items_" + strconv.FormatInt(c.Num, 10)
		if err := seedRows(ctx, pool, table, scaleSeedSQL(table, n, size), n/scalePerPartition, n, now); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var sizes, partitions, perPartition int
		if err := pool.QueryRow(ctx, `SELECT count(DISTINCT length(body)), count(DISTINCT pk), max(c) FROM `+table+`, LATERAL (SELECT count(*) AS c FROM `+table+` x WHERE x.pk = `+table+`.pk) z`).Scan(&sizes, &partitions, &perPartition); err != nil {
			t.Fatal(err)
		}
		if sizes != 1 || partitions != n/scalePerPartition || perPartition != scalePerPartition {
			t.Fatalf("%s: %d body sizes, %d partitions of at most %d items; want 1, %d of %d", id, sizes, partitions, perPartition, n/scalePerPartition, scalePerPartition)
		}
		for _, g := range []int{0, 1, n/2 + 7, n - 1} {
			itemID, pkv := scaleKey(n, g)
			k, _ := emulator.PartitionKeyFromJSON([]any{pkv})
			it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: k.Canonical(), ID: itemID, Expiry: emulator.Expiry{Now: now}})
			if err != nil {
				t.Fatalf("%s: item %d (%s in %s): %v", id, g, itemID, pkv, err)
			}
			var doc struct {
				ID, PK string
				N      int
			}
			if len(it.Body) != size || json.Unmarshal(it.Body, &doc) != nil || doc.ID != itemID || doc.PK != pkv || doc.N != g/(n/scalePerPartition) {
				t.Fatalf("%s: item %d: %d-byte body %.80s", id, g, len(it.Body), it.Body)
			}
		}
		for _, p := range []int{0, n/scalePerPartition - 1} {
			pkv := "p" + strconv.Itoa(p)
			k, _ := emulator.PartitionKeyFromJSON([]any{pkv})
			canon := k.Canonical()
			page, err := s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: now}, Query: q, Text: "filter", PK: &canon,
				Params: map[string]json.RawMessage{"@pk": json.RawMessage(strconv.Quote(pkv)), "@x": json.RawMessage("90")},
				Page:   emulator.PageRequest{MaxItems: 1000}})
			if err != nil || len(page.Docs) != 10 {
				t.Fatalf("%s: filter query in %s: %d results, want %d: %v", id, pkv, len(page.Docs), 10, err)
			}
		}
	}
}

// newSeedStore opens a store on a fresh PostgreSQL database (pgtest) with a
// database "db", and a pgx pool on it for the seeding SQL; both close when
// the test ends.
func newSeedStore(t *testing.T) (*pgstore.Store, *pgxpool.Pool) {
	ctx := context.Background()
	conn := pgtest.NewDatabase(t)
	s, err := pgstore.Open(ctx, conn, pgstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	pool, err := pgxpool.New(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	return s, pool
}
