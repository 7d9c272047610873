package compat_test

import (
	"net/http"
	"testing"
)

// TestResourceTokensOnScripts: resource tokens meet server-side scripts
// (users-permissions.md §3, server-side-js.md §1.1). A container token
// covers its scripts (Read: read and list them; All: also create and
// execute, since executing is a POST that may write), a partition-scoped
// All token executes only in its partition, and a token on one stored
// procedure reads and executes that procedure and nothing else of the
// container.
func TestResourceTokensOnScripts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	raw := f.raw
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"tdb"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/tdb/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	sprocs := scriptsPath("tdb", "c", "sprocs")
	body := `function (id) { var c = getContext().getCollection(); var pk = id === "x1" ? "x" : "y";` +
		` if (!c.createDocument(c.getSelfLink(), {id: id, pk: pk}, function (err) { if (err) throw err; })) throw new Error("not accepted"); getContext().getResponse().setBody(id); }`
	wantStatus(t, raw.do(http.MethodPost, sprocs, []byte(`{"id":"mk","body":`+string(mustJSON(t, body))+`}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/tdb/users", []byte(`{"id":"u"}`)), http.StatusCreated)
	tokens := map[string]string{}
	for _, p := range []struct{ id, body string }{
		{"collRead", `"permissionMode":"Read","resource":"dbs/tdb/colls/c"`},
		{"collAll", `"permissionMode":"All","resource":"dbs/tdb/colls/c","resourcePartitionKey":["q"]`},
		{"pkAllX", `"permissionMode":"All","resource":"dbs/tdb/colls/c","resourcePartitionKey":["x"]`},
		{"sprocAll", `"permissionMode":"All","resource":"dbs/tdb/colls/c/sprocs/mk"`},
	} {
		r := raw.do(http.MethodPost, "/dbs/tdb/users/u/permissions", []byte(`{"id":"`+p.id+`",`+p.body+`}`))
		wantStatus(t, r, http.StatusCreated)
		tokens[p.id] = str(t, object(t, r.Body), "_token")
	}
	// collAll is partition-scoped to a partition nothing uses, so that
	// the four permissions differ in resource or key (one per resource
	// and key per user); a container-wide All token is the master-key
	// case already covered by every other script test.
	newSproc := []byte(`{"id":"n","body":"function () {}"}`)
	cases := []struct {
		token, name  string
		method, path string
		body         []byte
		hdr          []string
		want         int
	}{
		{"collRead", "read sproc", http.MethodGet, sprocs + "/mk", nil, nil, 200},
		{"collRead", "list sprocs", http.MethodGet, sprocs, nil, nil, 200},
		{"collRead", "execute", http.MethodPost, sprocs + "/mk", []byte(`["x1"]`), []string{pkHeader, `["x"]`}, 403},
		{"collRead", "create sproc", http.MethodPost, sprocs, newSproc, nil, 403},
		{"collRead", "delete sproc", http.MethodDelete, sprocs + "/mk", nil, nil, 403},
		{"pkAllX", "execute in its partition", http.MethodPost, sprocs + "/mk", []byte(`["x1"]`), []string{pkHeader, `["x"]`}, 200},
		{"pkAllX", "execute in another partition", http.MethodPost, sprocs + "/mk", []byte(`["y1"]`), []string{pkHeader, `["y"]`}, 403},
		{"collAll", "execute outside its partition", http.MethodPost, sprocs + "/mk", []byte(`["y2"]`), []string{pkHeader, `["y"]`}, 403},
		{"sprocAll", "read its sproc", http.MethodGet, sprocs + "/mk", nil, nil, 200},
		{"sprocAll", "execute its sproc", http.MethodPost, sprocs + "/mk", []byte(`["y3"]`), []string{pkHeader, `["y"]`}, 200},
		{"sprocAll", "list sprocs", http.MethodGet, sprocs, nil, nil, 403},
		{"sprocAll", "read feed", http.MethodGet, docsPath("tdb", "c"), nil, nil, 403},
		{"sprocAll", "create sproc", http.MethodPost, sprocs, newSproc, nil, 403},
	}
	for _, c := range cases {
		r := raw.withToken(c.method, c.path, c.body, tokens[c.token], c.hdr...)
		if r.Status != c.want {
			t.Errorf("%s: %s %s: status %d, want %d (%s)", c.token, c.name, c.path, r.Status, c.want, r.Body)
		}
	}
	// Only the executions that were allowed wrote.
	for id, want := range map[string]int{"x1": 200, "y1": 404, "y2": 404, "y3": 200} {
		pk := `["y"]`
		if id == "x1" {
			pk = `["x"]`
		}
		if r := raw.do(http.MethodGet, docPath("tdb", "c", id), nil, pkHeader, pk); r.Status != want {
			t.Errorf("document %s: status %d, want %d", id, r.Status, want)
		}
	}
}
