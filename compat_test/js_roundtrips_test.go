package compat_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// countingProxy forwards every request to one emulator, keeping the Host
// header the client dialled (so the emulator advertises the proxy and the
// SDK keeps talking through it), and records "METHOD path" per request.
type countingProxy struct {
	mu   sync.Mutex
	seen []string
}

func (p *countingProxy) log() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

func startCountingProxy(t *testing.T, target string) (*countingProxy, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.URL.EscapedPath())
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL + "/"
}

// jsSDK returns the node binary and the directory of the JS scripts, with
// @azure/cosmos installed (npm ci when node_modules is missing). Without
// node the test is skipped, except under CI where node is required.
func jsSDK(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is required under CI (apt-get install nodejs npm)")
		}
		t.Skip("node is not installed")
	}
	dir, err = filepath.Abs("js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@azure", "cosmos", "package.json")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatalf("@azure/cosmos is not installed in %s and npm is missing", dir)
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	return node, dir
}

// runJS runs the script in dir with node and the given environment
// (COSMOS_KEY is the emulator's) under timeout, failing the test when it
// exits non-zero. It returns the script's stdout and stderr.
func runJS(t *testing.T, node, dir, script string, timeout time.Duration, env ...string) (stdout []byte, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, script))
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "COSMOS_KEY="+emulatortest.Key), env...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", script, err, out, errBuf.String())
	}
	return out, errBuf.String()
}

// checkJSScript runs the JS script against a fresh emulator over http
// (with opts) in database db and fails the test unless its stdout is want;
// what describes the scenario in the failure message.
func checkJSScript(t *testing.T, what, script, db, want string, opts ...emulatortest.Option) {
	t.Helper()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, append([]emulatortest.Option{emulatortest.WithProtocol("http")}, opts...)...)
	start := time.Now()
	out, stderr := runJS(t, node, dir, script, 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB="+db)
	t.Logf("%s ran in %v", script, time.Since(start).Round(time.Millisecond))
	if got := string(out); got != want {
		t.Fatalf("%s:\n%s\nwant:\n%s\nstderr:\n%s", what, got, want, strings.TrimSpace(stderr))
	}
}

// TestJSOneRoundTripPerCall drives the JS SDK (compat_test/js/
// roundtrips.mjs) through a counting proxy: after the client's one account
// read (GET /) at start-up, each point operation and resource call is one
// request and a query is its query-plan request plus the query itself. An
// account document the SDK does not trust for its locations (id
// "localhost") made it re-read GET / before every request.
func TestJSOneRoundTripPerCall(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	proxy, endpoint := startCountingProxy(t, e.Endpoint)
	checkJSRoundTrips(t, node, dir, endpoint, proxy)
}

// checkJSRoundTrips runs roundtrips.mjs against endpoint, behind which
// proxy counts the requests the emulator receives, and checks that each
// call cost exactly its requests after one account read.
func checkJSRoundTrips(t *testing.T, node, dir, endpoint string, proxy *countingProxy) {
	t.Helper()
	out, _ := runJS(t, node, dir, "roundtrips.mjs", 90*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=rt")

	const (
		docs = "/dbs/rt/colls/c/docs"
		doc  = docs + "/a"
	)
	// Each call and the requests it must cost, in order.
	want := []struct {
		call     string
		requests []string
	}{
		{"createDatabase", []string{"POST /dbs"}},
		{"createContainer", []string{"POST /dbs/rt/colls"}},
		{"createItem", []string{"POST " + docs}},
		{"readItem", []string{"GET " + doc}},
		{"upsertItem", []string{"POST " + docs}},
		{"replaceItem", []string{"PUT " + doc}},
		{"patchItem", []string{"PATCH " + doc}},
		{"query", []string{"POST " + docs, "POST " + docs}}, // query plan + query (sdk-notes B.10)
		{"deleteItem", []string{"DELETE " + docs + "/b"}},
		{"readContainer", []string{"GET /dbs/rt/colls/c"}},
		{"readDatabase", []string{"GET /dbs/rt"}},
		{"deleteDatabase", []string{"DELETE /dbs/rt"}},
	}
	var calls []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "CALL "); ok {
			calls = append(calls, name)
		}
	}
	var wantCalls, wantRequests []string
	wantRequests = append(wantRequests, "GET /") // start-up: the first call reads the account once
	for _, w := range want {
		wantCalls = append(wantCalls, w.call)
		wantRequests = append(wantRequests, w.requests...)
	}
	if strings.Join(calls, ",") != strings.Join(wantCalls, ",") {
		t.Fatalf("the script made the calls %q, want %q", calls, wantCalls)
	}
	got := proxy.log()
	if strings.Join(got, "\n") != strings.Join(wantRequests, "\n") {
		accountReads := 0
		for _, r := range got {
			if r == "GET /" {
				accountReads++
			}
		}
		t.Fatalf("%d calls cost %d requests (%d account reads), want %d:\n  got  %q\n  want %q",
			len(want), len(got), accountReads, len(wantRequests), got, wantRequests)
	}
}
