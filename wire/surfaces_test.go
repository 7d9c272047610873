package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestErrorsOfEachSurfaceShareTheMap: the data plane, the control plane and
// the explorer's mount answer their errors through the one error map
// (errors.go): the status StatusOf gives the kind, the kind's name as the
// code, a message and an x-ms-substatus.
func TestErrorsOfEachSurfaceShareTheMap(t *testing.T) {
	h, err := NewHandler(Config{Service: emulator.New(nil, nil), Ready: func() bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		surface, method, path string
		kind                  emulator.Kind
	}{
		{"data plane, unsigned", http.MethodGet, "/dbs/d", emulator.KindUnauthorized},
		{"control plane, unsigned", http.MethodGet, "/_emulator/clock", emulator.KindUnauthorized},
		{"control plane, health while not ready", http.MethodGet, "/_emulator/health", emulator.KindUnavailable},
		{"explorer turned off", http.MethodGet, "/_explorer/index.html", emulator.KindNotFound},
		{"certificate of a plain-HTTP emulator", http.MethodGet, "/_explorer/emulator.pem", emulator.KindNotFound},
	}
	for _, c := range cases {
		t.Run(c.surface, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
			if want := StatusOf(c.kind); rec.Code != want {
				t.Errorf("status %d, want %d", rec.Code, want)
			}
			var body struct{ Code, Message string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", rec.Body.String(), err)
			}
			if body.Code != c.kind.String() || body.Message == "" {
				t.Errorf("body %q, want code %q and a message", rec.Body.String(), c.kind.String())
			}
			// the Cosmos headers go out in lower case (lowerCosmosHeaders),
			// so the header map is searched without canonical keys
			var substatus bool
			for k := range rec.Header() {
				substatus = substatus || strings.EqualFold(k, "X-Ms-Substatus")
			}
			if !substatus {
				t.Errorf("no x-ms-substatus in %v", rec.Header())
			}
		})
	}
}
