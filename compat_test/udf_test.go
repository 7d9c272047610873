package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// taxUDF is the documentation's Tax UDF (server-side-js.md §7).
const taxUDF = `function tax(income) {
    if (income == undefined)
        throw 'no input';
    if (income < 1000)
        return income * 0.1;
    else if (income < 10000)
        return income * 0.2;
    else
        return income * 0.4;
}`

// createUDF creates a user-defined function in db/c over raw REST.
func createUDF(t *testing.T, raw *rawClient, db, id, body string) {
	t.Helper()
	wantStatus(t, raw.do(http.MethodPost, scriptsPath(db, "c", "udfs"), []byte(`{"id":`+string(mustJSON(t, id))+`,"body":`+string(mustJSON(t, body))+`}`)), http.StatusCreated)
}

// rawQuery posts a cross-partition query over raw REST.
func rawQuery(raw *rawClient, db, query string, hdr ...string) rawResp {
	body, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
	return raw.do(http.MethodPost, docsPath(db, "c"), body, append([]string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
		"x-ms-documentdb-query-enablecrosspartition", "True"}, hdr...)...)
}

// TestUDFTaxExample runs the documentation's Tax UDF through the Go SDK
// (queries are plain text to it): in WHERE (udf.Tax(t.income) > 20000
// keeps the incomes above 50,000), in a projection, with the undefined
// argument of an item without income skipping the call, and the docs'
// REGEX_MATCH projection with its unaliased $1.
func TestUDFTaxExample(t *testing.T) {
	f := newFixture(t)
	cc := mustContainer(t, mustDB(t, f.c, "udb"), "c", "/pk")
	createUDF(t, f.raw, "udb", "Tax", taxUDF)
	createUDF(t, f.raw, "udb", "REGEX_MATCH", `function (input, pattern) { return input.match(pattern) !== null; }`)
	for _, d := range []string{
		`{"id":"a","pk":"x","income":60000,"address":{"city":"Seattle"}}`,
		`{"id":"b","pk":"y","income":40000,"address":{"city":"New York"}}`,
		`{"id":"c","pk":"x","income":5000}`,
		`{"id":"d","pk":"y","income":500}`,
		`{"id":"e","pk":"x","income":120000}`,
		`{"id":"f","pk":"y"}`,
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(d), &m)
		if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(m["pk"].(string)), []byte(d), nil); err != nil {
			t.Fatal(err)
		}
	}
	all := azcosmos.NewPartitionKey()
	tests := []struct {
		name, query string
		pk          azcosmos.PartitionKey
		want        string
	}{
		{"WHERE udf.Tax(t.income) > 20000", `SELECT VALUE t.id FROM t WHERE udf.Tax(t.income) > 20000`, all, `["a","e"]`},
		{"SELECT * with the Tax filter in one partition", `SELECT * FROM Incomes t WHERE udf.Tax(t.income) > 20000`, azcosmos.NewPartitionKeyString("x"), `["a","e"]`},
		{"projection", `SELECT t.id, udf.Tax(t.income) AS tax FROM t`, all,
			`[{"id":"a","tax":24000},{"id":"b","tax":16000},{"id":"c","tax":1000},{"id":"d","tax":50},{"id":"e","tax":48000},{"id":"f"}]`},
		{"REGEX_MATCH", `SELECT udf.REGEX_MATCH(Families.address.city, ".*eattle") FROM Families WHERE IS_DEFINED(Families.address)`, all, `[{"$1":true},{"$1":false}]`},
		{"without FROM", `SELECT udf.Tax(2000) AS v`, all, `[{"v":400}]`},
		{"ORDER BY a UDF", `SELECT VALUE t.id FROM t WHERE IS_DEFINED(t.income) ORDER BY udf.Tax(t.income) DESC`, azcosmos.NewPartitionKeyString("x"), `["e","a","c"]`},
		{"COUNT with a UDF filter", `SELECT VALUE COUNT(1) FROM t WHERE udf.Tax(t.income) > 10000`, azcosmos.NewPartitionKeyString("x"), `[2]`},
		{"GROUP BY a UDF", `SELECT udf.Tax(t.income) > 20000 AS high, COUNT(1) AS n FROM t WHERE t.pk = "y" AND IS_DEFINED(t.income) GROUP BY udf.Tax(t.income) > 20000`, all, `[{"high":false,"n":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := queryAll(t, cc, tt.query, tt.pk, nil)
			if strings.HasPrefix(tt.query, "SELECT *") {
				ids := []any{}
				for _, d := range got {
					ids = append(ids, d.(map[string]any)["id"])
				}
				got = ids
			}
			if b, _ := json.Marshal(got); string(b) != tt.want {
				t.Fatalf("%s\n got %s\nwant %s", tt.query, b, tt.want)
			}
		})
	}
}

// TestUDFPagingExactlyOnce: a selective UDF filter over 3,000 items in
// pages of 7 (raw REST, following x-ms-continuation) returns every match
// exactly once, whatever the scan batches and pages.
func TestUDFPagingExactlyOnce(t *testing.T) {
	f := newFixture(t)
	cc := mustContainer(t, mustDB(t, f.c, "udb"), "c", "/pk")
	createUDF(t, f.raw, "udb", "mod", `function (n, m) { return n % m; }`)
	b := cc.NewTransactionalBatch(azcosmos.NewPartitionKeyString("p"))
	n := 0
	for i := 0; i < 3000; i++ {
		b.CreateItem([]byte(fmt.Sprintf(`{"id":"%d","pk":"p","n":%d}`, i, i)), nil)
		if n++; n == 100 {
			if r, err := cc.ExecuteTransactionalBatch(bg, b, nil); err != nil || !r.Success {
				t.Fatal(err)
			}
			b, n = cc.NewTransactionalBatch(azcosmos.NewPartitionKeyString("p")), 0
		}
	}
	var got []int
	cont, pages := "", 0
	for {
		hdr := []string{"x-ms-max-item-count", "7"}
		if cont != "" {
			hdr = append(hdr, "x-ms-continuation", cont)
		}
		r := rawQuery(f.raw, "udb", `SELECT VALUE c.n FROM c WHERE udf.mod(c.n, 97) = 13`, hdr...)
		wantStatus(t, r, http.StatusOK)
		var env struct{ Documents []int }
		if err := json.Unmarshal(r.Body, &env); err != nil {
			t.Fatal(err)
		}
		got = append(got, env.Documents...)
		pages++
		if cont = r.Header.Get("x-ms-continuation"); cont == "" {
			break
		}
	}
	sort.Ints(got)
	var want []int
	for i := 13; i < 3000; i += 97 {
		want = append(want, i)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%d results in %d pages:\n%v\nwant\n%v", len(got), pages, got, want)
	}
	// the Go SDK pages the same query to the same results
	if all := queryAll(t, cc, `SELECT VALUE c.n FROM c WHERE udf.mod(c.n, 97) = 13`, azcosmos.NewPartitionKeyString("p"), &azcosmos.QueryOptions{PageSizeHint: 5}); len(all) != len(want) {
		t.Fatalf("Go SDK: %d results, want %d", len(all), len(want))
	}
}

// TestUDFQueryErrors: a UDF that throws (the Tax UDF on a null income) is
// the service's script error; an unknown UDF and more than 10 references
// are compile errors (SC2005 and SC2107, codes chosen by the emulator);
// a looping UDF is stopped at the script time limit with 408, and the
// emulator answers afterwards.
func TestUDFQueryErrors(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithScriptLimits(time.Second, 64<<20))
	raw := newRaw(t, e)
	cc := mustContainer(t, mustDB(t, e.Client(t), "udb"), "c", "/pk")
	createUDF(t, raw, "udb", "Tax", taxUDF)
	createUDF(t, raw, "udb", "loop", `function (x) { while (true) {} }`)
	createUDF(t, raw, "udb", "fail", `function (x) { throw new Error(409, "bad " + x); }`)
	for _, d := range []string{`{"id":"a","pk":"x","income":null}`, `{"id":"b","pk":"x","income":1}`} {
		if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("x"), []byte(d), nil); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, query string
		status      int
		code        string
		sub         int
		contains    string
	}{
		{"throwing UDF (string)", `SELECT * FROM c WHERE udf.Tax(c.income) > 0`, 400, "BadRequest", 0, `Message: {"Errors":["no input"]}`},
		{"throwing UDF (Error with a number)", `SELECT VALUE udf.fail(c.id) FROM c`, 400, "BadRequest", 409, `Exception = Error: bad a`},
		{"unknown UDF", `SELECT VALUE udf.Nope(c.id) FROM c`, 400, "BadRequest", 0, `"message":"'udf.Nope' is not a recognized user-defined function name."`},
		{"UDF names are case-sensitive", `SELECT VALUE udf.tax(c.income) FROM c`, 400, "BadRequest", 0, `'udf.tax' is not a recognized`},
		{"more than 10 references", `SELECT VALUE [` + strings.Repeat("udf.Tax(c.income), ", 10) + `udf.Tax(1)] FROM c`, 400, "BadRequest", 0, `"code":"SC2107"`},
		{"looping UDF", `SELECT VALUE udf.loop(c.id) FROM c`, 408, "RequestTimeout", 0, "did not complete within the allotted execution time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := &rawClient{t: t, endpoint: raw.endpoint, hc: raw.hc}
			r := rawQuery(raw, "udb", tt.query, pkHeader, `["x"]`)
			msg := wantError(t, r, tt.status, tt.code)
			wantSubStatus(t, r, tt.sub)
			if !strings.Contains(msg, tt.contains) {
				t.Fatalf("message %q lacks %q", msg, tt.contains)
			}
		})
	}
	// the emulator is fine afterwards, UDFs included
	got := queryAll(t, cc, `SELECT VALUE udf.Tax(c.income) FROM c WHERE c.id = "b"`, azcosmos.NewPartitionKeyString("x"), nil)
	if b, _ := json.Marshal(got); string(b) != `[0.1]` {
		t.Fatalf("after the errors: %s", b)
	}
}

// TestUDFGatewayRules: a UDF does not by itself make a query need the
// SDKs' pipeline: across partitions, a UDF filter or projection is served
// directly (200), while ORDER BY with a UDF filter gets the gateway's 1004
// and a plan whose rewritten query keeps the UDF; the plan endpoint
// answers UDF queries like any other (a pass-through plan for a plain UDF
// filter), and the rewritten query then runs on range "0".
func TestUDFGatewayRules(t *testing.T) {
	f := newFixture(t)
	cc := mustContainer(t, mustDB(t, f.c, "udb"), "c", "/pk")
	createUDF(t, f.raw, "udb", "Tax", taxUDF)
	for i, inc := range []int{60000, 40000, 5000, 120000} {
		d := fmt.Sprintf(`{"id":"%d","pk":"p%d","income":%d}`, i, i, inc)
		if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(fmt.Sprintf("p%d", i)), []byte(d), nil); err != nil {
			t.Fatal(err)
		}
	}
	wantStatus(t, rawQuery(f.raw, "udb", `SELECT VALUE c.id FROM c WHERE udf.Tax(c.income) > 20000`), http.StatusOK)
	wantStatus(t, rawQuery(f.raw, "udb", `SELECT c.id, udf.Tax(c.income) AS t FROM c`), http.StatusOK)
	r := rawQuery(f.raw, "udb", `SELECT VALUE c.id FROM c WHERE udf.Tax(c.income) > 20000 ORDER BY c.income DESC`)
	wantError(t, r, http.StatusBadRequest, "BadRequest")
	wantSubStatus(t, r, 1004)

	plan := func(query string) map[string]any {
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
		r := f.raw.do(http.MethodPost, docsPath("udb", "c"), body, "Content-Type", "application/query+json",
			"x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features", "Aggregate, Distinct, MultipleOrderBy, OffsetAndLimit, OrderBy, Top")
		wantStatus(t, r, http.StatusOK)
		var p struct{ QueryInfo map[string]any }
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		return p.QueryInfo
	}
	if info := plan(`SELECT VALUE c.id FROM c WHERE udf.Tax(c.income) > 20000`); info["rewrittenQuery"] != "" || len(info["orderBy"].([]any)) != 0 || info["top"] != nil {
		t.Fatalf("plain UDF filter plan: %v", info)
	}
	info := plan(`SELECT VALUE c.id FROM c WHERE udf.Tax(c.income) > 20000 ORDER BY c.income DESC`)
	rewritten, _ := info["rewrittenQuery"].(string)
	if !strings.Contains(rewritten, "udf.Tax(") {
		t.Fatalf("ORDER BY plan's rewritten query lost the UDF: %v", info)
	}
	body, _ := json.Marshal(map[string]any{"query": strings.Replace(rewritten, "{documentdb-formattableorderbyquery-filter}", "true", 1), "parameters": []any{}})
	r = f.raw.do(http.MethodPost, docsPath("udb", "c"), body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
		"x-ms-documentdb-partitionkeyrangeid", "0")
	wantStatus(t, r, http.StatusOK)
	var page struct{ Documents []struct{ Payload string } }
	if err := json.Unmarshal(r.Body, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Documents) != 2 || page.Documents[0].Payload != "3" || page.Documents[1].Payload != "0" {
		t.Fatalf("rewritten query: %s", r.Body)
	}
}
