package jsengine

import (
	"errors"
	"time"

	"github.com/dop251/goja"
	"github.com/google/uuid"
)

// acceptFraction is the share of the time bound after which collection
// calls are no longer accepted.
const acceptFraction = 0.8

// accepted reports whether another collection operation may be queued.
func (x *execution) accepted() bool {
	return x.ops < x.e.cfg.MaxOperations && time.Since(x.start) < time.Duration(float64(x.e.cfg.Timeout)*acceptFraction)
}

// throw panics with a Cosmos Error(number, message) in the runtime.
func (x *execution) throw(number int, msg string) {
	o, err := x.d.error(goja.Undefined(), x.rt.ToValue(number), x.rt.ToValue(msg))
	if err != nil {
		panic(x.rt.NewTypeError(msg))
	}
	panic(o)
}

// stopWith ends the execution with a failure of the emulator.
func (x *execution) stopWith(err error) {
	x.fatal = err
	x.rt.Interrupt(err)
	panic(x.rt.NewGoError(err))
}

// options reads the script options the host uses.
func (x *execution) options(v goja.Value) Options {
	var o Options
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return o
	}
	obj := v.ToObject(x.rt)
	if p := obj.Get("pageSize"); p != nil && !goja.IsUndefined(p) && !goja.IsNull(p) {
		o.PageSize = int(p.ToInteger())
	}
	str := func(name string) string {
		if p := obj.Get(name); p != nil && !goja.IsUndefined(p) && !goja.IsNull(p) {
			return p.String()
		}
		return ""
	}
	o.Continuation, o.ETag, o.IfNoneMatch = str("continuation"), str("etag"), str("ifNoneMatch")
	return o
}

// outcome turns a host result into the wrapper's {e} or {r, o}; false when
// the host failed with a Throw (thrown) or worse (the execution stops).
func (x *execution) outcome(out Outcome, err error) goja.Value {
	if err != nil {
		var t *Throw
		if errors.As(err, &t) {
			x.throw(t.Number, t.Message)
		}
		x.stopWith(err)
	}
	o := x.rt.NewObject()
	if out.Err != nil {
		e := x.rt.NewObject()
		_ = e.Set("number", out.Err.Number)
		_ = e.Set("message", out.Err.Message)
		_ = o.Set("e", e)
		return o
	}
	if out.Result != nil {
		_ = o.Set("r", string(out.Result))
	}
	ro := x.rt.NewObject()
	if out.Status != 0 {
		_ = ro.Set("statusCode", out.Status)
	}
	if out.Continuation != "" {
		_ = ro.Set("continuation", out.Continuation)
	}
	if out.NotModified {
		_ = ro.Set("notModified", true)
	}
	_ = ro.Set("currentCollectionSizeInMB", 0)
	_ = ro.Set("maxCollectionSizeInMB", 10240)
	_ = o.Set("o", ro)
	return o
}

// hostObject builds the native object the wrapper is installed with.
func (x *execution) hostObject(s Script) (*goja.Object, error) {
	rt := x.rt
	h := rt.NewObject()
	set := func(name string, v any) {
		if err := h.Set(name, v); err != nil {
			panic(err)
		}
	}
	set("maxElements", MaxElements)
	set("maxChars", MaxChars)
	set("maxMessageSize", MaxMessageSize)
	x.setJSONGuard(h)
	set("logging", s.Logging)
	set("udf", false)
	set("hasResponse", s.HasResponse)
	set("operationType", s.OperationType)
	if s.Host != nil {
		set("selfLink", s.Host.SelfLink())
		set("altLink", s.Host.AltLink())
	}
	// request and response property maps
	reqBody, err := x.parseJSON(s.RequestBody)
	if err != nil {
		return nil, err
	}
	set("request", x.propMap(reqBody))
	if s.HasResponse {
		body := goja.Value(rt.ToValue(""))
		if s.ResponseBody != nil {
			if body, err = x.parseJSON(s.ResponseBody); err != nil {
				return nil, err
			}
		}
		set("response", x.propMap(body))
	}
	set("newId", uuid.NewString)
	set("log", func(msg string) {
		if x.log.Len()+len(msg) > MaxLogSize {
			x.throw(413, `Resulting message would be too large because of "x-ms-documentdb-script-log-results". Return from script with current message and use continuation token to call the script again or modify your script.`)
		}
		x.log.WriteString(msg)
	})
	set("abort", func(v goja.Value) {
		o := v.ToObject(rt)
		e := &Error{Status: 400, Number: int(o.Get("number").ToInteger()), Message: o.Get("text").String()}
		if x.aborted == nil {
			x.aborted = e
		}
	})
	// op performs a collection operation: false when not accepted.
	op := func(do func(Host) (Outcome, error)) goja.Value {
		if s.Host == nil {
			x.throw(400, "The collection is not available to this script.")
		}
		if !x.accepted() {
			return rt.ToValue(false)
		}
		x.ops++
		return x.outcome(do(s.Host))
	}
	set("write", func(name, link, doc string, opts goja.Value) goja.Value {
		return op(func(h Host) (Outcome, error) { return h.Write(x.ctx, name, link, []byte(doc), x.options(opts)) })
	})
	set("point", func(name, link string, opts goja.Value) goja.Value {
		return op(func(h Host) (Outcome, error) { return h.Point(x.ctx, name, link, x.options(opts)) })
	})
	set("query", func(link, query string, opts goja.Value) goja.Value {
		return op(func(h Host) (Outcome, error) { return h.Query(x.ctx, link, []byte(query), x.options(opts)) })
	})
	return h, nil
}
