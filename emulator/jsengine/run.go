package jsengine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// Host performs the collection operations of a stored procedure or
// trigger, confined to its container and logical partition, inside the
// execution's transaction. Operations that fail the way the service's
// operations fail (404, 409, 412, ...) return an Outcome with Err; an
// error return is either a *Throw (thrown into the script at the call, as
// the wrapper's argument checks are) or a failure of the emulator (the
// execution stops).
type Host interface {
	// Write performs op ("createDocument", "upsertDocument" or
	// "replaceDocument") of the document doc (JSON) at link (the
	// collection's link for create and upsert, the document's for
	// replace).
	Write(ctx context.Context, op, link string, doc []byte, opts Options) (Outcome, error)
	// Point performs op ("readDocument" or "deleteDocument") on the
	// document at link.
	Point(ctx context.Context, op, link string, opts Options) (Outcome, error)
	// Query runs one page of query (JSON {"query", "parameters"}) over the
	// collection at link, within the partition; Outcome.Result is the JSON
	// array of results and Outcome.Continuation the next page's token.
	Query(ctx context.Context, link string, query []byte, opts Options) (Outcome, error)
	// SelfLink and AltLink are the collection's RID-based and name-based
	// links (getSelfLink, getAltLink).
	SelfLink() string
	AltLink() string
}

// Options are the script options of a collection call the host uses.
type Options struct {
	PageSize     int    // pageSize (0: default)
	Continuation string // continuation
	ETag         string // etag (replace, upsert, delete)
	IfNoneMatch  string // ifNoneMatch (read)
}

// Outcome is the result of a collection operation.
type Outcome struct {
	Result       []byte // JSON: the resource, or the page's array
	Continuation string // feeds: "" on the last page
	NotModified  bool   // read with a matching ifNoneMatch
	Status       int    // responseOptions.statusCode of a success
	Err          *OpError
}

// OpError is a failed collection operation, delivered to the callback as
// err (err.number, err.message, err.body).
type OpError struct {
	Number  int
	Message string // the service's error text, {"Errors":["..."]}
}

// Throw is an error a Host returns to throw Error(Number, Message) into the
// script at the call (invalid links, options).
type Throw struct {
	Number  int
	Message string
}

// Error implements error.
func (t *Throw) Error() string { return t.Message }

// Script is one execution's input.
type Script struct {
	Key    CacheKey
	Source string
	// Args is the JSON text of the parameters applied to the function
	// (an array, an array-like object, or null); "" for none.
	Args string
	// Host does the collection operations; nil for none.
	Host Host
	// Logging enables console.log (x-ms-documentdb-script-enable-logging).
	Logging bool
	// RequestBody is the request's body (JSON; nil: undefined) and
	// OperationType its getOperationType() (triggers).
	RequestBody   []byte
	OperationType string
	// HasResponse says the script has getResponse(); ResponseBody is its
	// initial body (JSON; nil: the empty string, a stored procedure's).
	HasResponse  bool
	ResponseBody []byte
}

// Result is a successful execution's output.
type Result struct {
	Body []byte // JSON text of the response body; nil when undefined
	// BodySet reports that the script set or appended to the response body.
	BodySet bool
	// RequestBody is the JSON text of the request body when the script set
	// it (getRequest().setBody), serialised after the script finished; nil
	// when it did not.
	RequestBody []byte
	Log         string // concatenated console.log output
	Operations  int    // collection operations performed
}

// execution is the state of one run.
type execution struct {
	e       *Engine
	ctx     context.Context
	rt      *goja.Runtime
	start   time.Time
	ops     int
	log     strings.Builder
	aborted *Error
	fatal   error
	d       *driver   // the installed wrapper
	wd      *watchdog // set by supervise
	state   atomic.Int32
}

// RunSproc executes a stored procedure: the function is applied to
// s.Args, its callbacks run until none is left, and the response body is
// returned. Every failure is an *Error, except a failure of the host,
// returned as is. The caller commits the host's transaction only when err
// is nil.
func (e *Engine) RunSproc(ctx context.Context, s Script) (Result, error) {
	s.HasResponse = true
	return e.Run(ctx, s)
}

// Run executes a script (see RunSproc); triggers use it with their
// request and response bodies.
func (e *Engine) Run(ctx context.Context, s Script) (Result, error) {
	startExecutions()
	prog, err := e.compile(s.Key, s.Source)
	if err != nil {
		return Result{}, err
	}
	if e.stopped.Err() != nil {
		return Result{}, ErrShutdown
	}
	x, cancel := e.newExecution(ctx)
	defer cancel()
	var fence *fencedHost
	if s.Host != nil {
		fence = &fencedHost{h: s.Host}
		s.Host = fence
	}
	return x.supervise(func() (Result, error) { return x.run(prog, s) }, fence)
}

// newExecution returns an execution in a fresh runtime bounded by the
// engine's time limit, its shutdown and ctx (cancel releases them) and by
// the call depth.
func (e *Engine) newExecution(ctx context.Context) (*execution, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(e.stopped, func() { cancelCause(ErrShutdown) })
	ctx, cancelTimeout := context.WithTimeout(ctx, e.cfg.Timeout)
	x := &execution{e: e, ctx: ctx, rt: goja.New(), start: time.Now()}
	x.rt.SetMaxCallStackSize(e.cfg.MaxCallStackSize)
	return x, func() {
		cancelTimeout()
		unhook()
		cancelCause(context.Canceled)
	}
}

// stopped maps why the watchdog interrupted to the execution's error.
func (x *execution) stopped(why error) error {
	if why == nil {
		return ErrTimeout
	}
	if errors.Is(why, errCanceled) {
		if err := context.Cause(x.ctx); err != nil {
			return err
		}
		return context.Canceled
	}
	return why
}

// driver is the wrapper's interface to the engine.
type driver struct {
	call, next, describe, body, requestBody, responseChanged, parse, stringify, error goja.Callable
}

// install runs the wrapper in x.rt with the host object of s.
func (x *execution) install(s Script) (*driver, error) {
	h, err := x.hostObject(s)
	if err != nil {
		return nil, err
	}
	return x.installWith(h)
}

// installWith runs the wrapper in x.rt with the host object h.
func (x *execution) installWith(h *goja.Object) (*driver, error) {
	wp, err := wrapperProgram()
	if err != nil {
		return nil, err
	}
	v, err := x.rt.RunProgram(wp)
	if err != nil {
		return nil, err
	}
	installFn, _ := goja.AssertFunction(v)
	dv, err := installFn(goja.Undefined(), h)
	if err != nil {
		return nil, err
	}
	o := dv.ToObject(x.rt)
	d := &driver{}
	x.d = d
	for name, dst := range map[string]*goja.Callable{"call": &d.call, "next": &d.next, "describe": &d.describe, "body": &d.body,
		"requestBody": &d.requestBody, "responseChanged": &d.responseChanged, "parse": &d.parse, "stringify": &d.stringify, "error": &d.error} {
		f, ok := goja.AssertFunction(o.Get(name))
		if !ok {
			return nil, errors.New("jsengine: the wrapper lacks " + name)
		}
		*dst = f
	}
	return d, nil
}

// parseJSON parses JSON text in the runtime (nil: undefined).
func (x *execution) parseJSON(b []byte) (goja.Value, error) {
	if b == nil {
		return goja.Undefined(), nil
	}
	parse, _ := goja.AssertFunction(x.rt.Get("JSON").ToObject(x.rt).Get("parse"))
	return parse(goja.Undefined(), x.rt.ToValue(string(b)))
}

// propMap builds a wrapper property map with one writable Body.
func (x *execution) propMap(body goja.Value) *goja.Object {
	m := x.rt.NewObject()
	p := x.rt.NewObject()
	_ = p.Set("value", body)
	_ = p.Set("isWritable", true)
	_ = m.Set("Body", p)
	return m
}

func (x *execution) run(prog *goja.Program, s Script) (Result, error) {
	d, err := x.install(s)
	if err != nil {
		return Result{}, x.fail(nil, err)
	}
	fn, err := x.rt.RunProgram(prog)
	if err != nil {
		return Result{}, x.fail(d, err)
	}
	if _, err := d.call(goja.Undefined(), fn, x.rt.ToValue(s.Args)); err != nil {
		return Result{}, x.fail(d, err)
	}
	for {
		more, err := d.next(goja.Undefined())
		if err != nil {
			return Result{}, x.fail(d, err)
		}
		if x.aborted != nil {
			return Result{}, x.aborted
		}
		if !more.ToBoolean() {
			break
		}
	}
	if x.aborted != nil {
		return Result{}, x.aborted
	}
	res := Result{Log: x.log.String(), Operations: x.ops}
	if s.HasResponse {
		b, err := d.body(goja.Undefined())
		if err != nil {
			return Result{}, x.fail(d, err)
		}
		if !goja.IsUndefined(b) {
			res.Body = []byte(b.String())
			if len(res.Body) > MaxMessageSize {
				return Result{}, &Error{Status: 413, Message: `Resulting message would be too large because of "Body". Return from script with current message and use continuation token to call the script again or modify your script.`}
			}
		}
		changed, err := d.responseChanged(goja.Undefined())
		if err != nil {
			return Result{}, x.fail(d, err)
		}
		res.BodySet = changed.ToBoolean()
	}
	if s.RequestBody != nil {
		b, err := d.requestBody(goja.Undefined())
		if err != nil {
			return Result{}, x.fail(d, err)
		}
		if !goja.IsUndefined(b) {
			res.RequestBody = []byte(b.String())
		}
	}
	return res, nil
}

// fail converts a JavaScript failure into the execution's error. Once the
// watchdog has stopped the execution it calls nothing in the runtime: the
// failure is then the reason it stopped, whatever was thrown (a thrown
// object's message getter or toString is the script's own code).
func (x *execution) fail(d *driver, err error) error {
	if x.wd != nil && x.wd.expired() {
		return x.stopped(x.wd.why)
	}
	if x.aborted != nil {
		return x.aborted
	}
	if x.fatal != nil {
		return x.fatal
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(error); ok {
			return e
		}
		return ErrTimeout
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &Error{Status: 400, Message: "Encountered exception while executing function. Exception = RangeError: Maximum call stack size exceeded (the script recursed deeper than the emulator allows)."}
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	var ex *goja.Exception
	if errors.As(err, &ex) && d != nil {
		return x.describe(d, ex.Value())
	}
	return &Error{Status: 400, Message: "Encountered exception while executing function. Exception = " + err.Error()}
}

// describe renders a thrown value with the wrapper's describe.
func (x *execution) describe(d *driver, v goja.Value) error {
	dv, err := d.describe(goja.Undefined(), v)
	if err != nil {
		// describe ran the script's code (getters, toString): it threw,
		// or the watchdog stopped it
		if x.wd != nil && x.wd.expired() {
			return x.stopped(x.wd.why)
		}
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			return x.fail(nil, err)
		}
		return &Error{Status: 400, Message: "Encountered exception while executing function. Exception = " + x.safeString(v)}
	}
	o := dv.ToObject(x.rt)
	e := &Error{Status: 400, Number: int(o.Get("number").ToInteger()), Message: o.Get("text").String()}
	if e.Number == 413 {
		e.Status = 413
	}
	return e
}

// safeString renders v with its own String when that returns normally,
// and as "[object]" when it throws (it is the script's code).
func (x *execution) safeString(v goja.Value) (s string) {
	if o, ok := v.(*goja.Object); !ok || o == nil {
		return v.String()
	}
	defer func() {
		if recover() != nil {
			s = "[object]"
		}
	}()
	return v.String()
}
