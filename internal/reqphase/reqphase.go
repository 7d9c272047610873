// Package reqphase accumulates the time one request spends in each phase of
// its work (signature check, query translation, PostgreSQL round trips,
// response encoding), so that the request metrics can say which layer a
// request's time went to and a benchmark can show which layer a change
// moved.
//
// The wire layer puts a *Timings into the request's context; the layers
// below add to it through the context without knowing who reads it. A
// context without Timings costs one context lookup per measured phase and
// records nothing. The package depends on the standard library only, so
// that every layer (wire, emulator, pgstore) may import it.
package reqphase

import (
	"context"
	"sync/atomic"
	"time"
)

// Phase names one part of a request's work.
type Phase int

// The phases. Their sum is at most the request's handler time: what is not
// in a phase is routing, header parsing and the operation's own Go code.
const (
	// Auth is checking the Authorization header (signature or resource
	// token).
	Auth Phase = iota
	// Translate is parsing a Cosmos SQL query and translating it into
	// PostgreSQL SQL or a query plan.
	Translate
	// Postgres is the wall time of statements on PostgreSQL, from sending
	// a statement to reading the last row of its answer (pool waits
	// excluded). Statements run in parallel (a fan-out) add up, so this
	// phase can exceed the request's wall time.
	Postgres
	// Encode is building the response body and writing it, headers
	// included, into the HTTP server's buffer.
	Encode
	numPhases
)

// Names are the phases' names as the metrics label them, indexed by Phase
// (range over it for every phase, in order).
var Names = [numPhases]string{Auth: "auth", Translate: "translate", Postgres: "postgres", Encode: "encode"}

// String returns the phase's metric label.
func (p Phase) String() string {
	if p < 0 || p >= numPhases {
		return "unknown"
	}
	return Names[p]
}

// Timings are one request's accumulated phase durations. The zero value is
// ready; it is safe for concurrent use (a fan-out adds from several
// goroutines). Methods on a nil *Timings do nothing.
type Timings struct {
	ns [numPhases]atomic.Int64
}

// Add adds d to phase p.
func (t *Timings) Add(p Phase, d time.Duration) {
	if t == nil || p < 0 || p >= numPhases {
		return
	}
	t.ns[p].Add(int64(d))
}

// Get returns the time accumulated in phase p.
func (t *Timings) Get(p Phase) time.Duration {
	if t == nil || p < 0 || p >= numPhases {
		return 0
	}
	return time.Duration(t.ns[p].Load())
}

type timingsKey struct{}

// NewContext returns ctx carrying t.
func NewContext(ctx context.Context, t *Timings) context.Context {
	return context.WithValue(ctx, timingsKey{}, t)
}

// FromContext returns the Timings ctx carries, or nil.
func FromContext(ctx context.Context) *Timings {
	t, _ := ctx.Value(timingsKey{}).(*Timings)
	return t
}

// Start begins measuring phase p for the request of ctx and returns the
// function that ends the measurement (call it once, typically deferred).
// Without Timings in ctx it returns a function that does nothing and reads
// no clock.
func Start(ctx context.Context, p Phase) func() {
	t := FromContext(ctx)
	if t == nil {
		return noop
	}
	start := time.Now()
	return func() { t.Add(p, time.Since(start)) }
}

func noop() {}
