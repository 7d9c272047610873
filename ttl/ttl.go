// Package ttl runs the sweeper that physically deletes expired items.
//
// Expired items are invisible the moment they expire: every read path of the
// store filters them out in SQL. The sweeper only reclaims their storage, in
// bounded batches, each batch a short transaction, so it never holds long
// locks and several emulator processes can share one database.
//
// The sweeper paces itself by the emulator's foreground load (Foreground,
// which the server feeds from the requests it serves): with no client
// request in flight or recently finished it deletes full batches back to
// back; under load it deletes batches a quarter of the size, rests
// busyRestFactor (2) times as long as each took, and then waits for a
// moment with no request in flight, at most busyYieldFactor (2) times as
// long. So a backlog is still drained under constant load: the sweeper
// then works at least 1/(1+busyRestFactor+busyYieldFactor) = 1/5 of the
// wall time. (Measured with cmd/cosmos-bench -scenario ttl: a tenth of the
// batch and 4+4 times its duration kept the point-read p99 as well, at a
// third of the throughput under reads.)
package ttl

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Expirer deletes expired items. pgstore.Store implements it.
type Expirer interface {
	// DeleteExpired deletes up to limit items that are expired as of unix
	// time now and returns how many it deleted.
	DeleteExpired(ctx context.Context, now int64, limit int) (int, error)
}

// Foreground reports the emulator's foreground load, the client requests
// it is serving; the server implements it. Its methods must be cheap and
// safe for concurrent use: the sweeper asks before every batch and while
// it waits between them.
type Foreground interface {
	// Activity returns the load now.
	Activity() Activity
}

// Activity is a snapshot of the foreground load.
type Activity struct {
	// InFlight is the number of client requests being served now.
	InFlight int
	// Idle is the time since the latest client request ended (since the
	// start when none has yet); 0 while InFlight > 0.
	Idle time.Duration
}

// Pacing under foreground load (see the package documentation).
const (
	// busyWindow: a request that ended this recently still counts as
	// load, so the pauses of a client between its requests do not.
	busyWindow = 100 * time.Millisecond
	// busyBatchDivisor divides BatchSize under load (at least 1 row).
	busyBatchDivisor = 4
	// busyRestFactor: under load, rest this many times as long as the
	// batch took.
	busyRestFactor = 2
	// busyYieldFactor: then wait for no request in flight, at most this
	// many times as long as the batch took.
	busyYieldFactor = 2
	// yieldPoll is how often the sweeper looks for a gap in the requests.
	yieldPoll = 500 * time.Microsecond
)

// busy reports whether a counts as foreground load: a request in flight
// or one that ended within busyWindow.
func busy(a Activity) bool { return a.InFlight > 0 || a.Idle < busyWindow }

// batchSize returns the rows of the next batch: full when idle, a
// busyBatchDivisor-th of it (at least 1) under load.
func batchSize(a Activity, full int) int {
	if !busy(a) {
		return full
	}
	return max(1, full/busyBatchDivisor)
}

// pause returns how much longer to wait before the next batch, after a
// batch that took took and waited so far since it ended, with the load a
// now: nothing when idle; under load the rest of busyRestFactor times
// took, then, while a request is in flight, up to yieldPoll at a time until
// busyYieldFactor times took more have passed. 0 means go on.
func pause(a Activity, took, waited time.Duration) time.Duration {
	if !busy(a) {
		return 0
	}
	rest := busyRestFactor * took
	if waited < rest {
		return rest - waited
	}
	if limit := rest + busyYieldFactor*took; a.InFlight > 0 && waited < limit {
		return min(yieldPoll, limit-waited)
	}
	return 0
}

// Defaults of the sweeper's settings.
const (
	DefaultInterval  = time.Second
	DefaultBatchSize = 1000
	// maxBatchesPerSweep bounds one sweep, so that a huge backlog is worked
	// off across several intervals instead of in one long burst.
	maxBatchesPerSweep = 1000
)

// Sweeper deletes expired items periodically. Configure the exported fields
// before calling Run or SweepOnce; its methods are safe for concurrent use.
type Sweeper struct {
	Expirer   Expirer
	Clock     *emulator.Clock // emulator time (required)
	Interval  time.Duration   // pause between sweeps (default 1 s)
	BatchSize int             // rows per batch when idle (default 1000)
	Logger    *slog.Logger
	// Foreground paces the sweeper (see the package documentation); nil
	// sweeps as if the emulator were always idle.
	Foreground Foreground

	mu    sync.Mutex // serialises sweeps of this process
	stats statsCounters
}

type statsCounters struct {
	mu                      sync.Mutex
	sweeps, deleted, errors int64
	batches, paced          int64
	lastErr                 string
}

// Stats are the sweeper's counters since start. LastError is the error of
// the latest sweep when it failed, and empty once a sweep succeeds again;
// Errors counts every failed sweep. Batches counts the batches run, and
// PacedBatches those of them run under foreground load at the reduced
// size.
type Stats struct {
	Sweeps       int64  `json:"sweeps"`
	Deleted      int64  `json:"deleted"`
	Errors       int64  `json:"errors"`
	Batches      int64  `json:"batches"`
	PacedBatches int64  `json:"pacedBatches"`
	LastError    string `json:"lastError,omitempty"`
}

// Stats returns the counters.
func (s *Sweeper) Stats() Stats {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return Stats{Sweeps: s.stats.sweeps, Deleted: s.stats.deleted, Errors: s.stats.errors,
		Batches: s.stats.batches, PacedBatches: s.stats.paced, LastError: s.stats.lastErr}
}

func (s *Sweeper) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s.Logger
}

// activity returns the foreground load (idle without a Foreground).
func (s *Sweeper) activity() Activity {
	if s.Foreground == nil {
		return Activity{Idle: busyWindow}
	}
	return s.Foreground.Activity()
}

// SweepOnce deletes expired items in batches until a batch comes back
// short (or a bound on batches is reached), and returns how many it
// deleted. A database error ends the sweep early; it is counted, logged
// and returned, and the next sweep tries again.
//
// Each batch is paced by the foreground load (see the package
// documentation): BatchSize rows back to back when the emulator is idle,
// smaller batches with rests under load, so that foreground requests keep
// their latency (measured with cmd/cosmos-bench -scenario ttl).
func (s *Sweeper) SweepOnce(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full := s.BatchSize
	if full <= 0 {
		full = DefaultBatchSize
	}
	total := 0
	var batches, paced int64
	var err error
	for i := 0; i < maxBatchesPerSweep && ctx.Err() == nil; i++ {
		batch := batchSize(s.activity(), full)
		batches++
		if batch < full {
			paced++
		}
		var n int
		start := time.Now()
		n, err = s.Expirer.DeleteExpired(ctx, s.Clock.Now().Unix(), batch)
		total += n
		if err != nil || n < batch {
			break
		}
		s.wait(ctx, time.Since(start))
	}
	s.stats.mu.Lock()
	s.stats.sweeps++
	s.stats.deleted += int64(total)
	s.stats.batches += batches
	s.stats.paced += paced
	if err != nil {
		s.stats.errors++
		s.stats.lastErr = err.Error()
	} else {
		s.stats.lastErr = "" // recovered: LastError reports only a current failure
	}
	s.stats.mu.Unlock()
	if err != nil {
		s.logger().Warn("ttl sweep failed; retrying next interval", "deleted", total, "err", err)
	} else if total > 0 {
		s.logger().Debug("ttl sweep", "deleted", total, "batches", batches, "paced", paced)
	}
	return total, err
}

// wait pauses after a batch that took took, as pause says, until ctx ends.
func (s *Sweeper) wait(ctx context.Context, took time.Duration) {
	start := time.Now()
	for {
		d := pause(s.activity(), took, time.Since(start))
		if d <= 0 {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Run sweeps every Interval until ctx is cancelled.
func (s *Sweeper) Run(ctx context.Context) {
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = s.SweepOnce(ctx)
		}
	}
}
