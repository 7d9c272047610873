package jsengine

import (
	"context"
	"errors"

	"github.com/dop251/goja"
)

// UDFRunner calls user-defined functions in one runtime for the life of
// a query. It is not safe for concurrent use; Close releases it.
type UDFRunner struct {
	e      *Engine
	x      *execution
	d      *driver
	cancel context.CancelFunc
	stop   func() error
	fns    map[CacheKey]goja.Value
	why    error
}

// NewUDFRunner returns a runner whose calls together are bounded by the
// engine's time and memory limits and by ctx.
func (e *Engine) NewUDFRunner(ctx context.Context) (*UDFRunner, error) {
	x, cancel := e.newExecution(ctx)
	h := x.rt.NewObject()
	for k, val := range map[string]any{"maxElements": MaxElements, "maxChars": MaxChars, "maxMessageSize": MaxMessageSize, "udf": true} {
		_ = h.Set(k, val)
	}
	d, err := x.installWith(h) // without context or collection
	if err != nil {
		cancel()
		return nil, err
	}
	return &UDFRunner{e: e, x: x, d: d, cancel: cancel, stop: guard(x.ctx, x.rt, e.cfg.MaxMemory), fns: map[CacheKey]goja.Value{}}, nil
}

// Call calls the UDF body (its source; key identifies its version) with
// args, each the JSON text of one argument, and returns the JSON text of
// its result, nil when the result is undefined. A throw is an *Error
// (400) in the service's wording; a bound exceeded is ErrTimeout or a 400.
func (u *UDFRunner) Call(key CacheKey, body string, args [][]byte) ([]byte, error) {
	if u.why != nil {
		return nil, u.why
	}
	fn, ok := u.fns[key]
	if !ok {
		prog, err := u.e.compile(key, body)
		if err != nil {
			return nil, err
		}
		if fn, err = u.x.rt.RunProgram(prog); err != nil {
			return nil, u.failed(err)
		}
		if _, ok := goja.AssertFunction(fn); !ok {
			return nil, &Error{Status: 400, Message: "Encountered exception while executing function. Exception = TypeError: the body of the user-defined function '" + key.ID + "' is not a function."}
		}
		u.fns[key] = fn
	}
	call, _ := goja.AssertFunction(fn)
	vals := make([]goja.Value, len(args))
	for i, a := range args {
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
// spent after one).
func (u *UDFRunner) failed(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(error); ok {
			u.why = e
		} else {
			u.why = ErrTimeout
		}
		if errors.Is(u.why, errCanceled) {
			u.why = context.Canceled
		}
		return u.why
	}
	return u.x.fail(u.d, err)
}

// Close releases the runner.
func (u *UDFRunner) Close() {
	_ = u.stop()
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
