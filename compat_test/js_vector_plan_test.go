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

// TestJSVectorSearchPlan runs compat_test/js/vector_plan.mjs on containers
// with one range (400 RU/s) and five (25,100 RU/s), without a vector index
// and with one of each type: ORDER BY VectorDistance gets the gateway's
// non-streaming plan, so @azure/cosmos refuses it without TOP or LIMIT (its
// own guard, unless allowUnboundedNonStreamingQueries) and otherwise merges
// the ranges' results in exact similarity order, the same answers with one
// range and five.
func TestJSVectorSearchPlan(t *testing.T) {
	t.Parallel()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	want := map[string]string{
		"UNBOUNDED": "ERR undefined Executing a non-streaming search query without TOP or LIMIT",
		"ALLOWED":   "w9 w8 w10 w7 w11 w6 w5 w4 w3 w2 w1 w0",
		"TOP":       "w9 w8 w10 w7 w11",
		"TOPPAGED":  "w9 w8 w10 w7 w11",
		"OFFSET":    "w10 w7 w11",
		// cosine similarity of w<i> to [1, 1]: cos(5i+1-45 degrees)
		"SCORE":     "w9:0.9998 w8:0.9976 w10:0.9945",
		"POLICY":    "w9 w8 w10 w7",
		"EUCLIDEAN": "w0 w1 w2",
	}
	n := 0
	for _, index := range []string{"none", "flat", "quantizedFlat", "diskANN"} {
		for _, tp := range []struct {
			ru, ranges string
		}{{"400", "1"}, {"25100", "5"}} {
			n++
			out, _ := runJS(t, node, dir, "vector_plan.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint,
				fmt.Sprintf("COSMOS_DB=vp%d", n), "THROUGHPUT="+tp.ru, "INDEX="+index)
			got := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				k, v, _ := strings.Cut(l, " ")
				if k == "ERR" {
					k, v, _ = strings.Cut(v, " ")
					v = "ERR " + strings.TrimSpace(v)
				}
				got[k] = v
			}
			if got["RANGES"] != tp.ranges {
				t.Errorf("%s, %s RU/s: %s ranges, want %s", index, tp.ru, got["RANGES"], tp.ranges)
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s, %s ranges: %s %q, want %q", index, tp.ranges, k, got[k], w)
				}
			}
		}
	}
}

// TestVectorSearchPlanShape reads the plan of the query from a
// container with five ranges: a non-streaming ORDER BY (the SDKs buffer and
// sort every range's results), descending for cosine similarity whatever
// the direction written, the distance as the ranges' order-by item; and
// the service's refusal when the client does not list NonStreamingOrderBy.
func TestVectorSearchPlanShape(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"v"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/v/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},
		"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/embedding","dataType":"float32","dimensions":2,"distanceFunction":"euclidean"}]}}`),
		"x-ms-offer-throughput", "25100"), http.StatusCreated)
	const query = `SELECT c.word FROM c ORDER BY VectorDistance([1,1], c.embedding, true, {distanceFunction:'Cosine'})`
	all := "Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleOrderBy, MultipleAggregates, OffsetAndLimit, OrderBy, Top, NonValueAggregate, NonStreamingOrderBy"
	plan := func(features string) rawResp {
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
		return raw.do(http.MethodPost, "/dbs/v/colls/c/docs", body, "Content-Type", "application/query+json",
			"x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features", features)
	}
	r := plan(all)
	wantStatus(t, r, http.StatusOK)
	var p struct{ QueryInfo map[string]any }
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	for k, w := range map[string]string{
		"hasNonStreamingOrderBy": "true",
		"orderBy":                `["Descending"]`,
		"orderByExpressions":     `["VECTORDISTANCE([1, 1], c.embedding, true, {\"distanceFunction\": \"Cosine\"})"]`,
		"rewrittenQuery": `"SELECT c._rid, [{\"item\": VECTORDISTANCE([1, 1], c.embedding, true, {\"distanceFunction\": \"Cosine\"})}] AS orderByItems, ` +
			`{\"word\": c.word} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY VECTORDISTANCE([1, 1], c.embedding, true, {\"distanceFunction\": \"Cosine\"}) ASC"`,
	} {
		b, _ := json.Marshal(p.QueryInfo[k])
		if string(b) != w {
			t.Errorf("queryInfo.%s = %s, want %s", k, b, w)
		}
	}
	r = plan(strings.TrimSuffix(all, ", NonStreamingOrderBy"))
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "Query contained NonStreamingOrderBy, which the calling client does not support.") {
		t.Errorf("plan without NonStreamingOrderBy: %d %s", r.Status, r.Body)
	}
}
