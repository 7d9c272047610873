package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHostGuard: the Host names a request may carry (DNS rebinding puts
// the attacker's own domain there), with and without --allowed-host.
func TestHostGuard(t *testing.T) {
	tests := []struct {
		name    string
		allowed []string
		host    string
		ok      bool
	}{
		{"loopback name", nil, "localhost:8081", true},
		{"loopback IPv4", nil, "127.0.0.1:8081", true},
		{"IPv6", nil, "[::1]:8081", true},
		{"any IP address", nil, "172.17.0.2:8081", true},
		{"compose service name", nil, "cosmos:8081", true},
		{"name under localhost", nil, "emulator.localhost:8081", true},
		{"Docker's host name", nil, "host.docker.internal:8081", true},
		{"Testcontainers' host name", nil, "host.testcontainers.internal:49153", true},
		{"mDNS name", nil, "devbox.local", true},
		{"no Host (HTTP/1.0)", nil, "", true},
		{"upper case, trailing dot", nil, "LOCALHOST.:8081", true},
		{"rebinding domain", nil, "attacker.example.com:8081", false},
		{"rebinding domain without port", nil, "rebind.attacker.example", false},
		{"allowed name", []string{"cosmos.ci.example.com"}, "cosmos.ci.example.com:8081", true},
		{"allowed name in another case", []string{"Cosmos.CI.example.com"}, "cosmos.ci.example.com", true},
		{"another name than the allowed one", []string{"cosmos.ci.example.com"}, "evil.example.com", false},
		{"any host", []string{"*"}, "attacker.example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostGuard(tt.allowed).wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
			req := httptest.NewRequest(http.MethodPost, "/_emulator/reset", nil)
			req.Host = tt.host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if tt.ok && rec.Code != http.StatusNoContent {
				t.Fatalf("Host %q refused: %d %s", tt.host, rec.Code, rec.Body)
			}
			if !tt.ok && (rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), `"code":"Forbidden"`) ||
				!strings.Contains(rec.Body.String(), "--allowed-host")) {
				t.Fatalf("Host %q: %d %s, want a Cosmos-shaped 403 naming --allowed-host", tt.host, rec.Code, rec.Body)
			}
		})
	}
}

// TestHostGuardRemembersOnlyAccepted: the remembered last Host never lets
// another one through.
func TestHostGuardRemembersOnlyAccepted(t *testing.T) {
	g := newHostGuard(nil)
	for _, c := range []struct {
		host string
		ok   bool
	}{{"localhost:8081", true}, {"evil.example.com", false}, {"localhost:8081", true}, {"evil.example.com", false}} {
		if got := g.accepts(c.host); got != c.ok {
			t.Fatalf("accepts(%q) = %v, want %v", c.host, got, c.ok)
		}
	}
}
