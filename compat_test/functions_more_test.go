package compat_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// vectorDocs share the partition "p" (and one other partition, which the
// single-partition queries must not see).
var vectorDocs = []map[string]any{
	{"id": "a", "pk": "p", "embedding": []any{1, 0, 0}, "text": "The quick brown Fox", "nums": []any{3, 1, 2, 10},
		"dt": "2016-05-29T08:30:45.1301617Z"},
	{"id": "b", "pk": "p", "embedding": []any{0.6, 0.8, 0}, "text": "A lazy dog", "nums": []any{}, "dt": "not a date"},
	{"id": "c", "pk": "p", "embedding": []any{0, 0, 2}, "text": "Ünïcödé ÉCOLE"},
	{"id": "d", "pk": "p", "embedding": []any{-1, -1, 0}, "text": "fox and cat"},
	{"id": "e", "pk": "p", "embedding": []any{1, "x", 0}},
	{"id": "f", "pk": "p"},
	{"id": "z", "pk": "q", "embedding": []any{1, 0, 0}, "text": "quick fox"},
}

// TestQueryMoreFunctions runs the array, string, date and vector functions
// through the SDK, ORDER BY VectorDistance included, over a container
// without a vector policy (cosine by default) and one whose
// vectorEmbeddingPolicy makes /embedding a dot product embedding.
func TestQueryMoreFunctions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := emulatortest.Start(t)
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "v"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("v")
	plain := createVectorContainer(t, db, "plain", nil)
	withPolicy := createVectorContainer(t, db, "policy", &azcosmos.VectorEmbeddingPolicy{VectorEmbeddings: []azcosmos.VectorEmbedding{{
		Path: "/embedding", DataType: azcosmos.VectorDataTypeFloat32, DistanceFunction: azcosmos.VectorDistanceFunctionDotProduct, Dimensions: 3,
	}}})
	pk := azcosmos.NewPartitionKeyString("p")
	q := []azcosmos.QueryParameter{{Name: "@q", Value: []float64{1, 1, 0}}}

	tests := []struct {
		name   string
		c      *azcosmos.ContainerClient
		query  string
		params []azcosmos.QueryParameter
		want   string
	}{
		{"cosine by default, ORDER BY DESC", plain,
			`SELECT c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q) DESC`, q,
			`[{"id":"b","score":0.9899494936611666},{"id":"a","score":0.7071067811865475},{"id":"c","score":0},{"id":"d","score":-1}]`},
		{"ORDER BY VectorDistance: most similar first, whatever the direction written", plain,
			`SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.embedding, @q)`, q, `["b","a","c","d"]`},
		{"the policy's distance function is the default", withPolicy,
			`SELECT c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q) DESC`, q,
			`[{"id":"b","score":1.4},{"id":"a","score":1},{"id":"c","score":0},{"id":"d","score":-2}]`},
		{"explicit options win over the policy", withPolicy,
			`SELECT TOP 2 VALUE c.id FROM c ORDER BY VectorDistance(c.embedding, [1, 0, 0], false, {"distanceFunction": "euclidean"})`, nil,
			`["a","b"]`},
		{"TOP with a similarity and a filter", plain,
			`SELECT TOP 1 VALUE c.id FROM c WHERE VectorDistance(c.embedding, @q) > 0 ORDER BY VectorDistance(c.embedding, @q) DESC`, q, `["b"]`},
		{"array aggregates", plain,
			`SELECT VALUE {"sum": ARRAY_SUM(c.nums), "avg": ARRAY_AVG(c.nums), "med": ARRAY_MEDIAN(c.nums), "min": ARRAY_MIN(c.nums), "max": ARRAY_MAX(c.nums)} FROM c WHERE c.id IN ("a", "b", "c")`, nil,
			`[{"sum":16,"avg":4,"med":2.5,"min":1,"max":10},{"sum":0},{}]`},
		{"multi-needle string tests", plain,
			`SELECT VALUE c.id FROM c WHERE CONTAINS_ANY_CI(c.text, "FOX", "école") AND NOT CONTAINS_ALL_CS(c.text, "cat", "dog")`, nil,
			`["a","c","d"]`},
		{"full text without an index", plain,
			`SELECT VALUE c.id FROM c WHERE FULLTEXTCONTAINSALL(c.text, "QUICK", "fox") OR FULLTEXTCONTAINSANY(c.text, "LAZY", "nothing")`, nil,
			`["a","b"]`},
		{"date parts and IS_DATETIME", plain,
			`SELECT VALUE [YEAR(c.dt), MONTH(c.dt), DAY(c.dt), HOUR(c.dt), MINUTE(c.dt), SECOND(c.dt), IS_DATETIME(c.dt)] FROM c WHERE c.id IN ("a", "b")`, nil,
			`[[2016,5,29,8,30,45,true],[null,null,null,null,null,null,false]]`},
		{"parameters are values, never SQL", plain,
			`SELECT VALUE c.id FROM c WHERE CONTAINS_ANY_CS(c.text, @s) OR VectorDistance(c.embedding, @q, false, @o) > 0`,
			[]azcosmos.QueryParameter{{Name: "@s", Value: "'); DROP TABLE x; --"}, {Name: "@q", Value: []float64{1, 0, 0}},
				{Name: "@o", Value: map[string]any{"distanceFunction": "dotproduct'; --"}}}, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := queryAll(t, tt.c, tt.query, pk, &azcosmos.QueryOptions{QueryParameters: tt.params})
			var want []any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !closeJSON(got, want) {
				b, _ := json.Marshal(got)
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}

	// ORDER BY VectorDistance pages through its continuation one result
	// at a time, in the same order.
	got := queryAll(t, plain, `SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.embedding, @q) DESC`, pk,
		&azcosmos.QueryOptions{QueryParameters: q, PageSizeHint: 1})
	if b, _ := json.Marshal(got); string(b) != `["b","a","c","d"]` {
		t.Errorf("paged ORDER BY VectorDistance: %s", b)
	}
}

func createVectorContainer(t *testing.T, db *azcosmos.DatabaseClient, id string, policy *azcosmos.VectorEmbeddingPolicy) *azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		VectorEmbeddingPolicy: policy}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer(id)
	for _, d := range vectorDocs {
		b, _ := json.Marshal(d)
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(d["pk"].(string)), b, nil); err != nil {
			t.Fatalf("seed %s: %v", b, err)
		}
	}
	return c
}

// queryAll collects every result of a query across pages, system
// properties removed.
func queryAll(t *testing.T, c *azcosmos.ContainerClient, query string, pk azcosmos.PartitionKey, opts *azcosmos.QueryOptions) []any {
	t.Helper()
	pager := c.NewQueryItemsPager(query, pk, opts)
	out := []any{}
	for pager.More() {
		resp, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for _, it := range resp.Items {
			var v any
			if err := json.Unmarshal(it, &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}

// closeJSON compares decoded JSON, numbers within 1e-12 relative (and
// 1e-12 absolute near zero).
func closeJSON(a, b any) bool {
	return jsonNear(a, b, func(x, y float64) bool {
		return math.Abs(x-y) <= 1e-12*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
	})
}
