package server_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// lockedBuffer collects log output written from request goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// signedClient sends master-key signed requests to an emulator.
type signedClient struct {
	t    *testing.T
	base string
	hc   *http.Client
}

// do sends a signed request and returns status, headers and body.
func (c *signedClient) do(method, path, body string, hdr ...string) (int, http.Header, string) {
	c.t.Helper()
	key, _ := base64.StdEncoding.DecodeString(wire.WellKnownKey)
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body)) //nolint:noctx
	if err != nil {
		c.t.Fatal(err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	rt, link := wire.ResourceTypeAndLink(path)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("Authorization", wire.MasterAuthorization(key, method, rt, link, date))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// scrape reads the metrics.
func (c *signedClient) scrape() map[string]float64 {
	c.t.Helper()
	return emulatortest.ScrapeMetrics(c.t, c.hc, c.base+wire.MetricsPath)
}

// TestMetrics: the Prometheus metrics count requests by operation,
// resource type and status, their latency and charge, change feed reads
// of both modes and the changes they returned, the TTL sweeper's work and
// backlog and the connection pool; --log-requests logs one line per
// request.
func TestMetrics(t *testing.T) {
	var logs lockedBuffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(t0), emulatortest.WithoutBackgroundSweeper(), func(c *server.Config) {
		c.LogRequests = true
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	c := &signedClient{t: t, base: strings.TrimSuffix(e.Endpoint, "/"), hc: emulatortest.HTTPClient()}

	mustStatus := func(want int, method, path, body string, hdr ...string) http.Header {
		t.Helper()
		status, h, b := c.do(method, path, body, hdr...)
		if status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, status, b, want)
		}
		return h
	}
	mustStatus(201, "POST", "/dbs", `{"id":"db"}`)
	mustStatus(201, "POST", "/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"},"defaultTtl":10}`)
	for i := range 3 {
		mustStatus(201, "POST", "/dbs/db/colls/c/docs", `{"id":"i`+strconv.Itoa(i)+`","pk":"p"}`, "x-ms-documentdb-partitionkey", `["p"]`)
	}
	mustStatus(404, "GET", "/dbs/db/colls/c/docs/missing", "", "x-ms-documentdb-partitionkey", `["p"]`)
	mustStatus(200, "POST", "/dbs/db/colls/c/docs", `{"query":"SELECT * FROM c"}`, "Content-Type", "application/query+json",
		"x-ms-documentdb-isquery", "true", "x-ms-documentdb-query-enablecrosspartition", "true")
	h := mustStatus(200, "GET", "/dbs/db/colls/c/docs", "", "A-IM", "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid", "0")
	mustStatus(304, "GET", "/dbs/db/colls/c/docs", "", "A-IM", "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid", "0", "If-None-Match", h.Get("etag"))
	// (from a point in time: the all-versions feed cannot start from the beginning)
	mustStatus(200, "GET", "/dbs/db/colls/c/docs", "", "A-IM", "Full-Fidelity Feed", "x-ms-documentdb-partitionkeyrangeid", "0", "If-Modified-Since", "Thu, 01 Jan 2026 00:00:00 GMT")
	mustStatus(400, "GET", "/dbs/db/colls/c/docs", "", "A-IM", "Other Feed")
	// server-side JavaScript: a procedure that succeeds, one that throws,
	// and a write naming a pre-trigger
	mustStatus(201, "POST", "/dbs/db/colls/c/sprocs", `{"id":"ok","body":"function () { getContext().getResponse().setBody(1); }"}`)
	mustStatus(201, "POST", "/dbs/db/colls/c/sprocs", `{"id":"bad","body":"function () { throw new Error('no'); }"}`)
	mustStatus(201, "POST", "/dbs/db/colls/c/triggers", `{"id":"pre","body":"function () {}","triggerType":"Pre","triggerOperation":"All"}`)
	mustStatus(200, "POST", "/dbs/db/colls/c/sprocs/ok", `[]`, "x-ms-documentdb-partitionkey", `["p"]`)
	mustStatus(400, "POST", "/dbs/db/colls/c/sprocs/bad", `[]`, "x-ms-documentdb-partitionkey", `["p"]`)
	mustStatus(201, "POST", "/dbs/db/colls/c/docs", `{"id":"t","pk":"p"}`, "x-ms-documentdb-partitionkey", `["p"]`, "x-ms-documentdb-pre-trigger-include", "pre")

	// all four items expired, not yet swept; the first scrape counts the
	// backlog (later ones within 10 s reuse that count)
	e.Clock().Advance(time.Minute)
	after := c.scrape()
	for _, w := range []struct {
		sample string
		want   float64
	}{
		{`cosmos_emulator_requests_total{operation="Create",resource_type="dbs",status="201"}`, 1},
		{`cosmos_emulator_requests_total{operation="Create",resource_type="colls",status="201"}`, 1},
		{`cosmos_emulator_requests_total{operation="Create",resource_type="docs",status="201"}`, 4},
		{`cosmos_emulator_requests_total{operation="Read",resource_type="docs",status="404"}`, 1},
		{`cosmos_emulator_requests_total{operation="Query",resource_type="docs",status="200"}`, 1},
		{`cosmos_emulator_requests_total{operation="ChangeFeed",resource_type="docs",status="200"}`, 2},
		{`cosmos_emulator_requests_total{operation="ChangeFeed",resource_type="docs",status="304"}`, 1},
		{`cosmos_emulator_requests_total{operation="ChangeFeed",resource_type="docs",status="400"}`, 1},
		{`cosmos_emulator_request_duration_seconds_count{operation="Create",resource_type="docs"}`, 4},
		{`cosmos_emulator_changefeed_reads_total{mode="latest_version",result="changes"}`, 1},
		{`cosmos_emulator_changefeed_reads_total{mode="latest_version",result="not_modified"}`, 1},
		{`cosmos_emulator_changefeed_reads_total{mode="latest_version",result="error"}`, 1},
		{`cosmos_emulator_changefeed_reads_total{mode="all_versions_and_deletes",result="changes"}`, 1},
		{`cosmos_emulator_changefeed_items_total{mode="latest_version"}`, 3},
		{`cosmos_emulator_changefeed_items_total{mode="all_versions_and_deletes"}`, 3},
		{`cosmos_emulator_ttl_backlog_rows`, 4},
		{`cosmos_emulator_requests_total{operation="ExecuteStoredProcedure",resource_type="sprocs",status="200"}`, 1},
		{`cosmos_emulator_script_requests_total{kind="stored_procedure",result="ok"}`, 1},
		{`cosmos_emulator_script_requests_total{kind="stored_procedure",result="script_error"}`, 1},
		{`cosmos_emulator_script_requests_total{kind="pre_trigger",result="ok"}`, 1},
		{`cosmos_emulator_ready`, 1},
	} {
		if got := after[w.sample]; got != w.want {
			t.Errorf("%s = %v, want %v", w.sample, got, w.want)
		}
	}
	if after[`cosmos_emulator_request_charge_total{operation="Create",resource_type="docs"}`] < 4*5.71 {
		t.Errorf("charge of four creates: %v", after[`cosmos_emulator_request_charge_total{operation="Create",resource_type="docs"}`])
	}
	if after[`cosmos_emulator_pg_pool_max_connections`] < 1 || after[`cosmos_emulator_pg_pool_acquires_total{outcome="immediate"}`] < 9 {
		t.Errorf("pool max %v, acquires %v", after[`cosmos_emulator_pg_pool_max_connections`], after[`cosmos_emulator_pg_pool_acquires_total{outcome="immediate"}`])
	}
	if n, err := e.Sweep(t.Context()); err != nil || n != 4 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	swept := c.scrape()
	if swept[`cosmos_emulator_ttl_deleted_rows_total`] != 4 || swept[`cosmos_emulator_ttl_sweeps_total`] != 1 || swept[`cosmos_emulator_ttl_sweep_errors_total`] != 0 {
		t.Errorf("sweeper: %v deleted, %v sweeps, %v errors", swept[`cosmos_emulator_ttl_deleted_rows_total`],
			swept[`cosmos_emulator_ttl_sweeps_total`], swept[`cosmos_emulator_ttl_sweep_errors_total`])
	}
	for _, name := range []string{`cosmos_emulator_build_info{`, `go_goroutines`, `process_resident_memory_bytes`,
		`cosmos_emulator_scripts_abandoned_total`, `cosmos_emulator_scripts_abandoned_running`} {
		found := false
		for k := range swept {
			found = found || strings.HasPrefix(k, name)
		}
		if !found {
			t.Errorf("no %s sample", name)
		}
	}

	// the request log: one line per request, at info level
	for _, re := range []string{
		`msg=request method=POST path=/dbs/db/colls/c/docs status=201 duration=\S+ activity_id=[0-9a-f-]{36} request_charge=[0-9.]+`,
		`msg=request method=GET path=/dbs/db/colls/c/docs/missing status=404 `,
		`msg=request method=GET path=/dbs/db/colls/c/docs status=304 `,
		`msg=request method=GET path=/_emulator/metrics status=200 `,
	} {
		if !regexp.MustCompile(re).MatchString(logs.String()) {
			t.Errorf("no log line matching %s in\n%s", re, logs.String())
		}
	}
}

// TestMetricsUnsignedOnly: the metrics are served without a signature and
// are read-only; the explorer placeholder holds no key.
func TestMetricsUnsignedOnly(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	base := strings.TrimSuffix(e.Endpoint, "/")
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", wire.MetricsPath, 200},
		{"POST", wire.MetricsPath, 405},
		{"GET", "/_explorer/index.html", 200},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, nil) //nolint:noctx
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, resp.StatusCode, b, c.status)
		}
		if bytes.Contains(b, []byte(wire.WellKnownKey)) {
			t.Errorf("%s %s shows the key", c.method, c.path)
		}
	}
}

// TestMetricsRequestPhases: the phase counter splits a request's handler
// time into the signature check, query translation, PostgreSQL and
// encoding; each phase a request went through is counted under its
// operation, and the phases of one kind of request never add up to more
// than its handler time (one statement at a time here, no fan-out).
func TestMetricsRequestPhases(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithoutBackgroundSweeper())
	c := &signedClient{t: t, base: strings.TrimSuffix(e.Endpoint, "/"), hc: emulatortest.HTTPClient()}
	for _, r := range []struct {
		want               int
		method, path, body string
		hdr                []string
	}{
		{201, "POST", "/dbs", `{"id":"db"}`, nil},
		{201, "POST", "/dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`, nil},
		{201, "POST", "/dbs/db/colls/c/docs", `{"id":"a","pk":"p"}`, []string{"x-ms-documentdb-partitionkey", `["p"]`}},
		{200, "GET", "/dbs/db/colls/c/docs/a", "", []string{"x-ms-documentdb-partitionkey", `["p"]`}},
		{200, "POST", "/dbs/db/colls/c/docs", `{"query":"SELECT * FROM c WHERE c.id = 'a'"}`, []string{"Content-Type", "application/query+json",
			"x-ms-documentdb-isquery", "true", "x-ms-documentdb-partitionkey", `["p"]`}},
	} {
		if status, _, b := c.do(r.method, r.path, r.body, r.hdr...); status != r.want {
			t.Fatalf("%s %s: %d %s, want %d", r.method, r.path, status, b, r.want)
		}
	}
	m := c.scrape()
	phase := func(op, ph string) float64 {
		return m[`cosmos_emulator_request_phase_seconds_total{operation="`+op+`",phase="`+ph+`",resource_type="docs"}`]
	}
	tests := []struct {
		op      string
		present []string // phases the request went through
		absent  []string // phases it did not
	}{
		{"Create", []string{"auth", "postgres", "encode"}, []string{"translate"}},
		{"Read", []string{"auth", "postgres", "encode"}, []string{"translate"}},
		{"Query", []string{"auth", "translate", "postgres", "encode"}, nil},
	}
	for _, tt := range tests {
		sum := 0.0
		for _, ph := range tt.present {
			if v := phase(tt.op, ph); v <= 0 {
				t.Errorf("%s: phase %s = %v, want > 0", tt.op, ph, v)
			} else {
				sum += v
			}
		}
		for _, ph := range tt.absent {
			if v := phase(tt.op, ph); v != 0 {
				t.Errorf("%s: phase %s = %v, want none", tt.op, ph, v)
			}
		}
		if total := m[`cosmos_emulator_request_duration_seconds_sum{operation="`+tt.op+`",resource_type="docs"}`]; sum > total {
			t.Errorf("%s: phases add up to %v s, more than the handler's %v s", tt.op, sum, total)
		}
	}
}
