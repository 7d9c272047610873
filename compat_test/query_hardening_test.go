package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestQueryFidelityHardening: query semantics that outside suites (EF
// Core's Cosmos tests, the JS SDK's) rely on, through the Go SDK.
func TestQueryFidelityHardening(t *testing.T) {
	t.Parallel()
	docs := append(append([]map[string]any(nil), semanticsDocs...),
		map[string]any{"id": "v1", "pk": "v", "vec": []any{1, 0}},
		map[string]any{"id": "v2", "pk": "v", "vec": []any{3, 0}},
		map[string]any{"id": "v3", "pk": "v", "vec": []any{2, 0}})
	env := newQueryEnv(t, docs)
	pkA, pkV := azcosmos.NewPartitionKeyString("a"), azcosmos.NewPartitionKeyString("v")
	tests := []struct {
		name    string
		query   string
		pk      *azcosmos.PartitionKey
		want    string
		ordered bool
	}{
		{"cross-type != is true for defined operands", `SELECT VALUE c.id FROM c WHERE c.n != null`, nil, `["1","2","3","5"]`, false},
		{"cross-type = is false", `SELECT VALUE c.n = "1" FROM c WHERE c.id = "1"`, nil, `[false]`, false},
		{"cross-type ordering stays undefined", `SELECT VALUE c.n < "1" FROM c WHERE c.id = "1"`, nil, `[]`, false},
		{"aggregates without FROM", `SELECT VALUE {"a": COUNT(1)}`, nil, `[{"a":1}]`, false},
		{"ToString of NaN and the infinities", `SELECT VALUE [ToString(SQRT(-1)), ToString(1 / 0), ToString(-1 / 0)]`, nil, `[["NaN","Infinity","-Infinity"]]`, false},
		{"an aggregate with ORDER BY", `SELECT VALUE AVG(c.n) FROM c ORDER BY c.n`, &pkA, `[1.75]`, false},
		{"TOP with GROUP BY", `SELECT TOP 1 c.pk FROM c GROUP BY c.pk`, &pkA, `[{"pk":"a"}]`, false},
		{"ORDER BY VectorDistance with the dot product: most similar first", `SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.vec, [1, 0], false, {"distanceFunction": "dotproduct"})`, &pkV, `["v2","v3","v1"]`, true},
		{"ORDER BY VectorDistance with euclidean: nearest first", `SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.vec, [3, 0], false, {"distanceFunction": "euclidean"})`, &pkV, `["v2","v3","v1"]`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.wantResults(t, tt.query, tt.pk, nil, tt.want, tt.ordered)
		})
	}

	raw := newRaw(t, env.e)
	post := func(query string, params []any, headers ...string) rawResp {
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": params})
		return raw.do(http.MethodPost, "/dbs/q/colls/c/docs", body, append([]string{"Content-Type", "application/query+json"}, headers...)...)
	}
	planHeaders := []string{"x-ms-cosmos-is-query-plan-request", "True",
		"x-ms-cosmos-supported-query-features", "Aggregate, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy, OffsetAndLimit, OrderBy, Top"}

	t.Run("the plan of an aggregate with ORDER BY round-trips", func(t *testing.T) {
		r := post(`SELECT VALUE AVG(r.n) FROM r WHERE r.pk = "a" ORDER BY r.n`, []any{}, planHeaders...)
		var p struct{ QueryInfo map[string]any }
		if r.Status != 200 || json.Unmarshal(r.Body, &p) != nil {
			t.Fatalf("plan: %d %s", r.Status, r.Body)
		}
		rewritten := strings.Replace(fmt.Sprint(p.QueryInfo["rewrittenQuery"]), "{documentdb-formattableorderbyquery-filter}", "true", 1)
		r = post(rewritten, []any{}, "x-ms-documentdb-isquery", "True", "x-ms-documentdb-partitionkeyrangeid", "0")
		if r.Status != 200 || !strings.Contains(string(r.Body), `"sum":3.5`) || !strings.Contains(string(r.Body), `"count":2`) {
			t.Fatalf("rewritten %q: %d %s", rewritten, r.Status, r.Body)
		}
	})
	t.Run("the plan of TOP with GROUP BY carries TOP", func(t *testing.T) {
		r := post(`SELECT TOP 1 c.pk FROM c GROUP BY c.pk`, []any{}, planHeaders...)
		var p struct{ QueryInfo map[string]any }
		if r.Status != 200 || json.Unmarshal(r.Body, &p) != nil || p.QueryInfo["top"] != float64(1) {
			t.Fatalf("plan: %d %s", r.Status, r.Body)
		}
	})
	t.Run("TOP with a non-number parameter is a 400", func(t *testing.T) {
		params := []any{map[string]any{"name": "@p", "value": "x"}}
		for _, h := range [][]string{planHeaders, {"x-ms-documentdb-isquery", "True", "x-ms-documentdb-query-enablecrosspartition", "True"}} {
			r := post(`SELECT TOP @p c.id FROM c`, params, h...)
			if r.Status != 400 || !strings.Contains(string(r.Body), "TOP clause must be an integer") {
				t.Fatalf("%v: %d %s", h, r.Status, r.Body)
			}
		}
	})
}
