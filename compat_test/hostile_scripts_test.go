package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// Hostile script statements: each spends its time in native work the
// JavaScript engine's interrupt does not reach. Without the fix, the
// first gave no answer after 60 s, the second none ever, the third took
// tens of seconds, and eight of them at once hung every request.
var hostileStatements = []struct{ name, stmt string }{
	// catastrophic backtracking (lookahead and backreference: regexp2)
	{"regexp", `/^(a+)+(?=b)\1?c$/.test("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab");`},
	// a thrown value whose formatting loops
	{"throw", `throw { get message() { while (true) {} }, toString() { while (true) {} } };`},
	// one JSON.stringify call of tens of seconds: a 4,900-deep chain
	// reached 300 times
	{"json", `var o = {}; for (var i = 0; i < 4900; i++) o = {a: o}; var a = []; for (var j = 0; j < 300; j++) a.push(o); JSON.stringify(a);`},
}

// scriptRequest is one way of running a hostile statement: as a stored
// procedure, in a UDF called by a query, or as a pre-trigger of a create.
type scriptRequest struct {
	name string
	send func(c *rawClient) (*http.Request, error)
}

// hostileSetup creates, in sdb/c of e, the procedure, UDF and pre-trigger
// of every hostile statement and a document, and returns the requests
// that run them.
func hostileSetup(t *testing.T, f *fixture) []scriptRequest {
	t.Helper()
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	wantStatus(t, f.raw.do(http.MethodPost, docsPath("sdb", "c"), []byte(`{"id":"seed","pk":"p"}`), pkHeader, `["p"]`), http.StatusCreated)
	var reqs []scriptRequest
	n := 0
	for _, h := range hostileStatements {
		sproc := createSproc(t, f.raw, "h"+h.name, `function () { `+h.stmt+` getContext().getResponse().setBody(1); }`)
		createUDF(t, f.raw, "sdb", "u"+h.name, `function (x) { `+h.stmt+` return x; }`)
		createTrigger(t, f.raw, "t"+h.name, "Pre", "All", `function () { `+h.stmt+` }`)
		udf, trigger := "u"+h.name, "t"+h.name
		reqs = append(reqs,
			scriptRequest{h.name + "/sproc", func(c *rawClient) (*http.Request, error) {
				r := c.req(http.MethodPost, sproc, nil)
				r.Header.Set(pkHeader, `["p"]`)
				return r, nil
			}},
			scriptRequest{h.name + "/udf", func(c *rawClient) (*http.Request, error) {
				body, _ := json.Marshal(map[string]any{"query": "SELECT VALUE udf." + udf + "(c.id) FROM c", "parameters": []any{}})
				r := c.req(http.MethodPost, docsPath("sdb", "c"), body)
				for _, kv := range [][2]string{{"Content-Type", "application/query+json"}, {"x-ms-documentdb-isquery", "True"}, {"x-ms-documentdb-query-enablecrosspartition", "True"}} {
					r.Header.Set(kv[0], kv[1])
				}
				return r, nil
			}},
			scriptRequest{h.name + "/pretrigger", func(c *rawClient) (*http.Request, error) {
				n++
				r := c.req(http.MethodPost, docsPath("sdb", "c"), []byte(fmt.Sprintf(`{"id":"new%d","pk":"p"}`, n)))
				r.Header.Set(pkHeader, `["p"]`)
				r.Header.Set("x-ms-documentdb-pre-trigger-include", trigger)
				return r, nil
			}},
		)
	}
	return reqs
}

// send408 sends r (safe from any goroutine: failures are reported with
// Errorf) and checks the 408 RequestTimeout answer; it returns how long
// the answer took.
func send408(t *testing.T, c *rawClient, r *http.Request) time.Duration {
	start := time.Now()
	resp, err := c.hc.Do(r)
	took := time.Since(start)
	if err != nil {
		t.Errorf("no answer after %v: %v", took, err)
		return took
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body struct{ Code, Message string }
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusRequestTimeout || body.Code != "RequestTimeout" || !strings.Contains(body.Message, "did not complete within the allotted execution time") {
		t.Errorf("after %v: status %d, body %s; want 408 RequestTimeout", took, resp.StatusCode, b)
	}
	return took
}

// TestHostileScripts: each hostile statement, as a stored procedure, a
// UDF called in a query and a pre-trigger, answers 408 at the script time
// limit; then eight copies of each at once do too; afterwards a point read
// answers, the health endpoint is 200, no PostgreSQL backend is left idle
// in a transaction, and /_emulator/stats counts the abandoned executions.
func TestHostileScripts(t *testing.T) {
	t.Parallel()
	const limit = time.Second
	f := &fixture{}
	f.e = emulatortest.Start(t, emulatortest.WithScriptLimits(limit, 0))
	f.c, f.raw = f.e.Client(t), newRaw(t, f.e)
	reqs := hostileSetup(t, f)

	for _, h := range reqs {
		t.Run("once/"+h.name, func(t *testing.T) {
			c := f.rawFor(t)
			r, _ := h.send(c)
			t.Logf("408 after %v (limit %v)", send408(t, c, r), limit)
		})
	}
	for _, h := range reqs {
		t.Run("eight/"+h.name, func(t *testing.T) {
			c := f.rawFor(t)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var took []time.Duration
			start := time.Now()
			for range 8 {
				r, _ := h.send(c)
				wg.Add(1)
				go func() {
					defer wg.Done()
					d := send408(t, c, r)
					mu.Lock()
					took = append(took, d.Round(time.Millisecond))
					mu.Unlock()
				}()
			}
			wg.Wait()
			t.Logf("eight 408s in %v: %v", time.Since(start), took)
		})
	}
	wantRecovered(t, f, true)
}

// wantRecovered checks an emulator after hostile scripts: a point read
// answers, health is 200, no backend is idle in a transaction, and the
// stats report the abandoned executions (at least one when
// wantAbandoned).
func wantRecovered(t *testing.T, f *fixture, wantAbandoned bool) {
	t.Helper()
	start := time.Now()
	wantStatus(t, f.raw.do(http.MethodGet, docPath("sdb", "c", "seed"), nil, pkHeader, `["p"]`), http.StatusOK)
	t.Logf("point read after the hostile scripts: %v", time.Since(start))
	resp, err := f.raw.hc.Get(f.raw.endpoint + "/_emulator/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health %d", resp.StatusCode)
	}
	if n := f.e.IdleInTransaction(t); n != 0 {
		t.Fatalf("%d PostgreSQL backends idle in transaction", n)
	}
	r := f.raw.do(http.MethodGet, "/_emulator/stats", nil)
	wantStatus(t, r, http.StatusOK)
	var stats struct {
		Scripts *struct {
			Abandoned        *int64 `json:"abandoned"`
			AbandonedRunning *int64 `json:"abandonedRunning"`
		} `json:"scripts"`
	}
	if err := json.Unmarshal(r.Body, &stats); err != nil {
		t.Fatal(err)
	}
	if stats.Scripts == nil || stats.Scripts.Abandoned == nil || stats.Scripts.AbandonedRunning == nil || wantAbandoned && *stats.Scripts.Abandoned == 0 {
		t.Fatalf("stats %s: want scripts.abandoned (> 0: %v) and scripts.abandonedRunning", r.Body, wantAbandoned)
	}
	t.Logf("scripts: %d abandoned, %d still running", *stats.Scripts.Abandoned, *stats.Scripts.AbandonedRunning)
	m := emulatortest.ScrapeMetrics(t, f.raw.hc, f.raw.endpoint+"/_emulator/metrics")
	if _, ok := m["cosmos_emulator_scripts_abandoned_total"]; !ok || wantAbandoned && m["cosmos_emulator_scripts_abandoned_total"] < 1 {
		t.Fatalf("cosmos_emulator_scripts_abandoned_total = %v, want the abandoned executions", m["cosmos_emulator_scripts_abandoned_total"])
	}
}

// TestHostileScriptsDefaultLimit: at the service's 5 s limit, a hostile
// procedure answers 408 too.
func TestHostileScriptsDefaultLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	reqs := hostileSetup(t, f)
	c := f.rawFor(t)
	r, _ := reqs[0].send(c) // regexp/sproc
	t.Logf("%s: 408 after %v (limit 5s)", reqs[0].name, send408(t, c, r))
	// Not necessarily abandoned: regular expressions stop matching after
	// 5 s too, so at this limit the goroutine may end within the grace.
	wantRecovered(t, f, false)
}

// TestSIGTERMWithHostileScripts starts the real binary, runs eight
// hostile procedures at once and sends SIGTERM: the process exits within
// 5 s (it used to need SIGKILL).
func TestSIGTERMWithHostileScripts(t *testing.T) {
	t.Parallel()
	bin := buildEmulator(t)
	p := startProcess(t, bin, t.TempDir())
	c := &rawClient{t: t, endpoint: strings.TrimSuffix(p.endpoint, "/"), hc: emulatortest.HTTPClient()}
	f := &fixture{c: p.client(t), raw: c}
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	path := createSproc(t, c, "hregexp", `function () { `+hostileStatements[0].stmt+` }`)
	var wg sync.WaitGroup
	for range 8 {
		r := c.req(http.MethodPost, path, nil)
		r.Header.Set(pkHeader, `["p"]`)
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.hc.Do(r)
			if err == nil {
				io.Copy(io.Discard, resp.Body) //nolint:errcheck
				resp.Body.Close()
				t.Logf("a hostile procedure answered %d", resp.StatusCode)
			}
		}()
	}
	time.Sleep(time.Second) // the procedures are running (the limit is 5 s)
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		t.Logf("exited %v after SIGTERM: %v", time.Since(start), err)
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-exited
		t.Fatalf("still running 5 s after SIGTERM")
	}
	wg.Wait()
}

// TestDeepJSONStringifyInScript: the issue's own input, JSON.stringify of a
// 100,000-deep object (it once answered after 31 s, goja's cycle check
// being quadratic in depth), fails at once with the RangeError a
// JavaScript engine gives for a structure deeper than it serialises
// (jsengine.MaxJSONDepth), as a procedure and as a pre-trigger, and
// leaves the emulator serving.
func TestDeepJSONStringifyInScript(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	wantStatus(t, f.raw.do(http.MethodPost, docsPath("sdb", "c"), []byte(`{"id":"seed","pk":"p"}`), pkHeader, `["p"]`), http.StatusCreated)
	const stmt = `var o = {}; for (var i = 0; i < 100000; i++) o = {a: o}; JSON.stringify(o);`
	sproc := createSproc(t, f.raw, "deep", `function () { `+stmt+` getContext().getResponse().setBody(1); }`)
	createTrigger(t, f.raw, "tdeep", "Pre", "All", `function () { `+stmt+` }`)
	for _, tc := range []struct {
		name string
		do   func() rawResp
	}{
		{"sproc", func() rawResp { return f.raw.do(http.MethodPost, sproc, nil, pkHeader, `["p"]`) }},
		{"pretrigger", func() rawResp {
			return f.raw.do(http.MethodPost, docsPath("sdb", "c"), []byte(`{"id":"new","pk":"p"}`), pkHeader, `["p"]`, "x-ms-documentdb-pre-trigger-include", "tdeep")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := tc.do()
			t.Logf("answered %d after %v", r.Status, time.Since(start))
			if msg := wantError(t, r, http.StatusBadRequest, "BadRequest"); !strings.Contains(msg, "RangeError") {
				t.Fatalf("message %q, want a RangeError", msg)
			}
		})
	}
	wantStatus(t, f.raw.do(http.MethodGet, docPath("sdb", "c", "new"), nil, pkHeader, `["p"]`), http.StatusNotFound)
	wantStatus(t, f.raw.do(http.MethodGet, docPath("sdb", "c", "seed"), nil, pkHeader, `["p"]`), http.StatusOK)
}

// TestParallelRegexpProceduresNeverAnswerNoMatch is the shared-emulator
// scenario: eight stored procedures at once, each returning the result of
// a catastrophic regular expression, at the service's 5 s limit. Every one
// ends with the limit's 408; none answers 200 with the timed-out match's
// false (one did, after 5.25 s, when the end of a script past its bound
// could win over the bound).
func TestParallelRegexpProceduresNeverAnswerNoMatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	c := f.rawFor(t)
	path := createSproc(t, c, "regexpbody",
		`function () { getContext().getResponse().setBody(/^(a+)+(?=b)\1?c$/.test("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")); }`)
	var wg sync.WaitGroup
	statuses := make([]string, 8)
	for i := range statuses {
		r := c.req(http.MethodPost, path, nil)
		r.Header.Set(pkHeader, `["p"]`)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			resp, err := c.hc.Do(r)
			if err != nil {
				statuses[i] = err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			statuses[i] = fmt.Sprint(resp.StatusCode)
			if resp.StatusCode != http.StatusRequestTimeout {
				statuses[i] += " " + string(body)
			}
			t.Logf("procedure %d: %d after %v", i, resp.StatusCode, time.Since(start).Round(time.Millisecond))
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != "408" {
			t.Errorf("procedure %d answered %s, want 408", i, s)
		}
	}
}

// TestLongProceduresLeaveThePoolToOthers is the shared-emulator scenario:
// eight stored procedures that each compute for 3 s of their 5 s limit run
// at once (as many as the PostgreSQL pool has connections) while another
// client reads an item. Scripts have a bound of their own on the pool's
// connections, so the point read is answered while every procedure is
// still running: it does not wait for a connection a script holds. The
// read's latency under that load is logged next to its unloaded latency.
func TestLongProceduresLeaveThePoolToOthers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	ctx := context.Background()
	if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString("q"), []byte(`{"id":"r","pk":"q"}`), nil); err != nil {
		t.Fatal(err)
	}
	read := func() time.Duration {
		start := time.Now()
		if _, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString("q"), "r", nil); err != nil {
			t.Fatalf("point read: %v", err)
		}
		return time.Since(start)
	}
	read()
	unloaded := read()
	c := f.rawFor(t)
	path := createSproc(t, c, "busy", `function () { var t = Date.now(); while (Date.now() - t < 3000) {} getContext().getResponse().setBody(1); }`)
	var wg sync.WaitGroup
	var firstDone atomic.Int64 // unix nanoseconds of the first procedure's answer
	started := time.Now()
	for i := 0; i < 8; i++ {
		r := c.req(http.MethodPost, path, nil)
		r.Header.Set(pkHeader, `["p"]`)
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.hc.Do(r)
			firstDone.CompareAndSwap(0, time.Now().UnixNano())
			if err != nil {
				t.Errorf("procedure: %v", err)
				return
			}
			io.Copy(io.Discard, resp.Body) //nolint:errcheck
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("procedure answered %d", resp.StatusCode)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // the procedures hold their connections
	loaded := read()
	readDone := time.Now()
	wg.Wait()
	t.Logf("point read %v unloaded, %v with eight procedures computing (GOMAXPROCS %d); the first procedure answered %v after they started",
		unloaded, loaded, runtime.GOMAXPROCS(0), time.Duration(firstDone.Load()-started.UnixNano()))
	if first := firstDone.Load(); first != 0 && readDone.UnixNano() > first {
		t.Errorf("the point read waited for a procedure to end (it answered after %v): scripts took every connection", loaded)
	}
}
