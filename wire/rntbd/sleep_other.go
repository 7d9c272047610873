//go:build !linux

package rntbd

import "time"

// preciseSleeper is time.Sleep where no timerfd exists: the wake-ups keep
// their order but may come up to a millisecond late.
type preciseSleeper struct{}

func newPreciseSleeper() *preciseSleeper { return &preciseSleeper{} }

func (*preciseSleeper) sleep(d time.Duration) { time.Sleep(d) }

func (*preciseSleeper) close() {}
