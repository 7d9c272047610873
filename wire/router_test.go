package wire

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

// TestRouterOrder: every request reaches the handler of its path shape and
// method whatever the order of the routes (the hot ones are registered
// first; router says why), and a known path with another method is a
// method mismatch, not a 404.
func TestRouterOrder(t *testing.T) {
	h := &handler{}
	r, err := h.router(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path, want string
	}{
		{"GET", "/_emulator/health", "health"},
		{"GET", "/", "getAccount"},
		{"GET", "/dbs", "queryDatabases"},
		{"GET", "/dbs/d", "getDatabase"},
		{"DELETE", "/dbs/d", "deleteDatabase"},
		{"GET", "/dbs/d/colls/c", "getContainer"},
		{"GET", "/dbs/d/colls/c/docs", "readFeed"},
		{"POST", "/dbs/d/colls/c/docs", "postDocs"},
		{"GET", "/dbs/d/colls/c/docs/x", "readItem"},
		{"PUT", "/dbs/d/colls/c/docs/x", "replaceItem"},
		{"PATCH", "/dbs/d/colls/c/docs/x", "patchItem"},
		{"DELETE", "/dbs/d/colls/c/docs/x", "deleteItem"},
		{"GET", "/dbs/docs/colls/docs/docs/docs", "readItem"},
		{"GET", "/dbs/d/colls/c/pkranges", "partitionKeyRanges"},
		{"POST", "/dbs/d/colls/c/sprocs/s", "postScript"},
		{"GET", "/dbs/d/users/u/permissions/p", "getPermission"},
		{"GET", "/offers/o", "getOffer"},
		// the control plane (control.go, faults_http.go) and the explorer's
		// mount (explorer.go), registered by their own files
		{"GET", "/_emulator/clock", "getClock"},
		{"POST", "/_emulator/reset", "reset"},
		{"GET", "/_emulator/stats", "stats"},
		{"POST", "/_emulator/dbs/d/colls/c/pkranges/0/split", "splitRange"},
		{"PUT", "/_emulator/faults/f", "putFault"},
		{"GET", "/_explorer/emulator.pem", "certificate"},
		{"GET", "/_explorer/index.html", "explorerDisabled"},
	} {
		var m mux.RouteMatch
		req := httptest.NewRequest(c.method, c.path, nil)
		if !r.Match(req, &m) || m.MatchErr != nil {
			t.Errorf("%s %s: no match (%v)", c.method, c.path, m.MatchErr)
			continue
		}
		name := runtime.FuncForPC(reflect.ValueOf(m.Handler).Pointer()).Name()
		if !strings.Contains(name, "."+c.want+"-") && !strings.HasSuffix(name, "."+c.want) {
			t.Errorf("%s %s: handled by %s, want %s", c.method, c.path, name, c.want)
		}
	}
	var m mux.RouteMatch
	if r.Match(httptest.NewRequest(http.MethodPost, "/dbs/d/colls/c/docs/x", nil), &m); m.MatchErr != mux.ErrMethodMismatch {
		t.Errorf("POST to an item: %v, want a method mismatch", m.MatchErr)
	}
}

// BenchmarkRouteItem measures routing one request (gorilla/mux tries the
// routes in order, a regular expression each).
//
//	go test -run '^$' -bench BenchmarkRouteItem ./wire/
func BenchmarkRouteItem(b *testing.B) {
	h := &handler{}
	r, err := h.router(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, method, path string }{
		{"read", http.MethodGet, "/dbs/db/colls/items/docs/item-42"},
		{"create", http.MethodPost, "/dbs/db/colls/items/docs"},
		{"health", http.MethodGet, "/_emulator/health"},
		{"database", http.MethodGet, "/dbs/db"},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var m mux.RouteMatch
				if !r.Match(req, &m) {
					b.Fatal("no match")
				}
			}
		})
	}
}
