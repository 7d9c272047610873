package jsengine

import (
	"container/list"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// Config bounds the executions of an Engine; zero values take the
// defaults.
type Config struct {
	// Timeout bounds one execution (default DefaultTimeout). One regular
	// expression match is bounded by the longest Timeout of the engines
	// created before the process's first execution (at least
	// DefaultTimeout): see the match timeout below.
	Timeout time.Duration
	// MaxMemory is how far the Go heap may grow during one execution
	// before the script is interrupted (default DefaultMaxMemory).
	MaxMemory uint64
	// MaxCallStackSize bounds JavaScript recursion (default 1000 frames).
	MaxCallStackSize int
	// CacheSize is the number of compiled scripts kept (default 1024).
	CacheSize int
	// CacheBytes bounds the total source size of the cached scripts
	// (default 64 MiB): a script body may be up to 2 MB.
	CacheBytes int
	// MaxOperations is the number of collection operations after which
	// further calls are not accepted (default 5000).
	MaxOperations int
}

// Defaults of Config.
const (
	DefaultTimeout   = 5 * time.Second
	DefaultMaxMemory = 256 << 20
	// MaxElements bounds arrays and argument lists built in one native
	// step; MaxChars strings built in one step.
	MaxElements = 1 << 22
	MaxChars    = 1 << 25
	// MaxMessageSize bounds the response body (the service's 4 MB
	// response limit) and MaxLogSize the script log header.
	MaxMessageSize = 4 << 20
	MaxLogSize     = 16 << 10
)

// Engine compiles and runs scripts. It is safe for concurrent use.
//
// Every execution runs its JavaScript on a goroutine of its own while the
// caller waits for the result, for the time bound, or for its context.
// When the bound passes (or the context ends, or the memory guard trips)
// and the goroutine has not stopped within AbandonGrace, the caller gets
// the error at once and the goroutine is abandoned: its runtime stays
// interrupted, its Host is closed (the calls it makes afterwards fail
// without reaching the caller's transaction), and it is counted in Stats
// until it ends. So a script stuck in native work (a catastrophic regular
// expression, formatting a hostile exception, serialising a deep object)
// never holds a request, a transaction or a connection past the bound.
type Engine struct {
	cfg   Config
	mu    sync.Mutex
	cache map[CacheKey]*list.Element
	lru   *list.List
	bytes int // source bytes of the cached scripts

	abandoned atomic.Int64 // executions abandoned so far
	lingering atomic.Int64 // abandoned executions whose goroutine still runs
	// stopped ends every execution when the engine shuts down (Shutdown).
	stopped  context.Context
	shutdown context.CancelCauseFunc
}

// AbandonGrace is how long a caller waits, after the time bound (or its
// context, or the memory guard) stopped an execution, for the interrupted
// goroutine to return before abandoning it.
const AbandonGrace = 50 * time.Millisecond

// Stats are an engine's counters of abandoned executions.
type Stats struct {
	// Abandoned counts the executions whose goroutine had not stopped
	// AbandonGrace after their bound: their callers were answered without
	// waiting for them.
	Abandoned int64 `json:"abandoned"`
	// AbandonedRunning is how many of them are still running (each one
	// is interrupted again and again until the native step it is in
	// returns).
	AbandonedRunning int64 `json:"abandonedRunning"`
}

// Stats returns the engine's counters; safe for concurrent use.
func (e *Engine) Stats() Stats {
	return Stats{Abandoned: e.abandoned.Load(), AbandonedRunning: e.lingering.Load()}
}

// Shutdown stops every running execution (it fails with ErrShutdown,
// rolled back like a timed-out one, its goroutine abandoned after
// AbandonGrace if it does not stop) and makes later executions fail with
// ErrShutdown at once. It does not wait for anything: a process shutting
// down must not wait for goroutines stuck in native work.
func (e *Engine) Shutdown() { e.shutdown(ErrShutdown) }

// The regular expressions goja cannot run on Go's linear-time regexp
// (backreferences, lookaround) run on regexp2, a backtracking engine whose
// matches only goja's interrupt cannot stop (the match is native code).
// regexp2 copies its package-level DefaultMatchTimeout into every pattern
// it compiles, and goja reports a timed-out match as no match. The match
// timeout is longer than the engines' time bound (regexpMargin), so a match that
// times out belongs to an execution already past its bound (interrupted,
// its answer sent): the timeout ends the abandoned goroutine and does not
// turn a match into a silent "no match" within the bound.
//
// The variable is the process's, read without synchronisation by every
// compile: it is set to DefaultTimeout at init and raised by New for a
// longer Config.Timeout only until the first execution of the process
// starts (executionsStarted), which orders the write before every read.
// An engine created later with a longer bound keeps the shorter match
// timeout (a single match then fails as no match past it).
var (
	regexpMu          sync.Mutex
	regexpTimeout     = DefaultTimeout + regexpMargin
	executionsStarted atomic.Bool
)

// regexpMargin is how much longer than the engines' time bound the match
// timeout is. regexp2 measures its timeout on a coarse clock (a goroutine
// that advances it every 100 ms, later under load), so a match timeout
// equal to the bound could fire a few milliseconds before the execution's
// own deadline: the script then went on with "no match" and answered 200
// within its bound (seen once in CI). With a margin of ten clock periods,
// a match that times out always belongs to an execution past its bound.
const regexpMargin = time.Second

func init() { regexp2.DefaultMatchTimeout = regexpTimeout }

// raiseRegexpTimeout makes the regular expression match timeout at least
// d plus regexpMargin, unless an execution has started.
func raiseRegexpTimeout(d time.Duration) {
	d += regexpMargin
	regexpMu.Lock()
	defer regexpMu.Unlock()
	if d > regexpTimeout && !executionsStarted.Load() {
		regexpTimeout = d
		regexp2.DefaultMatchTimeout = d
	}
}

// startExecutions freezes the match timeout before an execution compiles
// or runs anything.
func startExecutions() {
	if !executionsStarted.Load() {
		regexpMu.Lock()
		executionsStarted.Store(true)
		regexpMu.Unlock()
	}
}

// regexpMatchTimeout returns the regular expression match timeout.
func regexpMatchTimeout() time.Duration {
	regexpMu.Lock()
	defer regexpMu.Unlock()
	return regexpTimeout
}

// CacheKey identifies one version of a script: a replaced script has a new
// etag and compiles anew.
type CacheKey struct {
	Container int64
	Kind      string
	ID        string
	ETag      string
}

type cached struct {
	key  CacheKey
	src  string
	prog *goja.Program
	err  error
}

// New returns an Engine with cfg's bounds.
func New(cfg Config) *Engine {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxMemory == 0 {
		cfg.MaxMemory = DefaultMaxMemory
	}
	if cfg.MaxCallStackSize <= 0 {
		cfg.MaxCallStackSize = 1000
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 1024
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	if cfg.MaxOperations <= 0 {
		cfg.MaxOperations = 5000
	}
	raiseRegexpTimeout(cfg.Timeout)
	stopped, shutdown := context.WithCancelCause(context.Background())
	return &Engine{cfg: cfg, cache: map[CacheKey]*list.Element{}, lru: list.New(), stopped: stopped, shutdown: shutdown}
}

// Timeout returns the execution time bound.
func (e *Engine) Timeout() time.Duration { return e.cfg.Timeout }

// Error is a failed execution as the service reports it.
type Error struct {
	// Status is the HTTP status: 400 for an exception (thrown, syntax
	// error, bound exceeded), 408 for a timeout, 413 for a response or log
	// that would be too large, 503 for an engine shutting down.
	Status int
	// Number is the numeric code of a thrown Cosmos Error (err.number),
	// sent as x-ms-substatus; 0 when none.
	Number int
	// Message is the text the service puts in {"Errors":["..."]}.
	Message string
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("script failed (%d): %s", e.Status, e.Message) }

// MsgTimeout is the message of a timed-out execution.
const MsgTimeout = "The script did not complete within the allotted execution time and was stopped; all of its writes were rolled back."

// MsgShutdown is the message of an execution stopped by Engine.Shutdown.
const MsgShutdown = "The emulator is shutting down: the script was stopped and all of its writes were rolled back."

var (
	// ErrTimeout reports an execution stopped at Config.Timeout.
	ErrTimeout = &Error{Status: 408, Message: MsgTimeout}
	// ErrShutdown reports an execution stopped by Engine.Shutdown (503).
	ErrShutdown = &Error{Status: 503, Message: MsgShutdown}
	// errCanceled stops an execution whose caller went away.
	errCanceled = errors.New("jsengine: the request was canceled")
)

// memoryError reports an execution stopped by the memory watchdog.
func memoryError(limit uint64) *Error {
	return &Error{Status: 400, Message: fmt.Sprintf("Encountered exception while executing function. Exception = Error: The script exceeded the emulator's memory limit for one execution (%d MB) and was stopped.", limit>>20)}
}

//go:embed wrapper.js
var wrapperSource string

var wrapperProgram = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("wrapper.js", wrapperSource, false)
})

// compile returns the program of key, compiling src on a cache miss. The
// program evaluates to the script's function.
func (e *Engine) compile(key CacheKey, src string) (*goja.Program, error) {
	e.mu.Lock()
	if el, ok := e.cache[key]; ok && el.Value.(*cached).src == src {
		e.lru.MoveToFront(el)
		c := el.Value.(*cached)
		e.mu.Unlock()
		return c.prog, c.err
	}
	e.mu.Unlock()
	// "(" src ")" makes a function declaration an expression (lines keep
	// their numbers); the newline ends a trailing line comment.
	prog, err := goja.Compile("script.js", "("+src+"\n)", false)
	if err != nil {
		err = &Error{Status: 400, Message: "Encountered exception while executing function. Exception = SyntaxError: " + syntaxMessage(err)}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if el, ok := e.cache[key]; ok {
		e.evict(el)
	}
	e.cache[key] = e.lru.PushFront(&cached{key: key, src: src, prog: prog, err: err})
	e.bytes += len(src)
	for e.lru.Len() > e.cfg.CacheSize || (e.bytes > e.cfg.CacheBytes && e.lru.Len() > 1) {
		e.evict(e.lru.Back())
	}
	return prog, err
}

// evict drops a cache entry; e.mu is held.
func (e *Engine) evict(el *list.Element) {
	c := el.Value.(*cached)
	e.lru.Remove(el)
	delete(e.cache, c.key)
	e.bytes -= len(c.src)
}

// CacheLen returns the number of cached compiled scripts.
func (e *Engine) CacheLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lru.Len()
}

// syntaxMessage shortens goja's compile error (it names the file and
// shifts lines by the wrapping parenthesis).
func syntaxMessage(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "SyntaxError: ")
	return msg
}

// heapBytes reads the live-and-unswept heap object bytes without stopping
// the world.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// watchdogInterval is how often the watchdog samples the heap and, once
// it has interrupted the runtime, interrupts it again.
const watchdogInterval = 2 * time.Millisecond

// watchdog interrupts a runtime when its execution's context ends
// (timeout, cancellation, shutdown) or the heap grows past the memory
// bound, and keeps interrupting it until the goroutine running the
// JavaScript ends: goja clears the interrupt flag whenever an interrupted
// call returns (Runtime.leaveAbrupt), so a single Interrupt would leave
// every later call into the runtime (error formatting, the next callback,
// the code after a native step that ran past the limit) unarmed.
type watchdog struct {
	done    chan struct{} // closed by stop: the JavaScript goroutine ended
	tripped chan struct{} // closed at the first interrupt, after why is set
	fired   atomic.Bool   // tripped, readable without a channel operation
	why     error
	wg      sync.WaitGroup
}

// guard starts the watchdog of rt for an execution bounded by ctx and by
// limit bytes of heap growth.
func guard(ctx context.Context, rt *goja.Runtime, limit uint64) *watchdog {
	w := &watchdog{done: make(chan struct{}), tripped: make(chan struct{})}
	w.wg.Add(1)
	base := heapBytes()
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(watchdogInterval)
		defer t.Stop()
		trip := func(why error) {
			w.why = why
			w.fired.Store(true)
			close(w.tripped)
			rt.Interrupt(why)
		}
	sample:
		for {
			select {
			case <-w.done:
				if ctx.Err() != nil {
					// The execution ended past its bound before this
					// goroutine saw the bound (select picks at random
					// among ready cases, and a loaded machine can run
					// the script's last steps first): its result does
					// not stand. A regular expression match that timed
					// out (after the bound, see regexpTimeout) would
					// otherwise have answered "no match".
					w.why = stopReason(ctx)
				}
				return
			case <-ctx.Done():
				trip(stopReason(ctx))
				break sample
			case <-t.C:
				if h := heapBytes(); h > base && h-base > limit {
					trip(memoryError(limit))
					break sample
				}
			}
		}
		for { // re-arm until the goroutine ends
			select {
			case <-w.done:
				return
			case <-t.C:
				rt.Interrupt(w.why)
			}
		}
	}()
	return w
}

// stopReason is why an execution whose context ended stops: its bound
// (ErrTimeout), the engine's shutdown, or the caller going away.
func stopReason(ctx context.Context) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ErrTimeout
	case errors.Is(context.Cause(ctx), ErrShutdown):
		return ErrShutdown
	default:
		return errCanceled
	}
}

// expired reports whether the watchdog has interrupted the runtime: from
// then on nothing may call into JavaScript to produce a result.
func (w *watchdog) expired() bool { return w.fired.Load() }

// stop ends the watchdog (the JavaScript goroutine calls it when it is
// done with the runtime) and returns why it interrupted, nil when it did
// not.
func (w *watchdog) stop() error {
	close(w.done)
	w.wg.Wait()
	return w.why
}
