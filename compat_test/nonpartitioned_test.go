package compat_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// feedIDs returns the ids of a feed or query response body's Documents
// (a VALUE query's strings, or the objects' id).
func feedIDs(t *testing.T, r rawResp) []string {
	t.Helper()
	wantStatus(t, r, http.StatusOK)
	var env struct{ Documents []json.RawMessage }
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatalf("feed body %s: %v", r.Body, err)
	}
	var ids []string
	for _, d := range env.Documents {
		var s string
		if json.Unmarshal(d, &s) == nil {
			ids = append(ids, s)
			continue
		}
		var o struct{ ID string }
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatalf("feed document %s: %v", d, err)
		}
		ids = append(ids, o.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestNonPartitionedContainerEmptyKey: on a legacy non-partitioned
// container (created without a partition key at an old API version, so it
// has the system key /_partitionKey), the partition key header [] - what
// the JS SDK sends for such a container, the .NET SDK's PartitionKey.None
// - addresses the "none" partition of the items that lack _partitionKey:
// the same items as no header (how legacy clients write) and [{}]. Every
// item operation, patch, batch, queries, the read feed and the change feed
// take it; an item that has a _partitionKey is in its own partition. On a
// container with a partition key path of its own [] stays the service's
// "fewer components" 400.
func TestNonPartitionedContainerEmptyKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustDB(t, f.c, "np")
	raw := f.rawFor(t)
	const old = "2018-06-18"
	wantStatus(t, raw.do(http.MethodPost, "/dbs/np/colls", []byte(`{"id":"c"}`), "x-ms-version", old), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/np/colls", []byte(`{"id":"p","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	docs := docsPath("np", "c")
	empty := []string{pkHeader, `[]`}
	query := func(q string, hdr ...string) rawResp {
		h := append([]string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True"}, hdr...)
		return raw.do(http.MethodPost, docs, mustJSON(t, map[string]any{"query": q}), h...)
	}
	// b is written as legacy clients write (no header), k with a
	// _partitionKey of its own.
	wantStatus(t, raw.do(http.MethodPost, docs, []byte(`{"id":"b","n":1}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, docs, []byte(`{"id":"k","_partitionKey":"x"}`), pkHeader, `["x"]`), http.StatusCreated)

	for _, step := range []struct {
		name         string
		method, path string
		body         string
		hdr          []string
		status       int
	}{
		{"create", http.MethodPost, docs, `{"id":"a","n":1}`, empty, http.StatusCreated},
		{"read", http.MethodGet, docPath("np", "c", "a"), ``, empty, http.StatusOK},
		{"read an item written without a header", http.MethodGet, docPath("np", "c", "b"), ``, empty, http.StatusOK},
		{"read with the undefined key", http.MethodGet, docPath("np", "c", "a"), ``, []string{pkHeader, `[{}]`}, http.StatusOK},
		{"read without a header", http.MethodGet, docPath("np", "c", "a"), ``, nil, http.StatusOK},
		{"an item with _partitionKey is not in the none partition", http.MethodGet, docPath("np", "c", "k"), ``, empty, http.StatusNotFound},
		{"replace", http.MethodPut, docPath("np", "c", "a"), `{"id":"a","n":2}`, empty, http.StatusOK},
		{"upsert new", http.MethodPost, docs, `{"id":"u","n":1}`, append([]string{"x-ms-documentdb-is-upsert", "True"}, empty...), http.StatusCreated},
		{"upsert existing", http.MethodPost, docs, `{"id":"u","n":2}`, append([]string{"x-ms-documentdb-is-upsert", "True"}, empty...), http.StatusOK},
		{"patch", http.MethodPatch, docPath("np", "c", "a"), `{"operations":[{"op":"incr","path":"/n","value":1}]}`, empty, http.StatusOK},
		{"a body with a _partitionKey does not match []", http.MethodPost, docs, `{"id":"m","_partitionKey":"x"}`, empty, http.StatusBadRequest},
		{"batch", http.MethodPost, docs, `[{"operationType":"Create","resourceBody":{"id":"t"}},{"operationType":"Read","id":"a"}]`,
			append([]string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True"}, empty...), http.StatusOK},
		{"batch operations naming [] under the header []", http.MethodPost, docs, `[{"operationType":"Upsert","partitionKey":"[]","resourceBody":{"id":"t"}},{"operationType":"Read","partitionKey":"[]","id":"b"}]`,
			append([]string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True"}, empty...), http.StatusOK},
		{"delete", http.MethodDelete, docPath("np", "c", "t"), ``, empty, http.StatusNoContent},
		{"[] on a partitioned container", http.MethodPost, docsPath("np", "p"), `{"id":"a","pk":"p"}`, empty, http.StatusBadRequest},
	} {
		t.Run(step.name, func(t *testing.T) {
			var body []byte
			if step.body != "" {
				body = []byte(step.body)
			}
			resp := f.rawFor(t).do(step.method, step.path, body, step.hdr...)
			wantStatus(t, resp, step.status)
			if step.status == http.StatusBadRequest {
				if code, _ := errorBody(t, resp.Body); code != "BadRequest" {
					t.Errorf("code %q", code)
				}
			}
		})
	}
	resp := raw.do(http.MethodGet, docPath("np", "c", "a"), nil, empty...)
	wantStatus(t, resp, http.StatusOK)
	if n := object(t, resp.Body)["n"]; n != json.Number("3") {
		t.Errorf("a after replace and patch: n = %v, want 3", n)
	}
	none, all := []string{"a", "b", "u"}, []string{"a", "b", "k", "u"}
	for _, tc := range []struct {
		name string
		resp rawResp
		want []string
	}{
		{"query with []", query("SELECT VALUE c.id FROM c", empty...), none},
		{"query with [] and a filter", query("SELECT * FROM c WHERE c.n >= 1", empty...), none},
		{"cross-partition query", query("SELECT VALUE c.id FROM c", "x-ms-documentdb-query-enablecrosspartition", "True"), all},
		{"read feed with []", raw.do(http.MethodGet, docs, nil, empty...), none},
		{"read feed", raw.do(http.MethodGet, docs, nil), all},
		{"change feed with []", raw.do(http.MethodGet, docs, nil, append([]string{"A-IM", "Incremental Feed"}, empty...)...), none},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := feedIDs(t, tc.resp); !slices.Equal(got, tc.want) {
				t.Errorf("ids %v, want %v", got, tc.want)
			}
		})
	}
}
