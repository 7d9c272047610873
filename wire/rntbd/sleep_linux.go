package rntbd

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleeper sleeps for sub-millisecond durations without holding an
// OS thread: a timerfd read through Go's network poller. The runtime's own
// timers round a sleep up to its poller's millisecond timeout when the
// process is otherwise idle, too coarse for wakeStep.
type preciseSleeper struct {
	fd int      // the timerfd (f.Fd() would make it blocking)
	f  *os.File // nil when no timerfd could be created
}

func newPreciseSleeper() *preciseSleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &preciseSleeper{}
	}
	return &preciseSleeper{fd: fd, f: os.NewFile(uintptr(fd), "rntbd-waker-timerfd")}
}

// sleep returns after d, d > 0 (a zero timerfd setting would disarm it
// and the read never return); time.Sleep stands in when the timerfd
// could not be set up or fails.
func (s *preciseSleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	if s.f == nil {
		time.Sleep(d)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if err := unix.TimerfdSettime(s.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	var expirations [8]byte
	if _, err := s.f.Read(expirations[:]); err != nil {
		time.Sleep(d)
	}
}

func (s *preciseSleeper) close() {
	if s.f != nil {
		s.f.Close()
	}
}
