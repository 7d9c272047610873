package compat_test

import (
	"net/http"
	"testing"
)

// TestReplaceRenames: a replace whose body names another id than the URL
// renames the item, keeping its _rid, singly and inside a transactional
// batch; renaming onto a live item's id is a conflict and changes nothing.
// The Python SDK's own tests do this against the service:
// test_headers.py test_container_replace_item_throughput_bucket, and
// test_session.py / test_backwards_compatibility.py, whose batches replace
// an item with a body under a new id.
func TestReplaceRenames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "rdb"), "c")
	raw := f.raw
	docs := docsPath("rdb", "c")
	pk := []string{pkHeader, `["a"]`}
	created := object(t, raw.do(http.MethodPost, docs, []byte(`{"id":"old","pk":"a","v":1}`), pk...).Body)
	wantStatus(t, raw.do(http.MethodPost, docs, []byte(`{"id":"taken","pk":"a"}`), pk...), http.StatusCreated)

	// onto a live id: 409, nothing changes
	wantError(t, raw.do(http.MethodPut, docPath("rdb", "c", "old"), []byte(`{"id":"taken","pk":"a","v":9}`), pk...), http.StatusConflict, "Conflict")
	wantStatus(t, raw.do(http.MethodGet, docPath("rdb", "c", "old"), nil, pk...), http.StatusOK)

	resp := raw.do(http.MethodPut, docPath("rdb", "c", "old"), []byte(`{"id":"new","pk":"a","v":2}`), pk...)
	wantStatus(t, resp, http.StatusOK)
	got := object(t, resp.Body)
	if got["id"] != "new" || got["_rid"] != created["_rid"] {
		t.Fatalf("renamed: %s, want id new with _rid %v", resp.Body, created["_rid"])
	}
	wantStatus(t, raw.do(http.MethodGet, docPath("rdb", "c", "old"), nil, pk...), http.StatusNotFound)
	if read := object(t, raw.do(http.MethodGet, docPath("rdb", "c", "new"), nil, pk...).Body); read["_rid"] != created["_rid"] {
		t.Fatalf("read under the new id: %v", read)
	}

	// in a transactional batch
	batch := []string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True", pkHeader, `["a"]`}
	resp = raw.do(http.MethodPost, docs, []byte(`[{"operationType":"Replace","id":"new","resourceBody":{"id":"newer","pk":"a"}},{"operationType":"Read","id":"newer"}]`), batch...)
	wantStatus(t, resp, http.StatusOK)
	wantStatus(t, raw.do(http.MethodGet, docPath("rdb", "c", "new"), nil, pk...), http.StatusNotFound)
	if read := object(t, raw.do(http.MethodGet, docPath("rdb", "c", "newer"), nil, pk...).Body); read["_rid"] != created["_rid"] {
		t.Fatalf("read after the batch rename: %v", read)
	}
}
