package jsengine

import (
	"os"
	"runtime"
	"sync"
	"time"
)

// Scheduler headroom while scripts compute.
//
// A stored procedure near its time limit keeps a goroutine busy on the CPU
// for seconds. The Go scheduler gives each P (GOMAXPROCS of them, the
// number of CPUs by default) to one running goroutine and takes it away
// only every 10 ms: with as many scripts computing as there are Ps, a
// request of another client waits in the run queue behind them at each
// step (TLS read, PostgreSQL, write), which measured 120-300 ms on two
// cores for a point read that takes 0.3-0.9 ms alone. With one more P per
// running script, a woken request always finds a free P, and the
// operating system's scheduler, which favours a thread that has been
// sleeping, runs it at once: 2.1-2.6 ms under the same load.
//
// More Ps than CPUs cost a little on every request, though (idle Ps spin
// looking for work: a 100-result query took 10-25 % longer with the Ps
// raised for good), so the headroom exists only while scripts run: the
// first script raises GOMAXPROCS to the base plus the scripts running, and
// it returns to the base headroomLinger after the last one ended (so that
// a stream of short scripts does not stop the world twice each).
//
// EnableSchedulerHeadroom turns it on for the process (the server does);
// a GOMAXPROCS set in the environment is the user's choice and stands.

// headroomLinger is how long GOMAXPROCS stays raised after the last
// script ended.
var headroomLinger = time.Second

// maxHeadroom bounds the Ps added.
const maxHeadroom = 64

var headroom struct {
	mu      sync.Mutex
	enabled bool
	base    int // GOMAXPROCS before it was raised
	running int // scripts counted by enterCompute
	raised  int // GOMAXPROCS while raised, 0 when at base
	lower   *time.Timer
}

// EnableSchedulerHeadroom makes the scripts of every Engine of the process
// raise GOMAXPROCS while they run (see above), unless the environment
// sets GOMAXPROCS.
func EnableSchedulerHeadroom() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	headroom.mu.Lock()
	headroom.enabled = true
	headroom.mu.Unlock()
}

// enterCompute counts a script that starts running and raises GOMAXPROCS
// for it; it reports whether it counted it (leaveCompute must then be
// called once).
func enterCompute() bool {
	h := &headroom
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.enabled {
		return false
	}
	if h.lower != nil {
		h.lower.Stop()
		h.lower = nil
	}
	if h.raised == 0 {
		h.base = runtime.GOMAXPROCS(0)
	}
	h.running++
	if want := h.base + min(h.running, maxHeadroom); want > max(h.raised, h.base) {
		runtime.GOMAXPROCS(want)
		h.raised = want
	}
	return true
}

// leaveCompute uncounts a script counted by enterCompute; after the last
// one, GOMAXPROCS returns to its base headroomLinger later unless another
// script starts meanwhile.
func leaveCompute() {
	h := &headroom
	h.mu.Lock()
	defer h.mu.Unlock()
	h.running--
	if h.running > 0 || h.raised == 0 {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(headroomLinger, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.lower != t || h.running > 0 || h.raised == 0 {
			return // a script started meanwhile
		}
		runtime.GOMAXPROCS(h.base)
		h.raised, h.lower = 0, nil
	})
	h.lower = t
}
