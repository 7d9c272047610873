package pgstore

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// fullTextProps is a container body whose fullTextPolicy declares /text
// (en-US) and /de (de-DE), with indexes the full-text index paths.
func fullTextProps(id string, indexes ...string) []byte {
	var ix []string
	for _, p := range indexes {
		ix = append(ix, `{"path":"`+p+`"}`)
	}
	return []byte(`{"id":"` + id + `","fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":"/text","language":"en-US"},{"path":"/de","language":"de-DE"}]},` +
		`"indexingPolicy":{"fullTextIndexes":[` + strings.Join(ix, ",") + `]}}`)
}

// fullTextContainer creates container id with fullTextProps, filled with
// filler documents (none of which holds a word the tests search for, so
// that an index scan and a full scan differ; their seq values are far
// above the ones the store hands out) and the documents docs (id ->
// body without the id).
func fullTextContainer(t *testing.T, s *Store, id string, filler int, docs map[string]string, indexes ...string) emulator.Container {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil && !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatal(err)
	}
	c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: fullTextProps(id, indexes...),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	if filler > 0 {
		if _, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, etag, lsn, epk)
SELECT '["f' || (g % 10) || '"]', 'f' || g, 1000000000 + g, '{"id":"f' || g || '","pk":"f' || (g % 10) || '","text":"lorem ipsum dolor sit amet ' || g || '","de":"Lorem ipsum ' || g || '"}',
       1, '"e"', g, '' FROM generate_series(1, $1::int) g`, filler); err != nil {
			t.Fatal(err)
		}
	}
	for docID, body := range docs {
		full := `{"id":"` + docID + `","pk":"p",` + strings.TrimPrefix(body, "{")
		key := emulator.ItemKey{Container: c, PK: `["p"]`, ID: docID}
		if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: key, Body: []byte(full), TS: 1, ETag: `"e"`}); err != nil {
			t.Fatalf("%s: %v", full, err)
		}
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
		t.Fatal(err)
	}
	return c
}

// explainQuery returns the plan PostgreSQL makes for the statement of the
// first page of a query.
func explainQuery(t *testing.T, s *Store, p emulator.QueryItemsParams) string {
	t.Helper()
	q, err := emulator.ParseQuery(p.Text)
	if err != nil {
		t.Fatal(err)
	}
	p.Query, p.Expiry = q, emulator.Expiry{Now: 2000}
	st, err := s.translateStage(context.Background(), p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.pool.Query(context.Background(), `EXPLAIN `+st.SQL, st.Args...)
	if err != nil {
		t.Fatalf("%s: %v", st.SQL, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n")
}

// resultIDs runs a query to its end and returns the ids of its results
// (the documents, or the values of SELECT VALUE c.id) in order.
func resultIDs(t *testing.T, s *Store, p emulator.QueryItemsParams) []string {
	t.Helper()
	docs, _ := drainQuery(t, s, p)
	ids := make([]string, 0, len(docs))
	for _, d := range docs {
		var v any
		if err := json.Unmarshal([]byte(d), &v); err != nil {
			t.Fatal(err)
		}
		switch x := v.(type) {
		case string:
			ids = append(ids, x)
		case map[string]any:
			ids = append(ids, x["id"].(string))
		}
	}
	return ids
}

// TestFullTextIndexServesFilters: with /text and /de in the container's
// fullTextIndexes, FullTextContains, FullTextContainsAll and
// FullTextContainsAny filters on them (literal and parameter terms, in one
// partition and across, with other conditions, in a ranked query) are
// answered from the path's GIN index (EXPLAIN names it), and give the same
// results as on a container without full-text indexes, whose plans use
// none: tokens and not substrings, stemming, case, stop-word terms, a
// term that is not a string, non-string and missing fields, the German
// configuration of /de. A term without tokens, which matches nothing,
// makes a plan that reads nothing. Shapes the index cannot serve (NOT, OR,
// a term taken from the document, a term that is not a string) keep their
// results and scan.
func TestFullTextIndexServesFilters(t *testing.T) {
	s := openStore(t)
	docs := map[string]string{
		"quick":   `{"text":"The quick brown Foxes jumped over the lazy dog","de":"Die Häuser sind groß"}`,
		"fox":     `{"text":"FOX"}`,
		"firefox": `{"text":"firefox browser"}`,
		"hounds":  `{"text":"foxes and hounds","de":"Ein Haus am See"}`,
		"number":  `{"text":42}`,
		"array":   `{"text":["fox"]}`,
		"missing": `{"other":"fox"}`,
		"stop":    `{"text":"the and a"}`,
		"self":    `{"text":"brown bear","word":"bear"}`,
	}
	const filler = 3000
	indexed := fullTextContainer(t, s, "indexed", filler, docs, "/text", "/de")
	plain := fullTextContainer(t, s, "plain", filler, docs)
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	p := `["p"]`
	tests := []struct {
		name   string
		query  string
		params map[string]json.RawMessage
		pk     *string
		want   []string
		// plan is what the indexed container's plan does: "index" (reads
		// the GIN index), "scan" (does not), "empty" (reads nothing: the
		// filter can match no document) or "" (the planner's choice)
		plan string
	}{
		{"contains", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "fox")`, nil, nil, []string{"fox", "hounds", "quick"}, "index"},
		// (a term of several words holds when one of them does)
		{"contains phrase words", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "lazy foxes")`, nil, nil, []string{"fox", "hounds", "quick"}, "index"},
		{"contains phrase one word present", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "lazy cats")`, nil, nil, []string{"quick"}, "index"},
		{"contains parameter", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, @t)`, map[string]json.RawMessage{"@t": raw(`"Hound"`)}, nil, []string{"hounds"}, "index"},
		{"contains one partition", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "fox")`, nil, &p, []string{"fox", "hounds", "quick"}, ""},
		{"contains and other term", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "fox") AND c.id != "fox"`, nil, nil, []string{"hounds", "quick"}, "index"},
		{"contains stop words only", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "the")`, nil, nil, nil, "empty"},
		{"contains not a string", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, @t)`, map[string]json.RawMessage{"@t": raw(`1`)}, nil, nil, "scan"},
		{"all", `SELECT VALUE c.id FROM c WHERE FullTextContainsAll(c.text, "fox", "dog")`, nil, nil, []string{"quick"}, "index"},
		{"all with stop word term", `SELECT VALUE c.id FROM c WHERE FullTextContainsAll(c.text, "fox", "the")`, nil, nil, nil, "empty"},
		{"any", `SELECT VALUE c.id FROM c WHERE FullTextContainsAny(c.text, "hound", "browser")`, nil, nil, []string{"firefox", "hounds"}, "index"},
		{"any with stop word term", `SELECT VALUE c.id FROM c WHERE FullTextContainsAny(c.text, "the", "dog")`, nil, nil, []string{"quick"}, "index"},
		{"any parameters", `SELECT VALUE c.id FROM c WHERE FullTextContainsAny(c.text, @a, @b)`, map[string]json.RawMessage{"@a": raw(`"jump"`), "@b": raw(`"firefox"`)}, nil, []string{"firefox", "quick"}, "index"},
		{"german", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.de, "Haus")`, nil, nil, []string{"hounds", "quick"}, "index"},
		{"ranked with filter", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "fox") ORDER BY RANK FullTextScore(c.text, "fox")`, nil, nil, []string{"fox", "hounds", "quick"}, "index"},
		{"not", `SELECT VALUE c.id FROM c WHERE NOT FullTextContains(c.text, "fox") AND c.pk = "p"`, nil, nil, []string{"firefox", "self", "stop"}, "scan"},
		{"or", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "hound") OR c.id = "fox"`, nil, nil, []string{"fox", "hounds"}, "scan"},
		{"term from the document", `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, c.word)`, nil, nil, []string{"self"}, "scan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []emulator.Container{indexed, plain} {
				qp := emulator.QueryItemsParams{Container: c, Text: tt.query, Params: tt.params, PK: tt.pk, Page: emulator.PageRequest{MaxItems: 2}}
				start := time.Now()
				got := resultIDs(t, s, qp)
				t.Logf("%s: %d results in %v", c.ID, len(got), time.Since(start))
				if !strings.Contains(tt.query, "RANK") {
					slices.Sort(got)
				} else if len(got) == 3 {
					slices.Sort(got) // (the three score alike or not: the set is what is compared)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("%s: got %q, want %q", c.ID, got, tt.want)
				}
				plan := explainQuery(t, s, qp)
				want := c.ID == "indexed" && tt.plan == "index"
				if got := strings.Contains(plan, "_f_"); got != want && tt.plan != "" {
					t.Errorf("%s: plan uses a full-text index: %v, want %v\n%s", c.ID, got, want, plan)
				}
				if c.ID == "indexed" && tt.plan == "empty" && !strings.Contains(plan, "One-Time Filter: false") {
					t.Errorf("%s: plan reads the table\n%s", c.ID, plan)
				}
			}
		})
	}
}

// fullTextIndexDefs returns the definitions of c's full-text indexes.
func fullTextIndexDefs(t *testing.T, s *Store, c emulator.Container) []string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT indexdef FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 AND indexname LIKE '%\_f\_%' ORDER BY 1`, "items_"+itoa(c.Num))
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestFullTextIndexFollowsPolicy: a container replace that adds a
// full-text index path makes its GIN index (and filters use it at once),
// one that changes the path's language remakes it with the new
// configuration, and one that removes it drops it; results stay the same
// throughout. A document whose processed text exceeds what PostgreSQL can
// hold (1 MB) is still written: the write drops the index, as a too-long
// value drops a path index.
func TestFullTextIndexFollowsPolicy(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := fullTextContainer(t, s, "c", 2000, map[string]string{"quick": `{"text":"quick brown foxes"}`, "de": `{"text":"Häuser"}`})
	query := emulator.QueryItemsParams{Container: c, Text: `SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, "fox")`}
	replace := func(props string) {
		t.Helper()
		var err error
		c, err = s.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: "c", Properties: []byte(props), TS: 2, ETag: `"f"`})
		if err != nil {
			t.Fatal(err)
		}
		query.Container = c
	}
	steps := []struct {
		name  string
		props string
		defs  []string // fragments of the index definitions, in order
		want  []string
	}{
		{"none", string(fullTextProps("c")), nil, []string{"quick"}},
		{"added", string(fullTextProps("c", "/text")), []string{"USING gin (cosmos.fts_vector('english'::regconfig, (doc -> 'text'::text)))"}, []string{"quick"}},
		{"language changed", `{"id":"c","fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":"/text","language":"de-DE"}]},"indexingPolicy":{"fullTextIndexes":[{"path":"/text"}]}}`,
			[]string{"USING gin (cosmos.fts_vector('german'::regconfig, (doc -> 'text'::text)))"}, []string{"quick"}}, // (German stems foxes to fox too)
		{"removed", string(fullTextProps("c")), nil, []string{"quick"}},
	}
	for _, st := range steps {
		replace(st.props)
		defs := fullTextIndexDefs(t, s, c)
		if len(defs) != len(st.defs) {
			t.Fatalf("%s: indexes %q, want %q", st.name, defs, st.defs)
		}
		for i, d := range st.defs {
			if !strings.Contains(defs[i], d) {
				t.Errorf("%s: index %q, want %q", st.name, defs[i], d)
			}
		}
		if got := resultIDs(t, s, query); !slices.Equal(got, st.want) {
			t.Errorf("%s: got %q, want %q", st.name, got, st.want)
		}
		if plan := explainQuery(t, s, query); strings.Contains(plan, "_f_") != (len(st.defs) > 0) {
			t.Errorf("%s: plan uses a full-text index: %v\n%s", st.name, !(len(st.defs) > 0), plan)
		}
	}

	replace(string(fullTextProps("c", "/text")))
	if len(fullTextIndexDefs(t, s, c)) != 1 {
		t.Fatal("no full-text index")
	}
	words := make([]string, 130000) // 1.2 MB of distinct words: 1.5 MB processed
	for i := range words {
		words[i] = strings.Map(func(r rune) rune { return 'a' + (r % 26) }, randomText(8))
	}
	body, _ := json.Marshal(map[string]string{"id": "huge", "pk": "p", "text": strings.Join(words, " ")})
	start := time.Now()
	if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: "huge"}, Body: body, TS: 1, ETag: `"e"`}); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Logf("created a %d-byte document in %v", len(body), time.Since(start))
	if defs := fullTextIndexDefs(t, s, c); len(defs) != 0 {
		t.Errorf("indexes after the write: %q, want none", defs)
	}
	if got := resultIDs(t, s, emulator.QueryItemsParams{Container: c, Text: `SELECT VALUE c.id FROM c WHERE c.id = "huge"`}); !slices.Equal(got, []string{"huge"}) {
		t.Errorf("got %q", got)
	}
}

// TestRankedQueryReadsStatisticsOnce: a ranked query whose WHERE the GIN
// index answers computes the container's statistics once (EXPLAIN
// ANALYZE: every scan of the items table runs one loop), not once per
// matching document, which a plan with the statistics on the inner side
// of a nested loop did.
func TestRankedQueryReadsStatisticsOnce(t *testing.T) {
	s := openStore(t)
	docs := map[string]string{}
	for i := range 5 {
		docs["z"+strconv.Itoa(i)] = `{"text":"zephyr number ` + strconv.Itoa(i) + `"}`
	}
	c := fullTextContainer(t, s, "c", 3000, docs, "/text")
	qp := emulator.QueryItemsParams{Container: c, Text: `SELECT TOP 10 c.id FROM c WHERE FullTextContains(c.text, "zephyr") ORDER BY RANK FullTextScore(c.text, "zephyr")`,
		Expiry: emulator.Expiry{Now: 2000}}
	q, err := emulator.ParseQuery(qp.Text)
	if err != nil {
		t.Fatal(err)
	}
	qp.Query = q
	st, err := s.translateStage(context.Background(), qp, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.pool.Query(context.Background(), `EXPLAIN (ANALYZE, TIMING OFF) `+st.SQL, st.Args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	scans := regexp.MustCompile(`(Seq|Bitmap Heap) Scan on items_\d+ .*loops=(\d+)`).FindAllStringSubmatch(plan, -1)
	if len(scans) == 0 {
		t.Fatalf("no scan of the items table in\n%s", plan)
	}
	for _, m := range scans {
		if m[2] != "1" {
			t.Errorf("%s scan runs %s loops\n%s", m[1], m[2], plan)
		}
	}
	if got := resultIDs(t, s, qp); len(got) != 5 {
		t.Errorf("got %q", got)
	}
}
