package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestHybridSearchPlanShape reads the plans of ORDER BY RANK queries on a
// container with five ranges and checks them against the gateway's shape
// (the reference's worked examples, reconstructed from @azure/cosmos
// 4.10.1 hybridQueryExecutionContext and .NET's QueryPlanRetrieverTests):
// the statistics query, the component queries with their placeholders,
// skip and take, the weights; the optimized format only for a client that
// lists HybridSearchSkipOrderByRewrite; the cross-partition query itself
// refused with 400/1004 so that the SDKs run the plan; and the statistics
// query answered by one range as the SDKs read it.
func TestHybridSearchPlanShape(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"h"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/h/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`),
		"x-ms-offer-throughput", "25100"), http.StatusCreated)
	for _, it := range []string{
		`{"id":"a","pk":"1","text":"red mountain bike","title":"red bike"}`,
		`{"id":"b","pk":"2","text":"bike bike repair shop","title":"blue bike"}`,
		`{"id":"c","pk":"3","text":"blue car","title":"red car"}`,
	} {
		var m map[string]any
		_ = json.Unmarshal([]byte(it), &m)
		pk, _ := json.Marshal([]any{m["pk"]})
		wantStatus(t, raw.do(http.MethodPost, docsPath("h", "c"), []byte(it), pkHeader, string(pk)), http.StatusCreated)
	}
	const all = "NonValueAggregate,Aggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,CompositeAggregate,GroupBy,MultipleAggregates,NonStreamingOrderBy,ListAndSetAggregate,CountIf,HybridSearch,WeightedRankFusion"
	plan := func(query, features string, params ...any) (map[string]any, rawResp) {
		t.Helper()
		if params == nil {
			params = []any{}
		}
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": params})
		r := raw.do(http.MethodPost, docsPath("h", "c"), body, "Content-Type", "application/query+json",
			"x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features", features)
		var p map[string]any
		if r.Status == http.StatusOK {
			if err := json.Unmarshal(r.Body, &p); err != nil {
				t.Fatal(err)
			}
		}
		return p, r
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	const s0 = `_FULLTEXTSCORE(c.text, ["bike"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0})`
	const s1 = `_FULLTEXTSCORE(c.title, ["red"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-1}, {documentdb-formattablehybridsearchquery-hitcountsarray-1})`
	tests := []struct {
		name, query, features string
		want                  map[string]string // hybridSearchQueryInfo member -> JSON
	}{
		{
			name: "one FullTextScore", query: `SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, "bike")`, features: all + ",HybridSearchSkipOrderByRewrite",
			want: map[string]string{
				"globalStatisticsQuery": js(`SELECT COUNT(1) AS documentCount, [{"totalWordCount": SUM(_FULLTEXTWORDCOUNT(c.text)), "hitCounts": [COUNTIF(FULLTEXTCONTAINS(c.text, "bike"))]}] AS fullTextStatistics FROM c`),
				"componentQueryInfos": js([]map[string]any{{"distinctType": "None", "top": 120, "offset": nil, "limit": nil, "orderBy": []string{"Descending"},
					"orderByExpressions": []string{s0}, "groupByExpressions": []string{}, "groupByAliases": []string{}, "aggregates": []string{},
					"groupByAliasToAggregateType": map[string]any{},
					"rewrittenQuery":              `SELECT TOP 120 c._rid, [{"item": ` + s0 + `}] AS orderByItems, {"payload": {"id": c.id}, "componentScores": []} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY ` + s0 + ` DESC`,
					"hasSelectValue":              false, "dCountInfo": nil, "hasNonStreamingOrderBy": true}}),
				"componentWeights": `[]`, "skip": `null`, "take": `10`, "requiresGlobalStatistics": `true`,
				"componentWithoutPayloadQueryInfos": `[]`, "projectionQueryInfo": `null`,
			},
		},
		{
			name: "weighted RRF, optimized", query: `SELECT TOP 10 c.id FROM c ORDER BY RANK RRF(FullTextScore(c.text, "bike"), FullTextScore(c.title, "red"), [2, -1])`,
			features: all + ",HybridSearchSkipOrderByRewrite",
			want: map[string]string{
				"globalStatisticsQuery": js(`SELECT COUNT(1) AS documentCount, [{"totalWordCount": SUM(_FULLTEXTWORDCOUNT(c.text)), "hitCounts": [COUNTIF(FULLTEXTCONTAINS(c.text, "bike"))]}, {"totalWordCount": SUM(_FULLTEXTWORDCOUNT(c.title)), "hitCounts": [COUNTIF(FULLTEXTCONTAINS(c.title, "red"))]}] AS fullTextStatistics FROM c`),
				"componentWeights":      `[2,1]`, "skip": `null`, "take": `10`, "requiresGlobalStatistics": `true`,
			},
		},
		{
			name: "RRF with vector, non-optimized, OFFSET LIMIT", query: `SELECT c.id FROM c WHERE c.pk != "x" ORDER BY RANK RRF(FullTextScore(c.text, ["bike", "red"]), VectorDistance(c.v, [1, 0])) OFFSET 1 LIMIT 2`,
			features: all,
			want: map[string]string{
				"componentWeights": `[]`, "skip": `1`, "take": `2`, "requiresGlobalStatistics": `true`,
			},
		},
		{
			name: "vector only", query: `SELECT c.id FROM c ORDER BY RANK RRF(VectorDistance(c.v, [1, 0]), VectorDistance(c.w, [0, 1]))`,
			features: all,
			want: map[string]string{
				"globalStatisticsQuery": js(`SELECT COUNT(1) AS documentCount, [] AS fullTextStatistics FROM c`), "componentWeights": `[]`, "skip": `null`, "take": `null`, "requiresGlobalStatistics": `false`,
			},
		},
	}
	for _, tc := range tests {
		p, r := plan(tc.query, tc.features)
		if r.Status != http.StatusOK {
			t.Errorf("%s: plan status %d: %s", tc.name, r.Status, r.Body)
			continue
		}
		h, _ := p["hybridSearchQueryInfo"].(map[string]any)
		if h == nil || p["queryInfo"] != nil {
			t.Errorf("%s: plan %s: want hybridSearchQueryInfo and no queryInfo", tc.name, r.Body)
			continue
		}
		for k, w := range tc.want {
			if got := js(h[k]); got != w {
				t.Errorf("%s: %s = %s\nwant %s", tc.name, k, got, w)
			}
		}
	}
	// the optimized components of the weighted RRF: payload and scores
	// side by side, the negative weight's component ascending and negated
	p, _ := plan(tests[1].query, tests[1].features)
	comps := p["hybridSearchQueryInfo"].(map[string]any)["componentQueryInfos"].([]any)
	scores := `[(` + s0 + ` ?? -1), (-1 * (` + s1 + ` ?? 1.79769e+308))] AS componentScores FROM c ORDER BY `
	for i, w := range []string{
		`SELECT TOP 120 c._rid, {"id": c.id} AS payload, ` + scores + s0 + ` DESC`,
		`SELECT TOP 120 c._rid, {"id": c.id} AS payload, ` + scores + s1 + ` ASC`,
	} {
		ci := comps[i].(map[string]any)
		if ci["rewrittenQuery"] != w || js(ci["orderBy"]) != `[]` || ci["hasNonStreamingOrderBy"] != false || ci["top"] != nil {
			t.Errorf("component %d: %s\nwant rewrittenQuery %s", i, js(ci), w)
		}
	}
	// the same without HybridSearchSkipOrderByRewrite: non-streaming
	// ORDER BY components carrying every score
	p, _ = plan(tests[1].query, all)
	ci := p["hybridSearchQueryInfo"].(map[string]any)["componentQueryInfos"].([]any)[1].(map[string]any)
	if w := `SELECT TOP 120 c._rid, [{"item": ` + s1 + `}] AS orderByItems, {"payload": {"id": c.id}, "componentScores": [(` + s0 + ` ?? -1), (` + s1 +
		` ?? 1.79769e+308)]} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY ` + s1 + ` ASC`; ci["rewrittenQuery"] != w ||
		js(ci["orderBy"]) != `["Ascending"]` || ci["hasNonStreamingOrderBy"] != true {
		t.Errorf("non-optimized component 1: %s\nwant rewrittenQuery %s", js(ci), w)
	}
	// OFFSET and LIMIT must be number literals (the service's refusal)
	if _, r := plan(`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.text, "bike") OFFSET @o LIMIT 2`, all, map[string]any{"name": "@o", "value": 1}); r.Status != http.StatusBadRequest ||
		!strings.Contains(string(r.Body), "Invalid OFFSET/LIMIT spec for Hybrid Search query.") {
		t.Errorf("OFFSET @o: %d %s", r.Status, r.Body)
	}
	// the account's limits (queryMaxRrfArgumentCount 100,
	// queryMaxFullTextScoreSearchTerms 30), for the plan and the query
	terms := func(n int) string {
		ts := make([]string, n)
		for i := range ts {
			ts[i] = fmt.Sprintf(`"t%d"`, i)
		}
		return strings.Join(ts, ", ")
	}
	components := func(n int) string {
		cs := make([]string, n)
		for i := range cs {
			cs[i] = `FullTextScore(c.text, "bike")`
		}
		return strings.Join(cs, ", ")
	}
	for _, lc := range []struct {
		query  string
		status int
		msg    string
	}{
		{`SELECT TOP 1 c.id FROM c ORDER BY RANK FullTextScore(c.text, ` + terms(30) + `)`, http.StatusOK, ""},
		{`SELECT TOP 1 c.id FROM c ORDER BY RANK FullTextScore(c.text, ` + terms(31) + `)`, http.StatusBadRequest, "FullTextScore exceeds the maximum of 30"},
		{`SELECT TOP 1 c.id FROM c ORDER BY RANK RRF(` + components(100) + `)`, http.StatusOK, ""},
		{`SELECT TOP 1 c.id FROM c ORDER BY RANK RRF(` + components(101) + `)`, http.StatusBadRequest, "RRF exceeds the maximum of 100"},
	} {
		_, r := plan(lc.query, all)
		body, _ := json.Marshal(map[string]any{"query": lc.query, "parameters": []any{}})
		q := raw.do(http.MethodPost, docsPath("h", "c"), body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
			"x-ms-documentdb-partitionkeyrangeid", "0")
		for what, got := range map[string]rawResp{"plan": r, "query": q} {
			if got.Status != lc.status || !strings.Contains(string(got.Body), lc.msg) {
				t.Errorf("%s of %.60s...: %d %.200s, want %d %q", what, lc.query, got.Status, got.Body, lc.status, lc.msg)
			}
		}
	}
	// COUNTIF counts the values that are true (undefined, false and other
	// types are not counted)
	var bikes, ids float64
	for _, rng := range []string{"0", "1", "2", "3", "4"} {
		body, _ := json.Marshal(map[string]any{"query": `SELECT VALUE [COUNTIF(FullTextContains(c.text, "bike")), COUNTIF(c.missing), COUNTIF(c.id), COUNTIF(c.id = "a" OR c.id = "c")] FROM c`, "parameters": []any{}})
		r := raw.do(http.MethodPost, docsPath("h", "c"), body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
			"x-ms-documentdb-partitionkeyrangeid", rng)
		wantStatus(t, r, http.StatusOK)
		var page struct{ Documents [][]float64 }
		if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Documents) != 1 || len(page.Documents[0]) != 4 {
			t.Fatalf("range %s COUNTIF: %s", rng, r.Body)
		}
		d := page.Documents[0]
		if d[1] != 0 || d[2] != 0 {
			t.Errorf("range %s: COUNTIF of undefined and of strings = %v, %v; want 0", rng, d[1], d[2])
		}
		bikes += d[0]
		ids += d[3]
	}
	if bikes != 2 || ids != 2 {
		t.Errorf("COUNTIF over the ranges: %v documents with bike, %v with id a or c; want 2, 2", bikes, ids)
	}
	// the query itself, cross-partition: 400/1004 with the plan
	body, _ := json.Marshal(map[string]any{"query": tests[0].query, "parameters": []any{}})
	r := raw.do(http.MethodPost, docsPath("h", "c"), body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
		"x-ms-documentdb-query-enablecrosspartition", "True")
	if r.Status != http.StatusBadRequest || r.Header.Get("x-ms-substatus") != "1004" || !strings.Contains(string(r.Body), "hybridSearchQueryInfo") {
		t.Errorf("cross-partition ORDER BY RANK: %d %s %s", r.Status, r.Header.Get("x-ms-substatus"), r.Body)
	}
	// the statistics query, per range, adds up to the container's
	var n, words, hits float64
	for _, rng := range []string{"0", "1", "2", "3", "4"} {
		var q string
		_ = json.Unmarshal([]byte(tests[1].want["globalStatisticsQuery"]), &q)
		body, _ := json.Marshal(map[string]any{"query": q, "parameters": []any{}})
		r := raw.do(http.MethodPost, docsPath("h", "c"), body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
			"x-ms-documentdb-partitionkeyrangeid", rng)
		wantStatus(t, r, http.StatusOK)
		var page struct {
			Documents []struct {
				DocumentCount      *float64 `json:"documentCount"`
				FullTextStatistics []struct {
					TotalWordCount *float64  `json:"totalWordCount"`
					HitCounts      []float64 `json:"hitCounts"`
				} `json:"fullTextStatistics"`
			}
		}
		if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Documents) != 1 || page.Documents[0].DocumentCount == nil ||
			len(page.Documents[0].FullTextStatistics) != 2 || page.Documents[0].FullTextStatistics[0].TotalWordCount == nil {
			t.Fatalf("range %s statistics: %s", rng, r.Body)
		}
		d := page.Documents[0]
		n += *d.DocumentCount
		words += *d.FullTextStatistics[0].TotalWordCount
		hits += d.FullTextStatistics[0].HitCounts[0]
	}
	// 3 documents, 3 + 4 + 2 tokens, "bike" in two
	if n != 3 || words != 9 || hits != 2 {
		t.Errorf("statistics: %v documents, %v words, %v hits; want 3, 9, 2", n, words, hits)
	}
}
