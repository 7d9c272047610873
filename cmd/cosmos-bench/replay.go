package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/internal/sysmon"
)

// replayProxy stands between an SDK and the emulator and answers repeated
// requests (replayKey) from memory with the first one's recorded response;
// every other request is forwarded, with the Host the client dialled. An
// SDK through it pays its own work, loopback, TLS and HTTP but no server
// work: the floor of any server. It runs in a process of its own
// (startReplayProcess), as a server would.
type replayProxy struct {
	srv   *httptest.Server
	rp    *httputil.ReverseProxy
	mu    sync.Mutex
	saved map[string]*recorded
	// forwarded and replayed count the requests that reached the target
	// and those answered from memory (replayStatsPath), so a floor phase
	// can show that it cost the target nothing.
	forwarded, replayed atomic.Int64
}

// replayStatsPath is the proxy's own endpoint: GET answers
// {"forwarded":n,"replayed":m}, the requests counted so far.
const replayStatsPath = "/_replay/stats"

// recorded is one response kept for replay.
type recorded struct {
	status int
	header http.Header
	body   []byte
}

// startReplayProxy starts a proxy (HTTPS with a self-signed certificate
// when target is https, HTTP/1.1 only, as the emulator) in front of the
// emulator at target. Close stops it.
func startReplayProxy(target string) (*replayProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	p := &replayProxy{saved: map[string]*recorded{}}
	// the target's URL with the client's Host header (the emulator
	// advertises the host the client dialled)
	p.rp = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(u)
		r.Out.Host = r.In.Host
	}}
	p.rp.Transport = &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // local emulator with a self-signed certificate
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		MaxIdleConnsPerHost: 64,
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.EnableHTTP2 = false
	if u.Scheme == "https" {
		p.srv.StartTLS()
	} else {
		p.srv.Start()
	}
	return p, nil
}

// URL is the proxy's endpoint, ending in '/'.
func (p *replayProxy) URL() string { return p.srv.URL + "/" }

// Close stops the proxy.
func (p *replayProxy) Close() { p.srv.Close() }

// replayKey says whether a request is answered from memory once seen, and
// under which key: a GET of an item or of the health path, a replace by
// the item's path; a create, a batch, a query plan request and a query by
// the container's path (the SDK parses any such answer alike: a floor
// needs the cost of an answer, not its content). Everything else is
// forwarded every time.
func replayKey(r *http.Request) (string, bool) {
	path := r.URL.EscapedPath()
	post := r.Method == http.MethodPost && strings.HasSuffix(path, "/docs")
	isQuery := r.Header.Get("x-ms-documentdb-isquery") != "" || strings.Contains(r.Header.Get("Content-Type"), "query")
	switch {
	case r.Method == http.MethodGet && (path == "/_emulator/health" || strings.Contains(path, "/docs/")):
		return path, true
	case r.Method == http.MethodPost && strings.EqualFold(r.Header.Get("x-ms-cosmos-is-batch-request"), "true"):
		return "batch " + path, true
	case r.Method == http.MethodPut && strings.Contains(path, "/docs/"):
		return "replace " + path, true
	case post && r.Header.Get("x-ms-cosmos-is-query-plan-request") != "":
		return "plan " + path, true
	case post && isQuery && r.Header.Get("x-ms-continuation") == "":
		return "query " + path, true
	case post && !isQuery && r.Header.Get("x-ms-documentdb-is-upsert") == "":
		return "create " + path, true
	}
	return "", false
}

func (p *replayProxy) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == replayStatsPath {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(replayStats{Forwarded: p.forwarded.Load(), Replayed: p.replayed.Load()}) //nolint:errcheck
		return
	}
	key, ok := replayKey(r)
	if !ok {
		p.forwarded.Add(1)
		p.rp.ServeHTTP(w, r)
		return
	}
	p.mu.Lock()
	rec := p.saved[key]
	p.mu.Unlock()
	if rec == nil {
		p.forwarded.Add(1)
		cw := &captureWriter{ResponseWriter: w, status: http.StatusOK}
		p.rp.ServeHTTP(cw, r)
		if cw.status >= 200 && cw.status < 300 {
			p.mu.Lock()
			p.saved[key] = &recorded{status: cw.status, header: w.Header().Clone(), body: cw.body.Bytes()}
			p.mu.Unlock()
		}
		return
	}
	p.replayed.Add(1)
	if r.Body != nil {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the request is read whole, as a server would
	}
	hd := w.Header()
	for k, v := range rec.header {
		hd[k] = v
	}
	w.WriteHeader(rec.status)
	w.Write(rec.body) //nolint:errcheck
}

// replayStats is the proxy's request counts (replayStatsPath).
type replayStats struct {
	Forwarded int64 `json:"forwarded"`
	Replayed  int64 `json:"replayed"`
}

// replayStatsOf reads the request counts of the proxy at url (its URL).
func replayStatsOf(ctx context.Context, url string) (s replayStats, err error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(url, "/")+replayStatsPath, nil)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the proxy's self-signed certificate
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err == nil {
		defer resp.Body.Close()
		err = json.NewDecoder(resp.Body).Decode(&s)
	}
	if err != nil {
		err = fmt.Errorf("replay proxy stats: %w", err)
	}
	return s, err
}

// captureWriter copies a response's status and body as it is written.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *captureWriter) WriteHeader(status int) {
	c.status = status
	c.ResponseWriter.WriteHeader(status)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// readsVsFloor alternates point reads of the first 50 of items through emu
// (on the emulator at endpoint), reads through a replaying proxy of it,
// health requests through the proxy and raw reads (rawRead: the same
// items, one statement on the emulator's PostgreSQL, which has been idle as
// long as between two SDK reads), n of each after 50. It returns their
// latencies in that order, the proxy's CPU per request in ms, and the
// read's breakdown (handler means over every read the emulator served
// meanwhile).
func readsVsFloor(ctx context.Context, emu *sdkBench, rawRead opFunc, endpoint, dbID string, items *itemSet, n int) (lat []latencyStats, cpuMs float64, bd breakdown, err error) {
	sb, proxy, done, err := startReplaySDK(ctx, endpoint, dbID)
	if err != nil {
		return nil, 0, bd, err
	}
	defer done()
	ops := []opFunc{emu.read(items), sb.read(items), sb.health(), rawRead}
	before, err := docsMetrics(ctx, emu.http, endpoint)
	if err != nil {
		return nil, 0, bd, err
	}
	ticks := procTicks(proxy.Pid())
	ds, err := alternate(50, n, func(side, i int) error { return ops[side](ctx, i%50) }, len(ops))
	if err != nil {
		return nil, 0, bd, fmt.Errorf("reads against the floor: %w", err)
	}
	cpuMs = float64(procTicks(proxy.Pid())-ticks) * 1000 / clockTicks / float64(3*(n+50)) // the proxy serves 3 of the 4 sides
	after, err := docsMetrics(ctx, emu.http, endpoint)
	for _, d := range ds {
		lat = append(lat, newLatencyStats(d, 0))
	}
	return lat, cpuMs, newBreakdown("read", lat[0], lat[1], before, after, "Read"), err
}

// startReplaySDK starts a replaying proxy of the emulator at endpoint in a
// process of its own and returns an SDK bench on it for the benchmark
// database dbID's container "items", the proxy, and a function that closes
// both.
func startReplaySDK(ctx context.Context, endpoint, dbID string) (*sdkBench, *replayProcess, func(), error) {
	p, err := startReplayProcess(ctx, endpoint)
	if err != nil {
		return nil, nil, nil, err
	}
	client, hc, err := newSDKClient(p.URL())
	if err != nil {
		p.Close()
		return nil, nil, nil, err
	}
	sb := &sdkBench{endpoint: p.URL(), http: hc}
	sb.db, _ = client.NewDatabase(dbID) // errors only for an empty id
	sb.container, _ = sb.db.NewContainer("items")
	return sb, p, func() { hc.CloseIdleConnections(); p.Close() }, nil
}

// replayProxyArg, as cosmos-bench's first argument followed by the
// emulator's URL, makes the command serve a replaying proxy instead
// (serveReplayProxy).
const replayProxyArg = "-serve-replay-proxy"

// serveReplayProxy serves a replaying proxy of target, writes "REPLAY
// <url>" to out and serves until in ends (the parent closing the pipe).
func serveReplayProxy(target string, in io.Reader, out io.Writer) error {
	p, err := startReplayProxy(target)
	if err != nil {
		return err
	}
	defer p.Close()
	if _, err := fmt.Fprintf(out, "REPLAY %s\n", p.URL()); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, in)
	return err
}

// replayProcess is a replaying proxy in a child process.
type replayProcess struct {
	url   string
	cmd   *exec.Cmd
	stdin io.Closer
}

// startReplayProcess runs this command again as a replaying proxy of
// target (replayProxyArg) and returns once it serves.
func startReplayProcess(ctx context.Context, target string) (*replayProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, replayProxyArg, target)
	cmd.Stderr = os.Stderr
	cmd.Env = replayEnv(os.Environ(), runtime.NumCPU())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("replay proxy: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "REPLAY ")
	if err != nil || !ok {
		stdin.Close()
		cmd.Wait() //nolint:errcheck
		return nil, fmt.Errorf("replay proxy did not start: %q %v", line, err)
	}
	return &replayProcess{url: url, cmd: cmd, stdin: stdin}, nil
}

// URL is the proxy's endpoint, ending in '/'.
func (r *replayProcess) URL() string { return r.url }

// Pid is the proxy process's id.
func (r *replayProcess) Pid() int { return r.cmd.Process.Pid }

// replayEnv returns env for the proxy process, with GOMAXPROCS as the
// emulator's default (half the CPUs, at least one) unless env sets it, and
// the emulator's GODEBUG (package sysmon): a floor for the emulator as it runs.
func replayEnv(env []string, cpus int) []string {
	env, _ = sysmon.Env(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env
		}
	}
	return append(env[:len(env):len(env)], fmt.Sprintf("GOMAXPROCS=%d", max(1, cpus/2)))
}

// Close stops the proxy process.
func (r *replayProcess) Close() {
	r.stdin.Close()
	r.cmd.Wait() //nolint:errcheck
}
