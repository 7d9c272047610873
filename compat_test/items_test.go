package compat_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// itemEnv is a container for one subtest.
type itemEnv struct {
	db, coll string
	cc       *azcosmos.ContainerClient
	raw      *rawClient
	rid      string // container RID
	dbRID    string
}

func (f *fixture) container(t *testing.T, db *azcosmos.DatabaseClient, id string, paths ...string) *itemEnv {
	t.Helper()
	cc := mustContainer(t, db, id, paths...)
	cr, err := cc.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	dr, err := db.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &itemEnv{db: db.ID(), coll: id, cc: cc, raw: f.rawFor(t), rid: cr.ContainerProperties.ResourceID, dbRID: dr.DatabaseProperties.ResourceID}
}

func (e *itemEnv) doc(id string) string { return docPath(e.db, e.coll, id) }
func (e *itemEnv) docs() string         { return docsPath(e.db, e.coll) }

var contentOn = &azcosmos.ItemOptions{EnableContentResponseOnWrite: true}

func TestItems(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "idb")

	t.Run("crud status codes", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "crud")
		pk := azcosmos.NewPartitionKeyString("a")
		doc := func(id string, v int) []byte { return mustJSON(t, map[string]any{"id": id, "pk": "a", "v": v}) }

		r, err := e.cc.CreateItem(bg, pk, doc("x", 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.RawResponse.StatusCode != http.StatusCreated {
			t.Errorf("create status %d", r.RawResponse.StatusCode)
		}
		_, err = e.cc.CreateItem(bg, pk, doc("x", 2), nil)
		msg := sdkErrCode(t, err, http.StatusConflict, "Conflict")
		if !strings.Contains(msg, "already exists") {
			t.Errorf("409 message %q", msg)
		}

		rr, err := e.cc.ReadItem(bg, pk, "x", nil)
		if err != nil {
			t.Fatal(err)
		}
		if rr.RawResponse.StatusCode != http.StatusOK || object(t, rr.Value)["v"] != json.Number("1") {
			t.Errorf("read: %d %s", rr.RawResponse.StatusCode, rr.Value)
		}
		_, err = e.cc.ReadItem(bg, pk, "missing", nil)
		msg = sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		if !strings.Contains(msg, "does not exist") {
			t.Errorf("404 message %q", msg)
		}

		ur, err := e.cc.UpsertItem(bg, pk, doc("u", 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ur.RawResponse.StatusCode != http.StatusCreated {
			t.Errorf("upsert new: status %d, want 201", ur.RawResponse.StatusCode)
		}
		ur, err = e.cc.UpsertItem(bg, pk, doc("u", 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ur.RawResponse.StatusCode != http.StatusOK {
			t.Errorf("upsert existing: status %d, want 200", ur.RawResponse.StatusCode)
		}
		if rr, _ := e.cc.ReadItem(bg, pk, "u", nil); object(t, rr.Value)["v"] != json.Number("2") {
			t.Errorf("upserted value: %s", rr.Value)
		}

		pr, err := e.cc.ReplaceItem(bg, pk, "x", doc("x", 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		if pr.RawResponse.StatusCode != http.StatusOK {
			t.Errorf("replace status %d", pr.RawResponse.StatusCode)
		}
		if rr, _ := e.cc.ReadItem(bg, pk, "x", nil); object(t, rr.Value)["v"] != json.Number("3") {
			t.Errorf("replaced value: %s", rr.Value)
		}
		_, err = e.cc.ReplaceItem(bg, pk, "missing", doc("missing", 1), nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		// a body naming another id renames the item (as the service does:
		// the Python SDK's test_headers.py replaces an item under a new id),
		// and back
		if _, err := e.cc.ReplaceItem(bg, pk, "x", doc("y", 3), nil); err != nil {
			t.Fatalf("rename x to y: %v", err)
		}
		_, err = e.cc.ReadItem(bg, pk, "x", nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		if _, err := e.cc.ReplaceItem(bg, pk, "y", doc("x", 3), nil); err != nil {
			t.Fatalf("rename y to x: %v", err)
		}

		dr, err := e.cc.DeleteItem(bg, pk, "x", nil)
		if err != nil {
			t.Fatal(err)
		}
		if dr.RawResponse.StatusCode != http.StatusNoContent || len(dr.Value) != 0 {
			t.Errorf("delete: %d %q", dr.RawResponse.StatusCode, dr.Value)
		}
		_, err = e.cc.DeleteItem(bg, pk, "x", nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		_, err = e.cc.ReadItem(bg, pk, "x", nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		// recreate after delete
		if _, err := e.cc.CreateItem(bg, pk, doc("x", 4), nil); err != nil {
			t.Fatalf("recreate after delete: %v", err)
		}
	})

	t.Run("same id in two partitions", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "twoparts")
		for _, p := range []string{"a", "b"} {
			if _, err := e.cc.CreateItem(bg, azcosmos.NewPartitionKeyString(p), mustJSON(t, map[string]any{"id": "same", "pk": p}), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{"a", "b"} {
			rr, err := e.cc.ReadItem(bg, azcosmos.NewPartitionKeyString(p), "same", nil)
			if err != nil {
				t.Fatal(err)
			}
			if object(t, rr.Value)["pk"] != p {
				t.Errorf("partition %s read %s", p, rr.Value)
			}
		}
		if _, err := e.cc.DeleteItem(bg, azcosmos.NewPartitionKeyString("a"), "same", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.cc.ReadItem(bg, azcosmos.NewPartitionKeyString("b"), "same", nil); err != nil {
			t.Errorf("deleting in a removed b: %v", err)
		}
		_, err := e.cc.ReadItem(bg, azcosmos.NewPartitionKeyString("c"), "same", nil)
		sdkErr(t, err, http.StatusNotFound)
	})

	t.Run("partition key value types", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "pktypes")
		type part struct {
			name   string
			sdk    *azcosmos.PartitionKey
			header string
			value  any // nil with missing=true: no pk property
			miss   bool
		}
		s1 := azcosmos.NewPartitionKeyString("1")
		n1 := azcosmos.NewPartitionKeyNumber(1)
		bt := azcosmos.NewPartitionKeyBool(true)
		bf := azcosmos.NewPartitionKeyBool(false)
		nl := azcosmos.NullPartitionKey
		parts := []part{
			{"string", &s1, `["1"]`, "1", false},
			{"number", &n1, `[1]`, 1, false},
			{"true", &bt, `[true]`, true, false},
			{"false", &bf, `[false]`, false, false},
			{"null", &nl, `[null]`, nil, false},
			{"missing", nil, `[{}]`, nil, true},
		}
		for _, p := range parts {
			m := map[string]any{"id": "same", "tag": p.name}
			if !p.miss {
				m["pk"] = p.value
			}
			body := mustJSON(t, m)
			if p.sdk != nil {
				r, err := e.cc.CreateItem(bg, *p.sdk, body, nil)
				if err != nil {
					t.Fatalf("create %s: %v", p.name, err)
				}
				if r.RawResponse.StatusCode != http.StatusCreated {
					t.Errorf("create %s: %d", p.name, r.RawResponse.StatusCode)
				}
			} else {
				wantStatus(t, e.raw.do(http.MethodPost, e.docs(), body, pkHeader, p.header), http.StatusCreated)
			}
		}
		// each partition holds its own item
		for _, p := range parts {
			if p.sdk != nil {
				rr, err := e.cc.ReadItem(bg, *p.sdk, "same", nil)
				if err != nil {
					t.Fatalf("read %s: %v", p.name, err)
				}
				if tag := object(t, rr.Value)["tag"]; tag != p.name {
					t.Errorf("SDK read in %s partition got %v", p.name, tag)
				}
			}
			resp := e.raw.do(http.MethodGet, e.doc("same"), nil, pkHeader, p.header)
			wantStatus(t, resp, http.StatusOK)
			if tag := object(t, resp.Body)["tag"]; tag != p.name {
				t.Errorf("raw read %s in %s partition got %v", p.header, p.name, tag)
			}
		}
		// 1.0 is the number 1; a second create in an occupied partition conflicts
		resp := e.raw.do(http.MethodGet, e.doc("same"), nil, pkHeader, `[1.0]`)
		wantStatus(t, resp, http.StatusOK)
		if tag := object(t, resp.Body)["tag"]; tag != "number" {
			t.Errorf("[1.0] read %v", tag)
		}
		for _, p := range parts {
			m := map[string]any{"id": "same"}
			if !p.miss {
				m["pk"] = p.value
			}
			wantError(t, e.raw.do(http.MethodPost, e.docs(), mustJSON(t, m), pkHeader, p.header), http.StatusConflict, "Conflict")
		}
		// unknown partitions
		for _, h := range []string{`["2"]`, `[2]`, `["true"]`, `["null"]`, `[""]`} {
			wantError(t, e.raw.do(http.MethodGet, e.doc("same"), nil, pkHeader, h), http.StatusNotFound, "NotFound")
		}
	})

	t.Run("go escapes in the pk header", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "goescapes")
		for i, v := range []string{"pé😀", "bell\a\v\x7f\x00end", "tab\tnl\n", `quote"back\slash`} {
			id := fmt.Sprintf("g%d", i)
			pk := azcosmos.NewPartitionKeyString(v)
			if _, err := e.cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": id, "pk": v}), nil); err != nil {
				t.Fatalf("%q: create: %v", v, err)
			}
			rr, err := e.cc.ReadItem(bg, pk, id, nil)
			if err != nil {
				t.Fatalf("%q: read: %v", v, err)
			}
			if object(t, rr.Value)["pk"] != v {
				t.Errorf("%q: read back %s", v, rr.Value)
			}
			// the header exactly as Go's QuoteToASCII writes it
			h := "[" + strconv.QuoteToASCII(v) + "]"
			wantStatus(t, e.raw.do(http.MethodGet, e.doc(id), nil, pkHeader, h), http.StatusOK)
		}
		wantStatus(t, e.raw.do(http.MethodGet, e.doc("g0"), nil, pkHeader, `["p\u00e9\U0001f600"]`), http.StatusOK)
		wantStatus(t, e.raw.do(http.MethodGet, e.doc("g0"), nil, pkHeader, `["p\u00e9\ud83d\ude00"]`), http.StatusOK)
		wantStatus(t, e.raw.do(http.MethodGet, e.doc("g0"), nil, pkHeader, `["pé😀"]`), http.StatusOK)
		for _, h := range []string{`["p\q"]`, `["p\x4"]`, `["p\U0011ffff"]`, `["unterminated]`} {
			wantError(t, e.raw.do(http.MethodGet, e.doc("g0"), nil, pkHeader, h), http.StatusBadRequest, "BadRequest")
		}
	})

	t.Run("hierarchical keys", func(t *testing.T) {
		t.Parallel()
		e2 := f.container(t, db, "hpk2", "/tenant", "/user")
		k := func(a, b string) azcosmos.PartitionKey { return azcosmos.NewPartitionKeyString(a).AppendString(b) }
		for _, u := range []string{"u1", "u2"} {
			if _, err := e2.cc.CreateItem(bg, k("t1", u), mustJSON(t, map[string]any{"id": "same", "tenant": "t1", "user": u}), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, u := range []string{"u1", "u2"} {
			rr, err := e2.cc.ReadItem(bg, k("t1", u), "same", nil)
			if err != nil {
				t.Fatal(err)
			}
			if object(t, rr.Value)["user"] != u {
				t.Errorf("read %s: %s", u, rr.Value)
			}
		}
		_, err := e2.cc.ReadItem(bg, k("t1", "u3"), "same", nil)
		sdkErr(t, err, http.StatusNotFound)
		_, err = e2.cc.CreateItem(bg, k("t1", "u1"), mustJSON(t, map[string]any{"id": "same", "tenant": "t1", "user": "u1"}), nil)
		sdkErr(t, err, http.StatusConflict)
		// a prefix or a longer key is refused for point operations
		for _, h := range []string{`["t1"]`, `["t1","u1","x"]`} {
			resp := e2.raw.do(http.MethodGet, e2.doc("same"), nil, pkHeader, h)
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
			wantSubStatus(t, resp, 1001)
		}
		_, err = e2.cc.CreateItem(bg, azcosmos.NewPartitionKeyString("t1"), mustJSON(t, map[string]any{"id": "short", "tenant": "t1", "user": "u1"}), nil)
		sdkErr(t, err, http.StatusBadRequest)
		// body/header mismatch on the second level
		_, err = e2.cc.CreateItem(bg, k("t1", "u1"), mustJSON(t, map[string]any{"id": "mm", "tenant": "t1", "user": "u2"}), nil)
		sdkErr(t, err, http.StatusBadRequest)

		e3 := f.container(t, db, "hpk3", "/a", "/b/c", "/d")
		k3 := azcosmos.NewPartitionKeyString("x").AppendNumber(5).AppendBool(true)
		if _, err := e3.cc.CreateItem(bg, k3, []byte(`{"id":"n","a":"x","b":{"c":5},"d":true}`), nil); err != nil {
			t.Fatal(err)
		}
		rr, err := e3.cc.ReadItem(bg, k3, "n", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(rr.Value, []byte(`{"id":"n","a":"x","b":{"c":5},"d":true,`)) {
			t.Errorf("read %s", rr.Value)
		}
		// a missing last level is the undefined component
		wantStatus(t, e3.raw.do(http.MethodPost, e3.docs(), []byte(`{"id":"m","a":"x","b":{"c":5}}`), pkHeader, `["x",5,{}]`), http.StatusCreated)
		wantStatus(t, e3.raw.do(http.MethodGet, e3.doc("m"), nil, pkHeader, `["x",5,{}]`), http.StatusOK)
		wantError(t, e3.raw.do(http.MethodGet, e3.doc("m"), nil, pkHeader, `["x",5,null]`), http.StatusNotFound, "NotFound")
	})

	t.Run("pk header mismatch and missing", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "pkmm")
		cases := []struct {
			name   string
			method string
			path   string
			body   string
			hdr    []string
		}{
			{"create mismatch", http.MethodPost, e.docs(), `{"id":"m","pk":"b"}`, []string{pkHeader, `["a"]`}},
			{"create string vs number", http.MethodPost, e.docs(), `{"id":"m","pk":"1"}`, []string{pkHeader, `[1]`}},
			{"create null vs missing", http.MethodPost, e.docs(), `{"id":"m"}`, []string{pkHeader, `[null]`}},
			{"create missing vs null", http.MethodPost, e.docs(), `{"id":"m","pk":null}`, []string{pkHeader, `[{}]`}},
			{"upsert mismatch", http.MethodPost, e.docs(), `{"id":"m","pk":"b"}`, []string{pkHeader, `["a"]`, "x-ms-documentdb-is-upsert", "True"}},
			{"create no header", http.MethodPost, e.docs(), `{"id":"m","pk":"a"}`, nil},
			{"create empty array", http.MethodPost, e.docs(), `{"id":"m","pk":"a"}`, []string{pkHeader, `[]`}},
			{"create two components", http.MethodPost, e.docs(), `{"id":"m","pk":"a"}`, []string{pkHeader, `["a","b"]`}},
			{"read no header", http.MethodGet, e.doc("m"), ``, nil},
			{"delete no header", http.MethodDelete, e.doc("m"), ``, nil},
			{"replace no header", http.MethodPut, e.doc("m"), `{"id":"m","pk":"a"}`, nil},
		}
		for _, tc := range cases {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			resp := e.raw.do(tc.method, tc.path, body, tc.hdr...)
			if resp.Status != http.StatusBadRequest {
				t.Errorf("%s: status %d, want 400; %s", tc.name, resp.Status, resp.Body)
				continue
			}
			if code, _ := errorBody(t, resp.Body); code != "BadRequest" {
				t.Errorf("%s: code %s", tc.name, code)
			}
			if sub := resp.Header.Get("x-ms-substatus"); sub != "1001" {
				t.Errorf("%s: x-ms-substatus %q, want 1001", tc.name, sub)
			}
		}
		// nothing was stored anywhere
		resp := e.raw.do(http.MethodGet, e.docs(), nil)
		wantStatus(t, resp, http.StatusOK)
		if n := object(t, resp.Body)["_count"]; n != json.Number("0") {
			t.Errorf("items stored by refused writes: %s", resp.Body)
		}
		// replace with a mismatching body leaves the item alone
		wantStatus(t, e.raw.do(http.MethodPost, e.docs(), []byte(`{"id":"r","pk":"a","v":1}`), pkHeader, `["a"]`), http.StatusCreated)
		resp = e.raw.do(http.MethodPut, e.doc("r"), []byte(`{"id":"r","pk":"b","v":2}`), pkHeader, `["a"]`)
		wantError(t, resp, http.StatusBadRequest, "BadRequest")
		wantSubStatus(t, resp, 1001)
		resp = e.raw.do(http.MethodGet, e.doc("r"), nil, pkHeader, `["a"]`)
		if object(t, resp.Body)["v"] != json.Number("1") {
			t.Errorf("item changed: %s", resp.Body)
		}
		// a header that is not a JSON array of primitives
		for _, h := range []string{`a`, `"a"`, `[["a"]]`, `[{"a":1}]`, `{}`} {
			wantError(t, e.raw.do(http.MethodGet, e.doc("r"), nil, pkHeader, h), http.StatusBadRequest, "BadRequest")
		}
	})

	t.Run("system properties", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "sysprops")
		pk := azcosmos.NewPartitionKeyString("a")
		before := time.Now().Unix()
		body := []byte(`{"id":"s","pk":"a","_rid":"bogus","_self":"x","_etag":"\"fake\"","_ts":1,"_attachments":"y","n":1}`)
		r, err := e.cc.CreateItem(bg, pk, body, contentOn)
		if err != nil {
			t.Fatal(err)
		}
		check := func(value []byte, etag azcore.ETag) map[string]any {
			m := object(t, value)
			rid, _ := m["_rid"].(string)
			b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rid, "-", "/"))
			cb, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(e.rid, "-", "/"))
			if err != nil || len(b) != 16 || !bytes.Equal(b[:8], cb) {
				t.Errorf("_rid %q is not a 16-byte document RID of container %s", rid, e.rid)
			}
			if m["_self"] != "dbs/"+e.dbRID+"/colls/"+e.rid+"/docs/"+rid+"/" {
				t.Errorf("_self = %v", m["_self"])
			}
			et, _ := m["_etag"].(string)
			if et == `"fake"` || !strings.HasPrefix(et, `"`) || !strings.HasSuffix(et, `"`) || len(et) < 3 {
				t.Errorf("_etag = %q", et)
			}
			if string(etag) != et {
				t.Errorf("etag header %q != _etag %q", etag, et)
			}
			if m["_attachments"] != "attachments/" {
				t.Errorf("_attachments = %v", m["_attachments"])
			}
			if !isJSONInteger(m["_ts"]) {
				t.Fatalf("_ts = %v", m["_ts"])
			}
			ts, _ := strconv.ParseInt(string(m["_ts"].(json.Number)), 10, 64)
			if ts < before-5 || ts > time.Now().Unix()+5 {
				t.Errorf("_ts = %d, now %d", ts, time.Now().Unix())
			}
			// user properties first, then the system properties in the service's order
			if !bytes.HasPrefix(value, []byte(`{"id":"s","pk":"a",`)) {
				t.Errorf("body order: %s", value)
			}
			if i := bytes.Index(value, []byte(`"_rid"`)); i < 0 || !bytes.HasSuffix(value[i:], []byte(`,"_attachments":"attachments/","_ts":`+string(m["_ts"].(json.Number))+`}`)) {
				t.Errorf("system property order: %s", value)
			}
			return m
		}
		m1 := check(r.Value, r.ETag)
		rr, err := e.cc.ReadItem(bg, pk, "s", nil)
		if err != nil {
			t.Fatal(err)
		}
		m2 := check(rr.Value, rr.ETag)
		if m1["_rid"] != m2["_rid"] || m1["_etag"] != m2["_etag"] {
			t.Errorf("create and read disagree: %v / %v", m1, m2)
		}
		// replace keeps _rid, changes _etag
		pr, err := e.cc.ReplaceItem(bg, pk, "s", rr.Value, contentOn)
		if err != nil {
			t.Fatal(err)
		}
		m3 := check(pr.Value, pr.ETag)
		if m3["_rid"] != m1["_rid"] || m3["_etag"] == m1["_etag"] {
			t.Errorf("replace: rid %v->%v etag %v->%v", m1["_rid"], m3["_rid"], m1["_etag"], m3["_etag"])
		}
		// so does an upsert that replaces
		ur, err := e.cc.UpsertItem(bg, pk, []byte(`{"id":"s","pk":"a","n":2}`), contentOn)
		if err != nil {
			t.Fatal(err)
		}
		if m4 := check(ur.Value, ur.ETag); m4["_rid"] != m1["_rid"] || m4["_etag"] == m3["_etag"] {
			t.Errorf("upsert: rid %v->%v etag %v->%v", m1["_rid"], m4["_rid"], m3["_etag"], m4["_etag"])
		}
		// the stored body has no duplicated system properties
		if n := strings.Count(string(pr.Value), `"_rid"`); n != 1 {
			t.Errorf("%d _rid members: %s", n, pr.Value)
		}
		// a second document gets another RID
		r2, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"s2","pk":"a"}`), contentOn)
		if err != nil {
			t.Fatal(err)
		}
		if object(t, r2.Value)["_rid"] == m1["_rid"] {
			t.Errorf("two documents share a RID")
		}
	})

	t.Run("ids", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "ids")
		pk := azcosmos.NewPartitionKeyString("a")
		ids := []string{"with space", "ünïcødé-日本語-😀", "100%", "%20literal", "%E9%B1%80", "what?", "hash#tag", "a+b", "semi;colon", "quote'single", `quote"double`, "amp&eq=", "tilde~", "dots..", " leading", "trailing ", "two  ", "With\rCarriageReturn", "With\tTab", "With\nLineFeed", "ctl\x01\x1f",
			"WithAllowedSpecial,=.:~+-@()^${}[]!_Chars", "WithUnicode鱀",
			// as Microsoft's compute gateway (the Go SDK's TestItemIdEncodingComputeGW)
			"Disallowed/Chars", `Disallowed\Chars`, "/", `\`, "a/b/c", "/lead", "trail/", "..a", ".a.", "...", "BQE1D3PdG4N4bzU9TKaCIM3qc0TVcZ2-Y3jnsRfwdHC1ombkX3F1dot-SG0-UTq9AbgdX3kOWoP6qL6lJqWeKgV3zwWWPZO-t5X0ehJzv9LGkWld07LID2rhWhGT6huBM6Q=", strings.Repeat("x", 1023), strings.Repeat("é", 511) + "x"}
		for _, id := range ids {
			name := id
			if len(name) > 20 {
				name = name[:20]
			}
			body := mustJSON(t, map[string]any{"id": id, "pk": "a", "v": 1})
			if _, err := e.cc.CreateItem(bg, pk, body, nil); err != nil {
				t.Errorf("%q: create: %v", name, err)
				continue
			}
			rr, err := e.cc.ReadItem(bg, pk, id, nil)
			if err != nil {
				t.Errorf("%q: read: %v", name, err)
				continue
			}
			if object(t, rr.Value)["id"] != id {
				t.Errorf("%q: read back id %v", name, object(t, rr.Value)["id"])
			}
			// raw read through the escaped path
			wantStatus(t, e.raw.do(http.MethodGet, e.doc(id), nil, pkHeader, `["a"]`), http.StatusOK)
			if _, err := e.cc.ReplaceItem(bg, pk, id, mustJSON(t, map[string]any{"id": id, "pk": "a", "v": 2}), nil); err != nil {
				t.Errorf("%q: replace: %v", name, err)
			}
			if _, err := e.cc.UpsertItem(bg, pk, mustJSON(t, map[string]any{"id": id, "pk": "a", "v": 3}), nil); err != nil {
				t.Errorf("%q: upsert: %v", name, err)
			}
			var ops azcosmos.PatchOperations
			ops.AppendIncrement("/v", 1)
			pr, err := e.cc.PatchItem(bg, pk, id, ops, contentOn)
			if err != nil {
				t.Errorf("%q: patch: %v", name, err)
			} else if object(t, pr.Value)["v"] != json.Number("4") {
				t.Errorf("%q: patched %s", name, pr.Value)
			}
			if _, err := e.cc.DeleteItem(bg, pk, id, nil); err != nil {
				t.Errorf("%q: delete: %v", name, err)
			}
			_, err = e.cc.ReadItem(bg, pk, id, nil)
			sdkErr(t, err, http.StatusNotFound)
		}

		// refused ids: nothing is stored ("." and ".." are path segments URL
		// parsers drop; U+0000 cannot be stored as PostgreSQL text)
		for _, body := range []string{
			`{"id":".","pk":"a"}`,
			`{"id":"..","pk":"a"}`,
			`{"id":"a\u0000b","pk":"a"}`,
			`{"id":"","pk":"a"}`,
			`{"id":5,"pk":"a"}`,
			`{"id":null,"pk":"a"}`,
			`{"id":["x"],"pk":"a"}`,
			`{"pk":"a"}`,
			`{"id":"` + strings.Repeat("x", 1024) + `","pk":"a"}`,
			`{"id":"` + strings.Repeat("é", 512) + `","pk":"a"}`,
		} {
			short := body
			if len(short) > 40 {
				short = short[:40]
			}
			resp := e.raw.do(http.MethodPost, e.docs(), []byte(body), pkHeader, `["a"]`)
			if resp.Status != http.StatusBadRequest {
				t.Errorf("%s: status %d, want 400", short, resp.Status)
				continue
			}
			errorBody(t, resp.Body)
			resp = e.raw.do(http.MethodPost, e.docs(), []byte(body), pkHeader, `["a"]`, "x-ms-documentdb-is-upsert", "True")
			if resp.Status != http.StatusBadRequest {
				t.Errorf("upsert %s: status %d, want 400", short, resp.Status)
			}
		}
		_, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"..","pk":"a"}`), nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		_, err = e.cc.CreateItem(bg, pk, []byte(`{"id":".","pk":"a"}`), nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		resp := e.raw.do(http.MethodGet, e.docs(), nil, pkHeader, `["a"]`)
		if n := object(t, resp.Body)["_count"]; n != json.Number("0") {
			t.Errorf("refused ids were stored: %s", resp.Body)
		}
	})

	t.Run("bodies", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "bodies")
		for _, body := range []string{
			`{"id":"j1","pk":"a"`,
			`{"id":"j2","pk":"a"}}`,
			`{"id":"j3","pk":"a",}`,
			`{'id':'j4','pk':'a'}`,
			`[{"id":"j5","pk":"a"}]`,
			`"j6"`,
			`null`,
			``,
			`{"id":"j7","pk":"a","n":1e400}`,
			`{"id":"j8","pk":"a","n":-1e400}`,
			`{"id":"j9","pk":"a","n":NaN}`,
			`{"id":"j10","pk":"a","n":Infinity}`,
		} {
			resp := e.raw.do(http.MethodPost, e.docs(), []byte(body), pkHeader, `["a"]`)
			msg := wantError(t, resp, http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, "payload") && !strings.Contains(msg, "id") {
				t.Errorf("%s: message %q", body, msg)
			}
		}
		// a 3 MB document: 413, nothing stored
		big := `{"id":"big","pk":"a","s":"` + strings.Repeat("x", 3<<20) + `"}`
		resp := e.raw.do(http.MethodPost, e.docs(), []byte(big), pkHeader, `["a"]`)
		wantError(t, resp, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge")
		// just over 2 MB
		over := `{"id":"big","pk":"a","s":"` + strings.Repeat("x", 2<<20) + `"}`
		resp = e.raw.do(http.MethodPost, e.docs(), []byte(over), pkHeader, `["a"]`, "x-ms-documentdb-is-upsert", "True")
		wantError(t, resp, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge")
		wantError(t, e.raw.do(http.MethodGet, e.doc("big"), nil, pkHeader, `["a"]`), http.StatusNotFound, "NotFound")
		// under 2 MB is fine, and replace over 2 MB is refused
		under := `{"id":"big","pk":"a","s":"` + strings.Repeat("x", 2<<20-200) + `"}`
		wantStatus(t, e.raw.do(http.MethodPost, e.docs(), []byte(under), pkHeader, `["a"]`), http.StatusCreated)
		over = `{"id":"big","pk":"a","s":"` + strings.Repeat("y", 2<<20) + `"}`
		wantError(t, e.raw.do(http.MethodPut, e.doc("big"), []byte(over), pkHeader, `["a"]`), http.StatusRequestEntityTooLarge, "RequestEntityTooLarge")
		resp = e.raw.do(http.MethodGet, e.doc("big"), nil, pkHeader, `["a"]`)
		wantStatus(t, resp, http.StatusOK)
		if !bytes.Contains(resp.Body, []byte(`"s":"xxx`)) {
			t.Errorf("oversized replace changed the item")
		}

		// member order and numbers survive a point read byte for byte
		user := `{"zeta":1,"id":"order","alpha":{"y":2,"b":[3,"x",{"k":null}]},"pk":"a","big":9007199254740993,"neg":-9007199254740993,"frac":1.0000000000000002,"exp":1.5e+300,"t":true,"s":"é<>&"}`
		wantStatus(t, e.raw.do(http.MethodPost, e.docs(), []byte(user), pkHeader, `["a"]`), http.StatusCreated)
		resp = e.raw.do(http.MethodGet, e.doc("order"), nil, pkHeader, `["a"]`)
		wantStatus(t, resp, http.StatusOK)
		if !bytes.HasPrefix(resp.Body, []byte(user[:len(user)-1]+`,"_rid":`)) {
			t.Errorf("stored body differs:\n got %s\nwant %s", resp.Body, user)
		}
		// the SDK gets the same bytes
		rr, err := e.cc.ReadItem(bg, azcosmos.NewPartitionKeyString("a"), "order", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(rr.Value, []byte(`"big":9007199254740993,"neg":-9007199254740993`)) {
			t.Errorf("big integers changed: %s", rr.Value)
		}
		// whitespace in the request does not matter
		spaced := "{\n  \"id\" : \"spaced\",\t\"pk\":\"a\" ,\"v\": [ 1 , 2 ]\n}"
		wantStatus(t, e.raw.do(http.MethodPost, e.docs(), []byte(spaced), pkHeader, `["a"]`), http.StatusCreated)
		resp = e.raw.do(http.MethodGet, e.doc("spaced"), nil, pkHeader, `["a"]`)
		if !bytes.HasPrefix(resp.Body, []byte(`{"id":"spaced","pk":"a","v":[1,2],"_rid"`)) {
			t.Errorf("spaced body read back as %s", resp.Body)
		}
	})

	t.Run("etags", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "etags")
		pk := azcosmos.NewPartitionKeyString("a")
		cr, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"e","pk":"a","v":1}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		stale := cr.ETag
		rep, err := e.cc.ReplaceItem(bg, pk, "e", []byte(`{"id":"e","pk":"a","v":2}`), &azcosmos.ItemOptions{IfMatchEtag: &stale})
		if err != nil {
			t.Fatalf("replace with the current etag: %v", err)
		}
		cur := rep.ETag
		if cur == stale || cur == "" {
			t.Fatalf("etag did not change: %s", cur)
		}
		_, err = e.cc.ReplaceItem(bg, pk, "e", []byte(`{"id":"e","pk":"a","v":3}`), &azcosmos.ItemOptions{IfMatchEtag: &stale})
		msg := sdkErrCode(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
		if !strings.Contains(msg, "pre-condition") {
			t.Errorf("412 message %q", msg)
		}
		_, err = e.cc.UpsertItem(bg, pk, []byte(`{"id":"e","pk":"a","v":3}`), &azcosmos.ItemOptions{IfMatchEtag: &stale})
		sdkErrCode(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
		_, err = e.cc.DeleteItem(bg, pk, "e", &azcosmos.ItemOptions{IfMatchEtag: &stale})
		sdkErrCode(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
		rr, err := e.cc.ReadItem(bg, pk, "e", nil)
		if err != nil {
			t.Fatal(err)
		}
		if object(t, rr.Value)["v"] != json.Number("2") || rr.ETag != cur {
			t.Errorf("failed conditional writes changed the item: %s %s", rr.Value, rr.ETag)
		}
		up, err := e.cc.UpsertItem(bg, pk, []byte(`{"id":"e","pk":"a","v":4}`), &azcosmos.ItemOptions{IfMatchEtag: &cur})
		if err != nil {
			t.Fatalf("upsert with the current etag: %v", err)
		}
		if up.RawResponse.StatusCode != http.StatusOK {
			t.Errorf("conditional upsert status %d", up.RawResponse.StatusCode)
		}
		cur = up.ETag

		// If-None-Match on reads
		resp := e.raw.do(http.MethodGet, e.doc("e"), nil, pkHeader, `["a"]`, "If-None-Match", string(cur))
		wantStatus(t, resp, http.StatusNotModified)
		if len(resp.Body) != 0 || resp.Header.Get("etag") != string(cur) {
			t.Errorf("304: body %q etag %q", resp.Body, resp.Header.Get("etag"))
		}
		resp = e.raw.do(http.MethodGet, e.doc("e"), nil, pkHeader, `["a"]`, "If-None-Match", string(stale))
		wantStatus(t, resp, http.StatusOK)
		if object(t, resp.Body)["v"] != json.Number("4") {
			t.Errorf("read %s", resp.Body)
		}
		// raw conditional replace/delete
		wantError(t, e.raw.do(http.MethodPut, e.doc("e"), []byte(`{"id":"e","pk":"a"}`), pkHeader, `["a"]`, "If-Match", `"nope"`), http.StatusPreconditionFailed, "PreconditionFailed")
		wantError(t, e.raw.do(http.MethodDelete, e.doc("e"), nil, pkHeader, `["a"]`, "If-Match", string(stale)), http.StatusPreconditionFailed, "PreconditionFailed")
		// If-Match on a missing item is a 404
		wantError(t, e.raw.do(http.MethodPut, e.doc("nope"), []byte(`{"id":"nope","pk":"a"}`), pkHeader, `["a"]`, "If-Match", string(cur)), http.StatusNotFound, "NotFound")
		wantError(t, e.raw.do(http.MethodDelete, e.doc("nope"), nil, pkHeader, `["a"]`, "If-Match", string(cur)), http.StatusNotFound, "NotFound")
		dr, err := e.cc.DeleteItem(bg, pk, "e", &azcosmos.ItemOptions{IfMatchEtag: &cur})
		if err != nil || dr.RawResponse.StatusCode != http.StatusNoContent {
			t.Fatalf("conditional delete: %v", err)
		}
	})

	t.Run("concurrent replaces with one etag", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "race")
		pk := azcosmos.NewPartitionKeyString("a")
		cr, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"r","pk":"a","w":-1}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		etag := cr.ETag
		const n = 20
		var wg sync.WaitGroup
		results := make([]int, n)
		winner := make([]azcore.ETag, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r, err := e.cc.ReplaceItem(bg, pk, "r", []byte(fmt.Sprintf(`{"id":"r","pk":"a","w":%d}`, i)), &azcosmos.ItemOptions{IfMatchEtag: &etag})
				if err == nil {
					results[i] = r.RawResponse.StatusCode
					winner[i] = r.ETag
					return
				}
				var re *azcore.ResponseError
				if errors.As(err, &re) {
					results[i] = re.StatusCode
				}
			}(i)
		}
		wg.Wait()
		ok, failed, w := 0, 0, -1
		for i, s := range results {
			switch s {
			case http.StatusOK:
				ok++
				w = i
			case http.StatusPreconditionFailed:
				failed++
			default:
				t.Errorf("replace %d: status %d", i, s)
			}
		}
		if ok != 1 || failed != n-1 {
			t.Fatalf("%d succeeded, %d got 412; want 1 and %d", ok, failed, n-1)
		}
		rr, err := e.cc.ReadItem(bg, pk, "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if object(t, rr.Value)["w"] != json.Number(strconv.Itoa(w)) || rr.ETag != winner[w] {
			t.Errorf("stored %s (etag %s), want the winner %d (%s)", rr.Value, rr.ETag, w, winner[w])
		}
	})

	t.Run("concurrent reads", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "reads")
		pk := azcosmos.NewPartitionKeyString("a")
		if _, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"r","pk":"a"}`), nil); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 50)
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rr, err := e.cc.ReadItem(bg, pk, "r", nil)
				if err == nil && rr.RawResponse.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", rr.RawResponse.StatusCode)
				}
				if err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("response bodies and headers", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "prefer")
		pk := azcosmos.NewPartitionKeyString("a")
		minimal := func(op string, r azcosmos.ItemResponse, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			if len(r.Value) != 0 {
				t.Errorf("%s: body with Prefer: return=minimal: %s", op, r.Value)
			}
			if r.ETag == "" || r.SessionToken == nil || *r.SessionToken == "" || r.RequestCharge <= 0 || r.ActivityID == "" {
				t.Errorf("%s: etag %q session %v charge %v activity %q", op, r.ETag, r.SessionToken, r.RequestCharge, r.ActivityID)
			}
			wantCommonHeaders(t, r.RawResponse.Header)
		}
		full := func(op string, r azcosmos.ItemResponse, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			m := object(t, r.Value)
			if m["id"] == nil || m["_etag"] != string(r.ETag) {
				t.Errorf("%s: body %s (etag %s)", op, r.Value, r.ETag)
			}
			if r.SessionToken == nil || r.RequestCharge <= 0 {
				t.Errorf("%s: session %v charge %v", op, r.SessionToken, r.RequestCharge)
			}
			wantCommonHeaders(t, r.RawResponse.Header)
		}
		r, err := e.cc.CreateItem(bg, pk, []byte(`{"id":"p","pk":"a","n":1}`), nil)
		minimal("create", r, err)
		r, err = e.cc.CreateItem(bg, pk, []byte(`{"id":"q","pk":"a","n":1}`), contentOn)
		full("create", r, err)
		r, err = e.cc.UpsertItem(bg, pk, []byte(`{"id":"p","pk":"a","n":2}`), nil)
		minimal("upsert", r, err)
		r, err = e.cc.UpsertItem(bg, pk, []byte(`{"id":"p","pk":"a","n":3}`), contentOn)
		full("upsert", r, err)
		r, err = e.cc.ReplaceItem(bg, pk, "p", []byte(`{"id":"p","pk":"a","n":4}`), nil)
		minimal("replace", r, err)
		r, err = e.cc.ReplaceItem(bg, pk, "p", []byte(`{"id":"p","pk":"a","n":5}`), contentOn)
		full("replace", r, err)
		var ops azcosmos.PatchOperations
		ops.AppendIncrement("/n", 1)
		r, err = e.cc.PatchItem(bg, pk, "p", ops, nil)
		minimal("patch", r, err)
		r, err = e.cc.PatchItem(bg, pk, "p", ops, contentOn)
		full("patch", r, err)
		if object(t, r.Value)["n"] != json.Number("7") {
			t.Errorf("patched n = %s", r.Value)
		}
		r, err = e.cc.ReadItem(bg, pk, "p", nil)
		full("read", r, err)
		r, err = e.cc.DeleteItem(bg, pk, "q", nil)
		if err != nil || len(r.Value) != 0 || r.RawResponse.StatusCode != http.StatusNoContent || r.RequestCharge <= 0 {
			t.Errorf("delete: %v %q", err, r.Value)
		}

		// raw: the activity id is echoed, errors carry the headers too
		resp := e.raw.do(http.MethodGet, e.doc("p"), nil, pkHeader, `["a"]`, "x-ms-activity-id", "6f0c9d2c-0000-4000-8000-000000000001")
		wantStatus(t, resp, http.StatusOK)
		wantCommonHeaders(t, resp.Header)
		if resp.Header.Get("x-ms-activity-id") != "6f0c9d2c-0000-4000-8000-000000000001" {
			t.Errorf("activity id not echoed: %q", resp.Header.Get("x-ms-activity-id"))
		}
		if resp.Header.Get("etag") != object(t, resp.Body)["_etag"] {
			t.Errorf("etag header differs from _etag")
		}
		resp = e.raw.do(http.MethodGet, e.doc("none"), nil, pkHeader, `["a"]`)
		wantError(t, resp, http.StatusNotFound, "NotFound")
		if resp.Header.Get("x-ms-activity-id") == "" || resp.Header.Get("x-ms-request-charge") == "" {
			t.Errorf("error response lacks activity id or charge: %v", resp.Header)
		}
		// raw writes without Prefer return the document
		resp = e.raw.do(http.MethodPost, e.docs(), []byte(`{"id":"w","pk":"a"}`), pkHeader, `["a"]`)
		wantStatus(t, resp, http.StatusCreated)
		if object(t, resp.Body)["id"] != "w" {
			t.Errorf("create without Prefer: %s", resp.Body)
		}
		resp = e.raw.do(http.MethodPost, e.docs(), []byte(`{"id":"w2","pk":"a"}`), pkHeader, `["a"]`, "Prefer", "return=minimal")
		wantStatus(t, resp, http.StatusCreated)
		if len(resp.Body) != 0 || resp.Header.Get("etag") == "" || resp.Header.Get("x-ms-session-token") == "" {
			t.Errorf("minimal create: %q %v", resp.Body, resp.Header)
		}
	})
}
