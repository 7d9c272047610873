package emulator

import (
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
			plan, _ := buildQueryPlan(q, nil)
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
