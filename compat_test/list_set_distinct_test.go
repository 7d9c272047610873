package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestGoListSetDistinct: the scenarios through the Go SDK, which
// has no cross-partition pipeline: 30 items (names A, B, C with ages 1..10
// each, written name by name) in one logical partition, queried in it
// with MaxItemCount 2, on an emulator whose containers have one range and
// on one whose containers have five. MAKELIST keeps every value in input
// order, MAKESET its first occurrences; GROUP BY gives each name its set;
// DISTINCT with ORDER BY and OFFSET 0 LIMIT 10 or TOP 10 gives the ten
// ages in order, two a page.
func TestGoListSetDistinct(t *testing.T) {
	ages := "1,2,3,4,5,6,7,8,9,10"
	var objs []string
	for i := 1; i <= 10; i++ {
		objs = append(objs, fmt.Sprintf(`{"age":%d}`, i))
	}
	tests := []struct {
		query, want string
		pages       int
	}{
		{"SELECT VALUE MAKELIST(c.age) FROM c", "[" + ages + "," + ages + "," + ages + "]", 1},
		{"SELECT VALUE MAKESET(c.age) FROM c", "[" + ages + "]", 1},
		{"SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name",
			`{"name":"A","ages":[` + ages + `]} {"name":"B","ages":[` + ages + `]} {"name":"C","ages":[` + ages + `]}`, 2},
		{"SELECT DISTINCT c.age FROM c ORDER BY c.age ASC OFFSET 0 LIMIT 10", strings.Join(objs, " "), 5},
		{"SELECT DISTINCT TOP 10 c.age FROM c ORDER BY c.age ASC", strings.Join(objs, " "), 5},
	}
	for _, ranges := range []int{1, 5} {
		t.Run(fmt.Sprintf("%d ranges", ranges), func(t *testing.T) {
			e := emulatortest.Start(t, emulatortest.WithMinPartitionRanges(ranges))
			ctx := context.Background()
			db := mustDB(t, e.Client(t), "lsd")
			c := mustContainer(t, db, "c", "/pk")
			if _, rs := readRanges(t, newRaw(t, e), "lsd", "c"); len(rs) != ranges {
				t.Fatalf("%d ranges, want %d", len(rs), ranges)
			}
			pk := azcosmos.NewPartitionKeyString("p")
			n := 0
			for _, name := range []string{"A", "B", "C"} {
				for age := 1; age <= 10; age++ {
					n++
					b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("i%02d", n), "pk": "p", "name": name, "age": age})
					if _, err := c.CreateItem(ctx, pk, b, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, tt := range tests {
				t.Run(tt.query, func(t *testing.T) {
					pager := c.NewQueryItemsPager(tt.query, pk, &azcosmos.QueryOptions{PageSizeHint: 2})
					var got []string
					pages := 0
					for pager.More() {
						resp, err := pager.NextPage(ctx)
						if err != nil {
							t.Fatal(err)
						}
						pages++
						for _, it := range resp.Items {
							got = append(got, compactJSON(t, it))
						}
					}
					if g := strings.Join(got, " "); g != tt.want {
						t.Errorf("got %s\nwant %s", g, tt.want)
					}
					if pages != tt.pages {
						t.Errorf("%d pages, want %d", pages, tt.pages)
					}
				})
			}
		})
	}
}

// TestListAndSetAggregateFeature: a query plan with MakeList or MakeSet
// is refused (400) to a client that does not list ListAndSetAggregate in
// x-ms-cosmos-supported-query-features (the features azure-cosmos for
// Python 4.17.1 sends), as the service refuses a plan the client's
// pipeline cannot run, and given to one that does (the features
// @azure/cosmos 4.10.1 sends), naming the aggregates MakeList and
// MakeSet. A cross-partition query of them without a plan gets the
// gateway's 400/1004 with the plan, or its refusal of aggregates without
// VALUE.
func TestListAndSetAggregateFeature(t *testing.T) {
	e := emulatortest.Start(t)
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"f"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/f/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)), http.StatusCreated)
	const python = "Aggregate,CompositeAggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,NonStreamingOrderBy,HybridSearch,CountIf,WeightedRankFusion"
	const js = "NonValueAggregate,Aggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,CompositeAggregate,GroupBy,MultipleAggregates,NonStreamingOrderBy,ListAndSetAggregate,CountIf,HybridSearch,WeightedRankFusion,HybridSearchSkipOrderByRewrite"
	query := func(q string, hdr ...string) rawResp {
		body, _ := json.Marshal(map[string]any{"query": q, "parameters": []any{}})
		return raw.do(http.MethodPost, "/dbs/f/colls/c/docs", body, append([]string{"Content-Type", "application/query+json"}, hdr...)...)
	}
	tests := []struct {
		query, aggregates, aliases, missing string
	}{
		{"SELECT VALUE MAKELIST(c.age) FROM c", "[MakeList]", "map[]", "ListAndSetAggregate"},
		{"SELECT VALUE MakeSet(c.age) FROM c", "[MakeSet]", "map[]", "ListAndSetAggregate"},
		{"SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name", "[]", "map[ages:MakeSet name:<nil>]", "NonValueAggregate"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := query(tt.query, "x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features", js)
			wantStatus(t, r, http.StatusOK)
			var p struct{ QueryInfo map[string]any }
			if err := json.Unmarshal(r.Body, &p); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(p.QueryInfo["aggregates"]); got != tt.aggregates {
				t.Errorf("aggregates %s, want %s", got, tt.aggregates)
			}
			if got := fmt.Sprint(p.QueryInfo["groupByAliasToAggregateType"]); got != tt.aliases {
				t.Errorf("groupByAliasToAggregateType %s, want %s", got, tt.aliases)
			}
			r = query(tt.query, "x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features", python)
			msg := wantError(t, r, http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, "Query contained "+tt.missing+", which the calling client does not support.") ||
				!strings.Contains(msg, "Query contained ListAndSetAggregate,") {
				t.Errorf("refusal %q does not name %s and ListAndSetAggregate", msg, tt.missing)
			}
			r = query(tt.query, "x-ms-documentdb-query-enablecrosspartition", "True")
			if p.QueryInfo["hasSelectValue"] == true {
				wantStatus(t, r, http.StatusBadRequest)
				wantSubStatus(t, r, 1004)
			} else if msg := wantError(t, r, http.StatusBadRequest, "BadRequest"); msg != crossPartitionAggregateMessage {
				t.Errorf("cross-partition refusal %q", msg)
			}
		})
	}
}
