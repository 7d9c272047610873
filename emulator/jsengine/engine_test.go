package jsengine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func key(id string) CacheKey { return CacheKey{Container: 1, Kind: "sprocs", ID: id, ETag: "1"} }

func run(t *testing.T, e *Engine, src, args string) (Result, error) {
	t.Helper()
	return e.RunSproc(context.Background(), Script{Key: key(t.Name()), Source: src, Args: args, Logging: true})
}

// TestRunSprocResponseBody pins the response body rules of §2.2: the body
// starts as "", setBody values are JSON-serialised, appendValue
// concatenates, and parameters are applied like Function.prototype.apply.
func TestRunSprocResponseBody(t *testing.T) {
	e := New(Config{})
	cases := []struct {
		name, src, args, want string
	}{
		{"hello", `function () { getContext().getResponse().setBody("Hello, World"); }`, "", `"Hello, World"`},
		{"unset body is the empty string", `function () {}`, "", `""`},
		{"null param", `function (p) { getContext().getResponse().setBody(p); }`, `[null]`, `null`},
		{"no args from object", `function (p) { getContext().getResponse().setBody(typeof p); }`, `{"param1":4}`, `"undefined"`},
		{"array-like", `function (a, b) { getContext().getResponse().setBody(a + b); }`, `{"0":"one","1":"two","length":2}`, `"onetwo"`},
		{"array-like fractional length", `function (a, b) { getContext().getResponse().setBody([a, typeof b]); }`, `{"0":"one","1":"two","length":1.5}`, `["one","undefined"]`},
		{"storedProcedure1", `function () { var r = getContext().getResponse(); for (var i = 0; i < 1000; i++) { r.setBody(i); r.getBody(); } }`, "", `999`},
		{"storedProcedure2", `function () { for (var i = 0; i < 10; i++) getContext().getResponse().appendValue("Body", i); }`, "", `"0123456789"`},
		{"storedProcedure3", `function (input) { getContext().getResponse().setBody("a" + input.temp); }`, `[{"temp":"so"}]`, `"aso"`},
		{"arrow", `() => getContext().getResponse().setBody(1)`, "", `1`},
		{"ErrorCodes", `function () { getContext().getResponse().setBody(ErrorCodes.RetryWith); }`, "", `449`},
		{"promise", `async function () { var v = await Promise.resolve(7); getContext().getResponse().setBody(v); }`, "", `7`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.RunSproc(context.Background(), Script{Key: key(c.name), Source: c.src, Args: c.args})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Body) != c.want {
				t.Fatalf("body %s, want %s", res.Body, c.want)
			}
		})
	}
}

// TestRunSprocErrors pins the error shapes of §2.4.
func TestRunSprocErrors(t *testing.T) {
	e := New(Config{})
	cases := []struct {
		name, src       string
		status, number  int
		prefix, contain string
	}{
		{"Error", `function () { throw new Error("boom"); }`, 400, 0, "Encountered exception while executing function. Exception = Error: boom\r\nStack trace: ", ""},
		{"Error with number", `function () { throw new Error(404, "gone"); }`, 400, 404, "Encountered exception while executing function. Exception = Error: gone", ""},
		{"string", `function () { throw '{"code":700}'; }`, 400, 0, `{"code":700}`, ""},
		{"syntax", `function ( { `, 400, 0, "Encountered exception while executing function. Exception = SyntaxError: ", ""},
		{"not a function", `serverScript() { var x = 10; }`, 400, 0, "Encountered exception while executing function. Exception = SyntaxError: ", ""},
		{"abort", `function () { Promise.resolve().then(function () { getContext().abort(new Error(429, "not accepted")); }); }`, 400, 429, "Encountered exception while executing function. Exception = Error: not accepted", ""},
		{"console.log misuse", `function () { console.log(1, 2); }`, 400, 400, "", "First argument to console.log should be a string"},
		{"set unknown property", `function () { getContext().getResponse().setValue("x", 1); }`, 400, 400, "", "Cannot set new values: x"},
		{"recursion", `function f() { (function r() { r(); })(); }`, 400, 0, "", "Maximum call stack size exceeded"},
		{"huge repeat", `function f() { "x".repeat(1e9); }`, 400, 0, "", "Script resource limit exceeded"},
		{"huge apply", `function f() { Math.max.apply(null, {length: 1e9}); }`, 400, 0, "", "Script resource limit exceeded"},
		{"no typed arrays", `function f() { new ArrayBuffer(1e9); }`, 400, 0, "", "ArrayBuffer is not defined"},
		{"no require", `function f() { require("fs"); }`, 400, 0, "", "require is not defined"},
		{"no timers", `function f() { setTimeout(function () {}, 1); }`, 400, 0, "", "setTimeout is not defined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.RunSproc(context.Background(), Script{Key: key(c.name), Source: c.src, Logging: true})
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err %v, want *Error", err)
			}
			if se.Status != c.status || se.Number != c.number || !strings.HasPrefix(se.Message, c.prefix) || !strings.Contains(se.Message, c.contain) {
				t.Fatalf("got %d/%d %q", se.Status, se.Number, se.Message)
			}
		})
	}
}

// TestRunSprocLog pins console.log's %s substitution and concatenation.
func TestRunSprocLog(t *testing.T) {
	e := New(Config{})
	res, err := run(t, e, `function () { console.log("The value of %s is %s.", "x", 1); console.log("!"); }`, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Log != "The value of x is 1.!" {
		t.Fatalf("log %q", res.Log)
	}
	res, err = e.RunSproc(context.Background(), Script{Key: key("nolog"), Source: `function () { console.log("x"); }`})
	if err != nil || res.Log != "" {
		t.Fatalf("without logging: %q %v", res.Log, err)
	}
}

// TestRunSprocTimeout: an infinite loop is interrupted at the time bound
// with ErrTimeout.
func TestRunSprocTimeout(t *testing.T) {
	e := New(Config{Timeout: 200 * time.Millisecond})
	_, err := run(t, e, `function () { while (true) {} }`, "")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
	// the engine still works
	res, err := e.RunSproc(context.Background(), Script{Key: key("after"), Source: `function () { getContext().getResponse().setBody(1); }`})
	if err != nil || string(res.Body) != "1" {
		t.Fatalf("after timeout: %s %v", res.Body, err)
	}
}

// TestRunSprocCanceled: a caller that goes away stops the script.
func TestRunSprocCanceled(t *testing.T) {
	e := New(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := e.RunSproc(ctx, Script{Key: key("cancel"), Source: `function () { while (true) {} }`})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// TestRunSprocMemory: a script that allocates without bound is stopped
// by the watchdog with a clear error.
func TestRunSprocMemory(t *testing.T) {
	e := New(Config{MaxMemory: 64 << 20, Timeout: 30 * time.Second})
	_, err := run(t, e, `function () { var a = [], s = "x".repeat(1 << 16); while (true) { a.push(s + a.length); } }`, "")
	var se *Error
	if !errors.As(err, &se) || se.Status != 400 || !strings.Contains(se.Message, "memory limit") {
		t.Fatalf("err %v, want the memory error", err)
	}
}

// TestCompileCache: a script compiles once per key; a new etag compiles
// anew; the cache is bounded.
func TestCompileCache(t *testing.T) {
	e := New(Config{CacheSize: 2})
	src := `function () {}`
	for i := 0; i < 3; i++ {
		if _, err := e.RunSproc(context.Background(), Script{Key: key("a"), Source: src}); err != nil {
			t.Fatal(err)
		}
	}
	if e.CacheLen() != 1 {
		t.Fatalf("cache %d, want 1", e.CacheLen())
	}
	for _, id := range []string{"b", "c", "d"} {
		_, _ = e.RunSproc(context.Background(), Script{Key: key(id), Source: src})
	}
	if e.CacheLen() != 2 {
		t.Fatalf("cache %d, want the bound 2", e.CacheLen())
	}
}

// TestCallUDF pins the UDF entry point: JSON arguments in, JSON result
// out, undefined as nil, throws as the service's 400, no getContext.
func TestCallUDF(t *testing.T) {
	e := New(Config{})
	ctx := context.Background()
	k := CacheKey{Container: 1, Kind: "udfs", ID: "tax", ETag: "1"}
	tax := `function tax(income) { if (income == undefined) throw 'no input'; if (income < 1000) return income * 0.1; else if (income < 10000) return income * 0.2; else return income * 0.4; }`
	got, err := e.CallUDF(ctx, k, tax, [][]byte{[]byte(`60000`)})
	if err != nil || string(got) != "24000" {
		t.Fatalf("tax(60000) = %s, %v", got, err)
	}
	if _, err := e.CallUDF(ctx, k, tax, [][]byte{[]byte(`null`)}); err == nil || !strings.Contains(err.Error(), "no input") {
		t.Fatalf("tax(null): %v", err)
	}
	got, err = e.CallUDF(ctx, CacheKey{ID: "u"}, `function () { return undefined; }`, nil)
	if err != nil || got != nil {
		t.Fatalf("undefined result: %s %v", got, err)
	}
	if _, err := e.CallUDF(ctx, CacheKey{ID: "ctx"}, `function () { return getContext(); }`, nil); err == nil || !strings.Contains(err.Error(), "getContext is not defined") {
		t.Fatalf("getContext in a UDF: %v", err)
	}
	u, err := e.NewUDFRunner(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for i := 0; i < 100; i++ {
		got, err := u.Call(CacheKey{ID: "plus1"}, `function (x) { return x + 1; }`, [][]byte{[]byte(`{"a":1}`)})
		if err != nil || string(got) != `"[object Object]1"` {
			t.Fatalf("plus1: %s %v", got, err)
		}
	}
}

// BenchmarkRunSprocTrivial measures one execution of a trivial procedure:
// a fresh runtime, the wrapper installed, the cached program run.
func BenchmarkRunSprocTrivial(b *testing.B) {
	e := New(Config{})
	s := Script{Key: key("bench"), Source: `function () { getContext().getResponse().setBody("ok"); }`}
	for b.Loop() {
		if _, err := e.RunSproc(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCompileCacheBytes: the cache is bounded by source bytes as well.
func TestCompileCacheBytes(t *testing.T) {
	e := New(Config{CacheBytes: 1000})
	src := `function () { /*` + strings.Repeat("x", 400) + `*/ }`
	for _, id := range []string{"a", "b", "c", "d"} {
		if _, err := e.RunSproc(context.Background(), Script{Key: key(id), Source: src}); err != nil {
			t.Fatal(err)
		}
	}
	if e.CacheLen() != 2 {
		t.Fatalf("cache %d, want 2 scripts of ~420 bytes under 1000", e.CacheLen())
	}
}

// throwingHost refuses every operation with a Throw (as an invalid link
// is refused); only the error path is exercised.
type throwingHost struct{}

func (throwingHost) Write(context.Context, string, string, []byte, Options) (Outcome, error) {
	return Outcome{}, &Throw{Number: 400, Message: "bad link"}
}
func (throwingHost) Point(context.Context, string, string, Options) (Outcome, error) {
	return Outcome{}, &Throw{Number: 400, Message: "bad link"}
}
func (throwingHost) Query(context.Context, string, []byte, Options) (Outcome, error) {
	return Outcome{}, &Throw{Number: 400, Message: "bad link"}
}
func (throwingHost) SelfLink() string { return "dbs/a/colls/b/" }
func (throwingHost) AltLink() string  { return "dbs/d/colls/c" }

// TestThrowsSurviveRedefinedError: what the host throws is the wrapper's
// Error(number, message), catchable by the script, even when the script
// replaced the global Error.
func TestThrowsSurviveRedefinedError(t *testing.T) {
	e := New(Config{})
	res, err := e.RunSproc(context.Background(), Script{Key: key("redefined"), Host: throwingHost{}, Source: `function () {
		Error = function () { return 42; };
		try { __.readDocument("x/docs/y"); } catch (e) { getContext().getResponse().setBody([e.number, e.message]); }
	}`})
	if err != nil || string(res.Body) != `[400,"bad link"]` {
		t.Fatalf("body %s, err %v", res.Body, err)
	}
}
