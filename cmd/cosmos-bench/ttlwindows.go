package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// With -ttl-window w > 0 the ttl scenario sweeps under reads in
// alternating windows: w without a sweep, then w of sweep calls (a call
// still running at the window's end is cancelled), then a settling gap of
// w/2 whose reads are not counted (what the sweep leaves behind, such as
// the WAL writer flushing its commits, would otherwise be charged to the
// next window without it), and so on until the backlog is drained, while
// the SDK point reads run throughout. Each pair of windows gives a p99
// ratio (with / without) over reads made seconds apart, so drift in the
// machine's load (other jobs on a shared machine) hits both sides alike;
// the median of the pairs' ratios is the figure.

// windowMinReads: a window with fewer reads is left out of the pairs.
const windowMinReads = 100

// readWindows compares the point reads of the windows with a sweep to
// those of the windows without.
type readWindows struct {
	Window float64 `json:"window_seconds"`
	// Ratios are the p99 ratios of the pairs (each window with at least
	// windowMinReads reads), in order.
	Ratios         []float64    `json:"p99_ratios"`
	MedianP99Ratio float64      `json:"median_p99_ratio"`
	Without        latencyStats `json:"reads_without_sweep"`
	With           latencyStats `json:"reads_with_sweep"`
	// PooledP99Ratio is With.P99 / Without.P99, all windows pooled.
	PooledP99Ratio float64 `json:"pooled_p99_ratio"`
}

// window is one window of a windowed sweep, since the phase's start.
type window struct {
	start, end time.Duration
	sweep      bool
}

// sweepInWindows warms the reads up with warmup reads, then sweeps want
// rows in alternating windows of length w while concurrency goroutines
// read. It returns the sweep (its Seconds: the windows with a sweep), the
// latencies of the reads of the windows with a sweep and the comparison.
func (s *ttlStore) sweepInWindows(ctx context.Context, c *controlClient, want int, read opFunc, concurrency, warmup int, w time.Duration) (sweepRun, []time.Duration, readWindows, error) {
	rw := readWindows{Window: w.Seconds()}
	wl := workload{warmup: 0, n: 0, concurrency: concurrency}
	if _, _, _, err := wl.loop(ctx, read, 0, warmup); err != nil {
		return sweepRun{}, nil, rw, fmt.Errorf("point reads, warm-up: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, ttlReadsMaxDur)
	defer cancel()
	var r sweepRun
	deleted0, err := c.sweeperDeleted(ctx)
	if err != nil {
		return r, nil, rw, err
	}
	av0, wal0 := s.autovacuums(ctx), s.walLSN(ctx)
	c0 := sampleCPU(s.emuPID)
	t0 := time.Now()
	done := make(chan struct{})
	var wins []window
	var sweepErr error
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			ws := time.Since(t0)
			select {
			case <-ctx.Done():
			case <-time.After(w):
			}
			wins = append(wins, window{ws, time.Since(t0), false})
			if ctx.Err() != nil {
				break
			}
			ws = time.Since(t0)
			calls, drained, err := sweepFor(ctx, c, w)
			wins = append(wins, window{ws, time.Since(t0), true})
			r.Calls += calls
			if err != nil || drained {
				sweepErr = err
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(w / 2): // settling gap
			}
		}
		sweepErr = ctx.Err()
	}()
	reads, readErr := readUntil(ctx, cancel, done, read, concurrency, warmup, t0)
	<-done
	if readErr != nil {
		return r, nil, rw, fmt.Errorf("point reads during the sweep: %w", readErr)
	}
	if sweepErr != nil {
		return r, nil, rw, fmt.Errorf("sweep in windows: %w", sweepErr)
	}
	r.OtherCPU = c0.othersCores(sampleCPU(s.emuPID))
	deleted1, err := c.sweeperDeleted(ctx)
	if err != nil {
		return r, nil, rw, err
	}
	r.Deleted = int(deleted1 - deleted0)
	r.WALMB = s.walMB(ctx, wal0, s.walLSN(ctx))
	r.Autovacuums = s.autovacuums(ctx) - av0
	var with, without []time.Duration
	rw.Ratios, with, without, r.Seconds = pairWindows(reads, wins)
	r.RowsPerSec = float64(r.Deleted) / r.Seconds
	rw.With = newLatencyStats(slices.Clone(with), time.Duration(r.Seconds*float64(time.Second)))
	rw.Without = newLatencyStats(without, time.Duration(float64(len(wins)/2)*w.Seconds()*float64(time.Second)))
	rw.PooledP99Ratio = ratio(rw.With.P99, rw.Without.P99)
	rw.MedianP99Ratio = medianOf(rw.Ratios)
	if r.Deleted != want {
		return r, with, rw, fmt.Errorf("the sweeps deleted %d rows, want %d", r.Deleted, want)
	}
	return r, with, rw, nil
}

// sweepFor calls the sweep endpoint until a call finds nothing left
// (drained) or d has passed; a call still running then is cancelled.
func sweepFor(ctx context.Context, c *controlClient, d time.Duration) (calls int, drained bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		n, err := c.sweep(wctx)
		calls++
		switch {
		case ctx.Err() != nil:
			return calls, false, ctx.Err()
		case wctx.Err() != nil:
			return calls, false, nil
		case err != nil:
			return calls, false, err
		case n == 0:
			return calls, true, nil
		}
	}
}

// pairWindows pairs each window without a sweep with the window with it
// that follows and returns the pairs' p99 ratios (pairs whose windows both
// hold at least windowMinReads reads), the latencies of all the windows
// with and without the sweep, and the seconds of the windows with it.
func pairWindows(reads []timedRead, wins []window) (ratios []float64, with, without []time.Duration, seconds float64) {
	for i := 0; i+1 < len(wins); i += 2 {
		off, on := inWindow(reads, wins[i]), inWindow(reads, wins[i+1])
		seconds += (wins[i+1].end - wins[i+1].start).Seconds()
		with, without = append(with, on...), append(without, off...)
		if len(off) >= windowMinReads && len(on) >= windowMinReads {
			ratios = append(ratios, ratio(p99ms(on), p99ms(off)))
		}
	}
	return ratios, with, without, seconds
}

// inWindow returns the latencies of the reads that started and ended in w.
func inWindow(reads []timedRead, w window) []time.Duration {
	var out []time.Duration
	for _, r := range reads {
		if r.start >= w.start && r.start+r.lat <= w.end {
			out = append(out, r.lat)
		}
	}
	return out
}

// p99ms returns the p99 of lat in ms (lat is sorted in place).
func p99ms(lat []time.Duration) float64 {
	slices.Sort(lat)
	return ms(percentile(lat, 99))
}

// medianOf returns the median of xs (0 for none).
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// errNoSweeper: the stats carry no sweeper counters.
var errNoSweeper = errors.New("stats: no sweeper counters")
