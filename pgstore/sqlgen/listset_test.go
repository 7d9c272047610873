package sqlgen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// scenarioDB is a fresh database holding the items table ls_items shaped
// like a container's, with the issue scenario's 30 items: names A, B, C
// with ages 1..10 each, written name by name (seq gives that order); the
// A items also carry tags [age, age, "t"].
func scenarioDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, migratedDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE ls_items (pk text NOT NULL, id text NOT NULL, seq bigint NOT NULL, body text NOT NULL,
		doc jsonb GENERATED ALWAYS AS (body::jsonb) STORED, ts bigint NOT NULL, ttl integer, etag text NOT NULL, lsn bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	seq := 0
	for _, name := range []string{"A", "B", "C"} {
		for age := 1; age <= 10; age++ {
			seq++
			doc := map[string]any{"id": fmt.Sprint(seq), "name": name, "age": age}
			if name == "A" {
				doc["tags"] = []any{age, age, "t"}
			}
			body, _ := json.Marshal(doc)
			if _, err := pool.Exec(ctx, `INSERT INTO ls_items (pk, id, seq, body, ts, etag, lsn) VALUES ($1, $1, $2, $3, 1, 'e', 1)`,
				fmt.Sprint(seq), seq, string(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return pool
}

// migratedDatabase is a fresh database with the migrations applied.
func migratedDatabase(t *testing.T) string {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	pool := fnDBAt(t, dsn)
	pool.Close()
	return dsn
}

// pageAll runs query over ls_items page by page (pageSize results a page,
// resuming from each page's last row as the store does) and returns the
// results of every page, as JSON, each page's joined by spaces.
func pageAll(t *testing.T, pool *pgxpool.Pool, query string, pageSize int) ([]string, error) {
	t.Helper()
	return pageAllIn(t, pool, "ls_items", query, nil, pageSize)
}

// pageAllIn is pageAll over the items table table, with the query
// parameters params (name with '@' to JSON).
func pageAllIn(t *testing.T, pool *pgxpool.Pool, table, query string, params map[string]json.RawMessage, pageSize int) ([]string, error) {
	t.Helper()
	results, err := pageResults(t, pool, table, query, params, pageSize)
	if err != nil {
		return nil, err
	}
	pages := make([]string, len(results))
	for i, r := range results {
		pages[i] = strings.Join(r, " ")
	}
	return pages, nil
}

// pageResults is pageAllIn with each page's results apart.
func pageResults(t *testing.T, pool *pgxpool.Pool, table, query string, params map[string]json.RawMessage, pageSize int) ([][]string, error) {
	t.Helper()
	q, err := cosmosql.Parse(query)
	if err != nil {
		t.Fatalf("parse %s: %v", query, err)
	}
	var pages [][]string
	var cur *sqlgen.Cursor
	for n := 0; n < 100; n++ {
		st, err := sqlgen.Translate(q, sqlgen.Input{Table: table, CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
			SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: pageSize, Cursor: cur, Params: params})
		if err != nil {
			return nil, err
		}
		rows, err := pool.Query(context.Background(), st.SQL, st.Args...)
		if err != nil {
			return nil, err
		}
		var page []string
		var last sqlgen.Cursor
		more := false
		for rows.Next() {
			if len(page) == st.Limit {
				more = true
				break
			}
			vals := rows.Values
			v, err := vals()
			if err != nil {
				rows.Close()
				return nil, err
			}
			last = sqlgen.Cursor{Seq: v[0].(int64), Taken: st.Taken + int64(len(page)) + 1}
			i := 1
			for range st.Joins {
				last.Ords = append(last.Ords, v[i].(int64))
				i++
			}
			for range st.SortKeys {
				last.Ranks = append(last.Ranks, int(v[i].(int32)))
				s, _ := v[i+1].(string)
				if v[i+1] == nil {
					s = "null"
				}
				last.Vals = append(last.Vals, json.RawMessage(s))
				i += 2
			}
			out, _ := v[len(v)-1].(string)
			if st.Mode == sqlgen.ModeObject {
				obj := map[string]json.RawMessage{}
				for j, name := range st.Names {
					if x, ok := v[len(v)-len(st.Names)+j].(string); ok {
						obj[name] = json.RawMessage(x)
					}
				}
				b, _ := json.Marshal(obj)
				out = string(b)
			}
			page = append(page, out)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		pages = append(pages, page)
		if !more || st.Single {
			return pages, nil
		}
		cur = &last
	}
	t.Fatalf("%s: more than 100 pages", query)
	return nil, nil
}

// TestMakeListMakeSet: MAKELIST is the array of an expression's defined
// values in input order, duplicates kept; MAKESET keeps the first
// occurrence of each value (deep equality); both are [] over no row; they
// work without GROUP BY, under GROUP BY, next to other aggregates, over
// array iterations and in subqueries.
func TestMakeListMakeSet(t *testing.T) {
	pool := scenarioDB(t)
	ages := "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
	tests := []struct{ query, want string }{
		{`SELECT VALUE MAKELIST(c.age) FROM c`, "[" + strings.Repeat("1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ", 2) + "1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"},
		{`SELECT VALUE MAKESET(c.age) FROM c`, ages},
		{`SELECT VALUE MakeSet(c.name) FROM c`, `["A", "B", "C"]`},
		{`SELECT VALUE MAKELIST(c.name) FROM c WHERE c.age = 3`, `["A", "B", "C"]`},
		{`SELECT VALUE MAKELIST(c.tags) FROM c WHERE c.age <= 2`, `[[1, 1, "t"], [2, 2, "t"]]`},
		{`SELECT VALUE MAKESET({"n": c.name}) FROM c WHERE c.age <= 2`, `[{"n": "A"}, {"n": "B"}, {"n": "C"}]`},
		{`SELECT VALUE MAKELIST(c.missing) FROM c`, `[]`},
		{`SELECT VALUE MAKESET(c.age) FROM c WHERE c.age > 100`, `[]`},
		{`SELECT VALUE MAKELIST(c.age) FROM c WHERE c.name = "A" AND c.age > 8`, `[9, 10]`},
		{`SELECT MAKELIST(c.age) AS l, COUNT(1) AS n FROM c WHERE c.age < 3`, `{"l": [1, 2, 1, 2, 1, 2], "n": 6}`},
		{`SELECT VALUE MAKELIST(t) FROM c JOIN t IN c.tags WHERE c.age <= 2`, `[1, 1, "t", 2, 2, "t"]`},
		{`SELECT VALUE MAKESET(t) FROM c JOIN t IN c.tags WHERE c.age <= 3`, `[1, "t", 2, 3]`},
		{`SELECT VALUE MAKELIST(null) FROM c WHERE c.age = 1`, `[null, null, null]`},
		{`SELECT VALUE (SELECT VALUE MAKESET(t) FROM t IN c.tags) FROM c WHERE c.name = "A" AND c.age = 4`, `[4, "t"]`},
		{`SELECT VALUE MAKELIST(1)`, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			pages, err := pageAll(t, pool, tt.query, 100)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal([]byte(strings.Join(pages, " ")), &got); err != nil {
				t.Fatalf("results %q: %v", pages, err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !sameJSON(got, want) {
				t.Errorf("got %s, want %s", strings.Join(pages, " "), tt.want)
			}
		})
	}
}

// TestMakeListMakeSetGroupBy: under GROUP BY each group gets its values in
// input order, as a plain query and as the per-range rewrite of the query
// plan ({"item": ...} partials).
func TestMakeListMakeSetGroupBy(t *testing.T) {
	pool := scenarioDB(t)
	ages := `[1,2,3,4,5,6,7,8,9,10]`
	tests := []struct {
		query    string
		pageSize int
		want     []string
	}{
		{`SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name`, 100,
			[]string{`{"name": "A", "ages": ` + ages + `} {"name": "B", "ages": ` + ages + `} {"name": "C", "ages": ` + ages + `}`}},
		{`SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name`, 2,
			[]string{`{"name": "A", "ages": ` + ages + `} {"name": "B", "ages": ` + ages + `}`, `{"name": "C", "ages": ` + ages + `}`}},
		{`SELECT VALUE MAKELIST(c.name) FROM c WHERE c.age > 8 GROUP BY c.age`, 100, []string{`["A","B","C"] ["A","B","C"]`}},
		{`SELECT c.age, MAKELIST(t) AS l, MAKESET(t) AS s FROM c JOIN t IN c.tags WHERE c.age < 3 GROUP BY c.age`, 100,
			[]string{`{"age": 1, "l": [1, 1, "t"], "s": [1, "t"]} {"age": 2, "l": [2, 2, "t"], "s": [2, "t"]}`}},
		{`SELECT [{"item": c.name}] AS groupByItems, {"name": c.name, "ages": {"item": MAKESET(c.age)}} AS payload FROM c WHERE c.age > 8 GROUP BY c.name`, 100,
			[]string{`{"groupByItems": [{"item": "A"}], "payload": {"name": "A", "ages": {"item": [9, 10]}}} ` +
				`{"groupByItems": [{"item": "B"}], "payload": {"name": "B", "ages": {"item": [9, 10]}}} ` +
				`{"groupByItems": [{"item": "C"}], "payload": {"name": "C", "ages": {"item": [9, 10]}}}`}},
		{`SELECT VALUE [{"item": MAKELIST(c.age)}] FROM c WHERE c.name = "B"`, 100, []string{`[{"item": ` + ages + `}]`}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.query, tt.pageSize), func(t *testing.T) {
			pages, err := pageAll(t, pool, tt.query, tt.pageSize)
			if err != nil {
				t.Fatal(err)
			}
			if len(pages) != len(tt.want) {
				t.Fatalf("pages %q, want %q", pages, tt.want)
			}
			for i := range pages {
				if !sameResults(t, pages[i], tt.want[i]) {
					t.Errorf("page %d: %s, want %s", i, pages[i], tt.want[i])
				}
			}
		})
	}
}

// TestDistinctOrderByPaged: DISTINCT with an ORDER BY that is not the
// DISTINCT VALUE expression, with OFFSET/LIMIT and TOP, paged two results
// at a time: each value once, in the ORDER BY's order, the limit counting
// distinct values; an object projection whose members hold the ORDER BY
// value (the shape of the query plan's orderByItems and payload) too.
func TestDistinctOrderByPaged(t *testing.T) {
	pool := scenarioDB(t)
	obj := func(from, to int) string {
		var s []string
		for i := from; i <= to; i++ {
			s = append(s, fmt.Sprintf(`{"age":%d}`, i))
		}
		return strings.Join(s, " ")
	}
	rewrite := func(from, to int) string {
		var s []string
		for i := from; i <= to; i++ {
			s = append(s, fmt.Sprintf(`{"orderByItems":[{"item":%d}],"payload":{"age":%d}}`, i, i))
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		query string
		want  string // every page's results
	}{
		{`SELECT DISTINCT c.age FROM c ORDER BY c.age ASC OFFSET 0 LIMIT 10`, obj(1, 10)},
		{`SELECT DISTINCT TOP 10 c.age FROM c ORDER BY c.age ASC`, obj(1, 10)},
		{`SELECT DISTINCT c.age FROM c ORDER BY c.age ASC OFFSET 3 LIMIT 4`, obj(4, 7)},
		{`SELECT DISTINCT TOP 3 c.age FROM c ORDER BY c.age DESC`, `{"age":10} {"age":9} {"age":8}`},
		{`SELECT DISTINCT c.name FROM c ORDER BY c.name DESC`, `{"name":"C"} {"name":"B"} {"name":"A"}`},
		{`SELECT DISTINCT VALUE c.name FROM c ORDER BY c.age DESC`, `"A" "B" "C"`},
		{`SELECT DISTINCT [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE (true) ORDER BY c.age ASC OFFSET 0 LIMIT 10`, rewrite(1, 10)},
		{`SELECT DISTINCT TOP 10 [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE (true) ORDER BY c.age ASC`, rewrite(1, 10)},
		{`SELECT DISTINCT [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE (c.age > 7) ORDER BY c.age ASC`, rewrite(8, 10)},
	}
	for _, tt := range tests {
		for _, size := range []int{2, 100} {
			t.Run(fmt.Sprintf("%s/%d", tt.query, size), func(t *testing.T) {
				pages, err := pageAll(t, pool, tt.query, size)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range pages[:len(pages)-1] {
					if n := len(decodeAll(t, p)); n != size && size == 2 {
						t.Errorf("page %d has %s", i, p)
					}
				}
				if got := strings.Join(pages, " "); !sameResults(t, got, tt.want) {
					t.Errorf("got %s\nwant %s", got, tt.want)
				}
			})
		}
	}
}

// sameResults compares two space-separated lists of JSON values.
func sameResults(t *testing.T, got, want string) bool {
	t.Helper()
	return sameJSON(decodeAll(t, got), decodeAll(t, want))
}

// decodeAll decodes a space-separated list of JSON values.
func decodeAll(t *testing.T, s string) []any {
	t.Helper()
	var out []any
	d := json.NewDecoder(strings.NewReader(s))
	for d.More() {
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		out = append(out, v)
	}
	return out
}
