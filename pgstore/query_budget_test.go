package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// insertArrays writes items {"id":"<i>","pk":"p","n":i,"a":arrays[i-1]}
// with seq i.
func insertArrays(t testing.TB, s *Store, c emulator.Container, arrays []string) {
	t.Helper()
	for i, a := range arrays {
		body := fmt.Sprintf(`{"id":"%d","pk":"p","n":%d,"a":%s}`, i+1, i+1, a)
		if _, err := s.pool.Exec(context.Background(), `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
VALUES ('["p"]', $1, $2, $3, 1000, NULL, '"e"', $2, '')`, fmt.Sprint(i+1), i+1, body); err != nil {
			t.Fatal(err)
		}
	}
}

// TestJoinPagesResumeAtEveryLevel: queries over iterations without ORDER
// BY run as nested levels, each cut at the page (sqlgen nestedPage); their
// pages, of every size, give each result exactly once and in the order of
// the flat form (document, then each iteration's ordinal), whatever level
// a filter reads and wherever a page ends.
func TestJoinPagesResumeAtEveryLevel(t *testing.T) {
	s := openStore(t)
	c := newContainer(t, s, nil)
	arrays := []string{`[3,1,2]`, `[]`, `"not an array"`, `[5]`, `[1,1,4,2]`, `[[1,2],[3]]`}
	insertArrays(t, s, c, arrays)
	var docs [][]any
	for _, a := range arrays {
		var v any
		if err := json.Unmarshal([]byte(a), &v); err != nil {
			t.Fatal(err)
		}
		arr, _ := v.([]any)
		docs = append(docs, arr)
	}
	num := func(v any) (float64, bool) { f, ok := v.(float64); return f, ok }
	// pairs lists [n, x, y] for x, y in the documents' arrays, in the
	// flat form's order, where keep holds.
	pairs := func(keep func(n int, x, y any) bool) []string {
		var out []string
		for i, a := range docs {
			for _, x := range a {
				for _, y := range a {
					if keep(i+1, x, y) {
						b, _ := json.Marshal([]any{i + 1, x, y})
						out = append(out, string(b))
					}
				}
			}
		}
		return out
	}
	var fromIn, objs []string
	for i, a := range docs {
		for _, x := range a {
			b, _ := json.Marshal([]any{1, x})
			fromIn = append(fromIn, string(b))
			if _, ok := num(x); ok {
				b, _ := json.Marshal(map[string]any{"n": i + 1, "x": x})
				objs = append(objs, string(b))
			}
		}
	}
	all := pairs(func(int, any, any) bool { return true })
	tests := []struct {
		name, query string
		want        []string
	}{
		{"two joins", `SELECT VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a`, all},
		{"filter on both levels", `SELECT VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a WHERE x < y`, pairs(func(_ int, x, y any) bool {
			a, ok1 := num(x)
			b, ok2 := num(y)
			return ok1 && ok2 && a < b
		})},
		{"filter on the outer level", `SELECT VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a WHERE x = 1`, pairs(func(_ int, x, _ any) bool {
			a, ok := num(x)
			return ok && a == 1
		})},
		{"filter on the document", `SELECT VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a WHERE c.n = 5`, pairs(func(n int, _, _ any) bool { return n == 5 })},
		{"FROM IN", `SELECT VALUE [1, x] FROM x IN c.a`, fromIn},
		{"object projection", `SELECT c.n, x FROM c JOIN x IN c.a WHERE IS_NUMBER(x)`, objs},
		{"TOP", `SELECT TOP 5 VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a`, all[:5]},
		{"OFFSET LIMIT", `SELECT VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a OFFSET 4 LIMIT 7`, all[4:11]},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 3, 5, 100} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, size), func(t *testing.T) {
				got, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: tt.query, Page: emulator.PageRequest{MaxItems: size}})
				for i, g := range got {
					var b bytes.Buffer
					if err := json.Compact(&b, []byte(g)); err != nil {
						t.Fatal(err)
					}
					got[i] = b.String()
				}
				if g, w := strings.Join(got, ","), strings.Join(tt.want, ","); g != w {
					t.Fatalf("results\n%s\nwant\n%s", g, w)
				}
			})
		}
	}
}
