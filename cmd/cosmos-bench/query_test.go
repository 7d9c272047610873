package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestQuerySeed seeds an items table (created by pgstore, as the emulator
// does) with querySeedSQL and runs every query of the scenario through the
// store, checking its results as the scenario does: the data really gives
// each query the same number of results at every size.
func TestQuerySeed(t *testing.T) {
	ctx := context.Background()
	s, pool := newSeedStore(t)
	const now = 1_800_000_000
	for _, n := range []int{1000, 3000} {
		id := "items-" + strconv.Itoa(n)
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(`{"id":"` + id + `"}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
		if err != nil {
			t.Fatal(err)
		}
		table := "cosmos.items_" + strconv.FormatInt(c.Num, 10)
		if err := seedRows(ctx, pool, table, querySeedSQL(table, n, 300), queryPartitions, n, now); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		first, _ := emulator.PartitionKeyFromJSON([]any{"p0"})
		it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: first.Canonical(), ID: fmt.Sprintf("item-%0*d", len(strconv.Itoa(n-1)), 0), Expiry: emulator.Expiry{Now: now}})
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
				if run.pk != "" {
					k, _ := emulator.PartitionKeyFromJSON([]any{run.pk})
					canon := k.Canonical()
					p.PK = &canon
				}
				page, err := s.QueryItems(ctx, p)
				if err == nil && page.Continuation != "" {
					t.Fatalf("%s: %s: more than one page", id, spec.name)
				}
				if err == nil {
					err = spec.check(n, run, page.Docs)
				}
				if err != nil {
					t.Fatalf("%s: %s, run %d (%+v): %v", id, spec.name, i, run, err)
				}
			}
		}
	}
}

// TestRewrittenResults checks that the scenario's checks accept results in
// the shapes of the query plan's rewrites, which range-0 requests return.
func TestRewrittenResults(t *testing.T) {
	specs := map[string]querySpec{}
	for _, s := range querySpecs() {
		specs[s.name] = s
	}
	var top, groups [][]byte
	for j := range 10 {
		top = append(top, fmt.Appendf(nil, `{"_rid":"x","orderByItems":[{"item":%d}],"payload":{"id":"i","n":%d,"payload":"xx"}}`, 999-j, 999-j))
		groups = append(groups, fmt.Appendf(nil, `{"groupByItems":[{"item":"c%d"}],"payload":{"cat":"c%d","items":{"item":100}}}`, j, j))
	}
	if err := specs["ORDER BY + TOP 10, all, range 0"].check(1000, queryRun{}, top); err != nil {
		t.Error(err)
	}
	if err := specs["GROUP BY, all, range 0"].check(1000, queryRun{}, groups); err != nil {
		t.Error(err)
	}
	groups[3] = []byte(`{"groupByItems":[{"item":"c3"}],"payload":{"cat":"c3","items":{"item":99}}}`)
	if err := specs["GROUP BY, all, range 0"].check(1000, queryRun{}, groups); err == nil {
		t.Error("a wrong group count passed the check")
	}
}
