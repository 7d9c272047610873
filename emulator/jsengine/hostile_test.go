package jsengine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// hangAfter is how long a test waits for an answer before it calls the
// execution hung: a hang detector, not a timing requirement.
const hangAfter = 20 * time.Second

// Hostile script bodies: each one spends its time in native work goja's
// interrupt does not reach (the fix keeps their answers at the bound).
const (
	// catastrophic backtracking in regexp2 (a lookahead and a
	// backreference keep the pattern off Go's linear regexp)
	hostileRegexp = `/^(a+)+(?=b)\1?c$/.test("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")`
	// a thrown value whose formatting loops
	hostileThrow = `throw { get message() { while (true) {} }, toString() { while (true) {} } }`
	// one JSON.stringify call that runs for tens of seconds: a 4,900-deep
	// chain (under MaxJSONDepth) reached 300 times (goja's cycle check
	// scans the enclosing objects, quadratic in the depth)
	hostileJSON = `var o = {}; for (var i = 0; i < 4900; i++) o = {a: o}; var a = []; for (var j = 0; j < 300; j++) a.push(o); JSON.stringify(a)`
)

// hostileCase is one hostile script as a procedure, a pre-trigger or a
// UDF body.
type hostileCase struct {
	name, kind, src string
	abandons        bool // the goroutine outlives the answer (counted)
}

func hostileCases() []hostileCase {
	var cs []hostileCase
	for _, h := range []struct {
		name, stmt string
		abandons   bool
	}{
		{"regexp", hostileRegexp + ";", true},
		{"throw", hostileThrow + ";", false},
		{"json", hostileJSON + ";", false},
	} {
		cs = append(cs,
			hostileCase{h.name + "/sproc", "sproc", `function () { ` + h.stmt + ` getContext().getResponse().setBody(1); }`, h.abandons},
			hostileCase{h.name + "/pretrigger", "trigger", `function () { ` + h.stmt + ` getContext().getRequest().setBody({id: "x"}); }`, h.abandons},
			hostileCase{h.name + "/udf", "udf", `function (x) { ` + h.stmt + ` return x; }`, h.abandons},
		)
	}
	return cs
}

// runHostile runs c once on e and returns its error.
func runHostile(ctx context.Context, e *Engine, c hostileCase, host Host) error {
	k := CacheKey{Container: 1, Kind: c.kind, ID: c.name, ETag: "1"}
	switch c.kind {
	case "udf":
		_, err := e.CallUDF(ctx, k, c.src, [][]byte{[]byte(`1`)})
		return err
	case "trigger":
		_, err := e.Run(ctx, Script{Key: k, Source: c.src, Host: host, RequestBody: []byte(`{"id":"x"}`), OperationType: "Create"})
		return err
	}
	_, err := e.RunSproc(ctx, Script{Key: k, Source: c.src, Host: host})
	return err
}

// answer runs f and fails the test when it does not return within
// hangAfter; it returns f's error and the measured duration.
func answer(t *testing.T, f func() error) (time.Duration, error) {
	t.Helper()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- f() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(hangAfter):
		t.Fatalf("no answer after %v", hangAfter)
		return 0, nil
	}
}

// TestHostileScriptsAnswerAtTheBound: each hostile script, as a stored
// procedure, a pre-trigger and a UDF, fails with ErrTimeout instead of
// hanging its caller; one whose goroutine is still in native work is
// abandoned and counted, and the count of those still running goes back
// to zero (the regular expression match timeout ends them).
func TestHostileScriptsAnswerAtTheBound(t *testing.T) {
	t.Parallel()
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := New(Config{Timeout: 300 * time.Millisecond})
			took, err := answer(t, func() error { return runHostile(context.Background(), e, c, nil) })
			t.Logf("answered in %v: %v; %+v", took, err, e.Stats())
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err %v, want ErrTimeout", err)
			}
			if c.abandons && e.Stats().Abandoned != 1 {
				t.Fatalf("stats %+v, want 1 abandoned", e.Stats())
			}
			// (the match timeout is the process's: a test with a longer
			// bound may have raised it before any execution)
			linger := regexpMatchTimeout() + hangAfter
			start := time.Now()
			for e.Stats().AbandonedRunning != 0 {
				if time.Since(start) > linger {
					t.Fatalf("stats %+v: an abandoned execution still runs after %v", e.Stats(), linger)
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("every goroutine ended %v after the answer", time.Since(start))
		})
	}
}

// TestHostileScriptCanceled: a caller that goes away gets its answer at
// once even while the script is in native work.
func TestHostileScriptCanceled(t *testing.T) {
	t.Parallel()
	e := New(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	took, err := answer(t, func() error { return runHostile(ctx, e, hostileCases()[0], nil) })
	t.Logf("answered in %v: %v", took, err)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// TestShutdownStopsScripts: Engine.Shutdown ends a running script with
// ErrShutdown, native work or not, and refuses later ones.
func TestShutdownStopsScripts(t *testing.T) {
	t.Parallel()
	var e *Engine
	for _, src := range []string{`function () { while (true) {} }`, `function () { ` + hostileRegexp + `; }`} {
		e = New(Config{})
		time.AfterFunc(100*time.Millisecond, e.Shutdown)
		took, err := answer(t, func() error {
			_, err := e.RunSproc(context.Background(), Script{Key: key(src), Source: src})
			return err
		})
		t.Logf("answered in %v: %v", took, err)
		if !errors.Is(err, ErrShutdown) {
			t.Fatalf("err %v, want ErrShutdown", err)
		}
	}
	if _, err := e.CallUDF(context.Background(), CacheKey{ID: "u"}, `function () { return 1; }`, nil); !errors.Is(err, ErrShutdown) {
		t.Fatalf("UDF after shutdown: %v", err)
	}
}

// countingHost counts the collection calls that reach it; block makes
// Write wait for its context (a statement cancelled by the bound).
type countingHost struct {
	calls   atomic.Int64
	block   bool
	started chan struct{}
	once    sync.Once
}

func (h *countingHost) op(ctx context.Context) (Outcome, error) {
	h.calls.Add(1)
	if h.block {
		h.once.Do(func() { close(h.started) })
		<-ctx.Done()
		return Outcome{}, ctx.Err()
	}
	return Outcome{Result: []byte(`{"id":"x"}`), Status: 201}, nil
}
func (h *countingHost) Write(ctx context.Context, _, _ string, _ []byte, _ Options) (Outcome, error) {
	return h.op(ctx)
}
func (h *countingHost) Point(ctx context.Context, _, _ string, _ Options) (Outcome, error) {
	return h.op(ctx)
}
func (h *countingHost) Query(ctx context.Context, _ string, _ []byte, _ Options) (Outcome, error) {
	return h.op(ctx)
}
func (h *countingHost) SelfLink() string { return "dbs/a/colls/b/" }
func (h *countingHost) AltLink() string  { return "dbs/d/colls/c" }

// TestFencedHost: closing the fence waits for the call in flight (it ends
// with its context), and every call after it fails without reaching the
// Host, whichever operation it is.
func TestFencedHost(t *testing.T) {
	t.Parallel()
	ops := []struct {
		name string
		call func(h Host, ctx context.Context) (Outcome, error)
	}{
		{"Write", func(h Host, ctx context.Context) (Outcome, error) {
			return h.Write(ctx, "createDocument", "l", []byte(`{}`), Options{})
		}},
		{"Point", func(h Host, ctx context.Context) (Outcome, error) {
			return h.Point(ctx, "readDocument", "l", Options{})
		}},
		{"Query", func(h Host, ctx context.Context) (Outcome, error) { return h.Query(ctx, "l", []byte(`{}`), Options{}) }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			inner := &countingHost{block: true, started: make(chan struct{})}
			f := &fencedHost{h: inner}
			ctx, cancel := context.WithCancel(context.Background())
			inFlight := make(chan error, 1)
			go func() { _, err := op.call(f, ctx); inFlight <- err }()
			<-inner.started
			closed := make(chan struct{})
			go func() { f.close(); close(closed) }()
			select {
			case <-closed:
				t.Fatal("close returned while a host call was in flight")
			case <-time.After(50 * time.Millisecond):
			}
			cancel() // the bound ends the call's context
			if err := <-inFlight; !errors.Is(err, context.Canceled) {
				t.Fatalf("in-flight call: %v", err)
			}
			select {
			case <-closed:
			case <-time.After(hangAfter):
				t.Fatal("close did not return after the in-flight call ended")
			}
			before := inner.calls.Load()
			if _, err := op.call(f, context.Background()); !errors.Is(err, errAbandoned) {
				t.Fatalf("call after close: %v, want errAbandoned", err)
			}
			if inner.calls.Load() != before {
				t.Fatal("a call after close reached the host")
			}
		})
	}
}

// TestAbandonedScriptLeavesTheHost: a procedure abandoned while its host
// call is in flight (the call ends with the bound's context) makes no
// host call after its caller was answered.
func TestAbandonedScriptLeavesTheHost(t *testing.T) {
	t.Parallel()
	e := New(Config{Timeout: 200 * time.Millisecond})
	h := &countingHost{}
	src := `function () { for (;;) { try { __.createDocument(__.getSelfLink(), {id: "x"}); } catch (e) {} ` + hostileRegexp + `; } }`
	took, err := answer(t, func() error {
		_, err := e.RunSproc(context.Background(), Script{Key: key("loop"), Source: src, Host: h})
		return err
	})
	n := h.calls.Load()
	t.Logf("answered in %v: %v; %d host calls; %+v", took, err, n, e.Stats())
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
	time.Sleep(300 * time.Millisecond)
	if m := h.calls.Load(); m != n {
		t.Fatalf("%d host calls after the answer", m-n)
	}
}

// TestJSONStringifyGuard: the guarded JSON.stringify serialises as the
// native one does (replacer functions and lists, space, toJSON, cycles)
// and refuses nesting past MaxJSONDepth with RangeError. (A long bound:
// the race detector slows goja's deep serialisation tenfold.)
func TestJSONStringifyGuard(t *testing.T) {
	t.Parallel()
	e := New(Config{Timeout: time.Minute})
	cases := []struct{ name, expr, want string }{
		{"plain", `JSON.stringify({b: 1, a: [1, "x", null, true, {c: {}}]})`, `{"b":1,"a":[1,"x",null,true,{"c":{}}]}`},
		{"undefined", `JSON.stringify(undefined)`, `undefined`},
		{"function member", `JSON.stringify({f: function () {}, a: 1})`, `{"a":1}`},
		{"toJSON", `JSON.stringify({d: {toJSON: function (k) { return "k=" + k; }}})`, `{"d":"k=d"}`},
		{"replacer function", `JSON.stringify({a: 1, b: {c: 2}}, function (k, v) { return typeof v === "number" ? v * 10 : v; })`, `{"a":10,"b":{"c":20}}`},
		{"replacer this", `JSON.stringify({a: {b: 1}}, function (k, v) { return k === "b" ? Object.keys(this).join() : v; })`, `{"a":{"b":"b"}}`},
		{"property list order", `JSON.stringify({a: 1, b: {a: 3, c: 4}, c: 2}, ["c", "b", "a"])`, `{"c":2,"b":{"c":4,"a":3},"a":1}`},
		{"property list numbers", `JSON.stringify({1: "one", 2: "two"}, [1, new String("2"), 1])`, `{"1":"one","2":"two"}`},
		{"property list arrays", `JSON.stringify([{a: 1, b: 2}], ["a"])`, `[{"a":1}]`},
		{"property list cycle", `(function () { var o = {}; o.a = o; try { JSON.stringify(o, ["a"]); } catch (e) { return e.name; } })()`, `TypeError`},
		{"cycle", `(function () { var o = {}; o.a = [o]; try { JSON.stringify(o); } catch (e) { return e.name; } })()`, `TypeError`},
		{"space", `JSON.stringify({a: [1]}, null, 2)`, "{\n  \"a\": [\n    1\n  ]\n}"},
		{"wrappers", `JSON.stringify([new Number(1), new String("s"), new Boolean(false)], ["x"])`, `[1,"s",false]`},
		{"same object twice", `(function () { var x = {v: 1}; return JSON.stringify({a: x, b: [x, x]}); })()`, `{"a":{"v":1},"b":[{"v":1},{"v":1}]}`},
		{"depth at the bound", `(function () { var o = 1; for (var i = 0; i < 5000; i++) o = [o]; return JSON.stringify(o).length; })()`, `10001`},
		{"too deep", `(function () { var o = {}; for (var i = 0; i < 100000; i++) o = {a: o}; try { JSON.stringify(o); } catch (e) { return e.name; } })()`, `RangeError`},
		{"replaced RangeError", `(function () { RangeError = null; var o = {}; for (var i = 0; i < 5001; i++) o = [o]; try { JSON.stringify(o); } catch (e) { return e instanceof Error; } })()`, `true`},
		{"length and name", `JSON.stringify.length + JSON.stringify.name`, `3stringify`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, err := e.RunSproc(context.Background(), Script{Key: key(c.name), Source: `function () { var r = ` + c.expr + `; getContext().getResponse().setBody(String(r)); }`})
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			want.WriteString(`"`)
			want.WriteString(strings.NewReplacer("\n", `\n`, `"`, `\"`).Replace(c.want))
			want.WriteString(`"`)
			if string(res.Body) != want.String() {
				t.Fatalf("got %s, want %s", res.Body, want.String())
			}
		})
	}
}

// TestDeepResponseBody: the wrapper's own serialisation of the response
// body is bounded too (a 100,000-deep body used to take 30 s).
func TestDeepResponseBody(t *testing.T) {
	t.Parallel()
	e := New(Config{Timeout: time.Minute})
	took, err := answer(t, func() error {
		_, err := run(t, e, `function () { var o = {}; for (var i = 0; i < 100000; i++) o = {a: o}; getContext().getResponse().setBody(o); }`, "")
		return err
	})
	t.Logf("answered in %v: %v", took, err)
	var se *Error
	if !errors.As(err, &se) || se.Status != 400 || !strings.Contains(se.Message, "RangeError") {
		t.Fatalf("err %v, want a 400 RangeError", err)
	}
}

// FuzzRunScript: any procedure body either runs or fails with an *Error
// (or the host's own error), within the bound: never a panic, never a
// hang. The seeds are the hostile scripts.
func FuzzRunScript(f *testing.F) {
	for _, c := range hostileCases() {
		if c.kind == "sproc" {
			f.Add(c.src)
		}
	}
	for _, s := range []string{
		`function () { getContext().getResponse().setBody(JSON.stringify({a: [1, 2]}, null, 1)); }`,
		`function () { var o = {}; for (var i = 0; i < 100000; i++) o = {a: o}; getContext().getResponse().setBody(o); }`,
		`function () { throw new Error(404, "x"); }`,
		`function () { "x".repeat(1e9); }`,
		`function () { while (true) {} }`,
		`function () { __.readDocument("dbs/d/colls/c/docs/x", function (err, doc) { throw err; }); }`,
	} {
		f.Add(s)
	}
	e := New(Config{Timeout: 200 * time.Millisecond, MaxMemory: 64 << 20})
	f.Fuzz(func(t *testing.T, src string) {
		took, err := answer(t, func() error {
			_, err := e.RunSproc(context.Background(), Script{Key: key(src), Source: src, Host: &countingHost{}, Logging: true})
			return err
		})
		var se *Error
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("after %v: err %v (%T), want nil or *Error", took, err, err)
		}
	})
}

// TestWatchdogEndPastTheBound: an execution that ends after its bound has
// passed, before the watchdog has seen the bound, is stopped by the bound
// all the same: its result does not stand. (Eight parallel stored
// procedures each running a catastrophic regular expression on a loaded
// machine once let one answer 200 with the timed-out match's "no match":
// the watchdog's select picked the execution's end over the expired
// context.) Each round gives the watchdog both at once.
func TestWatchdogEndPastTheBound(t *testing.T) {
	t.Parallel()
	rt := goja.New()
	for i := 0; i < 200; i++ {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
		w := guard(ctx, rt, 1<<30)
		if why := w.stop(); !errors.Is(why, ErrTimeout) {
			cancel()
			t.Fatalf("round %d: an execution that ended past its bound stopped with %v, want ErrTimeout", i, why)
		}
		cancel()
	}
}
