package compat_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// scriptsPath returns the escaped path of a container's scripts feed.
func scriptsPath(db, coll, kind string) string {
	return "/dbs/" + db + "/colls/" + coll + "/" + kind
}

// TestScriptResourcesCRUD drives the three script resources over raw
// signed REST (the Go SDK has no script API): create (201, 409 on a
// duplicate id), read, read feed (paged, envelope key per kind), query
// with parameters, replace (200, new etag, If-Match), delete (204, then
// 404), with _rid (16 bytes, the kind's nibble), _self, _etag and _ts; the
// body stored verbatim and not compiled.
func TestScriptResourcesCRUD(t *testing.T) {
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	kinds := []struct {
		kind, envelope string
		nibble         byte
		extra          string
	}{
		{"sprocs", "StoredProcedures", 0x80, ""},
		{"triggers", "Triggers", 0x70, `,"triggerType":"pre","triggerOperation":"create"`},
		{"udfs", "UserDefinedFunctions", 0x60, ""},
	}
	selfRE := regexp.MustCompile(`^dbs/(.*)/colls/(.*)/(sprocs|triggers|udfs)/(.*)/$`)
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			raw := f.rawFor(t)
			feed := scriptsPath("sdb", "c", k.kind)
			body := `serverScript() { var x = 10; }` // not JavaScript: not compiled at create
			r := raw.do(http.MethodPost, feed, []byte(`{"id":"s1","body":`+string(mustJSON(t, body))+k.extra+`}`))
			wantStatus(t, r, http.StatusCreated)
			res := object(t, r.Body)
			if res["body"] != body || res["id"] != "s1" {
				t.Fatalf("created %s", r.Body)
			}
			rid, _ := res["_rid"].(string)
			b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rid, "-", "/"))
			if err != nil || len(b) != 16 || b[15]&0xf0 != k.nibble {
				t.Fatalf("_rid %q decodes to % x", rid, b)
			}
			if self, _ := res["_self"].(string); !selfRE.MatchString(self) || !strings.Contains(self, "/"+k.kind+"/"+rid+"/") {
				t.Fatalf("_self %q", res["_self"])
			}
			if !isJSONInteger(res["_ts"]) || res["_etag"] == "" || r.Header.Get("etag") != res["_etag"] {
				t.Fatalf("system properties %s, etag header %q", r.Body, r.Header.Get("etag"))
			}
			if k.kind == "triggers" && (res["triggerType"] != "Pre" || res["triggerOperation"] != "Create") {
				t.Fatalf("trigger fields not canonical: %s", r.Body)
			}
			etag1 := res["_etag"].(string)

			wantError(t, raw.do(http.MethodPost, feed, []byte(`{"id":"s1","body":"function () {}"`+k.extra+`}`)), http.StatusConflict, "Conflict")
			wantStatus(t, raw.do(http.MethodPost, feed, []byte(`{"id":"s2","body":"function () {}"`+k.extra+`}`)), http.StatusCreated)

			one := feed + "/s1"
			r = raw.do(http.MethodGet, one, nil)
			wantStatus(t, r, http.StatusOK)
			if object(t, r.Body)["_rid"] != rid {
				t.Fatalf("read %s", r.Body)
			}
			wantStatus(t, raw.do(http.MethodGet, one, nil, "If-None-Match", etag1), http.StatusNotModified)

			// RID-based addressing (the _self link)
			m := selfRE.FindStringSubmatch(res["_self"].(string))
			r = raw.do(http.MethodGet, "/dbs/"+m[1]+"/colls/"+m[2]+"/"+k.kind+"/"+m[4], nil)
			wantStatus(t, r, http.StatusOK)
			if object(t, r.Body)["id"] != "s1" {
				t.Fatalf("read by RID %s", r.Body)
			}

			// read feed, paged
			r = raw.do(http.MethodGet, feed, nil, "x-ms-max-item-count", "1")
			wantStatus(t, r, http.StatusOK)
			var env map[string]json.RawMessage
			if err := json.Unmarshal(r.Body, &env); err != nil {
				t.Fatal(err)
			}
			var page []map[string]any
			_ = json.Unmarshal(env[k.envelope], &page)
			cont := r.Header.Get("x-ms-continuation")
			if len(page) != 1 || page[0]["id"] != "s1" || cont == "" {
				t.Fatalf("first page %s (continuation %q)", r.Body, cont)
			}
			r = raw.do(http.MethodGet, feed, nil, "x-ms-max-item-count", "1", "x-ms-continuation", cont)
			_ = json.Unmarshal(r.Body, &env)
			_ = json.Unmarshal(env[k.envelope], &page)
			if len(page) != 1 || page[0]["id"] != "s2" {
				t.Fatalf("second page %s", r.Body)
			}

			// query
			q := `{"query":"SELECT * FROM root r WHERE r.id = @id","parameters":[{"name":"@id","value":"s2"}]}`
			r = raw.do(http.MethodPost, feed, []byte(q), "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True")
			wantStatus(t, r, http.StatusOK)
			_ = json.Unmarshal(r.Body, &env)
			_ = json.Unmarshal(env[k.envelope], &page)
			if len(page) != 1 || page[0]["id"] != "s2" {
				t.Fatalf("query %s", r.Body)
			}

			// replace
			newBody := `function () { return 2; }`
			rep := []byte(`{"id":"s1","body":` + string(mustJSON(t, newBody)) + k.extra + `}`)
			r = raw.do(http.MethodPut, one, rep, "If-Match", etag1)
			wantStatus(t, r, http.StatusOK)
			if res := object(t, r.Body); res["body"] != newBody || res["_etag"] == etag1 || res["_rid"] != rid {
				t.Fatalf("replaced %s", r.Body)
			}
			wantError(t, raw.do(http.MethodPut, one, rep, "If-Match", etag1), http.StatusPreconditionFailed, "PreconditionFailed")
			wantError(t, raw.do(http.MethodPut, feed+"/nope", []byte(`{"id":"nope","body":"x"`+k.extra+`}`)), http.StatusNotFound, "NotFound")
			wantError(t, raw.do(http.MethodPut, one, []byte(`{"id":"other","body":"x"`+k.extra+`}`)), http.StatusBadRequest, "BadRequest")

			// delete
			wantError(t, raw.do(http.MethodDelete, one, nil, "If-Match", etag1), http.StatusPreconditionFailed, "PreconditionFailed")
			wantStatus(t, raw.do(http.MethodDelete, one, nil), http.StatusNoContent)
			wantError(t, raw.do(http.MethodDelete, one, nil), http.StatusNotFound, "NotFound")
			wantError(t, raw.do(http.MethodGet, one, nil), http.StatusNotFound, "NotFound")
		})
	}
}

// TestScriptResourcesBadInput: bodies the service refuses are 400 and
// create nothing.
func TestScriptResourcesBadInput(t *testing.T) {
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	cases := []struct {
		name, kind, body string
	}{
		{"not JSON", "sprocs", `{"id":`},
		{"no id", "sprocs", `{"body":"function () {}"}`},
		{"bad id", "udfs", `{"id":"a/b","body":"function () {}"}`},
		{"no body", "sprocs", `{"id":"x"}`},
		{"body not a string", "udfs", `{"id":"x","body":1}`},
		{"no trigger type", "triggers", `{"id":"x","body":"","triggerOperation":"All"}`},
		{"bad trigger type", "triggers", `{"id":"x","body":"","triggerType":"During","triggerOperation":"All"}`},
		{"Insert is not an operation", "triggers", `{"id":"x","body":"","triggerType":"Pre","triggerOperation":"Insert"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := f.rawFor(t)
			wantError(t, raw.do(http.MethodPost, scriptsPath("sdb", "c", c.kind), []byte(c.body)), http.StatusBadRequest, "BadRequest")
			r := raw.do(http.MethodGet, scriptsPath("sdb", "c", c.kind), nil)
			if !strings.Contains(string(r.Body), `"_count":0`) {
				t.Fatalf("something was created: %s", r.Body)
			}
		})
	}
	// a trigger or UDF cannot be executed
	wantStatus(t, f.raw.do(http.MethodPost, scriptsPath("sdb", "c", "udfs"), []byte(`{"id":"u","body":"function () {}"}`)), http.StatusCreated)
	wantError(t, f.raw.do(http.MethodPost, scriptsPath("sdb", "c", "udfs")+"/u", []byte(`[]`)), http.StatusMethodNotAllowed, "MethodNotAllowed")
	// a wrong resource type in the signature is refused
	r := f.raw.req(http.MethodGet, scriptsPath("sdb", "c", "sprocs"), nil)
	r.Header.Set("Authorization", masterAuthAs(masterKey(t), http.MethodGet, "docs", "dbs/sdb/colls/c", r.Header.Get("x-ms-date")))
	wantError(t, f.raw.send(r), http.StatusUnauthorized, "Unauthorized")
}

// masterAuthAs signs a request for an explicit resource type and link.
func masterAuthAs(key []byte, verb, typ, link, date string) string {
	return url.QueryEscape("type=master&ver=1.0&sig=" + signature(key, verb, typ, link, date))
}

// TestScriptsDroppedWithContainer: a container's scripts go with it (and
// with its database): a container re-created with the same id has none.
func TestScriptsDroppedWithContainer(t *testing.T) {
	f := newFixture(t)
	db := mustDB(t, f.c, "sdb")
	mustContainer(t, db, "c", "/pk")
	for _, kind := range []string{"sprocs", "udfs"} {
		wantStatus(t, f.raw.do(http.MethodPost, scriptsPath("sdb", "c", kind), []byte(`{"id":"s","body":"function () {}"}`)), http.StatusCreated)
	}
	wantStatus(t, f.raw.do(http.MethodDelete, "/dbs/sdb/colls/c", nil), http.StatusNoContent)
	wantError(t, f.raw.do(http.MethodGet, scriptsPath("sdb", "c", "sprocs")+"/s", nil), http.StatusNotFound, "NotFound")
	mustContainer(t, db, "c", "/pk")
	for _, kind := range []string{"sprocs", "udfs"} {
		r := f.raw.do(http.MethodGet, scriptsPath("sdb", "c", kind), nil)
		if !strings.Contains(string(r.Body), `"_count":0`) {
			t.Fatalf("%s survived the container: %s", kind, r.Body)
		}
	}
	wantStatus(t, f.raw.do(http.MethodPost, scriptsPath("sdb", "c", "sprocs"), []byte(`{"id":"s","body":"function () {}"}`)), http.StatusCreated)
	wantStatus(t, f.raw.do(http.MethodDelete, "/dbs/sdb", nil), http.StatusNoContent)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	if r := f.raw.do(http.MethodGet, scriptsPath("sdb", "c", "sprocs"), nil); !strings.Contains(string(r.Body), `"_count":0`) {
		t.Fatalf("sproc survived the database: %s", r.Body)
	}
}
