package rntbd

import (
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleeper sleeps for sub-millisecond durations without holding an
// OS thread: a timerfd read through Go's network poller. The runtime's own
// timers round a sleep up to its poller's millisecond timeout when the
// process is otherwise idle, too coarse for wakeStep. Another goroutine
// may move the end of a sleep in progress (set while wait blocks).
type preciseSleeper struct {
	fd int      // the timerfd (f.Fd() would make it blocking)
	f  *os.File // nil when no timerfd could be created
	// fallback, when set (no timerfd, or setting it failed), is the
	// duration wait sleeps with time.Sleep instead, at most wakeStep.
	fallback atomic.Int64
}

func newPreciseSleeper() *preciseSleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &preciseSleeper{}
	}
	return &preciseSleeper{fd: fd, f: os.NewFile(uintptr(fd), "rntbd-waker-timerfd")}
}

// set makes the next (or the current) wait end d from now; d <= 0 ends it
// at once (a zero timerfd setting would disarm it instead, and the read
// never return).
func (s *preciseSleeper) set(d time.Duration) {
	d = max(d, time.Microsecond)
	if s.f != nil {
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
		if unix.TimerfdSettime(s.fd, 0, &spec, nil) == nil {
			s.fallback.Store(0)
			return
		}
	}
	s.fallback.Store(int64(min(d, wakeStep)))
}

// wait blocks until the time set last.
func (s *preciseSleeper) wait() {
	if d := time.Duration(s.fallback.Load()); d > 0 || s.f == nil {
		if d <= 0 {
			d = wakeStep
		}
		time.Sleep(d)
		return
	}
	var expirations [8]byte
	if _, err := s.f.Read(expirations[:]); err != nil {
		time.Sleep(wakeStep)
	}
}

// sleep returns after d; at once for d <= 0.
func (s *preciseSleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	s.set(d)
	s.wait()
}

func (s *preciseSleeper) close() {
	if s.f != nil {
		s.f.Close()
	}
}
