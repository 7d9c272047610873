package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The scale scenario (-scenario scale) measures whether point operations and
// single-partition queries stay as fast as a container grows. One emulator
// process serves two containers that differ only in size: -scale-small
// items (1,000 by default) and -scale-items items (1,000,000), each item
// about -scale-size bytes (1 KB), 100 items per logical partition (so 10
// and 10,000 partitions by default). Through the official Go SDK, each
// operation runs -scale-warmup unmeasured then -scale-n measured times on
// each container, the containers alternating (which goes first alternates
// too), so that drift in the machine's speed hits both alike:
//
//   - read, random: ReadItem of an item drawn uniformly from the container;
//   - read, hot: ReadItem cycling over the same -scale-hot items, whose
//     pages stay in PostgreSQL's shared buffers;
//   - query by id: SELECT * FROM c WHERE c.id = @id with the item's
//     partition key (what the JS SDK mix sends), random items;
//   - filter query: SELECT * FROM c WHERE c.pk = @pk AND c.n >= @x with the
//     partition key: 10 results in a random partition on both containers;
//   - create: CreateItem of a new 1 KB item in a random partition.
//
// For each it reports p50/p99 on both containers, the ratio of the large
// container's p50 to the small one's (target: at most 1.2x for the reads and
// queries, issue 12; create is reported only), and the shared-buffer
// blocks each operation read from outside PostgreSQL's cache (heap, indexes
// and TOAST, from pg_statio_user_tables) on each container.
//
// Item g (0-based) has id item-<g, 9 digits>, partition key p<g mod P> (P =
// items/100), n = g div P (0..99, so 10 items of each partition have n >=
// 90) and a payload of hex digits from sha512 (incompressible for PostgreSQL's
// TOAST compression, like real data, unlike a run of one letter). The rows
// are written straight into the items tables by one INSERT ... SELECT FROM
// generate_series each (partitions interleaved in creation order, as when
// items arrive over time); the table is then VACUUMed and ANALYZEd (what
// autovacuum would have done by then) and a CHECKPOINT is taken. The
// containers are created through the SDK with the default indexing policy;
// the filter query's first run builds the path index on n.

// scaleConfig holds the scale scenario's flags.
type scaleConfig struct {
	small, large int // items in the two containers, multiples of scalePerPartition
	size         int // bytes of each item's JSON
	runs, warmup int // measured and unmeasured runs of each operation per container
	hot          int // distinct items of the hot reads
	explain      bool
}

// Settings of the scale scenario.
const (
	scalePerPartition = 100
	scaleIDWidth      = 9
	scaleFilterFrom   = 90 // @x of the filter query: 10 results per partition
	// targetScaleRatio bounds p50(large) / p50(small) of reads and queries.
	targetScaleRatio = 1.2
)

// scaleStatsWait is how long the scenario idles before reading block
// statistics: longer than PostgreSQL's PGSTAT_IDLE_INTERVAL (10 s), after
// which an idle backend reports the counts it still holds.
var scaleStatsWait = 11 * time.Second

// scaleResult is the scale scenario's part of the results.
type scaleResult struct {
	Endpoint  string `json:"endpoint,omitempty"`
	PGVersion string `json:"pg_version,omitempty"`
	// Containers are the item counts, small first.
	Containers   []int             `json:"containers"`
	PerPartition int               `json:"items_per_partition"`
	ItemSize     int               `json:"item_size_bytes"`
	Runs         int               `json:"runs"`
	Warmup       int               `json:"warmup"`
	Seeding      []seedResult      `json:"seeding"`
	Tables       []scaleTable      `json:"tables"`
	Settings     map[string]string `json:"pg_settings,omitempty"`
	Ops          []scaleOpStats    `json:"operations"`
	Checks       []targetCheck     `json:"checks,omitempty"`
	Notes        []string          `json:"notes,omitempty"`
}

// scaleTable describes one container's items table after seeding.
type scaleTable struct {
	Items      int     `json:"items"`
	Table      string  `json:"table"`
	HeapMB     float64 `json:"heap_mb"`
	ToastMB    float64 `json:"toast_mb"`
	IndexesMB  float64 `json:"indexes_mb"`
	PKeyMB     float64 `json:"primary_key_mb"`
	PKeyLevels int     `json:"primary_key_levels,omitempty"` // btree levels below the root (pageinspect), 0 unknown
}

// scaleOpStats is one operation measured on both containers.
type scaleOpStats struct {
	Name     string           `json:"name"`
	Checked  bool             `json:"target_applies"`
	Sizes    []scaleSizeStats `json:"containers"`
	P50Ratio float64          `json:"p50_ratio"`
	P99Ratio float64          `json:"p99_ratio"`
	OtherCPU float64          `json:"other_cpu_cores"`
}

// scaleSizeStats is one operation on one container.
type scaleSizeStats struct {
	Items   int          `json:"container_items"`
	Latency latencyStats `json:"latency"`
	// BlocksRead and BlocksHit are the items table's shared-buffer misses
	// (read from the OS) and hits per measured operation, heap, indexes and
	// TOAST together (-1 unknown).
	BlocksRead float64 `json:"blocks_read_per_op"`
	BlocksHit  float64 `json:"blocks_hit_per_op"`
}

// check fills in Checks from what was measured.
func (s *scaleResult) check() {
	s.Checks = nil
	if len(s.Containers) < 2 {
		return
	}
	for _, o := range s.Ops {
		if o.Checked {
			s.Checks = append(s.Checks, targetCheck{fmt.Sprintf("%s, p50 %s/%s items", o.Name, thousands(s.Containers[1]), thousands(s.Containers[0])),
				o.P50Ratio, fmt.Sprintf("<= %.1fx", targetScaleRatio), o.P50Ratio <= targetScaleRatio})
		}
	}
}

// scaleContainer is one container of the scenario.
type scaleContainer struct {
	id    string
	items int
	table string
	sdk   *azcosmos.ContainerClient
	rnd   *rand.Rand
	made  int // items created by the create operation
}

// partitions returns the container's number of logical partitions.
func (c *scaleContainer) partitions() int { return c.items / scalePerPartition }

// scaleKey returns the id and partition key value of item g of a container
// of n items.
func scaleKey(n, g int) (id, pk string) {
	return fmt.Sprintf("item-%0*d", scaleIDWidth, g), "p" + strconv.Itoa(g%(n/scalePerPartition))
}

// scaleSeedSQL returns the INSERT that writes n items of size bytes (at
// least the fixed part) into table as of time $1 (unix seconds); see the
// scenario's description for the properties.
func scaleSeedSQL(table string, n, size int) string {
	return fmt.Sprintf(`INSERT INTO %[1]s (pk, id, seq, body, ts, ttl, etag, lsn)
SELECT '["' || p || '"]', id, nextval('cosmos.doc_seq'),
       head || left(pad, greatest(%[2]d - length(head) - 2, 0)) || '"}',
       ts, NULL,
       '"' || lpad(to_hex(g), 8, '0') || '-0000-0300-0000-' || lpad(to_hex(ts), 8, '0') || '0000"',
       nextval('cosmos.lsn_seq')
FROM (
    SELECT g, p, id, ts,
           '{"id":"' || id || '","pk":"' || p || '","n":' || g / %[3]d || ',"kind":"scale-bench","payload":"' AS head,
           (SELECT string_agg(encode(sha512((g || '.' || j)::bytea), 'hex'), '') FROM generate_series(1, %[4]d) AS j) AS pad
    FROM (
        SELECT g, 'p' || g %% %[3]d AS p, 'item-' || lpad(g::text, %[5]d, '0') AS id, $1::bigint - g %% 600 AS ts
        FROM generate_series(0::bigint, %[6]d) AS g
    ) a
) b`, table, size, n/scalePerPartition, size/128+1, scaleIDWidth, n-1)
}

// seedScaleTable writes n items into table, then settles it (seedTable).
func seedScaleTable(ctx context.Context, pool *pgxpool.Pool, table string, n, size int, now int64) (seedResult, error) {
	return seedTable(ctx, pool, table, scaleSeedSQL(table, n, size), n/scalePerPartition, n, now)
}

// scaleOp is one operation of the scenario: run i on container c.
type scaleOp struct {
	name    string
	checked bool
	run     func(ctx context.Context, c *scaleContainer, i int) error
}

// scaleOps returns the operations of the scenario; hot is the number of
// distinct items of the hot reads and body makes a new item's JSON.
func scaleOps(hot, size int) []scaleOp {
	read := func(ctx context.Context, c *scaleContainer, g int) error {
		id, pk := scaleKey(c.items, g)
		resp, err := c.sdk.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		if err == nil && len(resp.Value) < size {
			err = fmt.Errorf("item %s: %d bytes, want at least %d", id, len(resp.Value), size)
		}
		return err
	}
	query := func(ctx context.Context, c *scaleContainer, sql, pk string, params []azcosmos.QueryParameter, want int) error {
		docs, _, err := sdkQuery(ctx, c.sdk, sql, azcosmos.NewPartitionKeyString(pk), params)
		if err == nil {
			err = countErr(len(docs), want)
		}
		return err
	}
	return []scaleOp{
		{"read, random items", true, func(ctx context.Context, c *scaleContainer, _ int) error {
			return read(ctx, c, c.rnd.IntN(c.items))
		}},
		{fmt.Sprintf("read, %d hot items", hot), false, func(ctx context.Context, c *scaleContainer, i int) error {
			// Spread over the container, the same items every time.
			return read(ctx, c, (i%hot)*(c.items/hot))
		}},
		{"query by id, random items", true, func(ctx context.Context, c *scaleContainer, _ int) error {
			id, pk := scaleKey(c.items, c.rnd.IntN(c.items))
			return query(ctx, c, "SELECT * FROM c WHERE c.id = @id", pk, []azcosmos.QueryParameter{{Name: "@id", Value: id}}, 1)
		}},
		{"filter query, 10 of a random partition", true, func(ctx context.Context, c *scaleContainer, _ int) error {
			pk := "p" + strconv.Itoa(c.rnd.IntN(c.partitions()))
			return query(ctx, c, "SELECT * FROM c WHERE c.pk = @pk AND c.n >= @x", pk,
				[]azcosmos.QueryParameter{{Name: "@pk", Value: pk}, {Name: "@x", Value: scaleFilterFrom}}, scalePerPartition-scaleFilterFrom)
		}},
		{"create", false, func(ctx context.Context, c *scaleContainer, _ int) error {
			c.made++
			id, pk := fmt.Sprintf("new-%0*d", scaleIDWidth, c.made), "p"+strconv.Itoa(c.rnd.IntN(c.partitions()))
			_, err := c.sdk.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), document(id, pk, 1, size), nil)
			return err
		}},
	}
}

// runScale runs the scale scenario into res.
func (b *bench) runScale(ctx context.Context, res *scaleResult) (err error) {
	sc, logf := b.cfg.scale, b.logf
	*res = scaleResult{Containers: []int{sc.small, sc.large}, PerPartition: scalePerPartition, ItemSize: sc.size, Runs: sc.runs, Warmup: sc.warmup}
	run, err := b.startSDKRun(ctx, "scale")
	if err != nil {
		return err
	}
	defer func() {
		if cerr := run.close(logf); cerr != nil && err == nil {
			err = cerr
		}
	}()
	emu, ctl, pool := run.emu, run.ctl, run.pool
	res.Endpoint, res.PGVersion = emu.url, run.pgVersion
	now, err := ctl.clockNow(ctx)
	if err != nil {
		return err
	}
	var cs []*scaleContainer
	for i, n := range []int{sc.small, sc.large} {
		c := &scaleContainer{id: "scale-" + strconv.Itoa(n), items: n, rnd: rand.New(rand.NewPCG(uint64(i)+1, 42))}
		if c.sdk, c.table, err = run.createContainer(ctx, c.id); err != nil {
			return err
		}
		logf("scale: seeding %s with %d items", c.id, n)
		r, err := seedScaleTable(ctx, pool, c.table, n, sc.size, now)
		r.Container = c.id
		if err != nil {
			return err
		}
		res.Seeding = append(res.Seeding, r)
		logf("scale: %d rows in %.1f s, settled in %.1f s", r.Rows, r.Insert, r.Settle)
		if err := checkStats(ctx, ctl, run.dbID, c.id, n, n); err != nil {
			return err
		}
		res.Tables = append(res.Tables, describeTable(ctx, pool, c.table, n))
		cs = append(cs, c)
	}
	res.Settings = pgSettings(ctx, pool, "shared_buffers", "effective_cache_size", "random_page_cost", "work_mem")
	if sc.explain {
		for _, c := range cs {
			explainScale(ctx, pool, c, logf)
		}
	}

	for _, op := range scaleOps(sc.hot, sc.size) {
		st, err := measureScaleOp(ctx, pool, op, cs, sc, emu.pid(), logf)
		if err != nil {
			return fmt.Errorf("%s: %w", op.name, err)
		}
		res.Ops = append(res.Ops, st)
	}
	return nil
}

// measureScaleOp runs op on both containers: the warm-up, then the measured
// runs, the containers alternating, with the items tables' block statistics
// read around the measured runs.
func measureScaleOp(ctx context.Context, pool *pgxpool.Pool, op scaleOp, cs []*scaleContainer, sc scaleConfig, emuPID int, logf func(string, ...any)) (scaleOpStats, error) {
	st := scaleOpStats{Name: op.name, Checked: op.checked}
	logf("scale: %s (%d + %d runs on each container)", op.name, sc.warmup, sc.runs)
	for i := range sc.warmup {
		for _, c := range cs {
			if err := op.run(ctx, c, i); err != nil {
				return st, fmt.Errorf("%s, warm-up run %d: %w", c.id, i, err)
			}
		}
	}
	// The warm-up's block counts must be in the statistics before the
	// first snapshot: an idle backend reports its last ones only after
	// PostgreSQL's idle interval (10 s), a busy one at most once a second.
	time.Sleep(scaleStatsWait)
	before := make([][2]int64, len(cs))
	for j, c := range cs {
		before[j] = blockStats(ctx, pool, c.table)
	}
	lats := make([][]time.Duration, len(cs))
	c0 := sampleCPU(emuPID)
	t0 := time.Now()
	for i := sc.warmup; i < sc.warmup+sc.runs; i++ {
		for j := range cs {
			if i%2 == 1 {
				j = len(cs) - 1 - j // alternate which container goes first
			}
			t := time.Now()
			if err := op.run(ctx, cs[j], i); err != nil {
				return st, fmt.Errorf("%s, run %d: %w", cs[j].id, i, err)
			}
			lats[j] = append(lats[j], time.Since(t))
		}
	}
	elapsed := time.Since(t0)
	st.OtherCPU = c0.othersCores(sampleCPU(emuPID))
	time.Sleep(scaleStatsWait) // as above, for the measured runs' counts
	for j, c := range cs {
		s := scaleSizeStats{Items: c.items, Latency: newLatencyStats(lats[j], elapsed), BlocksRead: -1, BlocksHit: -1}
		if after := blockStats(ctx, pool, c.table); after[0] >= 0 && before[j][0] >= 0 {
			s.BlocksRead = float64(after[0]-before[j][0]) / float64(sc.runs)
			s.BlocksHit = float64(after[1]-before[j][1]) / float64(sc.runs)
		}
		st.Sizes = append(st.Sizes, s)
	}
	first, last := st.Sizes[0].Latency, st.Sizes[len(st.Sizes)-1].Latency
	st.P50Ratio, st.P99Ratio = ratio(last.P50, first.P50), ratio(last.P99, first.P99)
	logf("scale: %s: p50 %.3f ms vs %.3f ms (%.2fx), blocks read per op %.2f vs %.2f", op.name, last.P50, first.P50, st.P50Ratio,
		st.Sizes[len(st.Sizes)-1].BlocksRead, st.Sizes[0].BlocksRead)
	return st, nil
}

// blockStats returns the shared-buffer blocks of table (heap, indexes,
// TOAST and its index) read from outside the buffer cache and found in it,
// or -1s when the statistics are unavailable.
func blockStats(ctx context.Context, pool *pgxpool.Pool, table string) [2]int64 {
	var r, h int64
	err := pool.QueryRow(ctx, `SELECT coalesce(heap_blks_read, 0) + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0) + coalesce(tidx_blks_read, 0),
       coalesce(heap_blks_hit, 0) + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_hit, 0) + coalesce(tidx_blks_hit, 0)
FROM pg_statio_user_tables WHERE relid = $1::regclass`, table).Scan(&r, &h)
	if err != nil {
		return [2]int64{-1, -1}
	}
	return [2]int64{r, h}
}

// describeTable returns the sizes of table (a container of n items) and,
// if the pageinspect extension can be used, its primary key's depth.
func describeTable(ctx context.Context, pool *pgxpool.Pool, table string, n int) scaleTable {
	t := scaleTable{Items: n, Table: table}
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	var heap, toast, idx, pkey int64
	err := pool.QueryRow(ctx, `SELECT pg_relation_size(c.oid), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0),
       pg_indexes_size(c.oid), pg_relation_size((SELECT indexrelid FROM pg_index WHERE indrelid = c.oid AND indisprimary))
FROM pg_class c WHERE c.oid = $1::regclass`, table).Scan(&heap, &toast, &idx, &pkey)
	if err == nil {
		t.HeapMB, t.ToastMB, t.IndexesMB, t.PKeyMB = mb(heap), mb(toast), mb(idx), mb(pkey)
	}
	var levels int
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pageinspect`); err == nil {
		if pool.QueryRow(ctx, `SELECT level FROM bt_metap((SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = $1::regclass AND indisprimary))`, table).Scan(&levels) == nil {
			t.PKeyLevels = levels
		}
	}
	return t
}

// pgSettings returns the named settings as SHOW prints them.
func pgSettings(ctx context.Context, pool *pgxpool.Pool, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		var v string
		if pool.QueryRow(ctx, `SELECT current_setting($1)`, n).Scan(&v) == nil {
			m[n] = v
		}
	}
	return m
}

// explainScale prints EXPLAIN (ANALYZE, BUFFERS) of pgstore's point read
// (items.go readStmt, for a container without TTL) of a random item of c,
// twice: the first run may read cold pages, the second finds them cached.
func explainScale(ctx context.Context, pool *pgxpool.Pool, c *scaleContainer, logf func(string, ...any)) {
	id, pk := scaleKey(c.items, c.rnd.IntN(c.items))
	var out strings.Builder
	for run := range 2 {
		rows, err := pool.Query(ctx, `EXPLAIN (ANALYZE, BUFFERS) SELECT seq, body, ts, etag, lsn FROM `+c.table+` WHERE pk = $1 AND id = $2 AND TRUE`, `["`+pk+`"]`, id)
		if err != nil {
			logf("explain %s: %v", c.id, err)
			return
		}
		fmt.Fprintf(&out, "  -- run %d\n", run+1)
		for rows.Next() {
			var l string
			if rows.Scan(&l) == nil {
				out.WriteString("  " + l + "\n")
			}
		}
		rows.Close()
	}
	logf("EXPLAIN point read on %s (%s items)\n%s", c.id, thousands(c.items), out.String())
}
