// Package ttl runs the sweeper that physically deletes expired items.
//
// Expired items are invisible the moment they expire: every read path of the
// store filters them out in SQL. The sweeper only reclaims their storage, in
// bounded batches, each batch a short transaction, so it never holds long
// locks and several emulator processes can share one database.
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
	BatchSize int             // rows per batch (default 1000)
	Logger    *slog.Logger

	mu    sync.Mutex // serialises sweeps of this process
	stats statsCounters
}

type statsCounters struct {
	mu                      sync.Mutex
	sweeps, deleted, errors int64
	lastErr                 string
}

// Stats are the sweeper's counters since start. LastError is the error of
// the latest sweep when it failed, and empty once a sweep succeeds again;
// Errors counts every failed sweep.
type Stats struct {
	Sweeps    int64  `json:"sweeps"`
	Deleted   int64  `json:"deleted"`
	Errors    int64  `json:"errors"`
	LastError string `json:"lastError,omitempty"`
}

// Stats returns the counters.
func (s *Sweeper) Stats() Stats {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return Stats{Sweeps: s.stats.sweeps, Deleted: s.stats.deleted, Errors: s.stats.errors, LastError: s.stats.lastErr}
}

func (s *Sweeper) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s.Logger
}

// SweepOnce deletes expired items in batches of BatchSize until a batch
// comes back short (or a bound on batches is reached), and returns how many
// it deleted. A database error ends the sweep early; it is counted, logged
// and returned, and the next sweep tries again.
//
// Between full batches it rests as long as the batch took, so that working
// off a large backlog uses about half of one PostgreSQL backend's time and
// foreground requests keep their latency (measured with cmd/cosmos-bench
// -scenario ttl: unpaced, point-read p99 rose 2.6x during a sweep).
func (s *Sweeper) SweepOnce(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	batch := s.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	total := 0
	var err error
	for i := 0; i < maxBatchesPerSweep && ctx.Err() == nil; i++ {
		var n int
		start := time.Now()
		n, err = s.Expirer.DeleteExpired(ctx, s.Clock.Now().Unix(), batch)
		total += n
		if err != nil || n < batch {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Since(start)):
		}
	}
	s.stats.mu.Lock()
	s.stats.sweeps++
	s.stats.deleted += int64(total)
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
		s.logger().Debug("ttl sweep", "deleted", total)
	}
	return total, err
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
