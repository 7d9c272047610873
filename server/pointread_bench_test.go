package server_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// BenchmarkPointReadHTTPS reads one 1 KB item through the whole server
// (TLS, HTTP/1.1 keep-alive, routing, signature, PostgreSQL, encoding) with
// a signed Go client that reuses its request: allocs/op is the server's
// allocations per point read plus the client's, which do not change with
// the server.
func BenchmarkPointReadHTTPS(b *testing.B) {
	c, key := benchContainer(b)
	req, err := http.NewRequest(http.MethodGet, c.base+"/dbs/db/colls/c/docs/a", nil) //nolint:noctx
	if err != nil {
		b.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("x-ms-documentdb-partitionkey", `["p"]`)
	req.Header.Set("Authorization", wire.MasterAuthorization(key, http.MethodGet, "docs", "dbs/db/colls/c/docs/a", date))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n < 1000 {
			b.Fatalf("read: %d, %d bytes", resp.StatusCode, n)
		}
	}
}

// BenchmarkUpsertHTTPS upserts one 1 KB item through the whole server, as
// BenchmarkPointReadHTTPS reads it.
func BenchmarkUpsertHTTPS(b *testing.B) {
	c, key := benchContainer(b)
	body := `{"id":"a","pk":"p","n":1,"pad":"` + strings.Repeat("x", 1000) + `"}`
	date := time.Now().UTC().Format(http.TimeFormat)
	auth := wire.MasterAuthorization(key, http.MethodPost, "docs", "dbs/db/colls/c", date)
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, c.base+"/dbs/db/colls/c/docs", strings.NewReader(body)) //nolint:noctx
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("x-ms-date", date)
		req.Header.Set("x-ms-version", "2020-07-15")
		req.Header.Set("x-ms-documentdb-partitionkey", `["p"]`)
		req.Header.Set("x-ms-documentdb-is-upsert", "True")
		req.Header.Set("Authorization", auth)
		resp, err := c.hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("upsert: %d", resp.StatusCode)
		}
	}
}

// benchContainer starts an emulator holding container db/c with item a
// (1 KB, partition key "p") and returns a client for it and the key.
func benchContainer(b *testing.B) (*signedClient, []byte) {
	e := emulatortest.Start(b, emulatortest.WithoutBackgroundSweeper())
	c := &signedClient{base: strings.TrimSuffix(e.Endpoint, "/"), hc: emulatortest.HTTPClient()}
	c.t = &testing.T{}
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/dbs", `{"id":"db"}`},
		{"POST", "/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`},
		{"POST", "/dbs/db/colls/c/docs", `{"id":"a","pk":"p","pad":"` + strings.Repeat("x", 1000) + `"}`},
	} {
		if status, _, body := c.do(r.method, r.path, r.body, "x-ms-documentdb-partitionkey", `["p"]`); status != 201 {
			b.Fatalf("%s %s: %d %s", r.method, r.path, status, body)
		}
	}
	key, _ := base64.StdEncoding.DecodeString(wire.WellKnownKey)
	return c, key
}
