package server

import (
	"os"
	"runtime"
	"sync"
)

// Scheduler headroom for requests while scripts compute.
//
// A stored procedure near its time limit keeps a goroutine busy on the CPU
// for seconds. The Go scheduler gives each P (GOMAXPROCS of them, the
// number of CPUs by default) to one running goroutine and takes it away
// only every 10 ms: with as many scripts computing as there are Ps, a
// point read of another client waits in the run queue behind them at each
// step (TLS read, PostgreSQL, write), which measured 120-140 ms on two
// cores for a read that takes 0.3-0.9 ms alone. With more Ps than scripts
// can ever occupy, a woken request always finds a free P, and the
// operating system's scheduler, which favours a thread that has been
// sleeping, runs it at once: 2.1-2.6 ms under the same load.
//
// The store runs at most pgstore.Store.ScriptSlots scripts at once, so the
// server raises GOMAXPROCS to the process's default plus that number. It
// never lowers it, and a GOMAXPROCS set in the environment is the user's
// choice and stands. Several servers in one process (tests) need the
// headroom once: the target is computed from the default captured at
// start-up, not from the current value.

// defaultProcs is GOMAXPROCS as the runtime chose it (CPUs, or the
// container's CPU limit) before any server raised it.
var defaultProcs = runtime.GOMAXPROCS(0)

var headroomMu sync.Mutex

// maxHeadroom bounds the Ps added for scripts (a pool configured very
// large would otherwise ask for hundreds of threads).
const maxHeadroom = 64

// ensureSchedulerHeadroom raises GOMAXPROCS to defaultProcs+scripts unless
// the environment sets GOMAXPROCS or it is already at least that; it
// returns the value in force afterwards.
func ensureSchedulerHeadroom(scripts int) int {
	headroomMu.Lock()
	defer headroomMu.Unlock()
	cur := runtime.GOMAXPROCS(0)
	if os.Getenv("GOMAXPROCS") != "" || scripts <= 0 {
		return cur
	}
	if want := defaultProcs + min(scripts, maxHeadroom); cur < want {
		runtime.GOMAXPROCS(want)
		return want
	}
	return cur
}
