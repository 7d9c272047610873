package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// pointRange is the EPK range that holds exactly epk: no other hex string
// lies in [epk, epk+"0").
func pointRange(epk string) *emulator.EPKRange {
	return &emulator.EPKRange{Min: epk, Max: epk + "0"}
}

// newDefContainer creates container id with partition key definition def
// (and defaultTtl ttl).
func newDefContainer(t testing.TB, s *Store, id string, def emulator.PartitionKeyDefinition, ttl *int32) emulator.Container {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil && !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatal(err)
	}
	c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(`{"id":"` + id + `"}`),
		PartitionKey: def, DefaultTTL: ttl, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// storedEPKs returns the epk column of container c's rows and change-log
// entries: "<kind> <canonical pk> <id>" -> epk ("<NULL>" for NULL).
func storedEPKs(t testing.TB, s *Store, c emulator.Container) map[string]string {
	t.Helper()
	out := map[string]string{}
	rows, err := s.pool.Query(context.Background(), `SELECT 'row', pk, id, coalesce(epk, '<NULL>') FROM `+itemsTable(c.Num)+`
UNION ALL SELECT 'log ' || op::text || ' ' || seq, pk, id, coalesce(epk, '<NULL>') FROM cosmos.changes WHERE coll = $1`, c.Num)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, pk, id, epk string
		if err := rows.Scan(&kind, &pk, &id, &epk); err != nil {
			t.Fatal(err)
		}
		out[kind+" "+pk+" "+id] = epk
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEPKStoredOnEveryWritePath: every statement that writes an item (a
// single create, upsert of a new and of an existing item, replace, a
// create over an expired item, a batch's single statements and its
// multi-row create, bulk) stores emulator.EffectivePartitionKey of the
// item's key in the epk column, for hash V1, V2, MultiHash and the system
// key; the change log's entries (deletes and the sweeper's purges
// included) carry the same EPK.
func TestEPKStoredOnEveryWritePath(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	defs := []struct {
		name string
		def  emulator.PartitionKeyDefinition
		keys []emulator.PartitionKey
	}{
		{"V1", emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"},
			[]emulator.PartitionKey{{"redmond"}, {5.0}, {true}, {nil}, {emulator.Undefined}}},
		{"V2", emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2},
			[]emulator.PartitionKey{{"redmond"}, {5.0}, {false}, {nil}, {emulator.Undefined}}},
		{"MultiHash", emulator.PartitionKeyDefinition{Paths: []string{"/a", "/b"}, Kind: "MultiHash", Version: 2},
			[]emulator.PartitionKey{{"redmond", 5.0}, {"tenant1", "user1"}, {emulator.Undefined, emulator.Undefined}}},
		{"system key", emulator.SystemPartitionKey,
			[]emulator.PartitionKey{{emulator.Undefined}, {"x"}}},
	}
	for _, d := range defs {
		t.Run(d.name, func(t *testing.T) {
			ttl := int32(-1) // TTL on (nothing expires by default): the sweep and the overwrite of an expired item
			c := newDefContainer(t, s, "c-"+strings.ReplaceAll(d.name, " ", "-"), d.def, &ttl)
			want := map[string]string{} // canonical pk -> EPK
			for _, k := range d.keys {
				want[k.Canonical()] = emulator.EffectivePartitionKey(d.def, k)
			}
			now := emulator.Expiry{Now: 100, DefaultTTL: &ttl}
			params := func(k emulator.PartitionKey, id string, itemTTL *int32) emulator.WriteItemParams {
				return emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: k.Canonical(), ID: id, Expiry: now},
					Body: []byte(`{"id":"` + id + `"}`), TTL: itemTTL, TS: 100, ETag: `"` + id + `"`}
			}
			for i, k := range d.keys {
				id := func(path string) string { return path + "-" + strconv.Itoa(i) }
				if _, err := s.CreateItem(ctx, params(k, id("create"), nil)); err != nil {
					t.Fatal(err)
				}
				if _, _, err := s.UpsertItem(ctx, params(k, id("upsert-new"), nil)); err != nil {
					t.Fatal(err)
				}
				if _, _, err := s.UpsertItem(ctx, params(k, id("create"), nil)); err != nil {
					t.Fatal(err)
				}
				if _, err := s.CreateItem(ctx, params(k, id("replace"), nil)); err != nil {
					t.Fatal(err)
				}
				if _, err := s.ReplaceItem(ctx, params(k, id("replace"), nil)); err != nil {
					t.Fatal(err)
				}
				// written at 100 with ttl 1: expired at 200, then created anew
				if _, err := s.CreateItem(ctx, params(k, id("expired"), i32(1))); err != nil {
					t.Fatal(err)
				}
				again := params(k, id("expired"), nil)
				again.Expiry.Now = 200
				if _, err := s.CreateItem(ctx, again); err != nil {
					t.Fatal(err)
				}
				// a transactional batch: single statements and a run of creates
				runTx(t, s, emulator.TxOptions{SharedLSN: true},
					emulator.ItemOp{Op: emulator.BatchCreate, Params: params(k, id("batch-run-a"), nil)},
					emulator.ItemOp{Op: emulator.BatchCreate, Params: params(k, id("batch-run-b"), nil)},
					emulator.ItemOp{Op: emulator.BatchUpsert, Params: params(k, id("batch-upsert"), nil)},
					emulator.ItemOp{Op: emulator.BatchReplace, Params: params(k, id("create"), nil)})
				err := s.InItemTx(ctx, emulator.TxOptions{SharedLSN: true}, func(st emulator.ItemTx) error {
					if _, err := st.CreateItem(ctx, params(k, id("batch-one"), nil)); err != nil {
						return err
					}
					_, _, err := st.UpsertItem(ctx, params(k, id("batch-one"), nil))
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				// bulk: the same statements, one LSN each
				runTx(t, s, emulator.TxOptions{},
					emulator.ItemOp{Op: emulator.BatchCreate, Params: params(k, id("bulk-a"), nil)},
					emulator.ItemOp{Op: emulator.BatchCreate, Params: params(k, id("bulk-b"), nil)})
				// a delete, and a purge by the sweeper
				if _, err := s.DeleteItem(ctx, params(k, id("upsert-new"), nil).ItemKey, ""); err != nil {
					t.Fatal(err)
				}
				if _, err := s.CreateItem(ctx, params(k, id("swept"), i32(1))); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.DeleteExpired(ctx, 1000, 1000); err != nil {
				t.Fatal(err)
			}
			got := storedEPKs(t, s, c)
			kinds := map[string]int{}
			for k, epk := range got {
				kind, rest, _ := strings.Cut(k, " ")
				if kind == "log" {
					op, rest2, _ := strings.Cut(rest, " ")
					_, rest, _ = strings.Cut(rest2, " ")
					kind += " " + op
				}
				kinds[kind]++
				pk := rest[:strings.LastIndexByte(rest, ' ')]
				if epk != want[pk] {
					t.Errorf("%s: epk %s, want %s", k, epk, want[pk])
				}
			}
			// every kind of entry was checked: rows, creates, replaces, deletes
			for _, k := range []string{"row", "log c", "log r", "log d"} {
				if kinds[k] == 0 {
					t.Errorf("no %q checked (%v)", k, kinds)
				}
			}
			t.Logf("checked %v", kinds)
		})
	}
}

// epkDocs creates n items in c, spread over 40 logical partitions (string
// keys for one path, two components for MultiHash), each with a tags
// array, and returns id -> EPK as emulator.EffectivePartitionKey computes
// it.
func epkDocs(t *testing.T, s *Store, c emulator.Container, n int) map[string]string {
	t.Helper()
	out := map[string]string{}
	var ops []emulator.ItemOp
	for i := range n {
		id := "id" + strconv.Itoa(i)
		var k emulator.PartitionKey
		var body string
		if len(c.PartitionKey.Paths) == 2 {
			k = emulator.PartitionKey{"t" + strconv.Itoa(i%8), "u" + strconv.Itoa(i%5)}
			body = fmt.Sprintf(`{"id":%q,"a":%q,"b":%q,"n":%d,"tags":["x","y"]}`, id, k[0], k[1], i)
		} else {
			k = emulator.PartitionKey{"p" + strconv.Itoa(i%40)}
			body = fmt.Sprintf(`{"id":%q,"pk":%q,"n":%d,"tags":["x","y"]}`, id, k[0], i)
		}
		out[id] = emulator.EffectivePartitionKey(c.PartitionKey, k)
		ops = append(ops, emulator.ItemOp{Op: emulator.BatchCreate, Params: emulator.WriteItemParams{
			ItemKey: emulator.ItemKey{Container: c, PK: k.Canonical(), ID: id}, Body: []byte(body), TS: 1, ETag: `"e"`}})
	}
	for len(ops) > 0 {
		m := min(len(ops), 100)
		runTx(t, s, emulator.TxOptions{}, ops[:m]...)
		ops = ops[m:]
	}
	return out
}

// idsIn returns the sorted ids whose EPK lies in r (all of them when r is
// nil), its bounds compared in upper case as stored EPKs are.
func idsIn(epks map[string]string, r *emulator.EPKRange) []string {
	var out []string
	for id, e := range epks {
		if r == nil || (emulator.EPKRange{Min: strings.ToUpper(r.Min), Max: strings.ToUpper(r.Max)}).Contains(e) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// epkRanges returns ranges over the EPKs of epks: cut at sorted EPK
// positions, one key exactly, an empty sub-range, the whole space, open
// ends and lower-case bounds.
func epkRanges(epks map[string]string) map[string]*emulator.EPKRange {
	var sorted []string
	for _, e := range epks {
		sorted = append(sorted, e)
	}
	sort.Strings(sorted)
	sorted = slices.Compact(sorted)
	q := func(f float64) string { return sorted[int(f*float64(len(sorted)-1))] }
	return map[string]*emulator.EPKRange{
		"none":              nil,
		"full":              {Min: "", Max: "FF"},
		"first quarter":     {Min: "", Max: q(0.25)},
		"middle":            {Min: q(0.3), Max: q(0.7)},
		"to the end":        {Min: q(0.6), Max: ""},
		"to FF":             {Min: q(0.8), Max: "FF"},
		"one key":           pointRange(q(0.5)),
		"lower-case bounds": {Min: strings.ToLower(q(0.2)), Max: strings.ToLower(q(0.9))},
		"empty sub-range":   {Min: q(0.5) + "0", Max: q(0.5) + "00"},
	}
}

// TestEPKRangeFilters: a query of every shape (documents, projection,
// ORDER BY, aggregates, GROUP BY, DISTINCT, JOIN, a subquery in FROM, a
// UDF), the read feed, the latest-version change feed and the
// all-versions feed, confined to an EPK range, return exactly the items
// whose EPK (computed by the test) lies in it, across pages; for hash V1,
// V2 and MultiHash.
func TestEPKRangeFilters(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for _, d := range []struct {
		name string
		def  emulator.PartitionKeyDefinition
	}{
		{"V1", emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}},
		{"V2", emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}},
		{"MultiHash", emulator.PartitionKeyDefinition{Paths: []string{"/a", "/b"}, Kind: "MultiHash", Version: 2}},
	} {
		t.Run(d.name, func(t *testing.T) {
			c := newDefContainer(t, s, "f-"+d.name, d.def, nil)
			epks := epkDocs(t, s, c, 300)
			for name, r := range epkRanges(epks) {
				t.Run(name, func(t *testing.T) {
					want := idsIn(epks, r)
					if name == "empty sub-range" && len(want) != 0 {
						t.Fatalf("the empty sub-range holds %v", want)
					}
					count := func(ids []string) []string { return []string{strconv.Itoa(len(ids))} }
					groups := func(ids []string) []string {
						// GROUP BY c.n % 3: the counts per group
						n := map[int]int{}
						for _, id := range ids {
							v, _ := strconv.Atoi(strings.TrimPrefix(id, "id"))
							n[v%3]++
						}
						var out []string
						for g := range 3 {
							if n[g] > 0 {
								out = append(out, fmt.Sprintf(`{"g":%d,"n":%d}`, g, n[g]))
							}
						}
						return out
					}
					twice := func(ids []string) []string { return slices.Sorted(slices.Values(append(slices.Clone(ids), ids...))) }
					for _, qc := range []struct {
						name, text string
						want       func([]string) []string // from the ids in range
						sorted     bool                    // compare sorted results
						udf        bool
					}{
						{"documents", `SELECT * FROM c`, nil, true, false},
						{"ORDER BY", `SELECT VALUE c.id FROM c ORDER BY c.id`, nil, false, false},
						{"COUNT", `SELECT VALUE COUNT(1) FROM c`, count, false, false},
						{"GROUP BY", `SELECT c.n % 3 AS g, COUNT(1) AS n FROM c GROUP BY c.n % 3`, groups, true, false},
						{"DISTINCT", `SELECT DISTINCT VALUE c.id FROM c`, nil, true, false},
						{"JOIN", `SELECT VALUE c.id FROM c JOIN t IN c.tags`, twice, true, false},
						{"subquery in FROM", `SELECT VALUE s.id FROM (SELECT c.id FROM c) s`, nil, true, false},
						{"UDF", `SELECT VALUE udf.id(c.id) FROM c`, nil, true, true},
					} {
						t.Run(qc.name, func(t *testing.T) {
							p := emulator.QueryItemsParams{Container: c, Text: qc.text, EPK: r, Page: emulator.PageRequest{MaxItems: 37}}
							if qc.udf {
								p.UDFs = newJSUDFs(t, testUDFs)
							}
							docs, pages := drainQuery(t, s, p)
							var got []string
							for _, doc := range docs {
								var v struct {
									ID  string `json:"id"`
									RID string `json:"_rid"`
								}
								if json.Unmarshal([]byte(doc), &v) == nil && v.RID != "" {
									got = append(got, v.ID) // a document
								} else {
									got = append(got, strings.Trim(doc, `"`))
								}
							}
							w := want
							if qc.want != nil {
								w = qc.want(want)
							}
							if qc.sorted {
								sort.Strings(got)
								sort.Strings(w)
							}
							if !slices.Equal(got, w) {
								t.Fatalf("%d results in %d pages, want %d:\n%v\nwant\n%v", len(got), pages, len(w), got, w)
							}
						})
					}
					t.Run("read feed", func(t *testing.T) {
						var got []string
						p := emulator.ReadItemsParams{Container: c, EPK: r, Limit: 37}
						for range 100 {
							items, err := s.ReadItems(ctx, p)
							if err != nil {
								t.Fatal(err)
							}
							for _, it := range items {
								got = append(got, it.ID)
							}
							if len(items) < p.Limit {
								break
							}
							p.AfterSeq = items[len(items)-1].Seq
						}
						sort.Strings(got)
						if !slices.Equal(got, want) {
							t.Fatalf("%d items, want %d", len(got), len(want))
						}
					})
					t.Run("change feed", func(t *testing.T) {
						var got []string
						p := emulator.ChangesParams{Container: c, EPK: r, Limit: 37}
						for range 100 {
							page, err := s.ReadChanges(ctx, p)
							if err != nil {
								t.Fatal(err)
							}
							for _, it := range page.Items {
								got = append(got, it.ID)
							}
							if page.Exhausted && len(page.Items) == 0 {
								break
							}
							p.AfterLSN = max(p.AfterLSN, page.LastLSN)
						}
						sort.Strings(got)
						if !slices.Equal(got, want) {
							t.Fatalf("%d items, want %d", len(got), len(want))
						}
					})
					t.Run("all versions feed", func(t *testing.T) {
						var got []string
						p := emulator.ReadChangeLogParams{Container: c, EPK: r, Limit: 37}
						for range 100 {
							page, err := s.ReadChangeLog(ctx, p)
							if err != nil {
								t.Fatal(err)
							}
							for _, ch := range page.Changes {
								got = append(got, ch.ID)
							}
							if len(page.Changes) == 0 {
								break
							}
							p.AfterSeq = max(p.AfterSeq, page.ScannedTo)
						}
						sort.Strings(got)
						if !slices.Equal(got, want) {
							t.Fatalf("%d entries, want %d", len(got), len(want))
						}
					})
				})
			}
		})
	}
}

// TestEPKBackfill: a data directory from before the epk column (the
// column dropped, its index and the change log's column too, migration
// 0025 not recorded) gets the column from the migration without a table
// rewrite; opening the store is not held up by the fill; a request that
// filters by EPK before the background fill ran fills the container first
// and gets exact results; the background fill fills every row and entry
// (in several batches) without logging changes, builds the index and
// empties the queue.
func TestEPKBackfill(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	s, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close) // closed below already: Close may be called again
	def := emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	var cs []emulator.Container
	var epks []map[string]string
	for i := range 2 {
		c := newDefContainer(t, s, "old"+strconv.Itoa(i), def, nil)
		cs = append(cs, c)
		epks = append(epks, epkDocs(t, s, c, 2*epkFillBatch+300))
	}
	logged := func(st *Store, c emulator.Container) int {
		var n int
		if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.changes WHERE coll = $1`, c.Num).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := logged(s, cs[0])
	// As before migration 0025.
	old := `DROP TABLE cosmos.epk_backfill; ALTER TABLE cosmos.changes DROP COLUMN epk; DELETE FROM cosmos.schema_migrations WHERE version = 25;`
	for _, c := range cs {
		old += `ALTER TABLE ` + itemsTable(c.Num) + ` DROP COLUMN epk;`
	}
	if _, err := s.pool.Exec(ctx, old); err != nil {
		t.Fatal(err)
	}
	s.Close()
	nulls := func(st *Store, c emulator.Container) (rows, entries int) {
		if err := st.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+itemsTable(c.Num)+` WHERE epk IS NULL), (SELECT count(*) FROM cosmos.changes WHERE coll = $1 AND epk IS NULL)`, c.Num).Scan(&rows, &entries); err != nil {
			t.Fatal(err)
		}
		return rows, entries
	}
	indexed := func(st *Store, c emulator.Container) bool {
		var ok bool
		if err := st.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, "cosmos.items_"+strconv.FormatInt(c.Num, 10)+"_epk").Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}

	t.Run("first need", func(t *testing.T) {
		defer func(b bool) { epkFillInBackground = b }(epkFillInBackground)
		epkFillInBackground = false
		start := time.Now()
		st, err := Open(ctx, dsn, Options{}) // migrates
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		t.Logf("open with migration 0025 over %d rows: %v", 2*(2*epkFillBatch+300), time.Since(start))
		c := cs[0]
		if r, e := nulls(st, c); r != 2*epkFillBatch+300 || e == 0 || indexed(st, c) {
			t.Fatalf("after the migration: %d rows and %d entries without epk, index %v", r, e, indexed(st, c))
		}
		rng := epkRanges(epks[0])["middle"]
		start = time.Now()
		items, err := st.ReadItems(ctx, emulator.ReadItemsParams{Container: c, EPK: rng, Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("first filtered read (fills %d rows and their entries): %v", 2*epkFillBatch+300, time.Since(start))
		var got []string
		for _, it := range items {
			got = append(got, it.ID)
		}
		sort.Strings(got)
		if want := idsIn(epks[0], rng); !slices.Equal(got, want) {
			t.Fatalf("%d items, want %d", len(got), len(want))
		}
		if r, e := nulls(st, c); r != 0 || e != 0 || !indexed(st, c) {
			t.Fatalf("after the first filtered read: %d rows and %d entries without epk, index %v", r, e, indexed(st, c))
		}
		// the other container still waits for its fill
		if r, _ := nulls(st, cs[1]); r == 0 {
			t.Fatal("the other container was filled too")
		}
	})
	t.Run("background", func(t *testing.T) {
		st, err := Open(ctx, dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		c := cs[1]
		start := time.Now()
		for {
			var queued int
			if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.epk_backfill`).Scan(&queued); err != nil {
				t.Fatal(err)
			}
			if queued == 0 {
				break
			}
			if time.Since(start) > time.Minute {
				t.Fatal("the background fill did not end in a minute")
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("background fill of %d rows: %v", 2*epkFillBatch+300, time.Since(start))
		if r, e := nulls(st, c); r != 0 || e != 0 || !indexed(st, c) {
			t.Fatalf("after the background fill: %d rows and %d entries without epk, index %v", r, e, indexed(st, c))
		}
		for i, cc := range cs {
			for k, epk := range storedEPKs(t, st, cc) {
				id := k[strings.LastIndexByte(k, ' ')+1:]
				if want := epks[i][id]; epk != want {
					t.Fatalf("%s: epk %s, want %s", k, epk, want)
				}
			}
		}
		if n := logged(st, cs[0]); n != before {
			t.Fatalf("the fill logged changes: %d entries, were %d", n, before)
		}
		// written after the fill, still right
		got := runTx(t, st, emulator.TxOptions{}, emulator.ItemOp{Op: emulator.BatchUpsert, Params: emulator.WriteItemParams{
			ItemKey: emulator.ItemKey{Container: c, PK: `["p1"]`, ID: "id1"}, Body: []byte(`{"id":"id1","pk":"p1"}`), TS: 2, ETag: `"f"`}})
		if got[0].Err != nil {
			t.Fatal(got[0].Err)
		}
	})
}

// BenchmarkEPKRangeQuery measures queries over a container of 10,000 items
// (hash V2, 1,000 logical partitions) unfiltered and confined to a quarter
// and a sixteenth of the EPK space (V2 keys lie in ["", "40")): the first
// page of SELECT * (100 items), a COUNT over every item in range, and a
// read feed page.
//
//	go test -run '^$' -bench BenchmarkEPKRangeQuery -benchtime 200x ./pgstore/
func BenchmarkEPKRangeQuery(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	c := newDefContainer(b, s, "bench", emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}, nil)
	const n = 10000
	for from := 0; from < n; from += 500 {
		err := s.InItemTx(ctx, emulator.TxOptions{}, func(st emulator.ItemTx) error {
			var ops []emulator.ItemOp
			for i := from; i < from+500; i++ {
				id, pk := "id"+strconv.Itoa(i), "p"+strconv.Itoa(i%1000)
				ops = append(ops, emulator.ItemOp{Op: emulator.BatchCreate, Params: emulator.WriteItemParams{
					ItemKey: emulator.ItemKey{Container: c, PK: emulator.PartitionKey{pk}.Canonical(), ID: id},
					Body:    []byte(fmt.Sprintf(`{"id":%q,"pk":%q,"n":%d,"pad":"%s"}`, id, pk, i, strings.Repeat("x", 200))), TS: 1, ETag: `"e"`}})
			}
			_, err := st.RunItemOps(ctx, ops)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		epk  *emulator.EPKRange
	}{{"all", nil}, {"quarter", &emulator.EPKRange{Min: "10", Max: "20"}}, {"sixteenth", &emulator.EPKRange{Min: "20", Max: "24"}}} {
		for _, q := range []string{"SELECT * FROM c", "SELECT VALUE COUNT(1) FROM c"} {
			parsed, err := emulator.ParseQuery(q)
			if err != nil {
				b.Fatal(err)
			}
			name := "page"
			if strings.Contains(q, "COUNT") {
				name = "count"
			}
			b.Run(name+"/"+r.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					page, err := s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Query: parsed, Text: q, EPK: r.epk, Page: emulator.PageRequest{MaxItems: 100}})
					if err != nil || len(page.Docs) == 0 {
						b.Fatal(err, len(page.Docs))
					}
				}
			})
		}
		b.Run("feed/"+r.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				items, err := s.ReadItems(ctx, emulator.ReadItemsParams{Container: c, EPK: r.epk, Limit: 100})
				if err != nil || len(items) != 100 {
					b.Fatal(err, len(items))
				}
			}
		})
	}
}
