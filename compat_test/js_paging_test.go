package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// queryExchange is one query request a recording proxy saw (the headers
// that decide how it is served, its body) and the answer's paging headers.
type queryExchange struct {
	mark                        string // the script's last mark ("orderby/next")
	plan                        bool   // x-ms-cosmos-is-query-plan-request
	rangeID, pk, maxItems, cont string
	body                        string
	status                      int
	respCont, itemCount         string
}

func (x queryExchange) String() string {
	kind := "query"
	if x.plan {
		kind = "plan"
	}
	return fmt.Sprintf("%s range=%q pk=%q max=%q cont=%t body=%s -> %d items=%s cont=%t",
		kind, x.rangeID, x.pk, x.maxItems, x.cont != "", x.body, x.status, x.itemCount, x.respCont != "")
}

// startRecordingProxy starts a markingProxy to target recording every
// POST .../docs (queries and query plan requests) with its answer.
func startRecordingProxy(t *testing.T, target string) (*markingProxy[queryExchange], string) {
	t.Helper()
	return startMarkingProxy(t, target, func(res *http.Response, mark string) (queryExchange, bool) {
		req := res.Request
		if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/docs") {
			return queryExchange{}, false
		}
		h := req.Header
		x := queryExchange{
			plan:    strings.EqualFold(h.Get("x-ms-cosmos-is-query-plan-request"), "true"),
			rangeID: h.Get("x-ms-documentdb-partitionkeyrangeid"), pk: h.Get("x-ms-documentdb-partitionkey"),
			maxItems: h.Get("x-ms-max-item-count"), cont: h.Get("x-ms-continuation"),
			body: h.Get("X-Recorded-Body"), status: res.StatusCode,
			respCont: res.Header.Get("x-ms-continuation"), itemCount: res.Header.Get("x-ms-item-count"),
		}
		if h.Get("x-ms-documentdb-isquery") == "" && h.Get("x-ms-documentdb-query") == "" && !x.plan {
			return queryExchange{}, false // an item write
		}
		x.mark = mark
		return x, true
	})
}

// queryRequests is the query requests of one query, in order, without the
// plan request: "400" for a refusal, else "<range id or ->:<items>" with a
// "+" when the answer carries a continuation; and the query texts sent to
// range "0" (each distinct text once).
func queryRequests(xs []queryExchange) (reqs string, sent []string, plans int) {
	var parts []string
	seen := map[string]bool{}
	for _, x := range xs {
		if x.plan {
			plans++
			continue
		}
		if x.status != http.StatusOK {
			parts = append(parts, fmt.Sprint(x.status))
			continue
		}
		r := x.rangeID
		if r == "" {
			r = "-"
		}
		p := r + ":" + x.itemCount
		if x.respCont != "" {
			p += "+"
		}
		parts = append(parts, p)
		if x.rangeID != "" && !seen[x.body] {
			seen[x.body] = true
			var b struct {
				Query string `json:"query"`
			}
			_ = json.Unmarshal([]byte(x.body), &b)
			sent = append(sent, b.Query)
		}
	}
	return strings.Join(parts, " "), sent, plans
}

// TestJSQueryPaging runs compat_test/js/paging.mjs behind a recording proxy:
// cross-partition queries of each kind through @azure/cosmos's query
// pipeline, maxItemCount 3 over 12 items. For each it checks every
// fetchNext's item count and hasMoreResults, the results (fetchNext and
// fetchAll) and the requests the SDK sent: after the optimistic request's
// 400 (which carries the plan) the pipeline sends the plan's query to range
// "0" with x-ms-max-item-count 3, and the page that holds the last row
// carries no continuation, so no request fetches a trailing empty page.
// A plain SELECT * needs no plan: the SDK's optimistic request is the
// gateway's cross-partition shape (no partition key, no range id), the
// shape the Go SDK's TestCrossPartitionQuery pins, and keeps its trailing
// empty page; through the pipeline (enableQueryControl) it ends on its
// last row. OFFSET n LIMIT m goes out as the plan's OFFSET 0 LIMIT n+m and
// the SDK skips the first n itself, so a fetchNext whose page was all
// skipped returns nothing (what the service's plan makes the SDK do).
func TestJSQueryPaging(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	proxy, endpoint := startRecordingProxy(t, e.Endpoint)
	start := time.Now()
	out, _ := runJS(t, node, dir, "paging.mjs", 120*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=paging")
	t.Logf("paging.mjs ran in %v", time.Since(start).Round(time.Millisecond))
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(l, " ", 3)
		if len(f) == 3 {
			lines[f[0]+" "+f[1]] = f[2]
		}
	}
	byMark := map[string][]queryExchange{}
	for _, x := range proxy.all() {
		byMark[x.mark] = append(byMark[x.mark], x)
	}
	const (
		byN     = "i00 i05 i10 i03 i08 i01 i06 i11 i04 i09 i02 i07" // ids by n ascending
		byNDesc = "i07 i02 i09 i04 i11 i06 i01 i08 i03 i10 i05 i00"
		obHead  = `SELECT c._rid, [{"item": c.n}] AS orderByItems, `
	)
	tests := []struct {
		name  string
		pages string // fetchNext item counts / hasMoreResults
		items string
		reqs  string   // query requests (queryRequests)
		sent  []string // the texts sent to range "0"
	}{
		{"select", "3/true 3/true 3/true 3/true 0/false", "i00 i01 i02 i03 i04 i05 i06 i07 i08 i09 i10 i11",
			"-:3+ -:3+ -:3+ -:3+ -:0", nil},
		{"selectpipeline", "3/true 3/true 3/true 3/false", "i00 i01 i02 i03 i04 i05 i06 i07 i08 i09 i10 i11",
			"0:3+ 0:3+ 0:3+ 0:3", []string{"SELECT * FROM c"}},
		{"orderby", "3/true 3/true 3/true 3/false", byN,
			"400 0:3+ 0:3+ 0:3+ 0:3", []string{obHead + "c AS payload FROM c WHERE (true) ORDER BY c.n ASC"}},
		{"orderbydesc", "3/true 3/true 3/true 3/false", byNDesc,
			"400 0:3+ 0:3+ 0:3+ 0:3", []string{obHead + `{"id": c.id, "n": c.n} AS payload FROM c WHERE (true) ORDER BY c.n DESC`}},
		{"top", "3/true 3/true 3/false", "i00 i01 i02 i03 i04 i05 i06 i07 i08",
			"400 0:3+ 0:3+ 0:3", []string{"SELECT TOP 9 c.id FROM c"}},
		{"orderbytop", "3/true 3/true 1/false", "i00 i05 i10 i03 i08 i01 i06",
			"400 0:3+ 0:3+ 0:1", []string{`SELECT TOP 7 c._rid, [{"item": c.n}] AS orderByItems, {"id": c.id, "n": c.n} AS payload FROM c WHERE (true) ORDER BY c.n ASC`}},
		{"orderbytopall", "3/true 3/true 3/true 3/false", "11 10 9 8 7 6 5 4 3 2 1 0",
			"400 0:3+ 0:3+ 0:3+ 0:3", []string{`SELECT TOP 12 c._rid, [{"item": c.n}] AS orderByItems, c.n AS payload FROM c WHERE (true) ORDER BY c.n DESC`}},
		// the first page (0, 1, 2) is skipped by the SDK: an empty fetchNext
		{"offsetlimit", "0/true 3/true 2/false", "4 5 6 7 8",
			"400 0:3+ 0:3+ 0:3", []string{obHead + "c.n AS payload FROM c WHERE (true) ORDER BY c.n ASC OFFSET 0 LIMIT 9"}},
		{"offsetlimitpast", "0/true 3/true 3/true 3/false", "3 4 5 6 7 8 9 10 11",
			"400 0:3+ 0:3+ 0:3+ 0:3", []string{obHead + "c.n AS payload FROM c WHERE (true) ORDER BY c.n ASC OFFSET 0 LIMIT 23"}},
		{"offsetlimitplain", "0/true 0/true 3/true 1/false", `"i07" "i08" "i09" "i10"`,
			"400 0:3+ 0:3+ 0:3+ 0:2", []string{"SELECT VALUE c.id FROM c OFFSET 0 LIMIT 11"}},
		{"distinct", "3/true 3/false", "1 2 3 4 5 6", "400 0:3+ 0:3", []string{"SELECT DISTINCT VALUE c.g FROM c"}},
		// the SDK drops repeats of the last value: 12 rows make 6 results
		{"distinctordered", "3/true 3/false", "1 2 3 4 5 6",
			"400 0:3+ 0:3+ 0:3+ 0:3", []string{`SELECT c._rid, [{"item": c.g}] AS orderByItems, c.g AS payload FROM c WHERE (true) ORDER BY c.g ASC`}},
		{"count", "1/false", "12", "400 0:1", []string{`SELECT VALUE [{"item": COUNT(1)}] FROM c`}},
		{"sum", "1/false", "66", "400 0:1", []string{`SELECT VALUE [{"item": SUM(c.n)}] FROM c`}},
		// the SDK's GROUP BY returns nothing until it has read every group
		{"groupby", "0/true 3/true 3/false", `{"g":1,"k":2} {"g":2,"k":2} {"g":3,"k":2} {"g":4,"k":2} {"g":5,"k":2} {"g":6,"k":2}`,
			"400 0:3+ 0:3", []string{`SELECT [{"item": c.g}] AS groupByItems, {"g": c.g, "k": {"item": COUNT(1)}} AS payload FROM c GROUP BY c.g`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages := lines["PAGES "+tt.name]
			if pages != tt.pages {
				t.Errorf("fetchNext pages %q, want %q", pages, tt.pages)
			}
			if got := lines["ITEMS "+tt.name]; got != tt.items {
				t.Errorf("fetchNext results %q, want %q", got, tt.items)
			}
			if got := lines["ALL "+tt.name]; got != tt.items {
				t.Errorf("fetchAll results %q, want %q", got, tt.items)
			}
			for _, how := range []string{"next", "all"} {
				xs := byMark[tt.name+"/"+how]
				reqs, sent, plans := queryRequests(xs)
				t.Logf("%s: %d requests (%d plan + %s); fetchNext pages %s", how, plans+len(strings.Fields(reqs)), plans, reqs, pages)
				if reqs != tt.reqs || plans != 1 {
					for _, x := range xs {
						t.Logf("  %s", x)
					}
					t.Errorf("%s: query requests %q and %d plan requests, want %q and 1", how, reqs, plans, tt.reqs)
				}
				if strings.Join(sent, "\n") != strings.Join(tt.sent, "\n") {
					t.Errorf("%s: sent to range 0 %q, want %q", how, sent, tt.sent)
				}
				// Every query request asks for pages of 3 and sends back the
				// continuation of the answer before it, verbatim.
				prev := ""
				for _, x := range xs {
					if x.plan || x.status != http.StatusOK {
						continue
					}
					if x.maxItems != "3" || x.cont != prev {
						t.Errorf("%s: request with x-ms-max-item-count %q and continuation %q, want 3 and %q", how, x.maxItems, x.cont, prev)
					}
					prev = x.respCont
				}
			}
		})
	}
}
