package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The ttl scenario (-scenario ttl) measures a container holding many expired
// items that the sweeper has not deleted yet. Container "with-expired" is
// seeded with -ttl-items rows, all but the newest -ttl-live expired;
// "live-only" holds only those live items (the same documents). The rows
// are written straight into the items tables (INSERT ... SELECT FROM
// generate_series, then VACUUM ANALYZE and CHECKPOINT so that no
// autovacuum or checkpoint of the seeding lands in a measurement); the
// containers are created through the SDK with a defaultTtl, so their
// metadata and expiry indexes are the emulator's own. The emulator runs
// with --ttl-sweep-interval -1s: rows are swept only by POST
// /_emulator/ttl/sweep. It measures:
//
//   - reads of many items on both containers, alternating: the read feed of
//     one partition and of every item, and two queries through the SDK
//     (WHERE on the partition key; COUNT with a partition key);
//   - the sweeper: sweep calls until every expired row is gone, nothing
//     else running (--ttl-sweep-batch -ttl-batch);
//   - SDK point reads of random live items on a reseeded backlog: first
//     with no sweep, then while it is swept in alternating windows of
//     -ttl-window without and with sweep calls (half a window after each
//     window with them not counted); each pair of windows gives a p99
//     ratio over reads made seconds apart, and the median of the pairs is
//     the figure, with the p99 of all reads during the sweep against the
//     reads before it beside it.

// ttlConfig holds the ttl scenario's flags.
type ttlConfig struct {
	items, live, partitions, size, batch, reads, feedRuns int
	window                                                time.Duration
}

// Settings and targets of the ttl scenario.
const (
	ttlDefaultTTL = 3600 // the containers' defaultTtl, seconds
	ttlFeedPage   = 1000 // x-ms-max-item-count of the read feeds
	ttlBigID      = "with-expired"
	ttlLiveID     = "live-only"
	// windowMinReads: a window with fewer reads is left out of the pairs.
	windowMinReads        = 100
	targetSweepRowsPerSec = 50_000.0
	targetReadP99Ratio    = 2.0
	targetFeedRatio       = 1.3
)

// ttlResult is the ttl scenario's part of the results.
type ttlResult struct {
	Items int `json:"items"`
	Live  int `json:"live"`
	Batch int `json:"sweep_batch"`
	// Sweep is the backlog swept with nothing else running.
	Sweep sweepRun `json:"sweep_alone"`
	// ReadsIdle are point reads right before the windowed sweep,
	// ReadsDuring those of its windows with sweep calls.
	ReadsIdle   latencyStats `json:"point_reads_no_sweep"`
	ReadsDuring latencyStats `json:"point_reads_during_sweep"`
	// WindowRatios are the pairs' p99 ratios (with / without the sweep).
	WindowRatios []float64     `json:"window_p99_ratios"`
	Feeds        []feedResult  `json:"reads_of_many_items"`
	Checks       []targetCheck `json:"checks,omitempty"`
}

// targetCheck is one target of a scenario and whether it was met.
type targetCheck struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Target string  `json:"target"`
	Met    bool    `json:"met"`
}

// atMost and atLeast make a targetCheck of a ratio and of a rate.
func atMost(name string, v, limit float64) targetCheck {
	return targetCheck{name, v, fmt.Sprintf("<= %.1fx", limit), v <= limit}
}

func atLeast(name string, v, limit float64) targetCheck {
	return targetCheck{name, v, fmt.Sprintf(">= %.0f", limit), v >= limit}
}

// writeChecks writes a scenario's targets.
func writeChecks(w io.Writer, cs []targetCheck) {
	for _, c := range cs {
		fmt.Fprintf(w, "  %-62s %10.2f  target %-9s %s\n", c.Name, c.Value, c.Target, verdict(c.Met))
	}
}

// check fills in Checks from what was measured.
func (t *ttlResult) check() {
	t.Checks = []targetCheck{
		atLeast(fmt.Sprintf("sweeper rows/s, batch %d", t.Batch), t.Sweep.RowsPerSec, targetSweepRowsPerSec),
		atMost(fmt.Sprintf("point-read p99 with/without sweep, median of %d window pairs", len(t.WindowRatios)), medianOf(t.WindowRatios), targetReadP99Ratio),
		atMost("point-read p99 during the sweep / before it", ratio(t.ReadsDuring.P99, t.ReadsIdle.P99), targetReadP99Ratio),
	}
	for _, f := range t.Feeds {
		t.Checks = append(t.Checks, atMost(f.Name+", with expired / live only", ratio(f.WithExpired, f.LiveOnly), targetFeedRatio))
	}
}

// feedResult is one read of many items, median ms on each container.
type feedResult struct {
	Name        string  `json:"name"`
	WithExpired float64 `json:"with_expired_median_ms"`
	LiveOnly    float64 `json:"live_only_median_ms"`
}

// sweepRun is one sweep of the whole backlog.
type sweepRun struct {
	Deleted    int     `json:"deleted"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	WALMB      float64 `json:"wal_mb"` // all WAL PostgreSQL wrote meanwhile
}

// ttlSeedSQL returns the seedSQL that writes the rows of class which
// ("all", "live" or "expired") into table: item g is live when it is among
// the newest -ttl-live, and each class takes the partitions p0..
// round-robin in creation order, as ttlKey does.
func ttlSeedSQL(tc ttlConfig, table, which string) string {
	old := strconv.Itoa(tc.items - tc.live)
	where := map[string]string{"all": "", "live": "g >= " + old, "expired": "g < " + old}[which]
	return seedSQL(table, tc.items, tc.size, len(strconv.Itoa(tc.items-1)),
		fmt.Sprintf("(CASE WHEN g >= %s THEN g - %s ELSE g END) %% %d", old, old, tc.partitions),
		`',"n":' || g || ',"kind":"ttl-bench"'`, "",
		fmt.Sprintf("CASE WHEN g >= %s THEN $1::bigint - g %% 600 ELSE $1::bigint - %d - g %% 1000 END", old, 2*ttlDefaultTTL), where)
}

// ttlKey returns the id and partition key of the j-th live item.
func ttlKey(tc ttlConfig, j int) (id, pk string) {
	return fmt.Sprintf("item-%0*d", len(strconv.Itoa(tc.items-1)), tc.items-tc.live+j), "p" + strconv.Itoa(j%tc.partitions)
}

// runTTL runs the ttl scenario into res.
func (b *bench) runTTL(ctx context.Context, res *ttlResult) (err error) {
	tc, logf := b.cfg.ttl, b.logf
	*res = ttlResult{Items: tc.items, Live: tc.live, Batch: tc.batch}
	run, err := b.startSDKRun(ctx, "ttl", "--ttl-sweep-interval", "-1s", "--ttl-sweep-batch", strconv.Itoa(tc.batch))
	if err != nil {
		return err
	}
	defer run.closeInto(&err, logf)
	ttl := int32(ttlDefaultTTL)
	tables, cs := map[string]string{}, map[string]*azcosmos.ContainerClient{}
	for _, id := range []string{ttlBigID, ttlLiveID} {
		if cs[id], tables[id], err = run.createContainer(ctx, id, &ttl); err != nil {
			return err
		}
	}
	now, err := run.ctl.clockNow(ctx)
	if err != nil {
		return err
	}
	for _, s := range [][2]string{{ttlBigID, "all"}, {ttlLiveID, "live"}} {
		logf("ttl: seeding %s (%s rows)", s[0], s[1])
		rows := map[string]int{"all": tc.items, "live": tc.live}[s[1]]
		if err := seedRows(ctx, run.pool, tables[s[0]], ttlSeedSQL(tc, tables[s[0]], s[1]), tc.partitions, rows, now); err != nil {
			return err
		}
	}
	expired := tc.items - tc.live
	if err := checkStats(ctx, run.ctl, run.dbID, ttlBigID, tc.items, tc.live); err != nil {
		return err
	}
	for _, f := range ttlFeeds(tc) {
		logf("ttl: %s (%d runs on each container, alternating)", f.name, f.runs)
		lat, err := alternate(1, f.runs, func(side, i int) error {
			return f.once(ctx, run, []string{ttlBigID, ttlLiveID}[side], cs, i)
		}, 2)
		if err != nil {
			return err
		}
		res.Feeds = append(res.Feeds, feedResult{Name: f.name, WithExpired: medianMS(lat[0]), LiveOnly: medianMS(lat[1])})
	}
	logf("ttl: sweeping %d expired rows, batch %d, nothing else running", expired, tc.batch)
	if res.Sweep, err = sweepAll(ctx, run, expired); err != nil {
		return err
	}
	logf("ttl: VACUUM, then reseeding the %d expired rows", expired)
	if _, err := run.pool.Exec(ctx, `VACUUM `+tables[ttlBigID]); err != nil {
		return err
	}
	if err := seedRows(ctx, run.pool, tables[ttlBigID], ttlSeedSQL(tc, tables[ttlBigID], "expired"), tc.partitions, expired, now); err != nil {
		return err
	}
	if err := checkStats(ctx, run.ctl, run.dbID, ttlBigID, tc.items, tc.live); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	big := cs[ttlBigID]
	read := func(ctx context.Context, _ int) (time.Duration, error) {
		id, pk := ttlKey(tc, rng.IntN(tc.live))
		return timed(ctx, func(ctx context.Context) error {
			_, err := big.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
			return err
		})
	}
	logf("ttl: %d SDK point reads, no sweep running", tc.reads)
	w := workload{warmup: b.cfg.warmup, n: tc.reads}
	if res.ReadsIdle, _, err = w.run(ctx, read); err != nil {
		return fmt.Errorf("point reads: %w", err)
	}
	logf("ttl: SDK point reads while sweeping %d rows in windows of %v", expired, tc.window)
	var with []time.Duration
	if with, res.WindowRatios, err = sweepInWindows(ctx, run, read, tc.window); err != nil {
		return err
	}
	res.ReadsDuring = newLatencyStats(with, 0)
	return checkStats(ctx, run.ctl, run.dbID, ttlBigID, tc.live, tc.live)
}

// checkStats checks GET /_emulator/stats for container coll.
func checkStats(ctx context.Context, c *controlClient, db, coll string, stored, live int) error {
	s, err := c.stats(ctx, db, coll)
	if err == nil && (s.StoredRows != int64(stored) || s.LiveItems != int64(live)) {
		err = fmt.Errorf("%s: the emulator reports %d stored rows and %d live items, want %d and %d", coll, s.StoredRows, s.LiveItems, stored, live)
	}
	return err
}

// ttlFeed is one read of many items: a read feed (raw HTTP) of one
// partition per run or of every item, or a query through the SDK with
// @pk bound to the run's partition.
type ttlFeed struct {
	name, query string
	withPK, all bool
	runs, items int // items: expected per run (or count), -1: not checked
	partitions  int // run i reads partition p<i*37 % partitions>
}

// ttlFeeds returns the reads of many items the scenario compares.
func ttlFeeds(tc ttlConfig) []ttlFeed {
	perPK := tc.live / tc.partitions
	if tc.live%tc.partitions != 0 {
		perPK = -1
	}
	p := tc.partitions
	return []ttlFeed{
		{name: "read feed, one partition", runs: 10 * tc.feedRuns, items: perPK, partitions: p},
		{name: "read feed, all live items", all: true, runs: tc.feedRuns, items: tc.live, partitions: p},
		{name: "query WHERE c.pk = @pk", query: "SELECT * FROM c WHERE c.pk = @pk", runs: 10 * tc.feedRuns, items: perPK, partitions: p},
		{name: "query COUNT, partition key", query: "SELECT VALUE COUNT(1) FROM c", withPK: true, runs: 10 * tc.feedRuns, items: perPK, partitions: p},
	}
}

// once runs the read of run i on container coll and checks its count.
func (f ttlFeed) once(ctx context.Context, run *sdkRun, coll string, cs map[string]*azcosmos.ContainerClient, i int) error {
	pk := "p" + strconv.Itoa(i*37%f.partitions)
	var n int
	var err error
	switch {
	case f.query == "" && f.all:
		n, err = run.ctl.readFeed(ctx, run.dbID, coll, "", ttlFeedPage)
	case f.query == "":
		n, err = run.ctl.readFeed(ctx, run.dbID, coll, pk, ttlFeedPage)
	default:
		key := azcosmos.NewPartitionKey()
		if f.withPK {
			key = azcosmos.NewPartitionKeyString(pk)
		}
		var params []azcosmos.QueryParameter
		if strings.Contains(f.query, "@pk") {
			params = []azcosmos.QueryParameter{{Name: "@pk", Value: pk}}
		}
		var docs [][]byte
		docs, _, err = sdkQuery(ctx, cs[coll], f.query, key, params)
		n = len(docs)
		if err == nil && f.withPK && len(docs) == 1 {
			n, err = strconv.Atoi(string(docs[0]))
		}
	}
	if err == nil && f.items >= 0 && n != f.items {
		err = fmt.Errorf("%s of %s (partition %s) returned %d items, want %d", f.name, coll, pk, n, f.items)
	}
	return err
}

// medianMS returns the median of ds in ms.
func medianMS(ds []time.Duration) float64 {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = ms(d)
	}
	return medianOf(xs)
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

// walLSN returns PostgreSQL's current WAL position ("" if unavailable).
func walLSN(ctx context.Context, pool *pgxpool.Pool) string {
	var lsn string
	_ = pool.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn)
	return lsn
}

// sweepAll calls the sweep endpoint until want rows are deleted (or a call
// deletes none), and times it.
func sweepAll(ctx context.Context, run *sdkRun, want int) (sweepRun, error) {
	var r sweepRun
	wal0 := walLSN(ctx, run.pool)
	t0 := time.Now()
	for r.Deleted < want {
		n, err := run.ctl.sweep(ctx)
		if err != nil {
			return r, err
		}
		if r.Deleted += n; n == 0 {
			break
		}
	}
	r.Seconds = time.Since(t0).Seconds()
	r.RowsPerSec = float64(r.Deleted) / r.Seconds
	_ = run.pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn) / 1048576.0`, wal0).Scan(&r.WALMB)
	if r.Deleted != want {
		return r, fmt.Errorf("the sweeps deleted %d rows, want %d", r.Deleted, want)
	}
	return r, nil
}

// timedRead is one read: when it started (since the phase's start) and
// how long it took.
type timedRead struct{ start, lat time.Duration }

// window is one window of a windowed sweep, since the phase's start.
type window struct {
	start, end time.Duration
	sweep      bool
}

// sweepInWindows sweeps the backlog in alternating windows of length w
// (without sweep calls, with them, then a gap of w/2 not counted) while
// one goroutine reads, until a call finds nothing left. It returns the
// latencies of the reads in the windows with the sweep and the pairs'
// p99 ratios.
func sweepInWindows(ctx context.Context, run *sdkRun, read opFunc, w time.Duration) ([]time.Duration, []float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	t0 := time.Now()
	done := make(chan struct{})
	var wins []window
	var sweepErr error
	go func() {
		defer close(done)
		for {
			ws := time.Since(t0)
			if sweepErr = sleepCtx(ctx, w); sweepErr != nil {
				return
			}
			wins = append(wins, window{ws, time.Since(t0), false})
			ws = time.Since(t0)
			drained, err := sweepFor(ctx, run.ctl, w)
			wins = append(wins, window{ws, time.Since(t0), true})
			if err != nil || drained {
				sweepErr = err
				return
			}
			if sweepErr = sleepCtx(ctx, w/2); sweepErr != nil {
				return
			}
		}
	}()
	var reads []timedRead
	var readErr error
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			start := time.Since(t0)
			if _, readErr = read(ctx, i); readErr != nil {
				cancel()
				return
			}
			reads = append(reads, timedRead{start, time.Since(t0) - start})
		}
	}()
	<-done
	stop.Store(true)
	wg.Wait()
	if err := errors.Join(readErr, sweepErr); err != nil {
		return nil, nil, fmt.Errorf("sweep under reads: %w", err)
	}
	ratios, with, _ := pairWindows(reads, wins)
	return with, ratios, nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// sweepFor calls the sweep endpoint until a call finds nothing left
// (drained) or d has passed; a call still running then is cancelled.
func sweepFor(ctx context.Context, c *controlClient, d time.Duration) (drained bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		n, err := c.sweep(wctx)
		switch {
		case ctx.Err() != nil:
			return false, ctx.Err()
		case wctx.Err() != nil:
			return false, nil
		case err != nil:
			return false, err
		case n == 0:
			return true, nil
		}
	}
}

// pairWindows pairs each window without a sweep with the window with it
// that follows and returns the pairs' p99 ratios (pairs whose windows both
// hold at least windowMinReads reads that started and ended in them) and
// the latencies of all the windows with and without the sweep.
func pairWindows(reads []timedRead, wins []window) (ratios []float64, with, without []time.Duration) {
	in := func(w window) []time.Duration {
		var out []time.Duration
		for _, r := range reads {
			if r.start >= w.start && r.start+r.lat <= w.end {
				out = append(out, r.lat)
			}
		}
		return out
	}
	for i := 0; i+1 < len(wins); i += 2 {
		off, on := in(wins[i]), in(wins[i+1])
		with, without = append(with, on...), append(without, off...)
		if len(off) >= windowMinReads && len(on) >= windowMinReads {
			ratios = append(ratios, ratio(newLatencyStats(on, 0).P99, newLatencyStats(off, 0).P99))
		}
	}
	return ratios, with, without
}

// writeTTLReport writes the ttl scenario's table.
func writeTTLReport(w io.Writer, t *ttlResult) {
	fmt.Fprintf(w, "\nTTL: %d items in %q, %d of them expired and not swept; %q holds the %d live ones\n",
		t.Items, ttlBigID, t.Items-t.Live, ttlLiveID, t.Live)
	fmt.Fprintf(w, "sweeper, batch %d: %d rows in %.2f s, %.0f rows/s, %.0f MB of WAL\n", t.Batch, t.Sweep.Deleted, t.Sweep.Seconds, t.Sweep.RowsPerSec, t.Sweep.WALMB)
	fmt.Fprintf(w, "point reads p50 / p99: %.3f / %.3f ms before the sweep, %.3f / %.3f ms during it; window pairs' p99 ratios %.2f\n",
		t.ReadsIdle.P50, t.ReadsIdle.P99, t.ReadsDuring.P50, t.ReadsDuring.P99, t.WindowRatios)
	for _, f := range t.Feeds {
		fmt.Fprintf(w, "%-28s median %8.2f ms with the expired rows, %8.2f ms live only\n", f.Name, f.WithExpired, f.LiveOnly)
	}
	writeChecks(w, t.Checks)
}
