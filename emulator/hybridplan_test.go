package emulator

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHybridComponents: each scoring function of ORDER BY RANK becomes a
// plan component with its direction (VectorDistance by the call's or the
// policy's distance function, a negative RRF weight reversing it), its
// terms (literals, arrays, parameters) and its componentScores entry, which
// ranks an undefined score last in either direction.
func TestHybridComponents(t *testing.T) {
	t.Parallel()
	params := map[string]json.RawMessage{"@terms": json.RawMessage(`["a", "b c"]`), "@w": json.RawMessage(`[1, -2]`)}
	policy := map[string]string{"/e": "euclidean"}
	tests := []struct {
		rank      string
		desc      []bool
		weights   []float64
		scores    []string // coalesced, optimized format
		terms     string
		weightedW bool
	}{
		{rank: `FullTextScore(c.t, "x", ["y"])`, desc: []bool{true}, weights: []float64{1}, terms: `x|y`,
			scores: []string{`(_FULLTEXTSCORE(c.t, ["x", "y"], {documentdb-formattablehybridsearchquery-totaldocumentcount}, {documentdb-formattablehybridsearchquery-totalwordcount-0}, {documentdb-formattablehybridsearchquery-hitcountsarray-0}) ?? -1)`}},
		{rank: `RRF(VectorDistance(c.e, [1, 2]), FullTextScore(c.t, @terms))`, desc: []bool{false, true}, weights: []float64{1, 1}, terms: `a|b c`,
			scores: []string{`(-1 * (_VECTORSCORE(c.e, [1, 2]) ?? 1.79769e+308))`, ""}},
		{rank: `RRF(VectorDistance(c.e, [1, 2]), VectorDistance(c.v, [1, 2]), @w)`, desc: []bool{false, false}, weights: []float64{1, 2}, weightedW: true,
			scores: []string{"", `(-1 * (_VECTORSCORE(c.v, [1, 2]) ?? 1.79769e+308))`}},
		{rank: `RRF(VectorDistance(c.e, [1, 2]), VectorDistance(c.v, [1, 2]), [-1, 0.5])`, desc: []bool{true, true}, weights: []float64{1, 0.5}, weightedW: true,
			scores: []string{`(_VECTORSCORE(c.e, [1, 2]) ?? -1.79769e+308)`, ""}},
	}
	for _, tc := range tests {
		q, err := ParseQuery("SELECT c.id FROM c ORDER BY RANK " + tc.rank)
		if err != nil {
			t.Fatalf("%s: %v", tc.rank, err)
		}
		comps, weighted, ok := hybridComponents(q.Rank, "c", params, policy)
		if !ok || len(comps) != len(tc.desc) || weighted != tc.weightedW {
			t.Fatalf("%s: %d components, weighted %v, ok %v", tc.rank, len(comps), weighted, ok)
		}
		for i, c := range comps {
			if c.desc != tc.desc[i] || c.weight != tc.weights[i] {
				t.Errorf("%s: component %d desc %v weight %v, want %v %v", tc.rank, i, c.desc, c.weight, tc.desc[i], tc.weights[i])
			}
			if tc.scores[i] != "" && c.coalesced(true) != tc.scores[i] {
				t.Errorf("%s: component %d score %s, want %s", tc.rank, i, c.coalesced(true), tc.scores[i])
			}
			if c.text && strings.Join(c.terms, "|") != tc.terms {
				t.Errorf("%s: terms %q, want %q", tc.rank, c.terms, tc.terms)
			}
		}
	}
	// what is not planned: SELECT VALUE, a term that is not a string
	for _, text := range []string{
		`SELECT VALUE c.id FROM c ORDER BY RANK FullTextScore(c.t, "x")`,
		`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.t, 1)`,
	} {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if _, ok, err := hybridSearchPlan(q, nil, nil, true); ok || err != nil {
			t.Errorf("%s: planned (%v)", text, err)
		}
	}
}
