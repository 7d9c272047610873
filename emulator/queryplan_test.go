package emulator

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestCheckQueryFeatures: a query plan needing a feature the client did
// not list in x-ms-cosmos-supported-query-features is refused with the
// gateway's 400 (reference §3.3), naming each missing feature; listed
// features (any case, with or without spaces after the commas) pass.
func TestCheckQueryFeatures(t *testing.T) {
	// what azure-cosmos (Python) 4.17.1 sends
	const python = "Aggregate,CompositeAggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,NonStreamingOrderBy,HybridSearch,CountIf,WeightedRankFusion"
	// what @azure/cosmos sends: every feature
	const js = "NonValueAggregate, Aggregate, Distinct, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, CompositeAggregate, GroupBy, MultipleAggregates, NonStreamingOrderBy, ListAndSetAggregate, CountIf, HybridSearch, WeightedRankFusion, HybridSearchSkipOrderByRewrite"
	tests := []struct {
		query, supported string
		missing          []string // nil: the plan is served
	}{
		{query: "SELECT * FROM c WHERE c.n > 1", supported: ""},
		{query: "SELECT * FROM c ORDER BY c.n", supported: python},
		{query: "SELECT * FROM c ORDER BY c.n", supported: "", missing: []string{"OrderBy"}},
		{query: "SELECT * FROM c ORDER BY c.n, c.m DESC", supported: "orderby", missing: []string{"MultipleOrderBy"}},
		{query: "SELECT TOP 3 * FROM c ORDER BY c.n", supported: "OrderBy", missing: []string{"Top"}},
		{query: "SELECT * FROM c OFFSET 1 LIMIT 2", supported: python},
		{query: "SELECT DISTINCT VALUE c.n FROM c", supported: python},
		{query: "SELECT VALUE COUNT(1) FROM c", supported: python},
		{query: "SELECT VALUE COUNT(1) FROM c", supported: "Top", missing: []string{"Aggregate"}},
		{query: "SELECT COUNT(1) AS n FROM c", supported: python, missing: []string{"NonValueAggregate"}},
		{query: "SELECT COUNT(1) AS n, MAX(c.n) AS m FROM c", supported: python, missing: []string{"MultipleAggregates"}},
		{query: "SELECT c.g FROM c GROUP BY c.g", supported: python, missing: []string{"GroupBy"}},
		{query: "SELECT VALUE c.g FROM c GROUP BY c.g", supported: python, missing: []string{"GroupBy"}},
		{query: "SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g", supported: python, missing: []string{"NonValueAggregate", "GroupBy"}},
		{query: "SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g", supported: js},
		{query: "SELECT TOP 2 c.g FROM c GROUP BY c.g", supported: js},
	}
	for _, tt := range tests {
		t.Run(tt.query+"/"+tt.supported, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			plan, _ := buildQueryPlan(q, nil, nil)
			err = CheckQueryFeatures(plan, tt.supported)
			if tt.missing == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindBadRequest {
				t.Fatalf("got %v, want a 400", err)
			}
			want := MsgUnsupportedQueryFeatures
			for _, f := range tt.missing {
				want += "\r\nQuery contained " + f + ", which the calling client does not support."
			}
			if e.Message != want {
				t.Errorf("message %q, want %q", e.Message, want)
			}
		})
	}
}

// TestVectorOrderByPlan: the plan of ORDER BY VectorDistance(...) has the
// service's direction, most similar first (descending for cosine and the
// dot product, ascending for euclidean; the call's options win over the
// container's vectorEmbeddingPolicy, whose default is cosine) and
// hasNonStreamingOrderBy, so that an SDK merging several ranges keeps the
// ranking each range returns.
func TestVectorOrderByPlan(t *testing.T) {
	policy := map[string]string{"/embedding": "cosine", "/e2": "euclidean", "/e3": "dotproduct"}
	tests := []struct {
		query     string
		params    map[string]json.RawMessage
		orderBy   string
		nonStream bool
	}{
		{query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.embedding, [1, 0])", orderBy: "Descending", nonStream: true},
		{query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.e2, [1, 0])", orderBy: "Ascending", nonStream: true},
		{query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.e3, [1, 0]) ASC", orderBy: "Descending", nonStream: true},
		{query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.unknown, [1, 0])", orderBy: "Descending", nonStream: true},
		{query: `SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.embedding, [1, 0], false, {"distanceFunction": "euclidean"})`, orderBy: "Ascending", nonStream: true},
		{query: `SELECT TOP 3 x.id FROM x ORDER BY VectorDistance(x["e2"], @v, true, @o)`, orderBy: "Descending", nonStream: true,
			params: map[string]json.RawMessage{"@v": json.RawMessage(`[1,0]`), "@o": json.RawMessage(`{"distanceFunction":"dotproduct"}`)}},
		{query: "SELECT TOP 3 c.id FROM c ORDER BY c.n DESC", orderBy: "Descending"},
		{query: "SELECT TOP 3 c.id FROM c ORDER BY c.n", orderBy: "Ascending"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := buildQueryPlan(q, tt.params, policy)
			var p queryPlan
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if len(p.QueryInfo.OrderBy) != 1 || p.QueryInfo.OrderBy[0] != tt.orderBy || p.QueryInfo.HasNonStreamingOrderBy != tt.nonStream {
				t.Errorf("orderBy %v hasNonStreamingOrderBy %v, want [%s] %v", p.QueryInfo.OrderBy, p.QueryInfo.HasNonStreamingOrderBy, tt.orderBy, tt.nonStream)
			}
			python := "Aggregate,CompositeAggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,NonStreamingOrderBy,HybridSearch,CountIf,WeightedRankFusion"
			if err := CheckQueryFeatures(b, python); err != nil {
				t.Errorf("features: %v", err)
			}
		})
	}
}
