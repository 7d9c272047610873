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
	"time"

	"github.com/dop251/goja"
)

// Config bounds the executions of an Engine; zero values take the
// defaults.
type Config struct {
	// Timeout bounds one execution (default DefaultTimeout).
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
type Engine struct {
	cfg   Config
	mu    sync.Mutex
	cache map[CacheKey]*list.Element
	lru   *list.List
	bytes int // source bytes of the cached scripts
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
	return &Engine{cfg: cfg, cache: map[CacheKey]*list.Element{}, lru: list.New()}
}

// Timeout returns the execution time bound.
func (e *Engine) Timeout() time.Duration { return e.cfg.Timeout }

// Error is a failed execution as the service reports it.
type Error struct {
	// Status is the HTTP status: 400 for an exception (thrown, syntax
	// error, bound exceeded), 408 for a timeout, 413 for a response or log
	// that would be too large.
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

var (
	// ErrTimeout reports an execution stopped at Config.Timeout.
	ErrTimeout = &Error{Status: 408, Message: MsgTimeout}
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

// watchdogInterval is how often the watchdog samples the heap.
const watchdogInterval = 2 * time.Millisecond

// guard interrupts rt when ctx ends (timeout or cancellation) or the heap
// grows by more than limit; stop ends it and returns why it interrupted
// (nil when it did not).
func guard(ctx context.Context, rt *goja.Runtime, limit uint64) (stop func() error) {
	done := make(chan struct{})
	var why error
	var wg sync.WaitGroup
	wg.Add(1)
	base := heapBytes()
	go func() {
		defer wg.Done()
		t := time.NewTicker(watchdogInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					why = ErrTimeout
				} else {
					why = errCanceled
				}
				rt.Interrupt(why)
				return
			case <-t.C:
				if h := heapBytes(); h > base && h-base > limit {
					why = memoryError(limit)
					rt.Interrupt(why)
					return
				}
			}
		}
	}()
	return func() error {
		close(done)
		wg.Wait()
		return why
	}
}
