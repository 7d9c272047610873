package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// createSproc creates a stored procedure in sdb/c over raw REST.
func createSproc(t *testing.T, raw *rawClient, id, body string) string {
	t.Helper()
	wantStatus(t, raw.do(http.MethodPost, scriptsPath("sdb", "c", "sprocs"), []byte(`{"id":`+string(mustJSON(t, id))+`,"body":`+string(mustJSON(t, body))+`}`)), http.StatusCreated)
	return scriptsPath("sdb", "c", "sprocs") + "/" + id
}

// countDocs counts the documents of sdb/c.
func countDocs(t *testing.T, raw *rawClient) int {
	t.Helper()
	r := raw.do(http.MethodGet, docsPath("sdb", "c"), nil)
	wantStatus(t, r, http.StatusOK)
	var env struct {
		Count int `json:"_count"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatal(err)
	}
	return env.Count
}

// TestSprocParameterBodies pins §2.1's table: the body may be absent,
// null, a JSON array or an (array-like) object, applied like
// Function.prototype.apply; anything else is 400.
func TestSprocParameterBodies(t *testing.T) {
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	path := createSproc(t, f.raw, "args", `function () { var a = []; for (var i = 0; i < arguments.length; i++) a.push(arguments[i] === undefined ? "undefined" : arguments[i]); getContext().getResponse().setBody(a); }`)
	cases := []struct {
		body   string // "-" sends none
		status int
		want   string
	}{
		{"-", 200, `[]`},
		{`["one"]`, 200, `["one"]`},
		{`[null]`, 200, `[null]`},
		{`["one","two","three"]`, 200, `["one","two","three"]`},
		{`null`, 200, `[]`},
		{`{}`, 200, `[]`},
		{`{"param1":4}`, 200, `[]`},
		{`{"0":4}`, 200, `[]`},
		{`{"0":"one","1":"two","length":2}`, 200, `["one","two"]`},
		{`{"0":"one","length":"1"}`, 200, `["one"]`},
		{`{"0":"one","1":"two","length":1.5}`, 200, `["one"]`},
		{`{"1":"b","0":"a","length":2}`, 200, `["a","b"]`},
		{`{"0":"x","length":600000000}`, 400, ""},
		{`""`, 400, ""},
		{`"hello"`, 400, ""},
		{`0`, 400, ""},
		{`-1.25`, 400, ""},
		{`false`, 400, ""},
		{`undefined`, 400, ""},
		{`[x:4]`, 400, ""},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			raw := f.rawFor(t)
			var body []byte
			if c.body != "-" {
				body = []byte(c.body)
			}
			r := raw.do(http.MethodPost, path, body, pkHeader, `["p"]`)
			if c.status != 200 {
				wantError(t, r, c.status, "BadRequest")
				return
			}
			wantStatus(t, r, 200)
			if string(r.Body) != c.want {
				t.Fatalf("body %s, want %s", r.Body, c.want)
			}
		})
	}
	// a partitioned container needs the partition key header
	msg := wantError(t, f.raw.do(http.MethodPost, path, []byte(`[]`)), http.StatusBadRequest, "BadRequest")
	if !strings.Contains(msg, "fewer components") {
		t.Fatalf("message %q", msg)
	}
	// a missing procedure is 404
	wantError(t, f.raw.do(http.MethodPost, scriptsPath("sdb", "c", "sprocs")+"/nope", []byte(`[]`), pkHeader, `["p"]`), http.StatusNotFound, "NotFound")
}

// TestSprocFailuresRollBack: scripts that fail — a syntax error, a throw,
// an infinite loop, unbounded allocation, deep recursion — answer the
// service's status with a clear message, write nothing (the documents
// they created before failing are rolled back), and leave the emulator
// serving other requests.
func TestSprocFailuresRollBack(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithScriptLimits(time.Second, 64<<20))
	raw := newRaw(t, e)
	mustContainer(t, mustDB(t, e.Client(t), "sdb"), "c", "/pk")
	const createFirst = `__.createDocument(__.getSelfLink(), {id: "written", pk: "p"}, function (err) { if (err) throw err; `
	cases := []struct {
		name, body string
		status     int
		code       string
		sub        int
		contains   string
	}{
		{"syntax error", `function () { var = ; }`, 400, "BadRequest", 0, `Encountered exception while executing function. Exception = SyntaxError: `},
		{"not a function", `serverScript() { var x = 10; }`, 400, "BadRequest", 0, `Exception = SyntaxError: `},
		{"throw Error", `function () { ` + createFirst + ` throw new Error("boom"); }); }`, 400, "BadRequest", 0, `Message: {"Errors":["Encountered exception while executing function. Exception = Error: boom`},
		{"throw Error with number", `function () { ` + createFirst + ` throw new Error(409, "taken"); }); }`, 400, "BadRequest", 409, `Exception = Error: taken`},
		{"throw string", `function () { ` + createFirst + ` throw '{"code":700}'; }); }`, 400, "BadRequest", 0, `Message: {"Errors":["{\"code\":700}"]}`},
		{"rethrown conflict", `function () { ` + createFirst + ` __.createDocument(__.getSelfLink(), {id: "written", pk: "p"}, function (err) { throw err; }); }); }`, 400, "BadRequest", 409, `Exception = Error: {\"Errors\":[\"Resource with specified id or name already exists.\"]}`},
		{"infinite loop", `function () { ` + createFirst + ` while (true) {} }); }`, 408, "RequestTimeout", 0, "did not complete within the allotted execution time"},
		{"unbounded allocation", `function () { ` + createFirst + ` var a = [], s = "x".repeat(1 << 16); while (true) a.push(s + a.length); }); }`, 400, "BadRequest", 0, "memory limit"},
		{"deep recursion", `function () { ` + createFirst + ` (function r(n) { return r(n + 1) + 1; })(0); }); }`, 400, "BadRequest", 0, "Maximum call stack size exceeded"},
		{"huge string in one step", `function () { ` + createFirst + ` "x".repeat(1e9); }); }`, 400, "BadRequest", 0, "Script resource limit exceeded"},
		{"abort", `function () { ` + createFirst + ` getContext().abort(new Error(429, "enough")); }); }`, 400, "BadRequest", 429, "Exception = Error: enough"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := &rawClient{t: t, endpoint: raw.endpoint, hc: raw.hc}
			path := createSproc(t, raw, "s"+string(rune('a'+i)), c.body)
			r := raw.do(http.MethodPost, path, []byte(`[]`), pkHeader, `["p"]`)
			msg := wantError(t, r, c.status, c.code)
			wantSubStatus(t, r, c.sub)
			if !strings.Contains(msg, c.contains) {
				t.Fatalf("message %q lacks %q", msg, c.contains)
			}
			if n := countDocs(t, raw); n != 0 {
				t.Fatalf("%d documents persisted after the failure", n)
			}
			// the emulator still serves
			ok := createSproc(t, raw, "ok"+string(rune('a'+i)), `function () { getContext().getResponse().setBody(1); }`)
			if r := raw.do(http.MethodPost, ok, nil, pkHeader, `["p"]`); r.Status != 200 || string(r.Body) != "1" {
				t.Fatalf("after the failure: %d %s", r.Status, r.Body)
			}
		})
	}
}

// TestSprocWritesAreOrdinaryWrites: what a procedure writes gets TTL,
// _lsn and appears in the change feed like any other write, all of one
// execution sharing one LSN.
func TestSprocWritesAreOrdinaryWrites(t *testing.T) {
	f := newFixture(t)
	db := mustDB(t, f.c, "sdb")
	mustContainer(t, db, "c", "/pk")
	path := createSproc(t, f.raw, "two", `function () {
		__.createDocument(__.getSelfLink(), {id: "a", pk: "p", ttl: 100}, function (err, a) {
			if (err) throw err;
			__.upsertDocument(__.getAltLink(), {id: "b", pk: "p"}, function (err, b) {
				if (err) throw err;
				getContext().getResponse().setBody([a.id, b.id, typeof a._ts, a._self.indexOf(__.getSelfLink()) === 0]);
			});
		});
	}`)
	r := f.raw.do(http.MethodPost, path, []byte(`[]`), pkHeader, `["p"]`)
	wantStatus(t, r, 200)
	if string(r.Body) != `["a","b","number",true]` {
		t.Fatalf("body %s", r.Body)
	}
	session := r.Header.Get("x-ms-session-token")
	ra := f.raw.do(http.MethodGet, docPath("sdb", "c", "a"), nil, pkHeader, `["p"]`)
	rb := f.raw.do(http.MethodGet, docPath("sdb", "c", "b"), nil, pkHeader, `["p"]`)
	wantStatus(t, ra, 200)
	wantStatus(t, rb, 200)
	if ra.Header.Get("lsn") != rb.Header.Get("lsn") || "0:-1#"+ra.Header.Get("lsn") != session {
		t.Fatalf("lsn a %s, b %s, session %s: one execution, one LSN", ra.Header.Get("lsn"), rb.Header.Get("lsn"), session)
	}
	if !strings.Contains(string(ra.Body), `"ttl":100,`) {
		t.Fatalf("a %s", ra.Body)
	}
	// the change feed sees both writes
	cf := f.raw.do(http.MethodGet, docsPath("sdb", "c"), nil, "A-IM", "Incremental feed", pkHeader, `["p"]`)
	wantStatus(t, cf, 200)
	if !strings.Contains(string(cf.Body), `"id":"a"`) || !strings.Contains(string(cf.Body), `"id":"b"`) {
		t.Fatalf("change feed %s", cf.Body)
	}
}

// TestSprocQueriesAfterWrites: a procedure that writes and then queries a
// path no query used before completes (the path index a query would
// create waits for the procedure's own transaction, so scripts do not
// create one), and a procedure is executed by its _self link as well.
func TestSprocQueriesAfterWrites(t *testing.T) {
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	path := createSproc(t, f.raw, "writeThenQuery", `function () {
		__.createDocument(__.getSelfLink(), {id: "w", pk: "p", fresh: 7}, function (err) {
			if (err) throw err;
			__.queryDocuments(__.getSelfLink(), "SELECT VALUE r.id FROM root r WHERE r.fresh = 7", function (err, ids) {
				if (err) throw err;
				getContext().getResponse().setBody(ids);
			});
		});
	}`)
	r := f.raw.do(http.MethodGet, path, nil)
	wantStatus(t, r, http.StatusOK)
	self := strings.TrimSuffix(object(t, r.Body)["_self"].(string), "/")
	r = f.raw.do(http.MethodPost, "/"+self, []byte(`[]`), pkHeader, `["p"]`)
	wantStatus(t, r, http.StatusOK)
	if string(r.Body) != `["w"]` {
		t.Fatalf("body %s", r.Body)
	}
}

// TestSprocJSQueryAPI: the __ shortcut's query functions (§5.6): the docs'
// insertDocumentAndUpdateMetadata (filter with a callback, the metadata
// document behind more than a page of others), filter without a callback
// (the results appended to the response body), chain with sortBy, pluck
// and flatten, and pluck's argument check.
func TestSprocJSQueryAPI(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cc := mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	pk := azcosmos.NewPartitionKeyString("p")
	for i := 0; i < 150; i++ {
		if _, err := cc.CreateItem(ctx, pk, []byte(fmt.Sprintf(`{"id":"d%03d","pk":"p","size":1,"Tags":["t%d",["n%d"]]}`, i, i%3, i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"meta","pk":"p","isMetadata":true,"minSize":0,"maxSize":0,"totalSize":0}`), nil); err != nil {
		t.Fatal(err)
	}
	insert := createSproc(t, f.raw, "insertDocumentAndUpdateMetadata", `function insertDocumentAndUpdateMetadata(doc) {
  var isAccepted = __.createDocument(__.getSelfLink(), doc, {}, function(err, doc, options) {
    if (err) throw err;
    if (!doc.isMetadata && doc.size > 0) {
      var result = __.filter(function(x) {
        return x.isMetadata === true
      }, function(err, feed, options) {
        if (err) throw err;
        if (!feed || !feed.length) throw new Error("Failed to find the metadata document.");
        var metaDoc = feed[0];
        if (metaDoc.minSize == 0) metaDoc.minSize = doc.size;
        else metaDoc.minSize = Math.min(metaDoc.minSize, doc.size);
        metaDoc.maxSize = Math.max(metaDoc.maxSize, doc.size);
        metaDoc.totalSize += doc.size;
        var isAccepted = __.replaceDocument(metaDoc._self, metaDoc, function(err) {
          if (err) throw err;
        });
        if (!isAccepted) throw new Error("replaceDocument(metaDoc) returned false.");
      });
      if (!result.isAccepted) throw new Error("filter for metaDoc returned false.");
    }
  });
  if (!isAccepted) throw new Error("createDocument(actual doc) returned false.");
}`)
	for _, size := range []int{5, 3, 9} {
		wantStatus(t, f.raw.do(http.MethodPost, insert, []byte(fmt.Sprintf(`[{"id":"s%d","pk":"p","size":%d}]`, size, size)), pkHeader, `["p"]`), 200)
	}
	r, err := cc.ReadItem(ctx, pk, "meta", nil)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ MinSize, MaxSize, TotalSize int }
	_ = json.Unmarshal(r.Value, &meta)
	if meta.MinSize != 3 || meta.MaxSize != 9 || meta.TotalSize != 17 {
		t.Fatalf("metadata %s", r.Value)
	}

	cases := []struct{ name, body, want string }{
		{"filter without callback", `function () { __.filter(function (d) { return d.id === "d042"; }); }`, `"[{\"id\":\"d042\"`},
		{"chain", `function () { __.chain().filter(function (d) { return d.id < "d003"; }).sortBy(function (d) { return -d.Tags[0].length; }).pluck("Tags").flatten().value({pageSize: 1000}, function (err, feed) { if (err) throw err; getContext().getResponse().setBody(feed); }); }`, `["t0","n0","t1","n1","t2","n2"]`},
		{"map", `function () { __.map(function (d) { return d.size; }, {pageSize: 3}, function (err, feed, o) { getContext().getResponse().setBody([feed, typeof o.continuation]); }); }`, `[[1,1,1],"string"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := f.rawFor(t)
			path := createSproc(t, raw, strings.ReplaceAll(c.name, " ", "-"), c.body)
			r := raw.do(http.MethodPost, path, nil, pkHeader, `["p"]`)
			wantStatus(t, r, 200)
			if !strings.HasPrefix(string(r.Body), c.want) {
				t.Fatalf("body %.300s, want prefix %s", r.Body, c.want)
			}
		})
	}
	path := createSproc(t, f.raw, "pluckEmpty", `function () { __.pluck(""); }`)
	msg := wantError(t, f.raw.do(http.MethodPost, path, nil, pkHeader, `["p"]`), 400, "BadRequest")
	if !strings.Contains(msg, "The property name must be a string and cannot be empty.") {
		t.Fatalf("message %q", msg)
	}
}
