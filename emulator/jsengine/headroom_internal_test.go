package jsengine

import (
	"runtime"
	"testing"
	"time"
)

// TestSchedulerHeadroom: while scripts run, GOMAXPROCS is the base plus
// the scripts running; it returns to the base headroomLinger after the
// last one ends, not before, and a script starting within the linger
// keeps it raised. Disabled, nothing changes.
func TestSchedulerHeadroom(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	savedLinger := headroomLinger
	t.Cleanup(func() {
		headroom.mu.Lock()
		headroom.enabled = false
		headroom.mu.Unlock()
		headroomLinger = savedLinger
		runtime.GOMAXPROCS(base)
	})
	headroomLinger = time.Hour // the last step ends it by hand
	procs := func() int { return runtime.GOMAXPROCS(0) }

	if enterCompute() {
		t.Fatal("counted while disabled")
	}
	if procs() != base {
		t.Fatalf("GOMAXPROCS %d while disabled, want %d", procs(), base)
	}

	headroom.mu.Lock()
	headroom.enabled = true
	headroom.mu.Unlock()
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"first script", func() { enterCompute() }, base + 1},
		{"second script", func() { enterCompute() }, base + 2},
		{"one ends", leaveCompute, base + 2},
		{"the last ends: still raised during the linger", leaveCompute, base + 2},
		{"a script within the linger", func() { enterCompute() }, base + 2},
		{"it ends", leaveCompute, base + 2},
		{"after the linger", func() {
			headroom.mu.Lock()
			headroom.lower.Reset(0)
			headroom.mu.Unlock()
			for deadline := time.Now().Add(10 * time.Second); procs() != base && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}, base},
	}
	for _, s := range steps {
		s.do()
		if got := procs(); got != s.want {
			t.Fatalf("%s: GOMAXPROCS %d, want %d", s.name, got, s.want)
		}
	}
}
