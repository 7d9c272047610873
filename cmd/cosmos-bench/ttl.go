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
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The ttl scenario (-scenario ttl) measures a container holding many
// expired, unswept items ("with-expired": -ttl-items rows seeded straight
// into its table, all but the newest -ttl-live expired) against one holding
// only the live ones ("live-only"), the emulator sweeping only on POST
// /_emulator/ttl/sweep: reads of many items on both (ttlFeeds), the
// sweeper's rows/s with nothing else running, and SDK point reads before
// and while the reseeded backlog is swept in alternating windows
// (sweepInWindows).

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
	Feeds        []opCompared  `json:"reads_of_many_items"`
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
		t.Checks = append(t.Checks, atMost(f.Name+", p50 with expired / live only", f.P50Ratio, targetFeedRatio))
	}
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
func (b *bench) runTTL(ctx context.Context, r *results) (err error) {
	res := &ttlResult{}
	r.TTL = res
	tc, logf := b.cfg.ttl, b.logf
	*res = ttlResult{Items: tc.items, Live: tc.live, Batch: tc.batch}
	defer res.check()
	run, err := b.startSDKRun(ctx, "ttl", "--ttl-sweep-interval", "-1s", "--ttl-sweep-batch", strconv.Itoa(tc.batch))
	if err != nil {
		return err
	}
	defer run.close()
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
	if res.Feeds, err = b.ttlFeeds(ctx, run, cs); err != nil {
		return err
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
	read := func(int) error {
		id, pk := ttlKey(tc, rng.IntN(tc.live))
		_, err := big.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		return err
	}
	logf("ttl: %d SDK point reads, no sweep running", tc.reads)
	if res.ReadsIdle, err = measure(b.cfg.warmup, tc.reads, read); err != nil {
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

// ttlFeeds compares (compare) reads of many items on the live-only and the
// with-expired container: the read feed (pages of 1,000) of one partition
// and of every item, and WHERE on the partition key and COUNT queries
// through the SDK, each checking its count.
func (b *bench) ttlFeeds(ctx context.Context, run *sdkRun, cs map[string]*azcosmos.ContainerClient) ([]opCompared, error) {
	tc := b.cfg.ttl
	ids, perPK := []string{ttlLiveID, ttlBigID}, tc.live/tc.partitions
	pk := func(i int) string { return "p" + strconv.Itoa(i*37%tc.partitions) }
	expect := func(n, want int, err error) error {
		if err == nil && n != want && (want != perPK || tc.live%tc.partitions == 0) {
			err = fmt.Errorf("%d items, want %d", n, want)
		}
		return err
	}
	query := func(j int, sql string, key azcosmos.PartitionKey, params ...azcosmos.QueryParameter) (int, error) {
		docs, _, err := sdkQuery(ctx, cs[ids[j]], sql, key, params)
		if len(docs) == 1 && strings.Contains(sql, "COUNT") {
			return strconv.Atoi(string(docs[0]))
		}
		return len(docs), err
	}
	sides := []string{"live only", "with expired"}
	all, err := b.compare("ttl", sides, 0, tc.feedRuns, []compareOp{{"read feed, all live items", targetFeedRatio, func(j, _ int) error {
		n, err := run.ctl.readFeed(ctx, run.dbID, ids[j], "", ttlFeedPage)
		return expect(n, tc.live, err)
	}}})
	if err != nil {
		return nil, err
	}
	one, err := b.compare("ttl", sides, 0, 10*tc.feedRuns, []compareOp{
		{"read feed, one partition", targetFeedRatio, func(j, i int) error {
			n, err := run.ctl.readFeed(ctx, run.dbID, ids[j], pk(i), ttlFeedPage)
			return expect(n, perPK, err)
		}},
		{"query WHERE c.pk = @pk", targetFeedRatio, func(j, i int) error {
			n, err := query(j, "SELECT * FROM c WHERE c.pk = @pk", azcosmos.NewPartitionKey(), azcosmos.QueryParameter{Name: "@pk", Value: pk(i)})
			return expect(n, perPK, err)
		}},
		{"query COUNT, partition key", targetFeedRatio, func(j, i int) error {
			n, err := query(j, "SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKeyString(pk(i)))
			return expect(n, perPK, err)
		}},
	})
	return append(all.Ops, one.Ops...), err
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

// sweepInWindows sweeps the backlog in alternating windows, reading all the
// while: w without sweep calls, w with them (in the background), a gap of
// w/2 not counted, until a call finds nothing left; a read counts in the
// window it starts in. It returns the reads of the windows with the sweep
// and the pairs' p99 ratios (windowRatio).
func sweepInWindows(ctx context.Context, run *sdkRun, read func(int) error, w time.Duration) (with []time.Duration, ratios []float64, err error) {
	i := 0
	readUntil := func(stop func() bool) (lat []time.Duration, err error) {
		for ; err == nil && !stop(); i++ {
			t := time.Now()
			err = read(i)
			lat = append(lat, time.Since(t))
		}
		return lat, err
	}
	after := func(d time.Duration) func() bool {
		end := time.Now().Add(d)
		return func() bool { return time.Now().After(end) }
	}
	for drained := false; !drained; {
		off, err := readUntil(after(w))
		if err != nil {
			return nil, nil, err
		}
		done := make(chan error, 1)
		go func() {
			d, err := sweepFor(ctx, run.ctl, w)
			drained = d
			done <- err
		}()
		var sweepErr error
		on, err := readUntil(func() bool {
			select {
			case sweepErr = <-done:
				return true
			default:
				return false
			}
		})
		if err = errors.Join(err, sweepErr); err != nil {
			if sweepErr == nil {
				<-done
			}
			return nil, nil, err
		}
		with = append(with, on...)
		if r, ok := windowRatio(on, off); ok {
			ratios = append(ratios, r)
		}
		if _, err := readUntil(after(w / 2)); err != nil {
			return nil, nil, err
		}
	}
	return with, ratios, nil
}

// windowRatio returns the p99 of the reads of a window with the sweep over
// that of the window without it before, and whether both windows hold at
// least windowMinReads reads.
func windowRatio(with, without []time.Duration) (float64, bool) {
	if len(with) < windowMinReads || len(without) < windowMinReads {
		return 0, false
	}
	return ratio(newLatencyStats(with, 0).P99, newLatencyStats(without, 0).P99), true
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

// writeTTLReport writes the ttl scenario's table.
func writeTTLReport(w io.Writer, t *ttlResult) {
	fmt.Fprintf(w, "\nTTL: %d items in %q, %d of them expired and not swept; %q holds the %d live ones\n",
		t.Items, ttlBigID, t.Items-t.Live, ttlLiveID, t.Live)
	fmt.Fprintf(w, "sweeper, batch %d: %d rows in %.2f s, %.0f rows/s, %.0f MB of WAL\n", t.Batch, t.Sweep.Deleted, t.Sweep.Seconds, t.Sweep.RowsPerSec, t.Sweep.WALMB)
	fmt.Fprintf(w, "point reads p50 / p99: %.3f / %.3f ms before the sweep, %.3f / %.3f ms during it; window pairs' p99 ratios %.2f\n",
		t.ReadsIdle.P50, t.ReadsIdle.P99, t.ReadsDuring.P50, t.ReadsDuring.P99, t.WindowRatios)
	for _, f := range t.Feeds {
		fmt.Fprintf(w, "%-28s p50 %8.2f ms live only, %8.2f ms with the expired rows\n", f.Name, f.Latency[0].P50, f.Latency[1].P50)
	}
	writeChecks(w, t.Checks)
}
