package jsengine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// States of an execution's goroutine (execution.state).
const (
	stateRunning int32 = iota
	stateFinished
	stateAbandoned
)

// outcome is what the JavaScript goroutine of an execution hands back.
type outcome struct {
	res Result
	err error
}

// finish records that the JavaScript goroutine ended; for an abandoned
// execution it takes the goroutine off the engine's running count.
func (x *execution) finish() {
	if !x.state.CompareAndSwap(stateRunning, stateFinished) {
		x.e.lingering.Add(-1)
	}
}

// abandon gives up on the JavaScript goroutine: false when it finished
// first (its outcome is then on its way).
func (x *execution) abandon() bool {
	x.e.lingering.Add(1) // before the swap: finish may follow at once
	if !x.state.CompareAndSwap(stateRunning, stateAbandoned) {
		x.e.lingering.Add(-1)
		return false
	}
	x.e.abandoned.Add(1)
	return true
}

// supervise runs work (which uses x.rt) on a goroutine of its own under
// the watchdog and waits for its outcome, or for the watchdog to stop the
// execution: the caller then waits at most AbandonGrace more and, if work
// has not returned, closes the host fence (waiting for an in-flight host
// call, whose context has ended) and returns the reason the execution
// stopped, leaving the goroutine to end on its own (the watchdog keeps
// interrupting it). A panic in work is an error of the execution.
func (x *execution) supervise(work func() (Result, error), fence *fencedHost) (Result, error) {
	x.wd = guard(x.ctx, x.rt, x.e.cfg.MaxMemory)
	out := make(chan outcome, 1) // never blocks an abandoned goroutine
	go func() {
		if enterCompute() {
			defer leaveCompute()
		}
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o = outcome{err: fmt.Errorf("jsengine: the script's execution panicked: %v", p)}
			}
			if why := x.wd.stop(); why != nil {
				o = outcome{err: x.stopped(why)}
			} else if x.fatal != nil {
				o = outcome{err: x.fatal}
			}
			x.finish()
			out <- o
		}()
		o.res, o.err = work()
	}()
	select {
	case o := <-out:
		return o.res, o.err
	case <-x.wd.tripped:
	}
	grace := time.NewTimer(AbandonGrace)
	defer grace.Stop()
	select {
	case o := <-out:
		return o.res, o.err
	case <-grace.C:
	}
	fence.close()
	if !x.abandon() {
		o := <-out
		return o.res, o.err
	}
	return Result{}, x.stopped(x.wd.why)
}

// errAbandoned is what a fenced Host returns to an abandoned execution.
var errAbandoned = errors.New("jsengine: the execution was abandoned past its bound; its host is closed")

// fencedHost passes an execution's collection calls to its Host until
// the execution is abandoned: close waits for the call in flight (bounded:
// its context has ended by then) and makes every later call fail with
// errAbandoned without reaching the Host, so the caller may roll back its
// transaction and release its connection while the goroutine still runs.
// A nil *fencedHost is an execution without a Host.
type fencedHost struct {
	h      Host
	mu     sync.Mutex
	closed bool
}

// close shuts the fence; safe on nil.
func (f *fencedHost) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

// call runs do on the Host unless the fence is closed.
func (f *fencedHost) call(do func(Host) (Outcome, error)) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return Outcome{}, errAbandoned
	}
	return do(f.h)
}

// Write implements Host.
func (f *fencedHost) Write(ctx context.Context, op, link string, doc []byte, opts Options) (Outcome, error) {
	return f.call(func(h Host) (Outcome, error) { return h.Write(ctx, op, link, doc, opts) })
}

// Point implements Host.
func (f *fencedHost) Point(ctx context.Context, op, link string, opts Options) (Outcome, error) {
	return f.call(func(h Host) (Outcome, error) { return h.Point(ctx, op, link, opts) })
}

// Query implements Host.
func (f *fencedHost) Query(ctx context.Context, link string, query []byte, opts Options) (Outcome, error) {
	return f.call(func(h Host) (Outcome, error) { return h.Query(ctx, link, query, opts) })
}

// SelfLink implements Host (a constant of the Host: no fence needed).
func (f *fencedHost) SelfLink() string { return f.h.SelfLink() }

// AltLink implements Host.
func (f *fencedHost) AltLink() string { return f.h.AltLink() }
