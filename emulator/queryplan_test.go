package emulator

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestQueryPlanVectorDistanceDirection: the plan of ORDER BY
// VectorDistance(...) gives the direction the ranges sort it in (most
// similar first whatever is written: descending for cosine and the dot
// product, ascending for euclidean; the call's options, then the
// container's vectorEmbeddingPolicy, then cosine), so that an SDK's
// ordered merge over several ranges keeps it. The Java SDK, which always
// follows the plan, returned the least similar results of a 5-range
// container with the written ASC.
func TestQueryPlanVectorDistanceDirection(t *testing.T) {
	policy := map[string]string{"/emb": "euclidean", "/cos": "cosine", "/dot": "dotproduct"}
	tests := []struct {
		name   string
		query  string
		params map[string]json.RawMessage
		fns    map[string]string
		want   []string
	}{
		{"no policy: cosine", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, [1, 0])", nil, nil, []string{"Descending"}},
		{"cosine policy, DESC written", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.cos, [1, 0]) DESC", nil, policy, []string{"Descending"}},
		{"dot product policy", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.dot, [1, 0])", nil, policy, []string{"Descending"}},
		{"euclidean policy", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.emb, [1, 0])", nil, policy, []string{"Ascending"}},
		{"euclidean policy, DESC written", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.emb, [1, 0]) DESC", nil, policy, []string{"Ascending"}},
		{"options override the policy", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.emb, [1, 0], false, {distanceFunction: 'cosine'})", nil, policy, []string{"Descending"}},
		{"options by parameter", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, [1, 0], false, @o)",
			map[string]json.RawMessage{"@o": json.RawMessage(`{"distanceFunction":"euclidean"}`)}, nil, []string{"Ascending"}},
		{"other alias", "SELECT TOP 3 x.id FROM x ORDER BY VectorDistance(x[\"emb\"], [1, 0])", nil, policy, []string{"Ascending"}},
		{"plain ORDER BY untouched", "SELECT c.id FROM c ORDER BY c.n DESC, c.m", nil, policy, []string{"Descending", "Ascending"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			b, merged := buildQueryPlan(q, tt.params, tt.fns)
			if !merged {
				t.Fatal("plan not merged")
			}
			var p struct {
				QueryInfo struct {
					OrderBy []string `json:"orderBy"`
				} `json:"queryInfo"`
			}
			if err := json.Unmarshal(b, &p); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.QueryInfo.OrderBy, tt.want) {
				t.Fatalf("orderBy %v, want %v (plan %s)", p.QueryInfo.OrderBy, tt.want, b)
			}
		})
	}
}

// TestVectorDistanceFunctions reads the policy's paths and functions.
func TestVectorDistanceFunctions(t *testing.T) {
	c := Container{Properties: json.RawMessage(`{"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/a","distanceFunction":"euclidean","dimensions":2},{"path":"/b"}]}}`)}
	if got := vectorDistanceFunctions(c); !reflect.DeepEqual(got, map[string]string{"/a": "euclidean"}) {
		t.Fatalf("got %v", got)
	}
	if got := vectorDistanceFunctions(Container{Properties: json.RawMessage(`{}`)}); got != nil {
		t.Fatalf("got %v without a policy", got)
	}
}
