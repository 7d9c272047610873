package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The ttl scenario (-scenario ttl) measures a container holding many expired
// items that the sweeper has not deleted yet:
//
//   - the sweeper's throughput: the big container is seeded with -ttl-items
//     rows, all but -ttl-live of them expired, and POST /_emulator/ttl/sweep
//     is called (the emulator runs with --ttl-sweep-interval -1s, so no
//     background sweeper interferes) until every expired row is deleted;
//     once for each --ttl-sweep-batch of -ttl-batches;
//   - SDK point reads of random live items while nothing else runs, then
//     while a goroutine sweeps an identical backlog (with -ttl-window, the
//     default, in alternating windows with and without sweep calls:
//     ttlwindows.go);
//   - reads of many items on the big container before any sweep, and on a
//     second container that holds only the live items (the same documents):
//     the read feed of one partition and of the whole container, and two
//     queries through the SDK, SELECT * FROM c WHERE c.pk = @pk (made
//     single-partition by its WHERE) and SELECT VALUE COUNT(1) FROM c with a
//     partition key.
//
// The rows are written directly into the containers' items tables (one
// INSERT ... SELECT FROM generate_series per container through pgx); the
// containers themselves are created through the SDK with a defaultTtl, so
// the emulator's metadata and expiry indexes are the real ones. After every
// seeding the table is VACUUMed and ANALYZEd and a CHECKPOINT is taken, so
// that neither an autovacuum triggered by the inserts nor a checkpoint of
// their dirty pages lands in the middle of a measurement, and every
// measurement starts from the same settled state.

// ttlConfig holds the ttl scenario's flags.
type ttlConfig struct {
	items, live, partitions, size int
	batches                       []int
	reads, feedRuns               int
	interleave, explain, longTx   bool
	window                        time.Duration
}

// Settings of the ttl scenario.
const (
	ttlDefaultTTL  = 3600 // the containers' defaultTtl, seconds
	ttlFeedPage    = 1000 // x-ms-max-item-count of the read feeds
	ttlBigID       = "with-expired"
	ttlLiveID      = "live-only"
	ttlMinOverlap  = 500    // fewer reads during a sweep than this: warn
	ttlReadKeys    = 50_000 // random live items the reads cycle through
	ttlReadsMaxDur = 10 * time.Minute
)

// Targets of the ttl scenario.
const (
	targetSweepRowsPerSec = 50_000.0 // rows/s, one sweeper, nothing else running
	targetReadP99Ratio    = 2.0      // SDK point-read p99 during a sweep / without
	targetFeedRatio       = 1.3      // read feed or query with the expired rows / live-only (issue 12)
)

// ttlResult is the ttl scenario's part of the results.
type ttlResult struct {
	Endpoint   string `json:"endpoint,omitempty"`
	PGVersion  string `json:"pg_version,omitempty"`
	Items      int    `json:"items"`
	Live       int    `json:"live"`
	Expired    int    `json:"expired"`
	Partitions int    `json:"partitions"`
	ItemSize   int    `json:"item_size_bytes"`
	DefaultTTL int    `json:"default_ttl_seconds"`
	// Layout says where the live items are in creation (seq) order:
	// "newest" (the last -ttl-live items created, as when items are only
	// ever inserted) or "interleaved" (evenly spread).
	Layout      string        `json:"layout"`
	Concurrency int           `json:"read_concurrency"`
	Seeding     []seedResult  `json:"seeding"`
	Feeds       []feedResult  `json:"read_feed"`
	Sweeps      []sweepResult `json:"sweeps"`
	After       []feedAfter   `json:"read_feed_after_sweep,omitempty"`
	// LongTx is the sweep of -ttl-long-tx, if asked for.
	LongTx *longTxSweep `json:"sweep_with_open_snapshot,omitempty"`
	Notes  []string     `json:"notes,omitempty"`
	// Checks are the targets, measured against (never asserted).
	Checks []targetCheck `json:"checks,omitempty"`
}

// targetCheck is one target of a scenario and whether it was met.
type targetCheck struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Target string  `json:"target"`
	Met    bool    `json:"met"`
}

// check fills in Checks from what was measured.
func (t *ttlResult) check() {
	t.Checks = nil
	if len(t.Sweeps) > 0 {
		s := t.Sweeps[0]
		t.Checks = append(t.Checks,
			targetCheck{fmt.Sprintf("sweeper rows/s, batch %d", s.Batch), s.Alone.RowsPerSec, ">= " + thousands(int(targetSweepRowsPerSec)), s.Alone.RowsPerSec >= targetSweepRowsPerSec},
			targetCheck{fmt.Sprintf("point-read p99 during/without sweep, batch %d", s.Batch), s.P99Ratio, fmt.Sprintf("<= %.1f", targetReadP99Ratio), s.P99Ratio <= targetReadP99Ratio})
		if w := s.Windows; w != nil {
			t.Checks = append(t.Checks, targetCheck{fmt.Sprintf("point-read p99 with/without sweep, median of %d window pairs, batch %d", len(w.Ratios), s.Batch),
				w.MedianP99Ratio, fmt.Sprintf("<= %.1f", targetReadP99Ratio), w.MedianP99Ratio <= targetReadP99Ratio})
		}
	}
	for _, f := range t.Feeds {
		t.Checks = append(t.Checks, targetCheck{f.Name + ", with expired/live-only", f.Ratio, fmt.Sprintf("<= %.1f", targetFeedRatio), f.Ratio <= targetFeedRatio})
	}
}

// seedResult times one seeding of a container's items table.
type seedResult struct {
	Container string  `json:"container"`
	What      string  `json:"what"` // all, live or expired rows
	Rows      int64   `json:"rows"`
	Insert    float64 `json:"insert_seconds"`
	Settle    float64 `json:"vacuum_analyze_checkpoint_seconds"`
}

// feedResult compares one read feed or query on the big container (before
// any sweep, the expired rows still stored) and on the live-only container.
type feedResult struct {
	Name  string `json:"name"`
	Via   string `json:"request"`
	Items int    `json:"items"`
	Pages int    `json:"pages"`
	Runs  int    `json:"runs"`
	// FirstWithExpired and FirstLiveOnly are the unmeasured first runs; a
	// query's creates the path indexes it can use (IndexesBuilt, on both
	// tables together).
	FirstWithExpired float64 `json:"with_expired_first_ms"`
	FirstLiveOnly    float64 `json:"live_only_first_ms"`
	IndexesBuilt     int     `json:"indexes_built_by_first_runs"`
	WithExpired      float64 `json:"with_expired_median_ms"`
	LiveOnly         float64 `json:"live_only_median_ms"`
	Ratio            float64 `json:"ratio"`
	OtherCPU         float64 `json:"other_cpu_cores"`
}

// feedAfter times the big container's reads again after its last sweep,
// before and after a VACUUM of the rows the sweep deleted.
type feedAfter struct {
	Name         string  `json:"name"`
	BeforeVacuum float64 `json:"after_sweep_median_ms"`
	DeadRows     int64   `json:"dead_rows_then"`
	AfterVacuum  float64 `json:"after_vacuum_median_ms"`
	LiveOnly     float64 `json:"live_only_median_ms"`
}

// sweepResult is everything measured with one --ttl-sweep-batch.
type sweepResult struct {
	Batch int `json:"batch"`
	// Alone sweeps the backlog with no other traffic.
	Alone sweepRun `json:"alone"`
	// ReadsIdle are SDK point reads right before WithReads, no sweep running.
	ReadsIdle         latencyStats `json:"point_reads_no_sweep"`
	ReadsIdleOtherCPU float64      `json:"point_reads_no_sweep_other_cpu_cores"`
	// WithReads sweeps an identical backlog while ReadsDuring run.
	WithReads   sweepRun     `json:"with_reads"`
	ReadsDuring latencyStats `json:"point_reads_during_sweep"`
	P50Ratio    float64      `json:"p50_ratio"`
	P99Ratio    float64      `json:"p99_ratio"`
	// Windows, with -ttl-window, compares the reads of the windows with
	// the sweep to those of the windows without, in the same phase.
	Windows *readWindows `json:"windows,omitempty"`
}

// longTxSweep is a sweep of the whole backlog while another connection
// holds a transaction with a snapshot open, as a long query, a backup or an
// idle-in-transaction session would.
type longTxSweep struct {
	Batch int      `json:"batch"`
	Sweep sweepRun `json:"sweep"`
}

// sweepRun is one sweep of the whole backlog.
type sweepRun struct {
	Deleted    int     `json:"deleted"`
	Calls      int     `json:"calls"`
	Seconds    float64 `json:"seconds"`
	RowsPerSec float64 `json:"rows_per_sec"`
	// WALMB is the WAL PostgreSQL wrote meanwhile (all activity, MB).
	WALMB float64 `json:"wal_mb"`
	// Autovacuums counts autovacuum runs on the table that finished
	// meanwhile, as far as the statistics had caught up.
	Autovacuums int64 `json:"autovacuums"`
	// OtherCPU is the average CPU use of processes outside the run
	// meanwhile, in cores (-1 unknown): other work skews the numbers.
	OtherCPU float64 `json:"other_cpu_cores"`
}

// ttlKey is one live item a read can target.
type ttlKey struct{ id, pk string }

// layout maps item numbers (g, 0-based, in creation order) to live or
// expired, partition keys and ids. Within each class (live, expired) the
// items take partitions round-robin in creation order, so every partition
// holds the same share of live and of expired items in both layouts.
type layout struct {
	cfg   ttlConfig
	width int // digits of the item number in ids
}

func newLayout(cfg ttlConfig) layout {
	return layout{cfg: cfg, width: len(strconv.Itoa(cfg.items - 1))}
}

func (l layout) name() string {
	if l.cfg.interleave {
		return "interleaved"
	}
	return "newest"
}

// liveG returns the item number of the j-th live item (0-based).
func (l layout) liveG(j int) int {
	n, L := l.cfg.items, l.cfg.live
	if !l.cfg.interleave {
		return n - L + j
	}
	// The smallest g with floor((g+1)*L/n) = j+1.
	return ((j+1)*n+L-1)/L - 1
}

// key returns the id and partition key value of the j-th live item.
func (l layout) key(j int) ttlKey {
	return ttlKey{id: fmt.Sprintf("item-%0*d", l.width, l.liveG(j)), pk: "p" + strconv.Itoa(j%l.cfg.partitions)}
}

// seedSQL returns the INSERT that writes the rows of class which ("all",
// "live" or "expired") into table, as of emulator time $1 (unix seconds).
// It is the SQL twin of liveG and key: lc is the number of live items among
// 0..g, so a live item's rank among the live ones is lc-1 and an expired
// one's rank among the expired ones is g-lc. generate_series yields g in
// order and the projection takes seq and lsn from their sequences row by
// row, so seq follows g (no ORDER BY: it would sort the whole set).
func (l layout) seedSQL(table, which string) string {
	n, L, P := l.cfg.items, l.cfg.live, l.cfg.partitions
	var lc, live string
	if l.cfg.interleave {
		lc = fmt.Sprintf("((g + 1) * %d / %d)", L, n)
		live = fmt.Sprintf("(((g + 1) * %d / %d) > (g * %d / %d))", L, n, L, n)
	} else {
		lc = fmt.Sprintf("greatest(g + 1 - %d, 0)", n-L)
		live = fmt.Sprintf("(g >= %d)", n-L)
	}
	filter := "TRUE"
	switch which {
	case "live":
		filter = "live"
	case "expired":
		filter = "NOT live"
	}
	// Live items were written in the last 10 minutes; expired ones two
	// defaultTtls ago and earlier.
	return fmt.Sprintf(`INSERT INTO %[1]s (pk, id, seq, body, ts, ttl, etag, lsn)
SELECT '["' || p || '"]', id, nextval('cosmos.doc_seq'),
       head || repeat('x', greatest(%[2]d - length(head) - 2, 0)) || '"}',
       ts, NULL,
       '"' || lpad(to_hex(g), 8, '0') || '-0000-0100-0000-' || lpad(to_hex(ts), 8, '0') || '0000"',
       nextval('cosmos.lsn_seq')
FROM (
    SELECT g, p, id, ts,
           '{"id":"' || id || '","pk":"' || p || '","n":' || g || ',"kind":"ttl-bench","payload":"' AS head
    FROM (
        SELECT g, 'p' || (CASE WHEN live THEN lc - 1 ELSE g - lc END) %% %[3]d AS p,
               'item-' || lpad(g::text, %[4]d, '0') AS id,
               CASE WHEN live THEN $1::bigint - g %% 600 ELSE $1::bigint - %[5]d - g %% 1000 END AS ts
        FROM (SELECT g, %[6]s AS lc, %[7]s AS live FROM generate_series(0::bigint, %[8]d) AS g) a
        WHERE %[9]s
    ) b
) c`, table, l.cfg.size, P, l.width, 2*ttlDefaultTTL, lc, live, n-1, filter)
}

// ttlEnv is the running emulator of the ttl scenario and its clients.
type ttlEnv struct {
	proc  *emulatorProcess
	batch int
	ctl   *controlClient
	big   *azcosmos.ContainerClient
	// containers are the SDK clients of both containers, by id.
	containers map[string]*azcosmos.ContainerClient
	httpSDK    interface{ CloseIdleConnections() }
}

func (e *ttlEnv) close() {
	if e.ctl != nil {
		e.ctl.close()
	}
	if e.httpSDK != nil {
		e.httpSDK.CloseIdleConnections()
	}
}

// runTTL runs the ttl scenario into res.
func (b *bench) runTTL(ctx context.Context, res *ttlResult) (err error) {
	cfg, tc, logf := b.cfg, b.cfg.ttl, b.logf
	lay := newLayout(tc)
	*res = ttlResult{Items: tc.items, Live: tc.live, Expired: tc.items - tc.live, Partitions: tc.partitions,
		ItemSize: tc.size, DefaultTTL: ttlDefaultTTL, Layout: lay.name(), Concurrency: cfg.concurrency}
	dataDir := filepath.Join(b.workDir, "ttl")
	starts := 0
	var env *ttlEnv
	dbID := newDatabaseID()
	startEnv := func(batch int) error {
		if env != nil {
			env.close()
			env.proc.stop()
			env = nil
		}
		starts++
		logf("ttl: starting the emulator with --ttl-sweep-interval -1s --ttl-sweep-batch %d", batch)
		p, err := b.start(ctx, dataDir, fmt.Sprintf("ttl-emulator-%d.log", starts),
			"--ttl-sweep-interval", "-1s", "--ttl-sweep-batch", strconv.Itoa(batch))
		if err != nil {
			return err
		}
		env = &ttlEnv{proc: p, batch: batch}
		res.Endpoint = p.url
		if env.ctl, err = newControlClient(p.url, cfg.http1); err != nil {
			return err
		}
		client, hc, err := newSDKClient(p.url, cfg.concurrency, cfg.http1)
		if err != nil {
			return err
		}
		env.httpSDK = hc
		if starts == 1 {
			if err := createTTLContainers(ctx, client, dbID); err != nil {
				return err
			}
		}
		env.containers = map[string]*azcosmos.ContainerClient{}
		for _, id := range []string{ttlBigID, ttlLiveID} {
			if env.containers[id], err = client.NewContainer(dbID, id); err != nil {
				return err
			}
		}
		env.big = env.containers[ttlBigID]
		return nil
	}
	defer func() {
		if env == nil {
			return
		}
		// Delete the database (an external PostgreSQL keeps it otherwise).
		if client, _, cerr := newSDKClient(env.proc.url, 1, cfg.http1); cerr == nil {
			if db, cerr := client.NewDatabase(dbID); cerr == nil {
				if _, cerr := db.Delete(context.Background(), nil); cerr != nil && err == nil {
					err = fmt.Errorf("deleting the benchmark database: %w", cerr)
				}
			}
		}
		env.close()
		env.proc.stop()
		if env.proc.exitErr != nil {
			logf("warning: the emulator exited with %v (log: %s)", env.proc.exitErr, env.proc.logPath)
		}
	}()
	if err := startEnv(tc.batches[0]); err != nil {
		return err
	}

	pgConn, err := b.pgConnString(dataDir)
	if err != nil {
		return err
	}
	st, err := newTTLStore(ctx, pgConn, dbID, lay)
	if err != nil {
		return err
	}
	defer func() { st.close() }()
	st.emuPID = env.proc.pid()
	res.PGVersion = st.version

	// Seed both containers and check the emulator sees them as intended.
	now, err := env.ctl.clockNow(ctx)
	if err != nil {
		return err
	}
	for _, s := range []struct{ table, container, which string }{{st.big, ttlBigID, "all"}, {st.liveOnly, ttlLiveID, "live"}} {
		logf("ttl: seeding %s (%s rows)", s.container, s.which)
		r, err := st.seed(ctx, s.table, s.which, now)
		r.Container = s.container
		if r.Rows > 0 {
			res.Seeding = append(res.Seeding, r)
		}
		if err != nil {
			return err
		}
		logf("ttl: %d rows in %.1f s, settled in %.1f s", r.Rows, r.Insert, r.Settle)
	}
	if err := checkStats(ctx, env.ctl, dbID, ttlBigID, tc.items, tc.live); err != nil {
		return err
	}
	if err := checkStats(ctx, env.ctl, dbID, ttlLiveID, tc.live, tc.live); err != nil {
		return err
	}
	if tc.explain {
		st.explainAll(ctx, logf, "before any sweep", now)
	}

	// Read feeds and queries, before any sweep.
	feeds := ttlFeeds(tc)
	for _, f := range feeds {
		logf("ttl: %s (%d + %d runs)", f.name, f.runs, f.runs)
		idx0, err := st.indexes(ctx)
		if err != nil {
			return err
		}
		c0 := sampleCPU(env.proc.pid())
		r, err := f.compare(ctx, env, dbID)
		if err != nil {
			return err
		}
		r.OtherCPU = c0.othersCores(sampleCPU(env.proc.pid()))
		idx1, err := st.indexes(ctx)
		if err != nil {
			return err
		}
		if r.IndexesBuilt = idx1 - idx0; r.IndexesBuilt > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("the first %q created %d path index(es) on the two items tables (first runs: %.0f ms on %s, %.0f ms on %s); "+
				"the sweeps, reseedings and VACUUMs below maintain them", f.query, r.IndexesBuilt, r.FirstWithExpired, ttlBigID, r.FirstLiveOnly, ttlLiveID))
		}
		res.Feeds = append(res.Feeds, r)
	}

	// Sweeps, once per batch size: alone, then with reads.
	keys := make([]ttlKey, ttlReadKeys)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		keys[i] = lay.key(rng.IntN(tc.live))
	}
	expired := tc.items - tc.live
	backlog := true // the big table holds the expired rows
	refill := func() error {
		if backlog {
			return nil
		}
		logf("ttl: VACUUM, then reseeding the %d expired rows", expired)
		if _, err := st.exec(ctx, `VACUUM `+st.big); err != nil {
			return err
		}
		now, err := env.ctl.clockNow(ctx)
		if err != nil {
			return err
		}
		r, err := st.seed(ctx, st.big, "expired", now)
		r.Container = ttlBigID
		res.Seeding = append(res.Seeding, r)
		if err != nil {
			return err
		}
		logf("ttl: %d rows in %.1f s, settled in %.1f s", r.Rows, r.Insert, r.Settle)
		backlog = true
		return checkStats(ctx, env.ctl, dbID, ttlBigID, tc.items, tc.live)
	}
	for bi, batch := range tc.batches {
		if bi > 0 && batch != env.batch {
			// A new emulator process (a managed PostgreSQL restarts with
			// it, so reconnect).
			st.close()
			if err := startEnv(batch); err != nil {
				return err
			}
			if st, err = newTTLStore(ctx, pgConn, dbID, lay); err != nil {
				return err
			}
			st.emuPID = env.proc.pid()
		}
		sr := sweepResult{Batch: batch}
		if err := refill(); err != nil {
			return err
		}
		if tc.explain && bi == 0 {
			if now, err := env.ctl.clockNow(ctx); err == nil {
				st.explainSweep(ctx, logf, batch, now)
			}
		}
		logf("ttl: sweeping %d expired rows, batch %d, nothing else running", expired, batch)
		if sr.Alone, err = st.sweepAll(ctx, env.ctl, expired, nil, nil); err != nil {
			return err
		}
		backlog = false
		logf("ttl: %d rows in %.2f s: %.0f rows/s", sr.Alone.Deleted, sr.Alone.Seconds, sr.Alone.RowsPerSec)
		if err := checkStats(ctx, env.ctl, dbID, ttlBigID, tc.live, tc.live); err != nil {
			return err
		}
		if err := refill(); err != nil {
			return err
		}
		read := readKeys(env.big, keys)
		w := workload{warmup: cfg.warmup, n: tc.reads, concurrency: cfg.concurrency}
		logf("ttl: %d SDK point reads, no sweep running", tc.reads)
		c0 := sampleCPU(env.proc.pid())
		if sr.ReadsIdle, _, err = w.run(ctx, read); err != nil {
			return fmt.Errorf("point reads: %w", err)
		}
		sr.ReadsIdleOtherCPU = c0.othersCores(sampleCPU(env.proc.pid()))
		logf("ttl: SDK point reads while sweeping %d rows, batch %d", expired, batch)
		var lat []time.Duration
		if tc.window > 0 {
			var rw readWindows
			sr.WithReads, lat, rw, err = st.sweepInWindows(ctx, env.ctl, expired, read, cfg.concurrency, cfg.warmup+tc.reads, tc.window)
			sr.Windows = &rw
			logf("ttl: %d window pairs of %v: median p99 ratio %.2fx (pooled %.2fx)", len(rw.Ratios), tc.window, rw.MedianP99Ratio, rw.PooledP99Ratio)
		} else {
			sr.WithReads, lat, err = st.sweepWithReads(ctx, env.ctl, expired, read, cfg.concurrency, cfg.warmup+tc.reads)
		}
		if err != nil {
			return err
		}
		backlog = false
		sr.ReadsDuring = newLatencyStats(lat, time.Duration(sr.WithReads.Seconds*float64(time.Second)))
		sr.P50Ratio, sr.P99Ratio = ratio(sr.ReadsDuring.P50, sr.ReadsIdle.P50), ratio(sr.ReadsDuring.P99, sr.ReadsIdle.P99)
		if len(lat) < ttlMinOverlap {
			res.Notes = append(res.Notes, fmt.Sprintf("batch %d: only %d reads ran during the sweep (it took %.1f s): the p99 during it is a small sample",
				batch, len(lat), sr.WithReads.Seconds))
		}
		logf("ttl: %d reads during a %.2f s sweep (%.0f rows/s): p99 %.3f ms vs %.3f ms without",
			len(lat), sr.WithReads.Seconds, sr.WithReads.RowsPerSec, sr.ReadsDuring.P99, sr.ReadsIdle.P99)
		res.Sweeps = append(res.Sweeps, sr)
		if err := checkStats(ctx, env.ctl, dbID, ttlBigID, tc.live, tc.live); err != nil {
			return err
		}
		if tc.longTx && bi == 0 {
			if err := refill(); err != nil {
				return err
			}
			logf("ttl: sweeping %d expired rows, batch %d, while another connection holds a snapshot", expired, batch)
			r, err := st.sweepHoldingSnapshot(ctx, env.ctl, expired)
			if err != nil {
				return err
			}
			backlog = false
			logf("ttl: %d rows in %.2f s: %.0f rows/s", r.Deleted, r.Seconds, r.RowsPerSec)
			res.LongTx = &longTxSweep{Batch: batch, Sweep: r}
		}
	}

	// The big container's reads after its last sweep: the deleted rows are
	// dead tuples until (auto)vacuum removes them.
	for _, f := range feeds {
		logf("ttl: %s after the sweep", f.name)
		dead, _ := st.deadRows(ctx)
		before, err := f.median(ctx, env, dbID, ttlBigID)
		if err != nil {
			return err
		}
		res.After = append(res.After, feedAfter{Name: f.name, BeforeVacuum: before, DeadRows: dead})
	}
	if tc.explain {
		now, _ := env.ctl.clockNow(ctx)
		st.explainFeeds(ctx, logf, "after the last sweep, before VACUUM", st.big, now)
	}
	logf("ttl: VACUUM of the swept table")
	if _, err := st.exec(ctx, `VACUUM `+st.big); err != nil {
		return err
	}
	for i, f := range feeds {
		after, err := f.median(ctx, env, dbID, ttlBigID)
		if err != nil {
			return err
		}
		live, err := f.median(ctx, env, dbID, ttlLiveID)
		if err != nil {
			return err
		}
		res.After[i].AfterVacuum, res.After[i].LiveOnly = after, live
	}
	return nil
}

// createTTLContainers creates database dbID with the big and the live-only
// container through the SDK, both partitioned on /pk with a defaultTtl.
func createTTLContainers(ctx context.Context, client *azcosmos.Client, dbID string) error {
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
		return fmt.Errorf("SDK: creating database %s: %w", dbID, err)
	}
	db, err := client.NewDatabase(dbID)
	if err != nil {
		return err
	}
	ttl := int32(ttlDefaultTTL)
	for _, id := range []string{ttlBigID, ttlLiveID} {
		props := azcosmos.ContainerProperties{ID: id, DefaultTimeToLive: &ttl,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
		if _, err := db.CreateContainer(ctx, props, nil); err != nil {
			return fmt.Errorf("SDK: creating container %s: %w", id, err)
		}
	}
	return nil
}

// checkStats checks GET /_emulator/stats for container coll.
func checkStats(ctx context.Context, c *controlClient, db, coll string, stored, live int) error {
	s, err := c.stats(ctx, db, coll)
	if err != nil {
		return err
	}
	if s.StoredRows != int64(stored) || s.LiveItems != int64(live) {
		return fmt.Errorf("%s: the emulator reports %d stored rows and %d live items, want %d and %d", coll, s.StoredRows, s.LiveItems, stored, live)
	}
	return nil
}

// readKeys reads keys[i % len(keys)] through the SDK.
func readKeys(c *azcosmos.ContainerClient, keys []ttlKey) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		k := keys[i%len(keys)]
		return timed(ctx, func(ctx context.Context) error {
			resp, err := c.ReadItem(ctx, azcosmos.NewPartitionKeyString(k.pk), k.id, nil)
			if err == nil && len(resp.Value) == 0 {
				err = errors.New("empty body")
			}
			if err != nil {
				err = fmt.Errorf("reading %s/%s: %w", k.pk, k.id, err)
			}
			return err
		})
	}
}

// ttlFeed is one read of many items the scenario times: a read feed (raw
// HTTP) or a query (through the SDK).
type ttlFeed struct {
	name string
	// query is the SQL of a query sent through the SDK, with @pk bound to
	// the run's partition; "" reads the feed instead.
	query string
	// withPK sends the query with the run's partition key (else without
	// one, so only a WHERE on the partition key makes it single-partition).
	withPK bool
	// count says the query returns one number, checked against items.
	count bool
	// pks are the partitions read, one per run, cycled ("" reads all).
	pks   []string
	runs  int
	items int // expected items per run (or count), -1: not checked
}

// ttlFeeds returns the reads: the read feed of one partition at a time and
// of all live items, and two single-partition queries.
func ttlFeeds(tc ttlConfig) []ttlFeed {
	perPK := tc.live / tc.partitions
	if tc.live%tc.partitions != 0 {
		perPK = -1 // partitions differ by one item: not checked
	}
	var pks []string
	for i := range 10 * tc.feedRuns {
		pks = append(pks, "p"+strconv.Itoa(i*37%tc.partitions))
	}
	one := ttlFeed{name: "read feed, one partition", runs: 10 * tc.feedRuns, items: perPK, pks: pks}
	all := ttlFeed{name: "read feed, all live items", pks: []string{""}, runs: tc.feedRuns, items: tc.live}
	where := ttlFeed{name: "query, WHERE on the partition key", query: "SELECT * FROM c WHERE c.pk = @pk",
		runs: 10 * tc.feedRuns, items: perPK, pks: pks}
	count := ttlFeed{name: "query, COUNT with a partition key", query: "SELECT VALUE COUNT(1) FROM c", withPK: true, count: true,
		runs: 10 * tc.feedRuns, items: perPK, pks: pks}
	return []ttlFeed{one, all, where, count}
}

// kind says how the read is sent, for the report.
func (f ttlFeed) kind() string {
	switch {
	case f.query == "":
		return "GET .../docs"
	case f.withPK:
		return f.query + "  (partition key p<i>)"
	default:
		return f.query + "  (@pk = p<i>, no partition key)"
	}
}

// once runs the read of run i on container coll.
func (f ttlFeed) once(ctx context.Context, env *ttlEnv, db, coll string, i int) (time.Duration, int, int, error) {
	pk := f.pks[i%len(f.pks)]
	t0 := time.Now()
	var items, pages int
	var err error
	if f.query == "" {
		items, pages, err = env.ctl.readFeed(ctx, db, coll, pk, ttlFeedPage)
	} else {
		items, pages, err = f.runQuery(ctx, env.containers[coll], pk)
	}
	d := time.Since(t0)
	if err == nil && f.items >= 0 && items != f.items {
		err = fmt.Errorf("%s of %s (partition %q) returned %d items, want %d", f.name, coll, pk, items, f.items)
	}
	return d, items, pages, err
}

// runQuery runs the query on partition pk through the SDK and returns the
// number of items (for a COUNT, the count) and pages.
func (f ttlFeed) runQuery(ctx context.Context, c *azcosmos.ContainerClient, pk string) (int, int, error) {
	key := azcosmos.NewPartitionKey()
	if f.withPK {
		key = azcosmos.NewPartitionKeyString(pk)
	}
	var params []azcosmos.QueryParameter
	if strings.Contains(f.query, "@pk") {
		params = []azcosmos.QueryParameter{{Name: "@pk", Value: pk}}
	}
	docs, pages, err := sdkQuery(ctx, c, f.query, key, params)
	if err != nil || !f.count {
		return len(docs), pages, err
	}
	if len(docs) != 1 {
		return 0, pages, fmt.Errorf("%s: %d results, want 1", f.query, len(docs))
	}
	n, err := strconv.Atoi(string(docs[0]))
	if err != nil {
		return 0, pages, fmt.Errorf("%s: result %s is not a count", f.query, docs[0])
	}
	return n, pages, nil
}

// compare runs the read alternately on the big and the live-only container
// (so that drift in the machine's speed hits both alike) and returns their
// median times and the times of their first, unmeasured runs (which create
// any path index a query needs) in ms, with the items and pages of the
// last run.
func (f ttlFeed) compare(ctx context.Context, env *ttlEnv, db string) (r feedResult, err error) {
	var bl, ll []time.Duration
	r = feedResult{Name: f.name, Via: f.kind(), Runs: f.runs}
	for i := -1; i < f.runs; i++ {
		d, _, _, err := f.once(ctx, env, db, ttlBigID, max(i, 0))
		if err != nil {
			return r, err
		}
		d2, n, p, err := f.once(ctx, env, db, ttlLiveID, max(i, 0))
		if err != nil {
			return r, err
		}
		if i >= 0 {
			bl, ll = append(bl, d), append(ll, d2)
		} else {
			r.FirstWithExpired, r.FirstLiveOnly = ms(d), ms(d2)
		}
		r.Items, r.Pages = n, p
	}
	r.WithExpired, r.LiveOnly = medianMS(bl), medianMS(ll)
	r.Ratio = ratio(r.WithExpired, r.LiveOnly)
	return r, nil
}

// median runs the read on one container and returns its median time in
// ms.
func (f ttlFeed) median(ctx context.Context, env *ttlEnv, db, coll string) (float64, error) {
	var ds []time.Duration
	for i := -1; i < f.runs; i++ {
		d, _, _, err := f.once(ctx, env, db, coll, max(i, 0))
		if err != nil {
			return 0, err
		}
		if i >= 0 {
			ds = append(ds, d)
		}
	}
	return medianMS(ds), nil
}

// medianMS returns the median of ds in ms.
func medianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	m := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		m = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
}

// ttlStore reaches the emulator's PostgreSQL directly: seeding, VACUUM,
// statistics and EXPLAIN.
type ttlStore struct {
	pool            *pgxpool.Pool
	version         string
	lay             layout
	big, liveOnly   string // the items tables
	bigNum, liveNum int64
	emuPID          int // the emulator process, for CPU accounting
}

// newTTLStore connects to connString and finds the items tables of the
// scenario's containers in database dbID.
func newTTLStore(ctx context.Context, connString, dbID string, lay layout) (*ttlStore, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("pgx: %w", err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgx: connect: %w", err)
	}
	s := &ttlStore{pool: pool, lay: lay}
	if err := pool.QueryRow(ctx, `SHOW server_version`).Scan(&s.version); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgx: %w", err)
	}
	if s.bigNum, s.big, err = itemsTable(ctx, pool, dbID, ttlBigID); err == nil {
		s.liveNum, s.liveOnly, err = itemsTable(ctx, pool, dbID, ttlLiveID)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *ttlStore) close() { s.pool.Close() }

// exec runs sql (no arguments: VACUUM cannot be prepared) and returns its
// duration.
func (s *ttlStore) exec(ctx context.Context, sql string) (time.Duration, error) {
	t0 := time.Now()
	_, err := s.pool.Exec(ctx, sql)
	if err != nil {
		return 0, fmt.Errorf("pgx: %s: %w", sql, err)
	}
	return time.Since(t0), nil
}

// seed writes the rows of class which into table as of emulator time now,
// then settles the table (VACUUM ANALYZE, CHECKPOINT).
func (s *ttlStore) seed(ctx context.Context, table, which string, now int64) (seedResult, error) {
	r := seedResult{What: which}
	t0 := time.Now()
	tag, err := execSeed(ctx, s.pool, table, s.lay.seedSQL(table, which), s.lay.cfg.partitions, now)
	if err != nil {
		return r, fmt.Errorf("pgx: seeding %s: %w", table, err)
	}
	r.Rows, r.Insert = tag.RowsAffected(), time.Since(t0).Seconds()
	t0 = time.Now()
	if _, err := s.exec(ctx, `VACUUM (ANALYZE) `+table); err != nil {
		return r, err
	}
	// CHECKPOINT needs superuser or pg_checkpoint: an external database
	// may refuse it, which only makes the numbers noisier.
	_, _ = s.exec(ctx, `CHECKPOINT`)
	r.Settle = time.Since(t0).Seconds()
	return r, nil
}

// walLSN returns the current WAL position ("" if unavailable).
func (s *ttlStore) walLSN(ctx context.Context) string {
	var lsn string
	_ = s.pool.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn)
	return lsn
}

// walMB returns the WAL written between two positions, in MB.
func (s *ttlStore) walMB(ctx context.Context, from, to string) float64 {
	if from == "" || to == "" {
		return 0
	}
	var b float64
	_ = s.pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::float8`, from, to).Scan(&b)
	return b / (1 << 20)
}

// autovacuums returns how many autovacuums of the big table have finished.
func (s *ttlStore) autovacuums(ctx context.Context) int64 {
	var n int64
	_ = s.pool.QueryRow(ctx, `SELECT autovacuum_count FROM pg_stat_user_tables WHERE relid = $1::regclass`, s.big).Scan(&n)
	return n
}

// indexes returns the number of indexes of both items tables.
func (s *ttlStore) indexes(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_index WHERE indrelid IN ($1::regclass, $2::regclass)`, s.big, s.liveOnly).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("pgx: counting indexes: %w", err)
	}
	return n, nil
}

// deadRows returns the big table's dead tuples as the statistics see them.
func (s *ttlStore) deadRows(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = $1::regclass`, s.big).Scan(&n)
	return n, err
}

// sweepAll calls the sweep endpoint until want rows are deleted (or a call
// deletes none), and times it. started and done, if not nil, are closed
// right before the first call and when it returns.
func (s *ttlStore) sweepAll(ctx context.Context, c *controlClient, want int, started, done chan<- struct{}) (sweepRun, error) {
	if done != nil {
		defer close(done)
	}
	var r sweepRun
	av0, wal0 := s.autovacuums(ctx), s.walLSN(ctx)
	if started != nil {
		close(started)
	}
	c0 := sampleCPU(s.emuPID)
	t0 := time.Now()
	for r.Deleted < want {
		n, err := c.sweep(ctx)
		r.Calls++
		if err != nil {
			return r, fmt.Errorf("sweep call %d: %w", r.Calls, err)
		}
		r.Deleted += n
		if n == 0 {
			break
		}
	}
	elapsed := time.Since(t0)
	r.OtherCPU = c0.othersCores(sampleCPU(s.emuPID))
	r.Seconds = elapsed.Seconds()
	r.RowsPerSec = float64(r.Deleted) / r.Seconds
	r.WALMB = s.walMB(ctx, wal0, s.walLSN(ctx))
	r.Autovacuums = s.autovacuums(ctx) - av0
	if r.Deleted != want {
		return r, fmt.Errorf("the sweeps deleted %d rows, want %d", r.Deleted, want)
	}
	return r, nil
}

// sweepHoldingSnapshot sweeps want rows while a transaction of its own holds
// a REPEATABLE READ snapshot taken before the first sweep call: no row the
// sweep deletes can be pruned away before that transaction ends.
func (s *ttlStore) sweepHoldingSnapshot(ctx context.Context, c *controlClient, want int) (sweepRun, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return sweepRun{}, err
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // read-only
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM cosmos.containers`).Scan(&n); err != nil {
		return sweepRun{}, err
	}
	return s.sweepAll(ctx, c, want, nil, nil)
}

// sweepWithReads warms the reads up with warmup reads, then sweeps want
// rows while concurrency goroutines read for as long as the sweep runs. It
// returns the sweep and the latencies of the reads that ran during it.
func (s *ttlStore) sweepWithReads(ctx context.Context, c *controlClient, want int, read opFunc, concurrency, warmup int) (sweepRun, []time.Duration, error) {
	w := workload{warmup: 0, n: 0, concurrency: concurrency}
	if _, _, _, err := w.loop(ctx, read, 0, warmup); err != nil {
		return sweepRun{}, nil, fmt.Errorf("point reads, warm-up: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, ttlReadsMaxDur)
	defer cancel()
	started, done := make(chan struct{}), make(chan struct{})
	var sr sweepRun
	var sweepErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sr, sweepErr = s.sweepAll(ctx, c, want, started, done)
	}()
	<-started
	reads, readErr := readUntil(ctx, cancel, done, read, concurrency, warmup, time.Now())
	wg.Wait()
	if readErr != nil {
		return sr, nil, fmt.Errorf("point reads during the sweep: %w", readErr)
	}
	lat := make([]time.Duration, len(reads))
	for i, r := range reads {
		lat[i] = r.lat
	}
	return sr, lat, sweepErr
}

// timedRead is one read: when it started (since the phase's start) and
// how long it took.
type timedRead struct{ start, lat time.Duration }

// readUntil runs concurrency goroutines that call read (from item first
// on) until done closes, and returns every read that finished before,
// timed from t0. A failed read cancels the phase (cancel) and is returned.
func readUntil(ctx context.Context, cancel context.CancelFunc, done <-chan struct{}, read opFunc, concurrency, first int, t0 time.Time) ([]timedRead, error) {
	var next atomic.Int64
	next.Store(int64(first))
	reads := make([][]timedRead, concurrency)
	var readErr error
	var once sync.Once
	var rwg sync.WaitGroup
	for g := range concurrency {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				i := int(next.Add(1) - 1)
				start := time.Since(t0)
				_, err := read(ctx, i)
				d := time.Since(t0) - start
				select {
				case <-done:
					// Finished after the phase: not counted.
					return
				default:
				}
				if err != nil {
					once.Do(func() { readErr = err })
					cancel()
					return
				}
				reads[g] = append(reads[g], timedRead{start, d})
			}
		}()
	}
	rwg.Wait()
	return slices.Concat(reads...), readErr
}
