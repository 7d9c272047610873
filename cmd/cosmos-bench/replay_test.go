package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/internal/sysmon"
)

// TestReplayProxy: the proxy, in a process of its own, answers the repeated
// requests replayKey names from memory with the recorded status, headers
// and body; others (an upsert, a continuation, a container read) always
// reach the target, with the Host the client dialled; its stats count both.
func TestReplayProxy(t *testing.T) {
	var hits atomic.Int64
	var lastHost atomic.Value
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		lastHost.Store(r.Host)
		w.Header().Set("etag", `"1"`)
		if r.Method == http.MethodPost && r.Header.Get("x-ms-documentdb-isquery") == "" {
			w.WriteHeader(http.StatusCreated)
		}
		io.WriteString(w, r.Method+" "+r.URL.Path) //nolint:errcheck
	}))
	defer target.Close()
	p, err := startReplayProcess(context.Background(), target.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxyHost := strings.TrimSuffix(strings.TrimPrefix(p.URL(), "http://"), "/")
	var forwarded, replayed int64
	query := map[string]string{"x-ms-documentdb-isquery": "True", "Content-Type": "application/query+json"}
	for _, c := range []struct {
		method, path string
		headers      map[string]string
		wantHits     int64 // target hits after two requests
	}{
		{http.MethodGet, "/dbs/d/colls/c/docs/x", nil, 1},
		{http.MethodGet, "/_emulator/health", nil, 1},
		{http.MethodPost, "/dbs/d/colls/c/docs", nil, 1}, // a create
		{http.MethodPost, "/dbs/d/colls/c/docs", query, 1},
		{http.MethodPost, "/dbs/d/colls/c/docs", map[string]string{"x-ms-cosmos-is-query-plan-request": "True", "Content-Type": "application/query+json"}, 1},
		{http.MethodPost, "/dbs/d/colls/c/docs", map[string]string{"x-ms-documentdb-isquery": "True", "x-ms-continuation": "token"}, 2},
		{http.MethodPost, "/dbs/d/colls/c/docs", map[string]string{"x-ms-documentdb-is-upsert": "True"}, 2},
		{http.MethodPut, "/dbs/d/colls/c/docs/x", nil, 1},
		{http.MethodGet, "/dbs/d/colls/c", nil, 2},
		{http.MethodPost, "/dbs/d/colls/c/docs", map[string]string{"x-ms-cosmos-is-batch-request": "True"}, 1},
	} {
		hits.Store(0)
		for i := 0; i < 2; i++ {
			req, _ := http.NewRequest(c.method, p.URL()+c.path[1:], strings.NewReader("[]"))
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != c.method+" "+c.path || resp.Header.Get("etag") != `"1"` || resp.StatusCode/100 != 2 {
				t.Errorf("%s %s %v #%d: %d %q etag %q", c.method, c.path, c.headers, i, resp.StatusCode, body, resp.Header.Get("etag"))
			}
		}
		if hits.Load() != c.wantHits {
			t.Errorf("%s %s: the target saw %d requests, want %d", c.method, c.path, hits.Load(), c.wantHits)
		}
		if h, _ := lastHost.Load().(string); h != proxyHost {
			t.Errorf("%s %s: Host %q at the target, want the proxy's %q", c.method, c.path, h, proxyHost)
		}
		forwarded += c.wantHits
		replayed += 2 - c.wantHits
	}
	st, err := replayStatsOf(context.Background(), p.URL())
	if err != nil {
		t.Fatal(err)
	}
	if st.Forwarded != forwarded || st.Replayed != replayed {
		t.Errorf("stats %+v, want forwarded %d, replayed %d", st, forwarded, replayed)
	}
}

// TestReplayEnv: the replaying proxy runs on as many CPUs as the emulator
// does by default (half, at least one), unless GOMAXPROCS is already set,
// and with the emulator's GODEBUG setting.
func TestReplayEnv(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		cpus int
		want string
	}{
		{[]string{"A=1"}, 2, "GOMAXPROCS=1"},
		{[]string{"A=1"}, 1, "GOMAXPROCS=1"},
		{[]string{"A=1"}, 8, "GOMAXPROCS=4"},
		{[]string{"GOMAXPROCS=3", "A=1"}, 8, "GOMAXPROCS=3"},
	} {
		got := replayEnv(tc.env, tc.cpus)
		var gm []string
		for _, kv := range got {
			if strings.HasPrefix(kv, "GOMAXPROCS=") {
				gm = append(gm, kv)
			}
		}
		if len(gm) != 1 || gm[0] != tc.want || !slices.Contains(got, "A=1") || !slices.Contains(got, "GODEBUG="+sysmon.Setting) {
			t.Errorf("replayEnv(%v, %d) = %v, want one %s, A=1 and GODEBUG=%s", tc.env, tc.cpus, got, tc.want, sysmon.Setting)
		}
	}
}
