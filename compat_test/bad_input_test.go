package compat_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestBadInputIs400: what no resource can hold (invalid UTF-8, U+0000 in
// names, JSON nested 100,000 deep) is a 400 in the service's shape, never
// a 500 from PostgreSQL; U+0000 inside document values is stored safely.
func TestBadInputIs400(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "bad")
	cc := mustContainer(t, db, "c")
	raw := f.rawFor(t)
	docs, doc := docsPath("bad", "c"), docPath("bad", "c", "x")
	if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("a"), []byte(`{"id":"x","pk":"a","n":1}`), nil); err != nil {
		t.Fatal(err)
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name         string
		method, path string
		body         string
		hdr          []string
	}{
		{"item body with invalid UTF-8", "POST", docs, "{\"id\":\"u\",\"pk\":\"a\",\"s\":\"\xff\xfe\"}", []string{pkHeader, `["a"]`}},
		{"item id with invalid UTF-8", "POST", docs, "{\"id\":\"u\xc3\",\"pk\":\"a\"}", []string{pkHeader, `["a"]`}},
		{"item id with U+0000", "POST", docs, `{"id":"u\u0000","pk":"a"}`, []string{pkHeader, `["a"]`}},
		{"upsert id with U+0000", "POST", docs, `{"id":"\u0000","pk":"a"}`, []string{pkHeader, `["a"]`, "x-ms-documentdb-is-upsert", "True"}},
		{"item nested 100,000 deep", "POST", docs, `{"id":"d","pk":"a","v":` + deep(100000) + `}`, []string{pkHeader, `["a"]`}},
		{"item nested 129 deep", "POST", docs, `{"id":"d","pk":"a","v":` + deep(128) + `}`, []string{pkHeader, `["a"]`}},
		{"replace nested 100,000 deep", "PUT", doc, `{"id":"x","pk":"a","v":` + deep(100000) + `}`, []string{pkHeader, `["a"]`}},
		{"patch nested 100,000 deep", "PATCH", doc, `[{"op":"set","path":"/v","value":` + deep(100000) + `}]`, []string{pkHeader, `["a"]`}},
		{"patch with invalid UTF-8", "PATCH", doc, "[{\"op\":\"set\",\"path\":\"/v\",\"value\":\"\xff\"}]", []string{pkHeader, `["a"]`}},
		{"read: id path with %00", "GET", docsPath("bad", "c") + "/a%00b", "", []string{pkHeader, `["a"]`}},
		{"read: id path with invalid UTF-8", "GET", docsPath("bad", "c") + "/a%FFb", "", []string{pkHeader, `["a"]`}},
		{"delete: id path with %00", "DELETE", docsPath("bad", "c") + "/%00", "", []string{pkHeader, `["a"]`}},
		{"container path with %00", "GET", "/dbs/bad/colls/c%00", "", nil},
		{"database path with invalid UTF-8", "GET", "/dbs/b%C3", "", nil},
		{"database id with U+0000", "POST", "/dbs", `{"id":"d\u0000"}`, nil},
		{"database id with invalid UTF-8", "POST", "/dbs", "{\"id\":\"d\xff\"}", nil},
		{"container id with U+0000", "POST", "/dbs/bad/colls", `{"id":"c\u0000","partitionKey":{"paths":["/pk"]}}`, nil},
		{"partition key path with U+0000", "POST", "/dbs/bad/colls", `{"id":"c2","partitionKey":{"paths":["/p\u0000k"]}}`, nil},
		{"partition key path with invalid UTF-8", "POST", "/dbs/bad/colls", "{\"id\":\"c3\",\"partitionKey\":{\"paths\":[\"/p\xffk\"]}}", nil},
		{"partition key header with invalid UTF-8", "GET", doc, "", []string{pkHeader, "[\"\xff\"]"}},
		{"If-Match with invalid UTF-8", "PUT", doc, `{"id":"x","pk":"a"}`, []string{pkHeader, `["a"]`, "If-Match", "\"\xff\""}},
		{"continuation with invalid UTF-8", "GET", docs, "", []string{"x-ms-continuation", "\xff\xfe"}},
		{"query text with invalid UTF-8", "POST", docs, "{\"query\":\"SELECT * FROM c WHERE c.s = '\xff'\"}", []string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", "x-ms-documentdb-query-enablecrosspartition", "True"}},
		{"query nested 100,000 deep parameter", "POST", docs, `{"query":"SELECT * FROM c WHERE c.v = @v","parameters":[{"name":"@v","value":` + deep(100000) + `}]}`, []string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", "x-ms-documentdb-query-enablecrosspartition", "True"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			resp := raw.do(tt.method, tt.path, body, tt.hdr...)
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
		})
	}
	// nothing was stored
	resp := raw.do(http.MethodGet, docs, nil)
	if n := object(t, resp.Body)["_count"]; n != json.Number("1") {
		t.Errorf("refused items were stored: %s", resp.Body)
	}

	t.Run("U+0000 inside values is stored and read back", func(t *testing.T) {
		v := "nul\x00inside"
		pk := azcosmos.NewPartitionKeyString("a")
		if _, err := cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": "nul", "pk": "a", "s": v, "k\x00": 1}), nil); err != nil {
			t.Fatal(err)
		}
		rr, err := cc.ReadItem(bg, pk, "nul", nil)
		if err != nil {
			t.Fatal(err)
		}
		if m := object(t, rr.Value); m["s"] != v || m["k\x00"] == nil {
			t.Fatalf("read back %s", rr.Value)
		}
		var ops azcosmos.PatchOperations
		ops.AppendSet("/t", "\x00")
		if _, err := cc.PatchItem(bg, pk, "nul", ops, nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("dot segments", func(t *testing.T) {
		// gorilla/mux answered /docs/.. with a redirect to the container;
		// now it addresses the (refused, so missing) item ".."
		r := raw.req(http.MethodGet, docsPath("bad", "c")+"/..", nil)
		r.Header.Set(pkHeader, `["a"]`)
		wantError(t, raw.send(r), http.StatusNotFound, "NotFound")
	})
}

// TestItemIDWithQuestionMarkUnescaped: the JS SDK puts ids through
// encodeURI, which leaves '?' as is, and signs the id itself; the id "a?b"
// then arrives as /docs/a?b. It is created, read, replaced and deleted
// like any id (it was created, then 401 on read).
func TestItemIDWithQuestionMarkUnescaped(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "qm")
	mustContainer(t, db, "c")
	raw := f.rawFor(t)
	key := masterKey(t)
	send := func(method, id string, body []byte) rawResp {
		t.Helper()
		r := raw.req(method, docsPath("qm", "c"), body) // then point it at the unescaped id
		u, err := url.Parse(raw.endpoint + "/dbs/qm/colls/c/docs/" + id)
		if err != nil {
			t.Fatal(err)
		}
		r.URL = u
		date := r.Header.Get("x-ms-date")
		r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(key, method, "docs", "dbs/qm/colls/c/docs/"+id, date)))
		r.Header.Set(pkHeader, `["a"]`)
		return raw.send(r)
	}
	for _, id := range []string{"Disallowed?Chars", "what?", "a?b=c&d", "?lead"} {
		t.Run(id, func(t *testing.T) {
			wantStatus(t, raw.do(http.MethodPost, docsPath("qm", "c"), mustJSON(t, map[string]any{"id": id, "pk": "a"}), pkHeader, `["a"]`), http.StatusCreated)
			resp := send(http.MethodGet, id, nil)
			wantStatus(t, resp, http.StatusOK)
			if got := object(t, resp.Body)["id"]; got != id {
				t.Fatalf("read id %v, want %q", got, id)
			}
			wantStatus(t, send(http.MethodPut, id, mustJSON(t, map[string]any{"id": id, "pk": "a", "v": 2})), http.StatusOK)
			wantStatus(t, send(http.MethodDelete, id, nil), http.StatusNoContent)
		})
	}
}

// TestLegacyAPIVersionContainerWithoutPartitionKey: at an API version
// before 2018-12-31 a container may be created without a partition key;
// it gets the service's system key (/_partitionKey, systemKey true) and
// its items are addressed without a partition key header. At 2018-12-31
// the same body is refused, as on the hosted service.
func TestLegacyAPIVersionContainerWithoutPartitionKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustDB(t, f.c, "legacy")
	raw := f.rawFor(t)
	const old = "2018-06-18"
	wantError(t, raw.do(http.MethodPost, "/dbs/legacy/colls", []byte(`{"id":"modern"}`), "x-ms-version", "2018-12-31"), http.StatusBadRequest, "BadRequest")

	resp := raw.do(http.MethodPost, "/dbs/legacy/colls", []byte(`{"id":"c"}`), "x-ms-version", old)
	wantStatus(t, resp, http.StatusCreated)
	pk, _ := object(t, resp.Body)["partitionKey"].(map[string]any)
	if pk["systemKey"] != true || len(pk["paths"].([]any)) != 1 || pk["paths"].([]any)[0] != "/_partitionKey" {
		t.Fatalf("partitionKey %v, want the system key", pk)
	}
	docs := docsPath("legacy", "c")
	wantStatus(t, raw.do(http.MethodPost, docs, []byte(`{"id":"a","n":1}`), "x-ms-version", old), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, docs, []byte(`{"id":"b","n":2}`), "x-ms-version", old, "x-ms-documentdb-is-upsert", "True"), http.StatusCreated)
	resp = raw.do(http.MethodGet, docPath("legacy", "c", "a"), nil, "x-ms-version", old)
	wantStatus(t, resp, http.StatusOK)
	if object(t, resp.Body)["n"] != json.Number("1") {
		t.Fatalf("read %s", resp.Body)
	}
	wantStatus(t, raw.do(http.MethodPut, docPath("legacy", "c", "a"), []byte(`{"id":"a","n":3}`), "x-ms-version", old), http.StatusOK)
	wantStatus(t, raw.do(http.MethodPatch, docPath("legacy", "c", "a"), []byte(`[{"op":"incr","path":"/n","value":0}]`), "x-ms-version", old), http.StatusOK)
	// the same item through today's SDK, which sends no header for the
	// empty key; a null key is another partition
	cc, err := f.c.NewContainer("legacy", "c")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := cc.ReadItem(bg, azcosmos.NewPartitionKey(), "a", nil)
	if err != nil {
		t.Fatalf("SDK read without a partition key: %v", err)
	}
	if object(t, rr.Value)["n"] != json.Number("3") {
		t.Fatalf("SDK read %s", rr.Value)
	}
	_, err = cc.ReadItem(bg, azcosmos.NullPartitionKey, "a", nil)
	sdkErr(t, err, http.StatusNotFound)
	// replace the container at the old version without its partition key
	resp = raw.do(http.MethodPut, "/dbs/legacy/colls/c", []byte(`{"id":"c","defaultTtl":-1}`), "x-ms-version", old)
	wantStatus(t, resp, http.StatusOK)
	wantStatus(t, raw.do(http.MethodDelete, docPath("legacy", "c", "b"), nil, "x-ms-version", old), http.StatusNoContent)
}
