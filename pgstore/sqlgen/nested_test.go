package sqlgen

import (
	"strings"
	"testing"
)

// TestNestedPageShape: a query iterating arrays without ORDER BY is one
// lateral level per iteration, each ordered by its ordinal and cut at the
// page (the flat form sorted every tuple of a document first); each WHERE
// term sits in the level of the last iteration it reads, the terms over
// the document alone in the documents' subquery; a cursor skips the
// prefixes before it at every level.
func TestNestedPageShape(t *testing.T) {
	tests := []struct {
		name, query string
		cursor      *Cursor
		contains    []string
		absent      []string
	}{
		{"two joins", `SELECT c.id,x,y FROM c JOIN x IN c.a JOIN y IN c.a WHERE c.id = "arr1000"`, nil,
			[]string{"WHERE TRUE AND r.id = $1::text ORDER BY r.seq) AS r", "ORDER BY j2.o LIMIT $", "ORDER BY j1.o, x1.o1 LIMIT $", ") AS x0 ORDER BY r.seq LIMIT $"},
			[]string{"ORDER BY r.seq ASC, j1.o ASC"}},
		{"a term over the first iteration stays in its level", `SELECT VALUE [x, y] FROM c JOIN x IN c.a JOIN y IN c.b WHERE x > 1`, nil,
			[]string{"AS j1(v, o) CROSS JOIN LATERAL (SELECT j2.o AS o1", ") AS x1 WHERE (to_jsonb(cosmos.cmp(j1.v"},
			nil},
		{"a term over both iterations is in the inner level", `SELECT VALUE [x, y] FROM c JOIN x IN c.a JOIN y IN c.b WHERE x = y`, nil,
			[]string{"AS j2(v, o) WHERE (cosmos.eq(j1.v, j2.v)) = 'true'::jsonb ORDER BY j2.o"},
			nil},
		{"a cursor", `SELECT VALUE [x, y] FROM c JOIN x IN c.a JOIN y IN c.b`, &Cursor{Seq: 7, Ords: []int64{3, 9}},
			[]string{"r.seq >= $2 ORDER BY r.seq) AS r", "(r.seq > $2 OR (j1.o) >= ($3))", "(r.seq > $2 OR (j1.o, j2.o) > ($3, $4))"},
			nil},
		{"ORDER BY keeps the flat form", `SELECT VALUE x FROM c JOIN x IN c.a ORDER BY c.n`, nil,
			[]string{"CROSS JOIN LATERAL jsonb_array_elements"},
			[]string{"AS x0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := translateWith(t, tt.query, tt.cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.contains {
				if !strings.Contains(st.SQL, c) {
					t.Errorf("SQL lacks %q:\n%s", c, st.SQL)
				}
			}
			for _, c := range tt.absent {
				if strings.Contains(st.SQL, c) {
					t.Errorf("SQL has %q:\n%s", c, st.SQL)
				}
			}
		})
	}
}
