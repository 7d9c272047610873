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
		{query: "SELECT VALUE MAKELIST(c.age) FROM c", supported: js},
		{query: "SELECT VALUE MAKELIST(c.age) FROM c", supported: python, missing: []string{"ListAndSetAggregate"}},
		{query: "SELECT VALUE MakeSet(c.age) FROM c", supported: "ListAndSetAggregate", missing: []string{"Aggregate"}},
		{query: "SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name", supported: js},
		{query: "SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name", supported: python,
			missing: []string{"NonValueAggregate", "ListAndSetAggregate", "GroupBy"}},
		{query: "SELECT MAKELIST(c.age) AS l, COUNT(1) AS n FROM c", supported: "NonValueAggregate,MultipleAggregates", missing: []string{"ListAndSetAggregate"}},
		{query: "SELECT DISTINCT c.age FROM c ORDER BY c.age ASC OFFSET 0 LIMIT 10", supported: python},
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

// TestListAndSetAggregatePlans: MAKELIST and MAKESET are aggregates of the
// plan, named as @azure/cosmos 4.10.1 createAggregator names them
// (MakeList, MakeSet), with the [{"item": ...}] partial each range answers
// and the SDK merges (MakeListAggregator concatenates the ranges' arrays,
// MakeSetAggregator adds their elements to a set); under GROUP BY the
// alias maps to the type.
func TestListAndSetAggregatePlans(t *testing.T) {
	tests := []struct {
		query      string
		aggregates []string
		aliases    map[string]any
		rewritten  string
		value      bool
	}{
		{query: "SELECT VALUE MAKELIST(c.age) FROM c", aggregates: []string{"MakeList"}, aliases: map[string]any{},
			rewritten: `SELECT VALUE [{"item": MAKELIST(c.age)}] FROM c`, value: true},
		{query: "SELECT VALUE MakeSet(c.age) FROM c WHERE c.age > 2", aggregates: []string{"MakeSet"}, aliases: map[string]any{},
			rewritten: `SELECT VALUE [{"item": MAKESET(c.age)}] FROM c WHERE c.age > 2`, value: true},
		{query: "SELECT c.name, MakeSet(c.age) AS ages FROM c GROUP BY c.name", aggregates: []string{},
			aliases:   map[string]any{"name": nil, "ages": "MakeSet"},
			rewritten: `SELECT [{"item": c.name}] AS groupByItems, {"name": c.name, "ages": {"item": MAKESET(c.age)}} AS payload FROM c GROUP BY c.name`},
		{query: "SELECT VALUE MakeList(c.age) FROM c GROUP BY c.name", aggregates: []string{"MakeList"}, aliases: map[string]any{},
			rewritten: `SELECT [{"item": c.name}] AS groupByItems, [{"item": MAKELIST(c.age)}] AS payload FROM c GROUP BY c.name`, value: true},
		{query: "SELECT MAKELIST(c.age) AS l FROM c", aggregates: []string{}, aliases: map[string]any{"l": "MakeList"},
			rewritten: `SELECT {"l": {"item": MAKELIST(c.age)}} AS payload FROM c`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			raw, merged := buildQueryPlan(q, nil, nil)
			if !merged {
				t.Fatal("the plan is not merged")
			}
			var p queryPlan
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			info := p.QueryInfo
			if got, _ := json.Marshal(info.Aggregates); string(got) != mustJSON(t, tt.aggregates) {
				t.Errorf("aggregates %s, want %v", got, tt.aggregates)
			}
			if got, _ := json.Marshal(info.GroupByAliasToAggregateType); string(got) != mustJSON(t, tt.aliases) {
				t.Errorf("groupByAliasToAggregateType %s, want %v", got, tt.aliases)
			}
			if info.RewrittenQuery != tt.rewritten {
				t.Errorf("rewrittenQuery\n got %s\nwant %s", info.RewrittenQuery, tt.rewritten)
			}
			if info.HasSelectValue != tt.value {
				t.Errorf("hasSelectValue %v, want %v", info.HasSelectValue, tt.value)
			}
			if _, err := ParseQuery(info.RewrittenQuery); err != nil {
				t.Errorf("the rewritten query does not parse: %v", err)
			}
		})
	}
}

// TestDistinctOrderByPlan: with DISTINCT and ORDER BY, the ranges'
// rewritten query keeps the _rid (the SDKs' ORDER BY continuations need
// it) and so returns rows that are not distinct: it carries no TOP and no
// OFFSET/LIMIT window, which would count rows, not distinct values (ages
// 1..4 instead of 1..10 for LIMIT 10 over 30 items of ages 1..10); the
// SDK applies DISTINCT, then TOP or OFFSET/LIMIT from queryInfo. Without
// ORDER BY the ranges' query is DISTINCT itself and keeps its window.
func TestDistinctOrderByPlan(t *testing.T) {
	tests := []struct {
		query, distinct, rewritten string
		top, offset, limit         any
	}{
		{query: "SELECT DISTINCT c.age FROM c ORDER BY c.age ASC OFFSET 0 LIMIT 10", distinct: "Ordered", offset: float64(0), limit: float64(10),
			rewritten: `SELECT c._rid, [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c.age ASC`},
		{query: "SELECT DISTINCT TOP 10 c.age FROM c ORDER BY c.age ASC", distinct: "Ordered", top: float64(10),
			rewritten: `SELECT c._rid, [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c.age ASC`},
		{query: "SELECT DISTINCT VALUE c.age FROM c WHERE c.age > 1 ORDER BY c.age DESC OFFSET 2 LIMIT 5", distinct: "Ordered", offset: float64(2), limit: float64(5),
			rewritten: `SELECT c._rid, [{"item": c.age}] AS orderByItems, c.age AS payload FROM c WHERE (c.age > 1) AND ({documentdb-formattableorderbyquery-filter}) ORDER BY c.age DESC`},
		{query: "SELECT c.age FROM c ORDER BY c.age OFFSET 0 LIMIT 10", distinct: "None", offset: float64(0), limit: float64(10),
			rewritten: `SELECT c._rid, [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c.age ASC OFFSET 0 LIMIT 10`},
		{query: "SELECT TOP 10 c.age FROM c ORDER BY c.age", distinct: "None", top: float64(10),
			rewritten: `SELECT TOP 10 c._rid, [{"item": c.age}] AS orderByItems, {"age": c.age} AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c.age ASC`},
		{query: "SELECT DISTINCT c.age FROM c OFFSET 0 LIMIT 10", distinct: "Unordered", offset: float64(0), limit: float64(10),
			rewritten: `SELECT DISTINCT c.age FROM c OFFSET 0 LIMIT 10`},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := buildQueryPlan(q, nil, nil)
			var p struct {
				QueryInfo map[string]any `json:"queryInfo"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			info := p.QueryInfo
			if info["distinctType"] != tt.distinct {
				t.Errorf("distinctType %v, want %s", info["distinctType"], tt.distinct)
			}
			if info["top"] != tt.top || info["offset"] != tt.offset || info["limit"] != tt.limit {
				t.Errorf("top %v offset %v limit %v, want %v %v %v", info["top"], info["offset"], info["limit"], tt.top, tt.offset, tt.limit)
			}
			if info["rewrittenQuery"] != tt.rewritten {
				t.Errorf("rewrittenQuery\n got %s\nwant %s", info["rewrittenQuery"], tt.rewritten)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
