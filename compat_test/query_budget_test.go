package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// budgetEnv is an emulator with container "b"/"c" (partition key /pk)
// holding, in partition "p", the items arrN whose a is [0, 1, ..., N-1].
type budgetEnv struct {
	e   *emulatortest.Emulator
	raw *rawClient
}

func newBudgetEnv(t *testing.T, sizes []int, opts ...emulatortest.Option) *budgetEnv {
	t.Helper()
	e := emulatortest.Start(t, opts...)
	raw := newRaw(t, e)
	raw.hc.Timeout = 3 * time.Minute // detects a hang only
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"b"}`)), 201)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/b/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), 201)
	for _, n := range sizes {
		a := make([]int, n)
		for i := range a {
			a[i] = i
		}
		body, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("arr%d", n), "pk": "p", "a": a})
		wantStatus(t, raw.do(http.MethodPost, docsPath("b", "c"), body, pkHeader, `["p"]`), 201)
	}
	return &budgetEnv{e: e, raw: raw}
}

// queryPage sends one page of a cross-partition query.
func (b *budgetEnv) queryPage(t testing.TB, text string, maxItems int, continuation string, extra ...string) (rawResp, time.Duration) {
	t.Helper()
	hdr := append(append([]string{"x-ms-max-item-count", strconv.Itoa(maxItems)}, queryHeaders...), extra...)
	if continuation != "" {
		hdr = append(hdr, "x-ms-continuation", continuation)
	}
	c := &rawClient{t: t, endpoint: b.raw.endpoint, hc: b.raw.hc}
	start := time.Now()
	r := c.do(http.MethodPost, docsPath("b", "c"), queryBody(text), hdr...)
	return r, time.Since(start)
}

// documents returns the Documents of a query page.
func documents(t testing.TB, r rawResp) []json.RawMessage {
	t.Helper()
	var page struct{ Documents []json.RawMessage }
	if err := json.Unmarshal(r.Body, &page); err != nil {
		t.Fatalf("page body: %v: %.300s", err, r.Body)
	}
	return page.Documents
}

// joinQuery is the query over item arrN.
func joinQuery(n int) string {
	return fmt.Sprintf(`SELECT c.id,x,y FROM c JOIN x IN c.a JOIN y IN c.a WHERE c.id = "arr%d"`, n)
}

// TestQueryJoinPageStopsAtItsItemCount: the self-JOIN with
// x-ms-max-item-count 10 answers a page of 10 with a continuation at N =
// 1,000, 3,000 and 100,000 (it took 0.5 s, 5.5 s and more than 150 s when
// the statement built every tuple of the document before the page), and
// the next page continues where the first ended.
func TestQueryJoinPageStopsAtItsItemCount(t *testing.T) {
	sizes := []int{1000, 3000, 100000}
	env := newBudgetEnv(t, sizes)
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			r, d := env.queryPage(t, joinQuery(n), 10, "")
			wantStatus(t, r, 200)
			docs := documents(t, r)
			t.Logf("N=%d: first page of %d in %v", n, len(docs), d)
			if len(docs) != 10 || r.Header.Get("x-ms-continuation") == "" {
				t.Fatalf("page of %d results, continuation %q; want 10 and a continuation", len(docs), r.Header.Get("x-ms-continuation"))
			}
			r2, d2 := env.queryPage(t, joinQuery(n), 10, r.Header.Get("x-ms-continuation"))
			wantStatus(t, r2, 200)
			t.Logf("N=%d: second page in %v", n, d2)
			var got []string
			for _, doc := range append(docs, documents(t, r2)...) {
				var v struct{ X, Y int }
				if err := json.Unmarshal(doc, &v); err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d,%d", v.X, v.Y))
			}
			var want []string
			for i := 0; i < 20; i++ {
				want = append(want, fmt.Sprintf("0,%d", i))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("results %v, want %v", got, want)
			}
		})
	}
}

// TestQueryPastThePageBudgetEndsWithAPartialPage: with a page budget of
// 300 ms, a query whose pages need longer (each of 200 documents scans
// the 30 x 30 pairs of its array for its one match) ends its pages
// early with the results they hold and a continuation, and draining every
// page gives each result exactly once, in order. (A page ends between
// documents: the rows of one document reach the page together, in their
// order.)
func TestQueryPastThePageBudgetEndsWithAPartialPage(t *testing.T) {
	env := newBudgetEnv(t, nil, emulatortest.WithPageTimeout(300*time.Millisecond))
	a := make([]int, 30)
	for i := range a {
		a[i] = i
	}
	for n := 0; n < 200; n++ {
		body, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("d%d", n), "pk": "p", "n": n, "a": a})
		wantStatus(t, env.raw.do(http.MethodPost, docsPath("b", "c"), body, pkHeader, `["p"]`), 201)
	}
	const q = `SELECT VALUE [c.n, x, y] FROM c JOIN x IN c.a JOIN y IN c.a WHERE x = y AND x = 29`
	var got []string
	partial, pages, cont := 0, 0, ""
	start := time.Now()
	for {
		r, d := env.queryPage(t, q, 1000, cont)
		wantStatus(t, r, 200)
		docs := documents(t, r)
		pages++
		cont = r.Header.Get("x-ms-continuation")
		t.Logf("page %d: %d results in %v", pages, len(docs), d)
		if cont != "" && len(docs) < 1000 {
			partial++
		}
		for _, doc := range docs {
			var v []int
			if err := json.Unmarshal(doc, &v); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprint(v))
		}
		if cont == "" || pages > 1000 {
			break
		}
	}
	t.Logf("%d results in %d pages (%d partial) in %v", len(got), pages, partial, time.Since(start))
	if len(got) != 200 {
		t.Fatalf("%d results, want 200", len(got))
	}
	for i, g := range got {
		if want := fmt.Sprint([]int{i, 29, 29}); g != want {
			t.Fatalf("result %d is %s, want %s", i, g, want)
		}
	}
	if partial == 0 {
		t.Fatalf("no page ended before its item count: the budget never stopped one")
	}
}

// TestSelectiveJoinPastThePageBudgetMovesOn is the shared-emulator case
// of a selective 4-way JOIN: its filter matches in two documents near the
// end (one tuple each), so a page's budget runs out long before its first result. Such a
// page used to answer 408 with no continuation (the client could neither
// finish nor resume); the service answers an empty page with a
// continuation that resumes where the work stopped. Every page here must
// be a 200, the pages together must give exactly the two results, and at
// least one page must have been empty with a continuation (the budget did
// stop one). The Go SDK's pager drains the same query to the same two
// results.
func TestSelectiveJoinPastThePageBudgetMovesOn(t *testing.T) {
	env := newBudgetEnv(t, nil, emulatortest.WithPageTimeout(300*time.Millisecond))
	const docs = 60
	for n := 0; n < docs; n++ {
		// 7 elements: 2,401 tuples per document (about 30 ms of work
		// each here); only d45 and d59 hold the values the filter wants
		base := 100
		if n == 45 || n == docs-1 {
			base = 0
		}
		a := make([]int, 7)
		for i := range a {
			a[i] = base + i
		}
		body, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("d%d", n), "pk": "p", "n": n, "a": a})
		wantStatus(t, env.raw.do(http.MethodPost, docsPath("b", "c"), body, pkHeader, `["p"]`), 201)
	}
	const q = `SELECT VALUE c.n FROM c JOIN w IN c.a JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a WHERE w + x + y + z = 24`
	var got []int
	empty, pages, cont := 0, 0, ""
	start := time.Now()
	for {
		r, d := env.queryPage(t, q, 10, cont)
		wantStatus(t, r, 200)
		page := documents(t, r)
		pages++
		cont = r.Header.Get("x-ms-continuation")
		t.Logf("page %d: %d results in %v", pages, len(page), d)
		if cont != "" && len(page) == 0 {
			empty++
		}
		for _, doc := range page {
			var n int
			if err := json.Unmarshal(doc, &n); err != nil {
				t.Fatal(err)
			}
			got = append(got, n)
		}
		if cont == "" || pages > 500 {
			break
		}
	}
	t.Logf("%v in %d pages (%d empty with a continuation) in %v", got, pages, empty, time.Since(start))
	if fmt.Sprint(got) != "[45 59]" {
		t.Fatalf("results %v, want [45 59]", got)
	}
	if empty == 0 {
		t.Fatalf("no page ended empty with a continuation: the budget never stopped one, so this test proved nothing")
	}

	// the Go SDK: one partition, its pager follows the continuations
	c := env.e.Client(t)
	db, _ := c.NewDatabase("b")
	cc, _ := db.NewContainer("c")
	pager := cc.NewQueryItemsPager(q, azcosmos.NewPartitionKeyString("p"), &azcosmos.QueryOptions{PageSizeHint: 10})
	var sdk []int
	for pager.More() {
		resp, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("Go SDK page: %v", err)
		}
		for _, it := range resp.Items {
			var n int
			if err := json.Unmarshal(it, &n); err != nil {
				t.Fatal(err)
			}
			sdk = append(sdk, n)
		}
	}
	if fmt.Sprint(sdk) != "[45 59]" {
		t.Fatalf("Go SDK results %v, want [45 59]", sdk)
	}
}

// TestJSSelectiveJoinFetchAllFinishes: through @azure/cosmos 4.10.1,
// fetchAll() of a selective 4-way JOIN whose pages run out of their
// budget (500 ms), most of them before any result, follows the
// continuations to the end and returns every result once, in order
// (compat_test/js/selective_join.mjs).
func TestJSSelectiveJoinFetchAllFinishes(t *testing.T) {
	checkJSScript(t, "fetchAll of a selective JOIN", "selective_join.mjs", "sjoin",
		"RESULTS [[0,11,11,11],[100,11,11,11],[200,11,11,11]]\n", emulatortest.WithPageTimeout(500*time.Millisecond))
}

// TestQueryWithNoResultInThePageBudgetIs408RequestTimeout: a query that
// cannot produce one result within the page budget (a self-JOIN over
// 100,000 elements matching nothing) answers 408 with a message naming
// the budget (the service's status for an operation past its execution
// limit; a continuation could not move past anything), soon after the
// budget, and PostgreSQL no longer runs the statement shortly after (the
// backend got a cancel request, not just a closed socket).
func TestQueryWithNoResultInThePageBudgetIs408RequestTimeout(t *testing.T) {
	env := newBudgetEnv(t, []int{100000}, emulatortest.WithPageTimeout(300*time.Millisecond))
	const q = `SELECT VALUE [x, y] FROM c JOIN x IN c.a JOIN y IN c.a WHERE x + y = -1`
	r, d := env.queryPage(t, q, 10, "")
	t.Logf("answered %d in %v", r.Status, d)
	msg := wantError(t, r, 408, "RequestTimeout")
	if !strings.Contains(msg, "budget") {
		t.Fatalf("message %q does not say the page budget ran out", msg)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, env.e.PG)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	start := time.Now()
	for {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%jsonb_array_elements%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Logf("no backend runs the statement %v after the answer", time.Since(start))
			break
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("%d backends still run the cancelled statement %v after the answer", n, time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQueryOf1000OrEqualitiesReturnsItsItems: 1,000 OR'd equalities on
// c.id over 1,300 items (9-17 s when each term read the document again)
// return exactly the 1,000 items named.
func TestQueryOf1000OrEqualitiesReturnsItsItems(t *testing.T) {
	env := newBudgetEnv(t, nil)
	for i := 0; i < 1300; i++ {
		body := fmt.Sprintf(`{"id":"x%d","pk":"p%d","n":%d}`, i, i%7, i)
		wantStatus(t, env.raw.do(http.MethodPost, docsPath("b", "c"), []byte(body), pkHeader, fmt.Sprintf(`["p%d"]`, i%7)), 201)
	}
	terms := make([]string, 1000)
	for i := range terms {
		terms[i] = fmt.Sprintf(`c.id = "x%d"`, i*7%1300)
	}
	q := `SELECT VALUE c.n FROM c WHERE ` + strings.Join(terms, " OR ")
	seen := map[int]bool{}
	cont, start := "", time.Now()
	for pages := 0; pages < 100; pages++ {
		r, d := env.queryPage(t, q, -1, cont)
		wantStatus(t, r, 200)
		t.Logf("page %d in %v", pages+1, d)
		for _, doc := range documents(t, r) {
			n, err := strconv.Atoi(string(doc))
			if err != nil || seen[n] {
				t.Fatalf("result %s: repeated or not a number", doc)
			}
			seen[n] = true
		}
		if cont = r.Header.Get("x-ms-continuation"); cont == "" {
			break
		}
	}
	t.Logf("%d results in %v", len(seen), time.Since(start))
	if len(seen) != 1000 {
		t.Fatalf("%d results, want 1000", len(seen))
	}
	for i := 0; i < 1000; i++ {
		if !seen[i*7%1300] {
			t.Fatalf("x%d missing", i*7%1300)
		}
	}
}

// TestQueryResultOverTheResponseLimitIs413: the REPLACE of
// 10,000 characters by 10,000 others (a 100 MB string, built and sent in
// full before) answers 413 with substatus 3402 (ResponseSizeExceeded, the
// service's answer to a response past its size limit), with a small body.
func TestQueryResultOverTheResponseLimitIs413(t *testing.T) {
	env := newBudgetEnv(t, []int{3})
	const q = `SELECT TOP 1 VALUE REPLACE(REPLICATE("a",10000),"a",REPLICATE("b",10000)) FROM c`
	r, d := env.queryPage(t, q, 10, "", pkHeader, `["p"]`)
	t.Logf("answered %d with %d bytes in %v", r.Status, len(r.Body), d)
	if len(r.Body) > 4<<20 {
		t.Fatalf("body of %d bytes, over 4 MB", len(r.Body))
	}
	wantError(t, r, 413, "RequestEntityTooLarge")
	wantSubStatus(t, r, 3402)
}
