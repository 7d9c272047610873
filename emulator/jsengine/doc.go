// Package jsengine runs Cosmos DB server-side JavaScript (stored
// procedures, triggers, user-defined functions) on github.com/dop251/goja,
// a pure-Go ECMAScript 5.1+ engine (most of ES6, async/await, no cgo).
//
// It knows nothing of HTTP or SQL: the document operations a script
// performs go through a Host, which package emulator implements over the
// store inside one transaction.
//
// # Isolation and bounds
//
// Every execution gets a fresh goja.Runtime: nothing survives between
// executions. The runtime has no host access: no require, no modules, no
// timers, no file system or network; the only globals beyond the language
// are those of the service's wrapper (getContext, __, ErrorCodes,
// console, the two-argument Error). Compiled programs are cached per
// CacheKey (container, kind, id and etag, so a replaced script compiles
// anew) in an LRU bounded by count and source bytes (Config.CacheSize,
// Config.CacheBytes).
//
// An execution is bounded by:
//   - time: Config.Timeout (default 5 s, the service's) and the caller's
//     context (a client that goes away stops the script); a timed-out
//     execution fails with ErrTimeout. The JavaScript runs on a goroutine
//     of its own: at the bound the watchdog interrupts the runtime (and
//     keeps interrupting it until the goroutine ends, since goja clears
//     the flag when an interrupted call returns), and the caller waits at
//     most AbandonGrace more before it answers and abandons a goroutine
//     still inside native work. An abandoned execution's Host is closed
//     (the call in flight finishes with its cancelled context, later
//     calls fail without reaching it), so the caller can roll back and
//     release its connection at once; Engine.Stats counts abandoned
//     executions. Native work is bounded as well: nothing formats an
//     error by calling into the script after the bound, a regular
//     expression match (regexp2) times out (never before the bound), and
//     JSON.stringify (the wrapper's own uses included) checks the bound
//     and refuses nesting past MaxJSONDepth with RangeError.
//     Engine.Shutdown stops every execution at once (ErrShutdown, 503).
//   - recursion: Config.MaxCallStackSize JavaScript frames.
//   - memory: goja has no heap cap, so a watchdog samples the Go heap
//     (runtime/metrics, no stop-the-world) every few milliseconds and
//     interrupts the script when the heap has grown by more than
//     Config.MaxMemory since it started (ErrMemory); builtins that
//     allocate in one native step (String.prototype.repeat, padStart,
//     padEnd, Array.prototype.fill and join, Array.from,
//     Function.prototype.apply) refuse sizes above MaxElements/MaxChars,
//     and ArrayBuffer, DataView and typed arrays are not available. The
//     heap is the process's, so concurrent work counts too: the bound is
//     a safety net that keeps the emulator up, not an exact quota.
//   - operations: a collection call returns false (not accepted, as the
//     service does near its bounds) once the execution has used 80 % of
//     its time or performed Config.MaxOperations operations.
//
// # User-defined functions
//
// CallUDF(ctx, key, body, args) runs a UDF once: body is the UDF's source
// (a function expression), args are the SQL argument values as JSON texts,
// and the result is the JSON text of the return value (nil when the
// function returns undefined). A UDF gets no getContext() and no
// collection. To call UDFs for many rows, NewUDFRunner gives a runner that
// keeps one runtime and the compiled functions for the life of a query:
// its Call has the same contract and the same time and memory bounds, the
// time bound covering all the calls of the runner.
package jsengine
