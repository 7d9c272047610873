package pgstore

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// TestQueryPushdownUsesIndexes asserts with EXPLAIN that, on a container of
// 100,000 items with the default indexing policy, an equality filter, a
// range filter and an ORDER BY on document paths are served by indexes
// (the path indexes the first such query creates).
func TestQueryPushdownUsesIndexes(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	c.Properties = []byte(`{"indexingPolicy":{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"},{"path":"/secret/*"}]}}`)
	c.Def, _ = emulator.ParseContainerDefinition(c.Properties)
	_, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 100) || '"]', 'id' || g, g,
       '{"id":"id' || g || '","pk":"p' || (g % 100) || '","n":' || g || ',"s":"s' || lpad(g::text, 6, '0') || '","nested":{"v":' || (g % 1000) || '},"secret":{"x":' || g || '}}',
       1000, NULL, '"e"', g, ''
FROM generate_series(1, 100000) g`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
		t.Fatal(err)
	}
	plan := func(query string) string {
		q, err := emulator.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		qp := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: query, Page: emulator.PageRequest{MaxItems: 100}}
		st, err := s.translateQuery(ctx, qp, nil)
		if err == nil {
			err = s.ensureQueryIndexes(ctx, qp, st)
		}
		if err != nil {
			t.Fatal(err)
		}
		// the index was just created: let the planner see it
		if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
			t.Fatal(err)
		}
		rows, err := s.pool.Query(ctx, `EXPLAIN `+st.SQL, st.Args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var l string
			_ = rows.Scan(&l)
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n")
	}
	tests := []struct {
		name, query string
		indexed     bool
	}{
		{"equality filter", `SELECT * FROM c WHERE c.n = 500`, true},
		{"equality on a nested path with a parameter-free string", `SELECT * FROM c WHERE c.s = "s000500"`, true},
		{"range filter", `SELECT * FROM c WHERE c.n > 99900`, true},
		{"range on a nested path", `SELECT VALUE c.id FROM c WHERE c.nested.v >= 998 AND c.nested.v <= 999`, true},
		{"ORDER BY with TOP", `SELECT TOP 10 * FROM c ORDER BY c.n DESC`, true},
		{"excluded path is not indexed", `SELECT * FROM c WHERE c.secret.x = 5`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(tt.query)
			usesPathIndex := strings.Contains(p, "_p_")
			if usesPathIndex != tt.indexed || (tt.indexed && strings.Contains(p, "Seq Scan")) {
				t.Fatalf("%s: index used = %v, want %v:\n%s", tt.query, usesPathIndex, tt.indexed, p)
			}
			t.Logf("%s\n%s", tt.query, p)
		})
	}
	// The results are right, too.
	q, _ := emulator.ParseQuery(`SELECT VALUE c.n FROM c WHERE c.n > 99997 ORDER BY c.n`)
	page, err := s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: "x", Page: emulator.PageRequest{MaxItems: 10}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range page.Docs {
		got = append(got, string(d))
	}
	if strings.Join(got, ",") != "99998,99999,100000" {
		t.Fatalf("results %v", got)
	}
}

// TestQueryByIDUsesPrimaryKeyAtScale asserts with EXPLAIN (ANALYZE) that
// SELECT * FROM c WHERE c.id = @id with the partition key, the query the
// SDKs' point-query helpers and the JS SDK mix send, is a primary-key lookup
// (pk and id both in the index condition, one row read) on a container of
// 100,000 items in 100 partitions: its cost must not grow with the
// container or the partition. Without the partition key, and with an id
// that is not a string, the results stay right.
func TestQueryByIDUsesPrimaryKeyAtScale(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	_, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 100) || '"]', 'id' || g, g, '{"id":"id' || g || '","pk":"p' || (g % 100) || '","n":' || g || '}', 1000, NULL, '"e"', g, ''
FROM generate_series(1, 100000) g`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
		t.Fatal(err)
	}
	pk := `["p42"]`
	params := func(id string) emulator.QueryItemsParams {
		q, err := emulator.ParseQuery(`SELECT * FROM c WHERE c.id = @id`)
		if err != nil {
			t.Fatal(err)
		}
		return emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: "by id", PK: &pk,
			Params: map[string]json.RawMessage{"@id": json.RawMessage(id)}, Page: emulator.PageRequest{MaxItems: 100}}
	}
	// The first query creates the id path's index, as the default
	// indexing policy implies; the plan must still be the primary key.
	if _, err := s.QueryItems(ctx, params(`"id42"`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
		t.Fatal(err)
	}
	st, err := s.translateQuery(ctx, params(`"id4242"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := explainAnalyze(t, s, st)
	if !strings.Contains(plan, "_pkey") || !regexp.MustCompile(`Index Cond: \(\(pk = .*\) AND \(id = `).MatchString(plan) || !strings.Contains(plan, "rows=1 loops=1") {
		t.Fatalf("query by id with the partition key is not a primary-key lookup of one row:\n%s", plan)
	}
	t.Logf("\n%s", plan)

	for _, tt := range []struct {
		name string
		p    emulator.QueryItemsParams
		want int
	}{
		{"in its partition", params(`"id4242"`), 1},
		{"in another partition", func() emulator.QueryItemsParams { p := params(`"id4243"`); return p }(), 0},
		{"across partitions", func() emulator.QueryItemsParams { p := params(`"id4243"`); p.PK = nil; return p }(), 1},
		{"a number is no id", params(`4242`), 0},
	} {
		page, err := s.QueryItems(ctx, tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(page.Docs) != tt.want {
			t.Errorf("%s: %d results, want %d", tt.name, len(page.Docs), tt.want)
		}
	}
}

// TestSinglePartitionFilterUsesPartitionFirstIndex: on 400,000 items in
// 4,000 partitions, SELECT * FROM c WHERE c.pk = @pk AND c.n >= @x with the
// partition key makes the partition-first index on /n (pk, type rank,
// value), analyzed at once, and is served by it alone: the index condition
// holds the partition and the range, 10 entries are read for 10 results,
// and no row is filtered on the document (the predicate is exact).
// Before, the primary key read the partition's 100 rows and tested each
// document, and without statistics on the new global path index the
// planner ANDed it in (40,000 entries read for 10 results). A query across
// partitions makes and uses the global index, also analyzed at once.
func TestSinglePartitionFilterUsesPartitionFirstIndex(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	c.Properties = []byte(`{"indexingPolicy":{"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}]}}`)
	c.Def, _ = emulator.ParseContainerDefinition(c.Properties)
	const n, partitions = 400_000, 4000
	_, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % $2) || '"]', 'id' || g, g, '{"id":"id' || g || '","pk":"p' || (g % $2) || '","n":' || g / $2 || '}', 1000, NULL, '"e"', g, ''
FROM generate_series(0, $1 - 1) g`, n, partitions)
	if err != nil {
		t.Fatal(err)
	}
	// as autovacuum would have by now: statistics of the columns, not yet
	// of the path index, which does not exist
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE `+itemsTable(c.Num)); err != nil {
		t.Fatal(err)
	}
	statsOf := func(idx string) (exists bool, stats int) {
		t.Helper()
		if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_indexes WHERE schemaname = 'cosmos' AND indexname = $1),
(SELECT count(*) FROM pg_stats WHERE schemaname = 'cosmos' AND tablename = $1)`, idx).Scan(&exists, &stats); err != nil {
			t.Fatal(err)
		}
		return exists, stats
	}
	run := func(query string, pk *string, want int) *sqlgen.Statement {
		t.Helper()
		q, err := emulator.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		p := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: query, PK: pk,
			Params: map[string]json.RawMessage{"@pk": json.RawMessage(`"p42"`), "@x": json.RawMessage(`90`)}, Page: emulator.PageRequest{MaxItems: 100}}
		page, err := s.QueryItems(ctx, p) // creates the index
		if err != nil || len(page.Docs) != want {
			t.Fatalf("%s: %d results, want %d: %v", query, len(page.Docs), want, err)
		}
		st, err := s.translateQuery(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	keyed, global := keyedIndexName(c.Num, []string{"n"}), indexName(c.Num, []string{"n"})
	pk := `["p42"]`
	single := run(`SELECT * FROM c WHERE c.pk = @pk AND c.n >= @x`, &pk, 10)
	if exists, stats := statsOf(keyed); !exists || stats == 0 {
		t.Fatalf("partition-first index %s: exists %v, %d statistics rows (want some)", keyed, exists, stats)
	}
	if exists, _ := statsOf(global); exists {
		t.Fatalf("a single-partition query made the global index %s", global)
	}
	checkSingle := func() {
		t.Helper()
		plan := explainAnalyze(t, s, single)
		if !strings.Contains(plan, "Index Scan using "+keyed) || !regexp.MustCompile(`Index Cond: \(\(pk = .*\) AND .*'n'::text\) >= `).MatchString(plan) ||
			!strings.Contains(plan, "rows=10 loops=1") || strings.Contains(plan, "Filter") {
			t.Fatalf("the single-partition filter is not served by %s alone, 10 entries:\n%s", keyed, plan)
		}
		t.Logf("\n%s", plan)
	}
	checkSingle()

	cross := run(`SELECT * FROM c WHERE c.n >= 99 AND c.id = "id399999"`, nil, 1)
	if exists, stats := statsOf(global); !exists || stats == 0 {
		t.Fatalf("global index %s: exists %v, %d statistics rows (want some)", global, exists, stats)
	}
	if plan := explainAnalyze(t, s, cross); !strings.Contains(plan, global) && !strings.Contains(plan, indexName(c.Num, []string{"id"})) {
		t.Fatalf("the cross-partition query reads no global path index:\n%s", plan)
	}
	checkSingle() // still the partition-first index with both
}

// explainAnalyze runs st under EXPLAIN (ANALYZE) and returns the plan with
// the actual row counts, without costs or times.
func explainAnalyze(t *testing.T, s *Store, st *sqlgen.Statement) string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) `+st.SQL, st.Args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestReplacedCompositeIndexIsAnalyzed: composite indexes that a container
// replace adds to a filled container get statistics at once, as a path
// index made by a query does (TestSinglePartitionFilterUsesPartitionFirstIndex).
func TestReplacedCompositeIndexIsAnalyzed(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	if _, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 10) || '"]', 'id' || g, g, '{"id":"id' || g || '","pk":"p' || (g % 10) || '","a":' || g % 7 || ',"b":' || g || '}', 1000, NULL, '"e"', g, ''
FROM generate_series(0, 999) g`); err != nil {
		t.Fatal(err)
	}
	props := []byte(`{"id":"` + c.ID + `","indexingPolicy":{"includedPaths":[{"path":"/*"}],"compositeIndexes":[[{"path":"/a"},{"path":"/b","order":"descending"}]]}}`)
	if _, err := s.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: c.ID, Properties: props, TS: 2, ETag: `"f"`}); err != nil {
		t.Fatal(err)
	}
	var indexes, stats int
	if err := s.pool.QueryRow(ctx, `SELECT count(DISTINCT i.indexname), count(st.attname) FROM pg_indexes i
LEFT JOIN pg_stats st ON st.schemaname = i.schemaname AND st.tablename = i.indexname
WHERE i.schemaname = 'cosmos' AND i.tablename = $1 AND i.indexname LIKE $2`,
		"items_"+strconv.FormatInt(c.Num, 10), "items\\_"+strconv.FormatInt(c.Num, 10)+"\\_c\\_%").Scan(&indexes, &stats); err != nil {
		t.Fatal(err)
	}
	if indexes != 1 || stats == 0 {
		t.Fatalf("%d composite indexes with %d statistics rows, want 1 with some", indexes, stats)
	}
}
