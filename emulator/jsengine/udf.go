package jsengine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// UDFRunner calls user-defined functions in one runtime for the life of
// a query. It is not safe for concurrent use; Close releases it.
//
// The calls run on a goroutine of the runner (see Engine): a call that is
// still running AbandonGrace after the runner's bound is abandoned, the
// caller gets ErrTimeout at once (and can release its connection), and
// every later call fails the same way.
type UDFRunner struct {
	e      *Engine
	x      *execution
	d      *driver
	cancel context.CancelFunc
	fns    map[CacheKey]goja.Value
	why    error           // the caller's: set when a call was abandoned
	spent  error           // the runner goroutine's: set by an interrupt
	calls  chan udfCall    // to the runner's goroutine; closed by Close
	out    chan udfOutcome // its answers (buffered: an abandoned call never blocks)
	closed bool
}

// udfCall is one call handed to the runner's goroutine.
type udfCall struct {
	key  CacheKey
	body string
	args [][]byte
}

// udfOutcome is the answer of one call.
type udfOutcome struct {
	res []byte
	err error
}

// NewUDFRunner returns a runner whose calls together are bounded by the
// engine's time and memory limits and by ctx.
func (e *Engine) NewUDFRunner(ctx context.Context) (*UDFRunner, error) {
	if e.stopped.Err() != nil {
		return nil, ErrShutdown
	}
	startExecutions()
	x, cancel := e.newExecution(ctx)
	h := x.rt.NewObject()
	for k, val := range map[string]any{"maxElements": MaxElements, "maxChars": MaxChars, "maxMessageSize": MaxMessageSize, "udf": true} {
		_ = h.Set(k, val)
	}
	x.setJSONGuard(h)
	d, err := x.installWith(h) // without context or collection (trusted code: on the caller's goroutine)
	if err != nil {
		cancel()
		return nil, err
	}
	u := &UDFRunner{e: e, x: x, d: d, cancel: cancel, fns: map[CacheKey]goja.Value{},
		calls: make(chan udfCall), out: make(chan udfOutcome, 1)}
	x.wd = guard(x.ctx, x.rt, e.cfg.MaxMemory)
	go u.serve()
	return u, nil
}

// serve is the runner's goroutine: it runs the calls until Close, then
// ends the watchdog.
func (u *UDFRunner) serve() {
	defer func() {
		_ = u.x.wd.stop()
		u.x.finish()
	}()
	for c := range u.calls {
		var o udfOutcome
		func() {
			defer func() {
				if p := recover(); p != nil {
					o = udfOutcome{err: fmt.Errorf("jsengine: a user-defined function's execution panicked: %v", p)}
				}
			}()
			o.res, o.err = u.call(c)
		}()
		if u.x.wd.expired() && o.err == nil {
			o = udfOutcome{err: u.x.stopped(u.x.wd.why)}
		}
		u.out <- o
	}
}

// Call calls the UDF body (its source; key identifies its version) with
// args, each the JSON text of one argument, and returns the JSON text of
// its result, nil when the result is undefined. A throw is an *Error
// (400) in the service's wording; a bound exceeded is ErrTimeout or a 400.
func (u *UDFRunner) Call(key CacheKey, body string, args [][]byte) ([]byte, error) {
	if u.why != nil {
		return nil, u.why
	}
	if u.closed {
		return nil, errors.New("jsengine: call on a closed UDFRunner")
	}
	u.calls <- udfCall{key: key, body: body, args: args}
	select {
	case o := <-u.out:
		return o.res, o.err
	case <-u.x.wd.tripped:
	}
	grace := time.NewTimer(AbandonGrace)
	defer grace.Stop()
	select {
	case o := <-u.out:
		return o.res, o.err
	case <-grace.C:
	}
	if !u.x.abandon() {
		o := <-u.out
		return o.res, o.err
	}
	u.why = u.x.stopped(u.x.wd.why)
	return nil, u.why
}

// call runs one call on the runner's goroutine.
func (u *UDFRunner) call(c udfCall) ([]byte, error) {
	if u.spent != nil {
		return nil, u.spent
	}
	fn, ok := u.fns[c.key]
	if !ok {
		prog, err := u.e.compile(c.key, c.body)
		if err != nil {
			return nil, err
		}
		if fn, err = u.x.rt.RunProgram(prog); err != nil {
			return nil, u.failed(err)
		}
		if _, ok := goja.AssertFunction(fn); !ok {
			return nil, &Error{Status: 400, Message: "Encountered exception while executing function. Exception = TypeError: the body of the user-defined function '" + c.key.ID + "' is not a function."}
		}
		u.fns[c.key] = fn
	}
	call, _ := goja.AssertFunction(fn)
	vals := make([]goja.Value, len(c.args))
	for i, a := range c.args {
		v, err := u.d.parse(goja.Undefined(), u.x.rt.ToValue(string(a)))
		if err != nil {
			return nil, u.failed(err)
		}
		vals[i] = v
	}
	r, err := call(goja.Undefined(), vals...)
	if err != nil {
		return nil, u.failed(err)
	}
	s, err := u.d.stringify(goja.Undefined(), r)
	if err != nil {
		return nil, u.failed(err)
	}
	if goja.IsUndefined(s) {
		return nil, nil
	}
	return []byte(s.String()), nil
}

// failed maps a call's failure, remembering interrupts (the runner is
// spent after one); it runs on the runner's goroutine.
func (u *UDFRunner) failed(err error) error {
	var ie *goja.InterruptedError
	interrupted := errors.As(err, &ie)
	if interrupted || u.x.wd.expired() {
		var why error
		if u.x.wd.expired() {
			why = u.x.wd.why
		} else if e, ok := ie.Value().(error); ok {
			why = e
		}
		u.spent = u.x.stopped(why)
		return u.spent
	}
	return u.x.fail(u.d, err)
}

// Close releases the runner: its goroutine ends once the call in flight,
// if any (an abandoned one), returns.
func (u *UDFRunner) Close() {
	if !u.closed {
		u.closed = true
		close(u.calls)
	}
	u.cancel()
}

// CallUDF calls one UDF once in a fresh runtime (see UDFRunner.Call).
func (e *Engine) CallUDF(ctx context.Context, key CacheKey, body string, args [][]byte) ([]byte, error) {
	u, err := e.NewUDFRunner(ctx)
	if err != nil {
		return nil, err
	}
	defer u.Close()
	return u.Call(key, body, args)
}
