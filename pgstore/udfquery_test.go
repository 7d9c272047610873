package pgstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
)

// jsUDFs calls UDFs given as JavaScript sources on the real engine. The
// emulator uses one runner per page; a test drains many pages with one
// jsUDFs, so it renews its runner every second (a runner's calls share the
// engine's time limit).
type jsUDFs struct {
	t     testing.TB
	e     *jsengine.Engine
	r     *jsengine.UDFRunner
	since time.Time
	src   map[string]string
	calls int
}

func newJSUDFs(t testing.TB, src map[string]string) *jsUDFs {
	u := &jsUDFs{t: t, e: jsengine.New(jsengine.Config{}), src: src}
	t.Cleanup(func() {
		if u.r != nil {
			u.r.Close()
		}
	})
	return u
}

func (u *jsUDFs) CallUDF(id string, args [][]byte) ([]byte, error) {
	if u.r == nil || time.Since(u.since) > time.Second {
		if u.r != nil {
			u.r.Close()
		}
		r, err := u.e.NewUDFRunner(context.Background())
		if err != nil {
			u.t.Fatal(err)
		}
		u.r, u.since = r, time.Now()
	}
	u.calls++
	return u.r.Call(jsengine.CacheKey{ID: id}, u.src[id], args)
}

// udfContainer returns a store with a container of n documents (see
// insertDocs).
func udfContainer(t *testing.T, n int) (*Store, emulator.Container) {
	s := openStore(t)
	c := newContainer(t, s, nil)
	insertDocs(t, s, c, n, 0)
	return s, c
}

var testUDFs = map[string]string{
	"mod7":   `function (n) { return n % 7; }`,
	"double": `function (n) { return n * 2; }`,
	"id":     `function (x) { return x; }`,
	"undef":  `function (x) { return undefined; }`,
	"keys":   `function (o) { return Object.keys(o).join(","); }`,
	"strict": `function (n) { if (typeof n !== "number") throw "not a number: " + n; return n * 2; }`,
}

// TestUDFQueriesMatchBuiltins: a query calling UDFs gives exactly the
// results of the same query written with built-in operators, page by page
// for every page size (including pages that end inside a scan batch and
// batches that end inside a page), with each result once. The cases run
// in parallel (they only read the container): page size 1 makes a few of
// them long, and this test was a third of the package's time.
func TestUDFQueriesMatchBuiltins(t *testing.T) {
	s, c := udfContainer(t, 2500)
	// restored after the parallel cases, which read it (a Cleanup runs
	// after the subtests; a defer would run before they start)
	batchRows := udfBatchRows
	t.Cleanup(func() { udfBatchRows = batchRows })
	udfBatchRows = 300 // several batches per query
	tests := []struct{ name, udf, builtin string }{
		{"selective WHERE", `SELECT VALUE c.n FROM c WHERE udf.mod7(c.n) = 0`, `SELECT VALUE c.n FROM c WHERE c.n % 7 = 0`},
		{"WHERE with pushed-down conjuncts", `SELECT c.id FROM c WHERE c.n > 100 AND udf.mod7(c.n) = 3 AND c.g = 1`, `SELECT c.id FROM c WHERE c.n > 100 AND c.n % 7 = 3 AND c.g = 1`},
		{"UDF in an OR", `SELECT VALUE c.n FROM c WHERE c.n < 5 OR udf.double(c.n) > 4990`, `SELECT VALUE c.n FROM c WHERE c.n < 5 OR c.n * 2 > 4990`},
		{"ORDER BY a path with a UDF filter", `SELECT VALUE c.n FROM c WHERE udf.mod7(c.n) = 1 ORDER BY c.n DESC`, `SELECT VALUE c.n FROM c WHERE c.n % 7 = 1 ORDER BY c.n DESC`},
		{"projection", `SELECT c.id, udf.double(c.n) AS d FROM c WHERE c.n < 700`, `SELECT c.id, c.n * 2 AS d FROM c WHERE c.n < 700`},
		{"VALUE projection and filter", `SELECT VALUE udf.double(c.n) FROM c WHERE udf.double(c.n) < 100`, `SELECT VALUE c.n * 2 FROM c WHERE c.n * 2 < 100`},
		{"JOIN", `SELECT VALUE [c.n, a] FROM c JOIN a IN c.arr WHERE udf.id(a) = 2 AND c.n < 400`, `SELECT VALUE [c.n, a] FROM c JOIN a IN c.arr WHERE a = 2 AND c.n < 400`},
		{"undefined argument skips the call", `SELECT VALUE udf.double(c.missing) FROM c`, `SELECT VALUE c.missing FROM c`},
		{"undefined result", `SELECT c.id, udf.undef(c.n) AS u FROM c WHERE c.n < 3`, `SELECT c.id FROM c WHERE c.n < 3`},
		{"TOP", `SELECT TOP 25 VALUE c.n FROM c WHERE udf.mod7(c.n) = 0`, `SELECT TOP 25 VALUE c.n FROM c WHERE c.n % 7 = 0`},
		{"OFFSET LIMIT", `SELECT VALUE c.n FROM c WHERE udf.mod7(c.n) = 0 ORDER BY c.n OFFSET 40 LIMIT 30`, `SELECT VALUE c.n FROM c WHERE c.n % 7 = 0 ORDER BY c.n OFFSET 40 LIMIT 30`},
		{"a match only at the end", `SELECT VALUE c.n FROM c WHERE udf.id(c.n) = 2500`, `SELECT VALUE c.n FROM c WHERE c.n = 2500`},
		{"SELECT * with a UDF filter", `SELECT * FROM c WHERE udf.id(c.n) IN (5, 1500)`, `SELECT * FROM c WHERE c.n IN (5, 1500)`},
		{"without FROM", `SELECT udf.double(21) AS v`, `SELECT 42 AS v`},
		// calls in a branch not taken are not made (strict throws on a string)
		{"?: calls only the branch taken", `SELECT VALUE (IS_NUMBER(c.pad) ? udf.strict(c.pad) : udf.strict(c.n)) FROM c WHERE c.n < 50`, `SELECT VALUE c.n * 2 FROM c WHERE c.n < 50`},
		{"?? calls its right only when the left is undefined", `SELECT c.missing ?? udf.strict(c.n) AS a, c.n ?? udf.strict(c.pad) AS b FROM c WHERE c.n < 50`, `SELECT c.n * 2 AS a, c.n AS b FROM c WHERE c.n < 50`},
		// evaluated over the whole set (sqlgen.NeedsWholeSet)
		{"ORDER BY a UDF", `SELECT VALUE c.n FROM c WHERE c.n < 600 ORDER BY udf.mod7(c.n) DESC`, `SELECT VALUE c.n FROM c WHERE c.n < 600 ORDER BY c.n % 7 DESC`},
		{"TOP and ORDER BY a UDF with a UDF filter", `SELECT TOP 30 c.id, udf.double(c.n) AS d FROM c WHERE udf.mod7(c.n) = 2 ORDER BY udf.double(c.n)`, `SELECT TOP 30 c.id, c.n * 2 AS d FROM c WHERE c.n % 7 = 2 ORDER BY c.n * 2`},
		{"COUNT with a UDF filter", `SELECT VALUE COUNT(1) FROM c WHERE udf.mod7(c.n) = 0`, `SELECT VALUE COUNT(1) FROM c WHERE c.n % 7 = 0`},
		{"SUM of a UDF", `SELECT VALUE SUM(udf.double(c.n)) FROM c WHERE c.n < 100`, `SELECT VALUE SUM(c.n * 2) FROM c WHERE c.n < 100`},
		{"aggregates without VALUE", `SELECT COUNT(1) AS n, MAX(udf.mod7(c.n)) AS m FROM c WHERE c.g = 2`, `SELECT COUNT(1) AS n, MAX(c.n % 7) AS m FROM c WHERE c.g = 2`},
		{"GROUP BY a UDF", `SELECT udf.mod7(c.n) AS k, COUNT(1) AS n FROM c GROUP BY udf.mod7(c.n)`, `SELECT c.n % 7 AS k, COUNT(1) AS n FROM c GROUP BY c.n % 7`},
		{"DISTINCT", `SELECT DISTINCT VALUE udf.mod7(c.n) FROM c`, `SELECT DISTINCT VALUE c.n % 7 FROM c`},
		{"DISTINCT with a UDF filter", `SELECT DISTINCT VALUE c.g FROM c WHERE udf.mod7(c.n) = 3`, `SELECT DISTINCT VALUE c.g FROM c WHERE c.n % 7 = 3`},
		{"documents keep their member order", `SELECT VALUE udf.keys(c) FROM c WHERE c.n = 3`, `SELECT VALUE "id,pk,n,g,arr,pad,_rid,_self,_etag,_attachments,_ts" FROM c WHERE c.n = 3`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, size := range []int{1, 7, 1000} {
				want, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: tt.builtin, Page: emulator.PageRequest{MaxItems: size}})
				got, pages := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: tt.udf, Page: emulator.PageRequest{MaxItems: size},
					UDFs: newJSUDFs(t, testUDFs)})
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("page size %d: %d results in %d pages, want %d:\n%.500s\nwant\n%.500s", size, len(got), pages, len(want), strings.Join(got, " "), strings.Join(want, " "))
				}
			}
		})
	}
}

// TestUDFQueryPagesStopAtTheScanBound: a page that examined udfScanRows
// rows without filling ends with a continuation after the last row
// examined (possibly with no result), and the next pages go on from there.
func TestUDFQueryPagesStopAtTheScanBound(t *testing.T) {
	s, c := udfContainer(t, 2500)
	defer func(n, m int) { udfBatchRows, udfScanRows = n, m }(udfBatchRows, udfScanRows)
	udfBatchRows, udfScanRows = 200, 600
	u := newJSUDFs(t, testUDFs)
	got, pages := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: `SELECT VALUE c.n FROM c WHERE udf.id(c.n) IN (1, 2400)`,
		Page: emulator.PageRequest{MaxItems: 10}, UDFs: u})
	if strings.Join(got, ",") != "1,2400" || pages != 5 {
		t.Fatalf("results %v in %d pages, want 1,2400 in 5 (600 rows examined each)", got, pages)
	}
	if u.calls != 2500 {
		t.Fatalf("%d calls, want one per row", u.calls)
	}
}

// TestUDFQueryPushesPlainConjunctsDown: conjuncts without UDFs are
// evaluated by PostgreSQL, so the UDF is called only for the rows that
// pass them.
func TestUDFQueryPushesPlainConjunctsDown(t *testing.T) {
	s, c := udfContainer(t, 500)
	u := newJSUDFs(t, testUDFs)
	got, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: `SELECT VALUE c.n FROM c WHERE c.n >= 491 AND udf.mod7(c.n) = 0`,
		Page: emulator.PageRequest{MaxItems: 100}, UDFs: u})
	if strings.Join(got, ",") != "497" || u.calls != 10 {
		t.Fatalf("results %v after %d calls, want 497 after 10", got, u.calls)
	}
}

// TestUDFWholeSetIsBounded: a query evaluated over its whole set refuses
// (400) more candidate rows than udfWholeRows, saying how to narrow it.
func TestUDFWholeSetIsBounded(t *testing.T) {
	s, c := udfContainer(t, 300)
	defer func(n, m int) { udfWholeRows, udfBatchRows = n, m }(udfWholeRows, udfBatchRows)
	udfWholeRows, udfBatchRows = 200, 50
	q, _ := emulator.ParseQuery(`SELECT VALUE COUNT(1) FROM c WHERE udf.mod7(c.n) = 0`)
	p := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: "x", UDFs: newJSUDFs(t, testUDFs)}
	_, err := s.QueryItems(context.Background(), p)
	var e *emulator.Error
	if !errors.As(err, &e) || e.Kind != emulator.KindBadRequest || !strings.Contains(e.Message, "more than 200 rows") {
		t.Fatalf("%v, want a 400 about the bound", err)
	}
	q, _ = emulator.ParseQuery(`SELECT VALUE COUNT(1) FROM c WHERE c.n > 150 AND udf.mod7(c.n) = 0`)
	p.Query, p.Text = q, "y"
	page, err := s.QueryItems(context.Background(), p)
	if err != nil || len(page.Docs) != 1 || string(page.Docs[0]) != "21" {
		t.Fatalf("narrowed: %v %s", err, page.Docs)
	}
}
