package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestQueryPlanMergeShapes reads the query plans of the GROUP BY and
// aggregate shapes from containers with one range and with four (21,000
// RU/s): the plan carries what the SDK pipelines merge (the gateway's
// groupByItems / payload rewrite, with and without VALUE, per-group
// constants typed null, DISTINCT over groups), the same with one range and
// four; a SELECT that computes over aggregates gets a pass-through plan
// with one range (the range answers it whole) and, with four, the
// gateway's refusal of aggregates it cannot serve across partitions.
func TestQueryPlanMergeShapes(t *testing.T) {
	e := emulatortest.Start(t)
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"p"}`)), http.StatusCreated)
	for coll, ru := range map[string]string{"one": "400", "four": "21000"} {
		body := `{"id":"` + coll + `","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`
		wantStatus(t, raw.do(http.MethodPost, "/dbs/p/colls", []byte(body), "x-ms-offer-throughput", ru), http.StatusCreated)
	}
	if _, rs := readRanges(t, raw, "p", "four"); len(rs) != 4 {
		t.Fatalf("21,000 RU/s: %d ranges", len(rs))
	}
	plan := func(t *testing.T, coll, query string) (rawResp, map[string]any) {
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
		r := raw.do(http.MethodPost, "/dbs/p/colls/"+coll+"/docs", body, "Content-Type", "application/query+json",
			"x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features",
			"Aggregate, CompositeAggregate, Distinct, GroupBy, MultipleOrderBy, MultipleAggregates, OffsetAndLimit, OrderBy, Top, NonValueAggregate")
		if r.Status != http.StatusOK {
			return r, nil
		}
		var p struct{ QueryInfo map[string]any }
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		return r, p.QueryInfo
	}
	tests := []struct {
		name, query string
		// the plan's fields (fmt %v of the decoded JSON); refused: the
		// four-range answer is the refusal and the one-range plan is empty
		rewritten, aggregates, aliases, distinct string
		value, refused                           bool
	}{
		{name: "value aggregate", query: "SELECT VALUE MAX(c.n) FROM c",
			rewritten: `SELECT VALUE [{"item": MAX(c.n), "item2": {"max": MAX(c.n), "count": COUNT(c.n)}}] FROM c`, aggregates: "[Max]", aliases: "map[]", value: true},
		{name: "group by value of a key", query: "SELECT VALUE c.g FROM c GROUP BY c.g",
			rewritten: `SELECT [{"item": c.g}] AS groupByItems, c.g AS payload FROM c GROUP BY c.g`, aggregates: "[]", aliases: "map[]", value: true},
		{name: "group by value of an aggregate", query: "SELECT VALUE AVG(c.n) FROM c WHERE c.n > 1 GROUP BY c.g, c.h",
			rewritten:  `SELECT [{"item": c.g}, {"item": c.h}] AS groupByItems, [{"item": {"sum": SUM(c.n), "count": COUNT(c.n)}}] AS payload FROM c WHERE c.n > 1 GROUP BY c.g, c.h`,
			aggregates: "[Average]", aliases: "map[]", value: true},
		{name: "group by with a constant per group", query: "SELECT c.g, 'k' AS lit, UPPER(c.h) AS u, COUNT(1) AS k FROM c GROUP BY c.g, c.h",
			rewritten:  `SELECT [{"item": c.g}, {"item": c.h}] AS groupByItems, {"g": c.g, "lit": "k", "u": UPPER(c.h), "k": {"item": COUNT(1)}} AS payload FROM c GROUP BY c.g, c.h`,
			aggregates: "[]", aliases: "map[g:<nil> k:Count lit:<nil> u:<nil>]"},
		{name: "distinct over groups", query: "SELECT DISTINCT VALUE COUNT(1) FROM c GROUP BY c.h",
			rewritten: `SELECT [{"item": c.h}] AS groupByItems, [{"item": COUNT(1)}] AS payload FROM c GROUP BY c.h`, aggregates: "[Count]", aliases: "map[]",
			distinct: "Unordered", value: true},
		{name: "non-value aggregates", query: "SELECT COUNT(1) AS n, MIN(c.n) FROM c",
			rewritten:  `SELECT {"n": {"item": COUNT(1)}, "$1": {"item": MIN(c.n), "item2": {"min": MIN(c.n), "count": COUNT(c.n)}}} AS payload FROM c`,
			aggregates: "[]", aliases: "map[$1:Min n:Count]"},
		{name: "object of aggregates", query: "SELECT VALUE {n: COUNT(1)} FROM c", refused: true},
		{name: "object of aggregates without value", query: "SELECT {n: COUNT(1)} AS o FROM c", refused: true},
		{name: "function of an aggregate", query: "SELECT c.g, ROUND(AVG(c.n)) AS a FROM c GROUP BY c.g", refused: true},
		{name: "object of aggregates per group", query: "SELECT VALUE {g: c.g, k: COUNT(1)} FROM c GROUP BY c.g", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, coll := range []string{"one", "four"} {
				r, info := plan(t, coll, tt.query)
				if tt.refused && coll == "four" {
					if msg := wantError(t, r, http.StatusBadRequest, "BadRequest"); msg != crossPartitionAggregateMessage {
						t.Errorf("four ranges: refusal %q", msg)
					}
					continue
				}
				if info == nil {
					t.Fatalf("%s: plan answered %d %s", coll, r.Status, r.Body)
				}
				want := []string{tt.rewritten, tt.aggregates, tt.aliases, tt.distinct, fmt.Sprint(tt.value)}
				if tt.refused { // the pass-through plan
					want = []string{"", "[]", "map[]", "None", "false"}
				}
				if want[3] == "" {
					want[3] = "None"
				}
				got := []string{fmt.Sprint(info["rewrittenQuery"]), fmt.Sprint(info["aggregates"]), fmt.Sprint(info["groupByAliasToAggregateType"]),
					fmt.Sprint(info["distinctType"]), fmt.Sprint(info["hasSelectValue"])}
				for i, field := range []string{"rewrittenQuery", "aggregates", "groupByAliasToAggregateType", "distinctType", "hasSelectValue"} {
					if got[i] != want[i] {
						t.Errorf("%s: %s %s, want %s", coll, field, got[i], want[i])
					}
				}
			}
		})
	}
}

// crossPartitionAggregateMessage is the gateway's refusal of aggregates
// without VALUE across partitions (reference §3.3), written out here: a
// black-box test compares the service's text, not the emulator's constant.
const crossPartitionAggregateMessage = "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates."
