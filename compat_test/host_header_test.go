package compat_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRebindingHostRefused: a request carrying a foreign domain in Host
// (what a web page reaching the emulator by DNS rebinding sends, signed
// with the well-known key) is refused with 403 before it does anything: a
// reset leaves the databases in place. The same request naming localhost
// is served.
func TestRebindingHostRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.raw
	wantStatus(t, c.do(http.MethodPost, "/dbs", []byte(`{"id":"kept"}`)), http.StatusCreated)
	r := c.req(http.MethodPost, "/_emulator/reset", nil)
	r.Host = "rebind.attacker.example:8081"
	resp, err := c.hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"code":"Forbidden"`) {
		t.Fatalf("reset with a foreign Host: %d %s, want 403", resp.StatusCode, body)
	}
	wantStatus(t, c.do(http.MethodGet, "/dbs/kept", nil), http.StatusOK)
	r = c.req(http.MethodGet, "/dbs/kept", nil)
	r.Host = "localhost"
	resp, err = c.hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Host localhost: %d", resp.StatusCode)
	}
}
