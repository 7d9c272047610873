package compat_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestItemBySelfLink: an item is read, replaced and deleted through its
// `_self` link (dbs/{rid}/colls/{rid}/docs/{rid}) signed as the Python SDK
// signs it, by the lower-cased RID of the item alone. The Python SDK takes
// that path whenever an item is given as a dict (read_item(item=doc)); its
// tests test_globaldb.py, test_multimaster.py and
// test_change_feed_all_versions.py do so and pass against the service.
func TestItemBySelfLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c")
	raw := f.raw
	docs := docsPath("sdb", "c")
	created := object(t, raw.do(http.MethodPost, docs, []byte(`{"id":"doc1","pk":"p","v":1}`), pkHeader, `["p"]`).Body)
	self := "/" + strings.TrimSuffix(str(t, created, "_self"), "/")
	rid := str(t, created, "_rid")
	other := object(t, raw.do(http.MethodPost, docs, []byte(`{"id":"doc2","pk":"q"}`), pkHeader, `["q"]`).Body)
	otherSelf := "/" + strings.TrimSuffix(str(t, other, "_self"), "/")

	// python signs the request by the lower-cased RID of the last resource
	python := func(method, path string, body []byte, pk string) rawResp {
		t.Helper()
		r := raw.req(method, path, body)
		segs := strings.Split(strings.Trim(path, "/"), "/")
		sig := signature(masterKey(t), method, "docs", strings.ToLower(segs[len(segs)-1]), r.Header.Get("x-ms-date"))
		r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+sig))
		r.Header.Set(pkHeader, pk)
		return raw.send(r)
	}
	for _, step := range []struct {
		name, method, path, body, pk string
		status                       int
		wantV                        string
	}{
		{"read", http.MethodGet, self, "", `["p"]`, http.StatusOK, "1"},
		{"read in another partition", http.MethodGet, self, "", `["q"]`, http.StatusNotFound, ""},
		{"replace", http.MethodPut, self, `{"id":"doc1","pk":"p","v":2}`, `["p"]`, http.StatusOK, "2"},
		{"read the replaced item", http.MethodGet, self, "", `["p"]`, http.StatusOK, "2"},
		{"read another item by its link", http.MethodGet, otherSelf, "", `["q"]`, http.StatusOK, ""},
		{"delete", http.MethodDelete, self, "", `["p"]`, http.StatusNoContent, ""},
		{"read after delete", http.MethodGet, self, "", `["p"]`, http.StatusNotFound, ""},
	} {
		var body []byte
		if step.body != "" {
			body = []byte(step.body)
		}
		resp := python(step.method, step.path, body, step.pk)
		if resp.Status != step.status {
			t.Fatalf("%s: status %d, want %d: %s", step.name, resp.Status, step.status, resp.Body)
		}
		if step.wantV != "" {
			got := object(t, resp.Body)
			if got["id"] != "doc1" || got["_rid"] != rid || got["v"].(interface{ String() string }).String() != step.wantV {
				t.Fatalf("%s: %s, want doc1 (%s) with v %s", step.name, resp.Body, rid, step.wantV)
			}
		}
	}
	// the lower-cased RID signs nothing addressed by names
	r := raw.req(http.MethodGet, docs+"/doc2", nil)
	r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(masterKey(t), http.MethodGet, "docs", strings.ToLower(str(t, other, "_rid")), r.Header.Get("x-ms-date"))))
	r.Header.Set(pkHeader, `["q"]`)
	wantStatus(t, raw.send(r), http.StatusUnauthorized)
}
