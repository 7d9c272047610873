package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/textproto"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSetDefaultHeaders: setDefaultHeaders leaves the same headers as
// setting each with Header.Set, and a handler that later adds to, sets or
// deletes one of them changes that header only (the values share one
// backing array).
func TestSetDefaultHeaders(t *testing.T) {
	want := http.Header{}
	want.Set("x-ms-activity-id", "act")
	want.Set("Content-Type", "application/json")
	want.Set("x-ms-gatewayversion", "version=2.14.0")
	want.Set("x-ms-serviceversion", "version=2.14.0.0")
	want.Set("x-ms-schemaversion", "1.21")
	want.Set("x-ms-session-token", "0:-1#1")
	want.Set("x-ms-request-charge", "1")
	want.Set("Cache-Control", "no-store, no-cache")
	want.Set("Server", "cosmos-emulator")
	got := http.Header{}
	setDefaultHeaders(got, "act")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("headers\n%v\nwant\n%v", got, want)
	}
	for _, edit := range []func(h http.Header){
		func(h http.Header) { h.Add("x-ms-activity-id", "second") },
		func(h http.Header) { h.Add("x-ms-request-charge", "2") },
		func(h http.Header) { h.Set("x-ms-session-token", "0:5#9") },
		func(h http.Header) { h.Del("Content-Type") },
	} {
		got, exp := http.Header{}, want.Clone()
		setDefaultHeaders(got, "act")
		edit(got)
		edit(exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("after an edit\n%v\nwant\n%v", got, exp)
		}
	}
}

// TestNewUUID: activity ids are random version-4 UUIDs in the canonical
// 8-4-4-4-12 lower-case hex form.
func TestNewUUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		u := newUUID()
		if !re.MatchString(u) {
			t.Fatalf("newUUID() = %q", u)
		}
		if seen[u] {
			t.Fatalf("newUUID() repeated %q", u)
		}
		seen[u] = true
	}
}

// BenchmarkDefaultHeaders measures what every request pays for its
// default response headers and activity id.
func BenchmarkDefaultHeaders(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		setDefaultHeaders(http.Header{}, newUUID())
	}
}

// TestHeaderNamesCanonical: every header name this package passes as a
// literal to http.Header's Get, Set, Del, Add or Values, or to setHeaders
// (which does not canonicalise at all), is already in Go's canonical form, so that those calls do not canonicalize (and allocate) a
// new key on every request. A literal with a '-' in it counts as a header
// name (JSON keys passed to the same method names have none).
func TestHeaderNamesCanonical(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "setHeaders" {
				// setHeaders(hd, name, value, ...) does not canonicalise:
				// every name must be canonical, with or without a '-'
				for i := 1; i < len(call.Args); i += 2 {
					lit, ok := call.Args[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Errorf("%s: setHeaders takes literal names", fset.Position(call.Args[i].Pos()))
						continue
					}
					name, _ := strconv.Unquote(lit.Value)
					checked++
					if c := textproto.CanonicalMIMEHeaderKey(name); c != name {
						t.Errorf("%s: header %q is not canonical: write %q", fset.Position(lit.Pos()), name, c)
					}
				}
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains([]string{"Get", "Set", "Del", "Add", "Values"}, sel.Sel.Name) {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil || !strings.Contains(name, "-") {
				return true
			}
			checked++
			if c := textproto.CanonicalMIMEHeaderKey(name); c != name {
				t.Errorf("%s: header %q is not canonical: write %q", fset.Position(lit.Pos()), name, c)
			}
			return true
		})
	}
	if checked < 50 {
		t.Fatalf("checked only %d header literals: the scan is broken", checked)
	}
}
