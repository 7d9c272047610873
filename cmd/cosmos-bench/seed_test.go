package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == replayProxyArg {
		// startReplayProcess runs the test binary as the proxy.
		main()
		return
	}
	os.Exit(pgtest.Main(m))
}

// TestSeeds seeds items tables created by pgstore, as the emulator's, with
// each scenario's seedSQL, and checks through the store that every row has
// the requested size and the EPK of its key, the scenario's items read back
// under their keys, and each scenario's own properties hold (TTL: live
// items, backlog, sweep; query: every query passes its check; scale: the
// partitions and the filter).
func TestSeeds(t *testing.T) {
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
	ttl := int32(ttlDefaultTTL)
	tc := ttlConfig{items: 3000, live: 300, partitions: 30, size: 300}
	query := func(c emulator.Container, sql, pk string, params map[string]any) ([][]byte, error) {
		q, err := emulator.ParseQuery(sql)
		if err != nil {
			return nil, err
		}
		p := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: now, DefaultTTL: c.DefaultTTL}, Query: q, Text: sql, Params: map[string]json.RawMessage{}, Page: emulator.PageRequest{MaxItems: 1000}}
		for name, v := range params {
			p.Params[name], _ = json.Marshal(v)
		}
		if pk != "" {
			k, _ := emulator.PartitionKeyFromJSON([]any{pk})
			canon := k.Canonical()
			p.PK = &canon
		}
		page, err := s.QueryItems(ctx, p)
		if err == nil && page.Continuation != "" {
			err = fmt.Errorf("%s: more than one page", sql)
		}
		return page.Docs, err
	}
	for _, c := range []struct {
		name            string
		ttl             *int32
		rows, size, pks int
		sql             func(table string) string
		key             func(i int) (id, pk string) // items that must be readable
		check           func(t *testing.T, c emulator.Container, table string)
	}{
		{"ttl", &ttl, tc.items, tc.size, tc.partitions, func(table string) string { return ttlSeedSQL(tc, table, "all") },
			func(j int) (string, string) { return ttlKey(tc, j%tc.live) },
			func(t *testing.T, c emulator.Container, table string) {
				e := emulator.Expiry{Now: now, DefaultTTL: &ttl}
				if st, err := s.CountItems(ctx, c, e); err != nil || st.StoredRows != int64(tc.items) || st.LiveItems != int64(tc.live) {
					t.Fatalf("%+v, %v: want %d stored, %d live", st, err, tc.items, tc.live)
				}
				if docs, err := query(c, "SELECT VALUE COUNT(1) FROM c", "p0", nil); err != nil || string(docs[0]) != strconv.Itoa(tc.live/tc.partitions) {
					t.Fatalf("live items in p0: %s, %v", docs, err)
				}
				// Reseeding the expired rows after a sweep restores the backlog.
				if n, err := s.DeleteExpired(ctx, now, 10*tc.items); err != nil || n != tc.items-tc.live {
					t.Fatalf("the store's sweep deleted %d rows (%v), want %d", n, err, tc.items-tc.live)
				}
				if err := seedRows(ctx, pool, table, ttlSeedSQL(tc, table, "expired"), tc.partitions, tc.items-tc.live, now); err != nil {
					t.Fatal(err)
				}
			}},
		{"query", nil, 3000, 300, queryPartitions, func(table string) string { return querySeedSQL(table, 3000, 300) },
			func(i int) (string, string) {
				return fmt.Sprintf("item-%04d", i), "p" + strconv.Itoa(i%queryPartitions)
			},
			func(t *testing.T, c emulator.Container, _ string) {
				for _, spec := range querySpecs() {
					for i := range 5 {
						r := spec.run(3000, i)
						docs, err := query(c, spec.sql, r.pk, r.params)
						if err == nil {
							err = spec.check(3000, r, docs)
						}
						if err != nil {
							t.Fatalf("%s, run %d (%+v): %v", spec.name, i, r, err)
						}
					}
				}
			}},
		{"scale", nil, 3000, 1024, 30, func(table string) string { return scaleSeedSQL(table, 3000, 1024) },
			func(g int) (string, string) { return scaleKey(3000, g) },
			func(t *testing.T, c emulator.Container, _ string) {
				for _, pk := range []string{"p0", "p29"} {
					if docs, err := query(c, "SELECT * FROM c WHERE c.pk = @pk AND c.n >= 90", pk, map[string]any{"@pk": pk}); err != nil || len(docs) != 10 {
						t.Fatalf("filter query in %s: %d results, want 10: %v", pk, len(docs), err)
					}
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ct, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: c.name, Properties: []byte(`{"id":"` + c.name + `"}`),
				PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, DefaultTTL: c.ttl, TS: 1, ETag: `"e"`})
			if err != nil {
				t.Fatal(err)
			}
			table := "cosmos.items_" + strconv.FormatInt(ct.Num, 10)
			if err := seedRows(ctx, pool, table, c.sql(table), c.pks, c.rows, now); err != nil {
				t.Fatal(err)
			}
			var sizes, keys, badEPK int
			if err := pool.QueryRow(ctx, `SELECT count(DISTINCT length(body)), count(DISTINCT pk), count(*) FILTER (WHERE epk IS NULL OR epk = '') FROM `+table).Scan(&sizes, &keys, &badEPK); err != nil {
				t.Fatal(err)
			}
			var pk, epk string
			if err := pool.QueryRow(ctx, `SELECT pk, epk FROM `+table+` LIMIT 1`).Scan(&pk, &epk); err != nil || epk != emulator.CanonicalEPK(ct.PartitionKey, pk) {
				t.Fatalf("key %s stored with epk %q, want %q (%v)", pk, epk, emulator.CanonicalEPK(ct.PartitionKey, pk), err)
			}
			if sizes != 1 || keys != c.pks || badEPK != 0 {
				t.Fatalf("%d body sizes, %d keys, %d rows without an EPK; want 1, %d, 0", sizes, keys, badEPK, c.pks)
			}
			e := emulator.Expiry{Now: now, DefaultTTL: c.ttl}
			for _, i := range []int{0, 1, c.rows/2 + 7, c.rows - 1} {
				id, pkv := c.key(i)
				k, _ := emulator.PartitionKeyFromJSON([]any{pkv})
				it, err := s.ReadItem(ctx, emulator.ItemKey{Container: ct, PK: k.Canonical(), ID: id, Expiry: e})
				var doc struct{ ID, PK string }
				if err != nil || len(it.Body) != c.size || json.Unmarshal(it.Body, &doc) != nil || doc.ID != id || doc.PK != pkv {
					t.Fatalf("item %d (%s in %s): %.100s, %v", i, id, pkv, it.Body, err)
				}
			}
			c.check(t, ct, table)
		})
	}
}

// TestRewrittenResults: the query scenario's checks accept results in the
// shapes of the query plan's rewrites, which range-0 requests return, and
// still catch a wrong count in them.
func TestRewrittenResults(t *testing.T) {
	specs := map[string]querySpec{}
	for _, s := range querySpecs() {
		specs[s.name] = s
	}
	var top, groups [][]byte
	for j := range 10 {
		top = append(top, fmt.Appendf(nil, `{"_rid":"x","orderByItems":[{"item":%d}],"payload":{"id":"i","n":%d}}`, 999-j, 999-j))
		groups = append(groups, fmt.Appendf(nil, `{"groupByItems":[{"item":"c%d"}],"payload":{"cat":"c%d","items":{"item":100}}}`, j, j))
	}
	for _, c := range []struct {
		spec string
		docs [][]byte
		ok   bool
	}{
		{"ORDER BY + TOP 10, all, range 0", top, true},
		{"GROUP BY, all, range 0", groups, true},
		{"GROUP BY, all, range 0", append(groups[:3:3], append([][]byte{[]byte(`{"groupByItems":[{"item":"c3"}],"payload":{"cat":"c3","items":{"item":99}}}`)}, groups[4:]...)...), false},
		{"ORDER BY + TOP 10, all, range 0", append(top[1:2:2], top[1:]...), false},
	} {
		if err := specs[c.spec].check(1000, queryRun{}, c.docs); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok %v", c.spec, err, c.ok)
		}
	}
}
