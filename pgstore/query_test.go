package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
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
	_, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn)
SELECT '["p' || (g % 100) || '"]', 'id' || g, g,
       '{"id":"id' || g || '","pk":"p' || (g % 100) || '","n":' || g || ',"s":"s' || lpad(g::text, 6, '0') || '","nested":{"v":' || (g % 1000) || '},"secret":{"x":' || g || '}}',
       1000, NULL, '"e"', g
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
