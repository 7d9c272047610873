package pgstore

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestQueryByIDUsesPrimaryKey: a query filtering on c.id = <string> also
// filters the id column, so that with the partition key known PostgreSQL
// looks the item up by the primary key (pk, id) instead of scanning the
// partition, and a WHERE that is only that term drops the jsonb predicate;
// the results are those of the exact Cosmos predicate in every variant
// (reversed, bracketed, combined with other terms, non-string constants,
// paths and joins, cross-partition).
func TestQueryByIDUsesPrimaryKey(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	docs := []string{
		`{"id":"a","pk":"p1","n":1,"kids":[{"k":1},{"k":2}]}`,
		`{"id":"b","pk":"p1","n":2}`,
		`{"id":"a","pk":"p2","n":3}`,
		`{"id":"é\"x","pk":"p1","n":4}`,
		`{"id":"5","pk":"p1","n":5}`,
		`{"id":"A","pk":"p1","n":6}`,
	}
	for _, d := range docs {
		var v struct{ ID, PK string }
		if err := json.Unmarshal([]byte(d), &v); err != nil {
			t.Fatal(err)
		}
		key := emulator.ItemKey{Container: c, PK: `["` + v.PK + `"]`, ID: v.ID}
		if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: key, Body: []byte(d), TS: 1, ETag: `"e"`}); err != nil {
			t.Fatal(err)
		}
	}
	p1 := `["p1"]`
	tests := []struct {
		name, query string
		params      map[string]json.RawMessage
		pk          *string
		want        []int // the n of each result, in order
		idColumn    bool  // the statement filters the id column
		exactOnly   bool  // and no Cosmos predicate on the document is left (the id term alone, or with exact index terms: see sqlgen.sargable)
	}{
		{"parameter", `SELECT * FROM c WHERE c.id = @id`, map[string]json.RawMessage{"@id": json.RawMessage(`"a"`)}, &p1, []int{1}, true, true},
		{"literal, reversed", `SELECT * FROM c WHERE 'b' = c.id`, nil, &p1, []int{2}, true, true},
		{"bracketed property", `SELECT * FROM c WHERE c["id"] = "a"`, nil, &p1, []int{1}, true, true},
		{"alias", `SELECT VALUE x.n FROM c AS x WHERE x.id = "a"`, nil, &p1, []int{1}, true, true},
		{"escaped string", `SELECT * FROM c WHERE c.id = @id`, map[string]json.RawMessage{"@id": json.RawMessage(`"\u00e9\"x"`)}, &p1, []int{4}, true, true},
		{"case matters", `SELECT * FROM c WHERE c.id = "a"`, nil, &p1, []int{1}, true, true},
		{"number never equals an id", `SELECT * FROM c WHERE c.id = 5`, nil, &p1, nil, false, false},
		{"number parameter", `SELECT * FROM c WHERE c.id = @id`, map[string]json.RawMessage{"@id": json.RawMessage(`5`)}, &p1, nil, false, false},
		{"null parameter", `SELECT * FROM c WHERE c.id = @id`, map[string]json.RawMessage{"@id": json.RawMessage(`null`)}, &p1, nil, false, false},
		{"with another term", `SELECT * FROM c WHERE c.id = "a" AND c.n > 1`, nil, &p1, nil, true, true},
		{"and the matching term", `SELECT * FROM c WHERE c.n >= 1 AND c.id = "a"`, nil, &p1, []int{1}, true, true},
		{"or is not pinned", `SELECT * FROM c WHERE c.id = "a" OR c.id = "b"`, nil, &p1, []int{1, 2}, false, false},
		{"not equal", `SELECT * FROM c WHERE c.id != "a"`, nil, &p1, []int{2, 4, 5, 6}, false, false},
		{"cross-partition", `SELECT VALUE c.n FROM c WHERE c.id = "a"`, nil, nil, []int{1, 3}, true, true},
		{"join", `SELECT VALUE k.k FROM c JOIN k IN c.kids WHERE c.id = "a"`, nil, &p1, []int{1, 2}, true, true},
		{"nested id is another path", `SELECT VALUE c.n FROM c JOIN k IN c.kids WHERE k.id = "a"`, nil, &p1, nil, false, false},
		{"subquery source", `SELECT VALUE s.n FROM (SELECT * FROM c WHERE c.id = "a") s`, nil, &p1, []int{1}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := emulator.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			qp := emulator.QueryItemsParams{Container: c, PK: tt.pk, Query: q, Text: tt.query, Params: tt.params}
			st, err := s.translateQuery(ctx, qp, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.IDColumn != tt.idColumn || strings.Contains(st.SQL, "r.id = $") != tt.idColumn {
				t.Errorf("IDColumn %v, want %v: %s", st.IDColumn, tt.idColumn, st.SQL)
			}
			if exact := tt.idColumn && !strings.Contains(st.SQL, "= 'true'::jsonb"); exact != tt.exactOnly {
				t.Errorf("no Cosmos predicate %v, want %v: %s", exact, tt.exactOnly, st.SQL)
			}
			page, err := s.QueryItems(ctx, qp)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, d := range page.Docs {
				var v struct{ N *int }
				if err := json.Unmarshal(d, &v); err != nil || v.N == nil {
					var n int
					if err := json.Unmarshal(d, &n); err != nil {
						t.Fatalf("result %s", d)
					}
					got = append(got, n)
					continue
				}
				got = append(got, *v.N)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("results %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("plan", func(t *testing.T) {
		query := `SELECT * FROM c WHERE c.id = @id`
		q, _ := emulator.ParseQuery(query)
		qp := emulator.QueryItemsParams{Container: c, PK: &p1, Query: q, Text: query, Params: map[string]json.RawMessage{"@id": json.RawMessage(`"b"`)}}
		st, err := s.translateQuery(ctx, qp, nil)
		if err != nil {
			t.Fatal(err)
		}
		// no path index for id: the primary key serves it
		if paths := withoutPath(st.IndexPaths, []string{"id"}); len(paths) != len(st.IndexPaths) {
			t.Errorf("index paths %v", st.IndexPaths)
		}
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		// a table of six rows: make the planner show the index it can use
		if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
			t.Fatal(err)
		}
		defer conn.Exec(ctx, `RESET enable_seqscan`)
		var plan []string
		rows, err := conn.Query(ctx, `EXPLAIN `+st.SQL, st.Args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var l string
			_ = rows.Scan(&l)
			plan = append(plan, l)
		}
		rows.Close()
		p := strings.Join(plan, "\n")
		if !strings.Contains(p, "Index Cond: ((pk = ") || !strings.Contains(p, "(id = ") {
			t.Errorf("not a primary-key lookup:\n%s", p)
		}
	})
}
