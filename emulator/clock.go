package emulator

import (
	"sync"
	"time"
)

// Clock is the emulator's single source of time. It reads a base clock (the
// wall clock unless replaced) and adds an offset that can only grow, unless
// reset explicitly: emulator time never moves backwards on its own, so _ts
// values and expiry stay monotonic while tests fast-forward.
//
// A Clock is safe for concurrent use. The zero value is not usable; call
// NewClock.
type Clock struct {
	mu     sync.Mutex
	base   func() time.Time
	offset time.Duration
}

// NewClock returns a Clock over base; a nil base means time.Now.
func NewClock(base func() time.Time) *Clock {
	if base == nil {
		base = time.Now
	}
	return &Clock{base: base}
}

// Now returns the current emulator time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base().Add(c.offset)
}

// Offset returns how far emulator time is ahead of the base clock.
func (c *Clock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// Advance moves emulator time forward by d. A negative d is an error:
// time only moves forward unless Reset is used.
func (c *Clock) Advance(d time.Duration) error {
	if d < 0 {
		return BadRequest("advanceSeconds must not be negative; emulator time only moves forward")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	return nil
}

// SetOffset sets the offset to d. It fails when d is smaller than the current
// offset unless reset is true: moving back in time is an explicit act.
func (c *Clock) SetOffset(d time.Duration, reset bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d < c.offset && !reset {
		return BadRequest("offsetSeconds %d is behind the current offset %d; emulator time only moves forward unless \"reset\": true", int64(d/time.Second), int64(c.offset/time.Second))
	}
	c.offset = d
	return nil
}
