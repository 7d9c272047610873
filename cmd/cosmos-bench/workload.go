package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// opFunc performs one operation on item i. It returns the part of its
// latency spent in the HTTP transport (request sent to response body read),
// or 0 when it makes no HTTP request.
type opFunc func(ctx context.Context, i int) (time.Duration, error)

// partitions is how many logical partitions the items spread over.
const partitions = 64

// item is one benchmark document.
type item struct {
	id, pk      string
	body        []byte // the document as created
	replacement []byte // the same document, version 2, for replace
}

// itemSet holds the documents of a run, prepared up front so that encoding
// is not measured.
type itemSet struct{ items []item }

// newItemSet prepares n documents of size bytes each.
func newItemSet(n, size int) *itemSet {
	s := &itemSet{items: make([]item, n)}
	for i := range s.items {
		it := &s.items[i]
		it.id = fmt.Sprintf("item-%07d", i)
		it.pk = fmt.Sprintf("pk-%02d", i%partitions)
		it.body = document(it.id, it.pk, 1, size)
		it.replacement = document(it.id, it.pk, 2, size)
	}
	return s
}

// get returns item i.
func (s *itemSet) get(i int) *item { return &s.items[i] }

// document returns a JSON document of exactly size bytes (at least its fixed
// part) with the given id, partition key and version, padded with a string
// payload.
func document(id, pk string, version, size int) []byte {
	head := fmt.Sprintf(`{"id":%q,"pk":%q,"version":%d,"kind":"bench","payload":"`, id, pk, version)
	const tail = `"}`
	pad := max(size-len(head)-len(tail), 0)
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.Grow(len(head) + pad + len(tail))
	b.WriteString(head)
	for i := 0; i < pad; i++ {
		b.WriteByte(alphabet[(i+version)%len(alphabet)])
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// workload runs an operation over the item set: warmup unmeasured
// operations on items [0, warmup), then n measured ones on items
// [warmup, warmup+n), each time from concurrency goroutines.
type workload struct {
	warmup, n, concurrency int
}

// run runs op and returns the statistics of the measured operations, and
// of the HTTP part of their latencies (zero if op makes no HTTP requests).
// It stops at the first error.
func (w workload) run(ctx context.Context, op opFunc) (total, http latencyStats, err error) {
	if _, _, _, err := w.loop(ctx, op, 0, w.warmup); err != nil {
		return total, http, fmt.Errorf("warm-up: %w", err)
	}
	lat, inner, elapsed, err := w.loop(ctx, op, w.warmup, w.warmup+w.n)
	if err != nil {
		return total, http, err
	}
	total = newLatencyStats(lat, elapsed)
	if slices.ContainsFunc(inner, func(d time.Duration) bool { return d > 0 }) {
		// Latencies only: the throughput is total's.
		http = newLatencyStats(inner, elapsed)
		http.Seconds, http.OpsPerSec = 0, 0
	}
	return total, http, nil
}

// loop runs op on items [from, to) from w.concurrency goroutines and returns
// every operation's latency, the HTTP part of each, and the wall time of
// the whole loop.
func (w workload) loop(ctx context.Context, op opFunc, from, to int) (lat, inner []time.Duration, elapsed time.Duration, err error) {
	if from >= to {
		return nil, nil, 0, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	next.Store(int64(from))
	lats := make([][]time.Duration, w.concurrency)
	inners := make([][]time.Duration, w.concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for g := range w.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			per := (to-from)/w.concurrency + 1
			mine, mineInner := make([]time.Duration, 0, per), make([]time.Duration, 0, per)
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= to {
					break
				}
				t0 := time.Now()
				d, err := op(ctx, i)
				if err != nil {
					cancel(fmt.Errorf("item %d: %w", i, err))
					break
				}
				mine = append(mine, time.Since(t0))
				mineInner = append(mineInner, d)
			}
			lats[g], inners[g] = mine, mineInner
		}()
	}
	wg.Wait()
	elapsed = time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return nil, nil, 0, err
	}
	return slices.Concat(lats...), slices.Concat(inners...), elapsed, nil
}

// latencyStats summarises the measured operations of one benchmark.
// Latencies are in milliseconds.
type latencyStats struct {
	Ops       int     `json:"ops"`
	Seconds   float64 `json:"seconds,omitempty"`
	OpsPerSec float64 `json:"ops_per_sec,omitempty"`
	Mean      float64 `json:"mean_ms"`
	P50       float64 `json:"p50_ms"`
	P90       float64 `json:"p90_ms"`
	P99       float64 `json:"p99_ms"`
	Max       float64 `json:"max_ms"`
}

// newLatencyStats computes the statistics of lat over a wall time elapsed.
func newLatencyStats(lat []time.Duration, elapsed time.Duration) latencyStats {
	s := latencyStats{Ops: len(lat), Seconds: elapsed.Seconds()}
	if len(lat) == 0 {
		return s
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	s.OpsPerSec = float64(len(lat)) / elapsed.Seconds()
	s.Mean = ms(sum / time.Duration(len(lat)))
	s.P50 = ms(percentile(lat, 50))
	s.P90 = ms(percentile(lat, 90))
	s.P99 = ms(percentile(lat, 99))
	s.Max = ms(lat[len(lat)-1])
	return s
}

// percentile returns the nearest-rank p-th percentile of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// perOp divides a phase's CPU time by the operations w runs (warm-up
// included).
func (w workload) perOp(c phaseCPU) perOpCPU {
	n := float64(max(w.warmup+w.n, 1))
	p := perOpCPU{Emulator: c.EmulatorMS / n, Postgres: c.PostgresMS / n}
	if c.PostgresMS < 0 {
		p.Postgres = -1
	}
	return p
}
