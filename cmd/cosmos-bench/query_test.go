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

// TestQuerySeed seeds an items table (created by pgstore, as the emulator
// does) with querySeedSQL and runs every query of the scenario through the
// store, checking its results as the scenario does: the data really gives
// each query the same number of results at every size.
func TestQuerySeed(t *testing.T) {
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
	const now = 1_800_000_000
	for _, n := range []int{1000, 3000} {
		id := "items-" + strconv.Itoa(n)
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(`{"id":"` + id + `"}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
		if err != nil {
			t.Fatal(err)
		}
		table := "cosmos.items_" + strconv.FormatInt(c.Num, 10)
		r, err := seedQueryTable(ctx, pool, table, n, 300, now)
		if err != nil || r.Rows != int64(n) {
			t.Fatalf("%s: seeded %d rows: %v", id, r.Rows, err)
		}
		first, _ := emulator.PartitionKeyFromJSON([]any{"p0"})
		it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: first.Canonical(), ID: "item-" + strconv.Itoa(0)[:0] + zeroID(n), Expiry: emulator.Expiry{Now: now}})
		if err != nil || len(it.Body) != 300 {
			t.Fatalf("%s: first item: %d-byte body %s, %v", id, len(it.Body), it.Body, err)
		}
		for _, spec := range querySpecs() {
			for i := range 5 {
				run := spec.run(n, i)
				q, err := emulator.ParseQuery(spec.sql)
				if err != nil {
					t.Fatal(err)
				}
				p := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: now}, Query: q, Text: spec.sql,
					Params: map[string]json.RawMessage{}, Page: emulator.PageRequest{MaxItems: 1000}}
				for name, v := range run.params {
					p.Params[name], _ = json.Marshal(v)
				}
				if spec.via == viaSDKPartition {
					k, _ := emulator.PartitionKeyFromJSON([]any{run.pk})
					canon := k.Canonical()
					p.PK = &canon
				}
				page, err := s.QueryItems(ctx, p)
				if err == nil && page.Continuation != "" {
					t.Fatalf("%s: %s: more than one page", id, spec.name)
				}
				if err == nil {
					err = spec.check(n, run, page.Docs, true)
				}
				if err != nil {
					t.Fatalf("%s: %s, run %d (%+v): %v", id, spec.name, i, run, err)
				}
			}
		}
	}
}

// zeroID returns the number part of the id of item 0 in a container of n
// items.
func zeroID(n int) string {
	return strconv.Itoa(0)[:0] + func() string {
		b := make([]byte, idWidth(n))
		for i := range b {
			b[i] = '0'
		}
		return string(b)
	}()
}
