//go:build !linux

package rntbd

import (
	"sync/atomic"
	"time"
)

// preciseSleeper is time.Sleep where no timerfd exists: the wake-ups keep
// their order but may come up to a millisecond late, and since a sleep in
// progress cannot be moved, wait sleeps at most wakeStep (the waker then
// ticks every wakeStep while a connection is armed).
type preciseSleeper struct{ d atomic.Int64 }

func newPreciseSleeper() *preciseSleeper { return &preciseSleeper{} }

// set makes the next wait last d, at most wakeStep.
func (s *preciseSleeper) set(d time.Duration) { s.d.Store(int64(min(max(d, 0), wakeStep))) }

// wait sleeps for the duration set last.
func (s *preciseSleeper) wait() { time.Sleep(time.Duration(s.d.Load())) }

// sleep returns after d; at once for d <= 0.
func (*preciseSleeper) sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

func (*preciseSleeper) close() {}
