package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// readAll drains the read feed of e with the given extra headers, checking
// every page; it returns the ids in order and the number of pages.
func readAll(t *testing.T, e *itemEnv, pageSize string, hdr ...string) ([]string, int) {
	t.Helper()
	var ids []string
	cont := ""
	pages := 0
	for {
		pages++
		if pages > 100 {
			t.Fatal("read feed does not end")
		}
		h := append([]string{}, hdr...)
		if pageSize != "" {
			h = append(h, "x-ms-max-item-count", pageSize)
		}
		if cont != "" {
			h = append(h, "x-ms-continuation", cont)
		}
		resp := e.raw.do(http.MethodGet, e.docs(), nil, h...)
		wantStatus(t, resp, http.StatusOK)
		wantCommonHeaders(t, resp.Header)
		env := object(t, resp.Body)
		if env["_rid"] != e.rid {
			t.Errorf("feed _rid = %v, want %s", env["_rid"], e.rid)
		}
		docs, ok := env["Documents"].([]any)
		if !ok {
			t.Fatalf("no Documents array: %s", resp.Body)
		}
		if env["_count"] != json.Number(strconv.Itoa(len(docs))) || resp.Header.Get("x-ms-item-count") != strconv.Itoa(len(docs)) {
			t.Errorf("_count %v / x-ms-item-count %q for %d documents", env["_count"], resp.Header.Get("x-ms-item-count"), len(docs))
		}
		if n, err := strconv.Atoi(pageSize); err == nil && n > 0 && len(docs) > n {
			t.Errorf("page of %d documents, asked for %d", len(docs), n)
		}
		for _, d := range docs {
			m := d.(map[string]any)
			if m["_rid"] == nil || m["_etag"] == nil || m["_ts"] == nil {
				t.Errorf("feed document without system properties: %v", m)
			}
			ids = append(ids, m["id"].(string))
		}
		if cont = resp.Header.Get("x-ms-continuation"); cont == "" {
			return ids, pages
		}
	}
}

func TestReadFeed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "feeddb")
	e := f.container(t, db, "feed")
	var all []string
	byPart := map[string][]string{}
	for i := 0; i < 25; i++ {
		id := fmt.Sprintf("item%02d", (i*7)%25) // creation order is not id order
		p := []string{"a", "b", "c"}[i%3]
		if _, err := e.cc.CreateItem(bg, azcosmos.NewPartitionKeyString(p), mustJSON(t, map[string]any{"id": id, "pk": p}), nil); err != nil {
			t.Fatal(err)
		}
		all = append(all, id)
		byPart[p] = append(byPart[p], id)
	}

	t.Run("paged", func(t *testing.T) {
		t.Parallel()
		ids, pages := readAll(t, e, "7")
		if strings.Join(ids, ",") != strings.Join(all, ",") {
			t.Errorf("feed order\n got %v\nwant %v", ids, all)
		}
		if pages != 4 {
			t.Errorf("%d pages of 7 for 25 items, want 4", pages)
		}
	})
	t.Run("page sizes", func(t *testing.T) {
		t.Parallel()
		for _, size := range []string{"", "0", "-1", "1", "25", "1000"} {
			ids, pages := readAll(t, e, size)
			if strings.Join(ids, ",") != strings.Join(all, ",") {
				t.Errorf("size %q: %v", size, ids)
			}
			want := 1
			if size == "1" {
				want = 25
			}
			if size == "25" && pages > 2 {
				t.Errorf("size 25: %d pages", pages)
			} else if size != "25" && pages != want {
				t.Errorf("size %q: %d pages, want %d", size, pages, want)
			}
		}
	})
	t.Run("one partition", func(t *testing.T) {
		t.Parallel()
		for p, want := range byPart {
			ids, _ := readAll(t, e, "3", pkHeader, `["`+p+`"]`)
			if strings.Join(ids, ",") != strings.Join(want, ",") {
				t.Errorf("partition %s: %v, want %v", p, ids, want)
			}
		}
		ids, _ := readAll(t, e, "3", pkHeader, `["zz"]`)
		if len(ids) != 0 {
			t.Errorf("empty partition: %v", ids)
		}
	})
	t.Run("bad paging headers", func(t *testing.T) {
		t.Parallel()
		raw := f.rawFor(t)
		for _, v := range []string{"abc", "1.5", "-2", "1e3"} {
			msg := wantError(t, raw.do(http.MethodGet, e.docs(), nil, "x-ms-max-item-count", v), http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, "PageSize") {
				t.Errorf("page size %q: message %q", v, msg)
			}
		}
		for _, c := range []string{"garbage", "{}", `{"token":"x"}`, "c2VxOi0x"} {
			msg := wantError(t, raw.do(http.MethodGet, e.docs(), nil, "x-ms-continuation", c), http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, "Continuation") {
				t.Errorf("continuation %q: message %q", c, msg)
			}
		}
		// metadata feeds too
		wantError(t, raw.do(http.MethodGet, "/dbs", nil, "x-ms-continuation", "garbage"), http.StatusBadRequest, "BadRequest")
		wantError(t, raw.do(http.MethodGet, "/dbs/feeddb/colls", nil, "x-ms-max-item-count", "abc"), http.StatusBadRequest, "BadRequest")
	})
	t.Run("deleted items leave the feed", func(t *testing.T) {
		t.Parallel()
		e2 := f.container(t, db, "feed2")
		pk := azcosmos.NewPartitionKeyString("a")
		for _, id := range []string{"x", "y", "z"} {
			if _, err := e2.cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": id, "pk": "a"}), nil); err != nil {
				t.Fatal(err)
			}
		}
		ids, _ := readAll(t, e2, "1")
		cont := ""
		// take the first page, delete the next item, continue
		resp := e2.raw.do(http.MethodGet, e2.docs(), nil, "x-ms-max-item-count", "1")
		cont = resp.Header.Get("x-ms-continuation")
		if _, err := e2.cc.DeleteItem(bg, pk, "y", nil); err != nil {
			t.Fatal(err)
		}
		resp = e2.raw.do(http.MethodGet, e2.docs(), nil, "x-ms-max-item-count", "5", "x-ms-continuation", cont)
		wantStatus(t, resp, http.StatusOK)
		docs := object(t, resp.Body)["Documents"].([]any)
		if len(docs) != 1 || docs[0].(map[string]any)["id"] != "z" || strings.Join(ids, ",") != "x,y,z" {
			t.Errorf("after delete: %s (before %v)", resp.Body, ids)
		}
	})
}

func TestQueries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "qdb")
	e := f.container(t, db, "q")
	pk := azcosmos.NewPartitionKeyString("a")
	if _, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"1","pk":"a"}`), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		pk    azcosmos.PartitionKey
	}{
		{"SELECT * FROM c", pk},
		{"SELECT * FROM c", azcosmos.NewPartitionKey()},
		{"SELECT * FROM c WHERE c.id = @id", pk},
	} {
		pager := e.cc.NewQueryItemsPager(tc.query, tc.pk, &azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: "1"}}})
		if !pager.More() {
			t.Fatal("pager has no page")
		}
		resp, err := pager.NextPage(bg)
		if err != nil || len(resp.Items) != 1 || !strings.Contains(string(resp.Items[0]), `"id":"1"`) {
			t.Errorf("%s: %v %s", tc.query, err, resp.Items)
		}
	}
	// raw, with the .NET/JS header
	resp := e.raw.do(http.MethodPost, e.docs(), []byte(`{"query":"SELECT * FROM c","parameters":[]}`),
		"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", pkHeader, `["a"]`)
	wantStatus(t, resp, http.StatusOK)
	// what the engine cannot run yet is a 400 that says so, never a wrong answer
	resp = e.raw.do(http.MethodPost, e.docs(), []byte(`{"query":"SELECT c.id FROM c JOIN t IN c.tags ORDER BY RANK FullTextScore(c.text, ['a'])","parameters":[]}`),
		"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", pkHeader, `["a"]`)
	if msg := wantError(t, resp, http.StatusBadRequest, "BadRequest"); !strings.Contains(strings.ToLower(msg), "not supported") {
		t.Errorf("ORDER BY RANK: %q", msg)
	}
	// a query is never mistaken for a document: nothing was created
	ids, _ := readAll(t, e, "")
	if strings.Join(ids, ",") != "1" {
		t.Errorf("items after queries: %v", ids)
	}
	// a query on a missing container is a 404
	cc, _ := db.NewContainer("nosuch")
	_, err := cc.NewQueryItemsPager("SELECT * FROM c", pk, nil).NextPage(bg)
	sdkErrCode(t, err, http.StatusNotFound, "NotFound")
}

func TestErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "edb")
	mustContainer(t, db, "c")
	raw := f.rawFor(t)

	t.Run("unknown paths", func(t *testing.T) {
		for _, p := range []struct{ method, path string }{
			{http.MethodGet, "/foo"},
			{http.MethodPost, "/dbs/edb/colls/c/sprocs"}, // served (compat_test/scripts_test.go); an empty body is 400
			{http.MethodGet, "/dbs/edb/colls/c/docs/x/attachments"},
			{http.MethodGet, "/dbs/edb/colls/c/docs/x/y/z"},
			{http.MethodGet, "/media/x"},
		} {
			resp := raw.do(p.method, p.path, nil)
			if resp.Status != http.StatusBadRequest {
				t.Errorf("%s %s: status %d, want 400; %s", p.method, p.path, resp.Status, resp.Body)
				continue
			}
			if code, _ := errorBody(t, resp.Body); code != "BadRequest" {
				t.Errorf("%s %s: code %s", p.method, p.path, code)
			}
		}
	})
	t.Run("wrong verbs", func(t *testing.T) {
		for _, p := range []struct{ method, path string }{
			{http.MethodPut, "/dbs"},
			{http.MethodDelete, "/dbs"},
			{http.MethodPatch, "/dbs/edb"},
			{http.MethodPut, "/dbs/edb"},
			{http.MethodPost, "/dbs/edb"},
			{http.MethodPut, "/dbs/edb/colls"},
			{http.MethodPost, "/dbs/edb/colls/c"},
			{http.MethodPatch, "/dbs/edb/colls/c"},
			{http.MethodPost, "/dbs/edb/colls/c/pkranges"},
			{http.MethodPut, "/dbs/edb/colls/c/docs"},
			{http.MethodDelete, "/dbs/edb/colls/c/docs"},
			{http.MethodPost, "/dbs/edb/colls/c/docs/x"},
			{http.MethodDelete, "/offers"},
		} {
			resp := raw.do(p.method, p.path, nil)
			if resp.Status != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d, want 405; %s", p.method, p.path, resp.Status, resp.Body)
				continue
			}
			if code, _ := errorBody(t, resp.Body); code != "MethodNotAllowed" {
				t.Errorf("%s %s: code %s", p.method, p.path, code)
			}
		}
	})
	t.Run("auth before routing", func(t *testing.T) {
		r := raw.req(http.MethodGet, "/foo", nil)
		r.Header.Del("Authorization")
		wantError(t, raw.send(r), http.StatusUnauthorized, "Unauthorized")
	})
	t.Run("trailing slashes", func(t *testing.T) {
		wantStatus(t, raw.do(http.MethodGet, "/dbs/", nil), http.StatusOK)
		wantStatus(t, raw.do(http.MethodGet, "/dbs/edb/", nil), http.StatusOK)
		wantStatus(t, raw.do(http.MethodGet, "/dbs/edb/colls/c/", nil), http.StatusOK)
	})
}
