package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The query scenario (-scenario query) measures item queries through the
// official Go SDK (NewQueryItemsPager) on two containers that differ only
// in size (-query-small and -query-large items, 1,000 and 100,000 by
// default), both spread over 100 logical partitions p0..p99:
//
//   - an equality filter returning 10 items and a range filter returning
//     100, across partitions (the SDK sends them with
//     x-ms-documentdb-query-enablecrosspartition, and the emulator serves
//     them as the gateway does);
//   - ORDER BY with TOP 10, a COUNT and a GROUP BY, each with a partition
//     key: the Go SDK has no query pipeline, so across partitions these are
//     refused with 400 (sub-status 1004 for most), as on Azure;
//   - the same ORDER BY+TOP 10 and GROUP BY over all items as the JS, .NET
//     and Java SDKs run them: they read the query plan, then send its
//     rewritten query to each partition key range (here the one range "0")
//     and merge the results; the scenario fetches the plan once and times
//     the signed raw HTTP request to range 0 (not the plan request, nor the
//     client-side merge).
//
// Item number g (0-based) has id item-<g>, partition key p<g mod 100>,
// k = "k<g div 10>" (so 10 items share each k, spread over 10 partitions),
// n = g (a range of 100 consecutive n is 100 items) and
// cat = "c<(g div 100) mod 10>" (10 groups, evenly spread over and inside
// the partitions). The same queries therefore return the same number of
// items on both containers; only the items around them differ.
//
// The rows are written directly into the items tables (one INSERT ...
// SELECT FROM generate_series each, then VACUUM (ANALYZE) and CHECKPOINT);
// the containers are created through the SDK with the default indexing
// policy, under which the emulator creates a path's index the first time a
// query filters or sorts on it. The first run of each query on each
// container is therefore timed alone (with the number of indexes it
// created), before -query-warmup unmeasured and -query-n measured runs.
// Measured runs alternate between the two containers, so that drift in the
// machine's speed hits both alike. The target: the selective queries
// (equality, range, ORDER BY+TOP 10: the same few results on both
// containers, which a path index finds without reading the rest of the
// container or partition) take less than twice as long on the large
// container as on the small one (p50). COUNT and GROUP BY read every item
// of the partition or container, so their growth is reported, not checked.

// queryConfig holds the query scenario's flags.
type queryConfig struct {
	small, large int // items in the two containers
	size         int // bytes of each item's JSON
	runs, warmup int // measured and unmeasured runs of each query per container
}

// Settings of the query scenario.
const (
	queryPartitions = 100
	// targetQueryGrowth bounds p50(large) / p50(small) of the selective
	// queries.
	targetQueryGrowth = 2.0
)

// queryVia says how a query is sent.
type queryVia int

const (
	// viaSDKCross: the SDK with NewPartitionKey() (no partition key, so
	// x-ms-documentdb-query-enablecrosspartition: true).
	viaSDKCross queryVia = iota
	// viaSDKPartition: the SDK with the run's partition key.
	viaSDKPartition
	// viaRange0: signed raw HTTP with x-ms-documentdb-partitionkeyrangeid: 0.
	viaRange0
)

// String describes the routing in the report.
func (v queryVia) String() string {
	switch v {
	case viaSDKCross:
		return "SDK, cross-partition"
	case viaSDKPartition:
		return "SDK, partition key"
	default:
		return "raw HTTP, range 0"
	}
}

// queryRun is one execution of a query: its parameters and partition key.
type queryRun struct {
	params map[string]any
	pk     string // for viaSDKPartition
}

// querySpec is one query the scenario measures.
type querySpec struct {
	name string
	sql  string
	// sent is what goes to range 0 for viaRange0: the rewritten query of
	// the plan, set when the scenario runs ("": sql).
	sent      string
	via       queryVia
	selective bool // the growth target applies
	// run returns the parameters of run i on a container of n items.
	run func(n, i int) queryRun
	// check checks the documents of run r on a container of n items; full
	// also checks their content (done outside the measured runs).
	check func(n int, r queryRun, docs [][]byte, full bool) error
}

// spread returns a pseudo-random but repeatable value in [0, m) for run i.
func spread(i, m int) int { return (i*7919 + 13) % m }

// queryPK returns the partition key value of run i.
func queryPK(i int) string { return "p" + strconv.Itoa(spread(i, queryPartitions)) }

// group is a result of the GROUP BY queries.
type group struct {
	Cat   string `json:"cat"`
	Items int    `json:"items"`
}

// decodeGroup decodes a result of the GROUP BY queries, as the original
// query returns it or as the plan's rewrite does ({"groupByItems": [...],
// "payload": {"cat": ..., "items": {"item": n}}}).
func decodeGroup(d []byte) (group, error) {
	var g struct {
		group
		GroupByItems json.RawMessage `json:"groupByItems"`
		Payload      json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(d, &g); err != nil || g.GroupByItems == nil {
		return g.group, err
	}
	var p struct {
		Cat   string `json:"cat"`
		Items struct {
			Item int `json:"item"`
		} `json:"items"`
	}
	err := json.Unmarshal(g.Payload, &p)
	return group{Cat: p.Cat, Items: p.Items.Item}, err
}

// countErr returns an error if got results are not want.
func countErr(got, want int) error {
	if got != want {
		return fmt.Errorf("%d results, want %d", got, want)
	}
	return nil
}

// querySpecs returns the queries of the scenario.
func querySpecs() []querySpec {
	// topCheck checks the 10 largest n: of the run's partition (items
	// p, p+100, ...) or of all items.
	topCheck := func(n int, r queryRun, docs [][]byte, full bool) error {
		if len(docs) != 10 || !full {
			return countErr(len(docs), 10)
		}
		top, step := n-1, 1
		if r.pk != "" {
			p, _ := strconv.Atoi(r.pk[1:])
			top, step = n-queryPartitions+p, queryPartitions
		}
		for j, d := range docs {
			var doc struct{ N int }
			var rewritten struct { // the plan's ORDER BY rewrite
				OrderByItems json.RawMessage `json:"orderByItems"`
				Payload      json.RawMessage `json:"payload"`
			}
			err := json.Unmarshal(d, &rewritten)
			if err == nil && rewritten.OrderByItems != nil {
				d = rewritten.Payload
			}
			if err == nil {
				err = json.Unmarshal(d, &doc)
			}
			if err != nil || doc.N != top-j*step {
				return fmt.Errorf("result %d is %s, want n = %d", j, d, top-j*step)
			}
		}
		return nil
	}
	groupCheck := func(perGroup func(n int) int) func(n int, r queryRun, docs [][]byte, full bool) error {
		return func(n int, r queryRun, docs [][]byte, full bool) error {
			if len(docs) != 10 || !full {
				return countErr(len(docs), 10)
			}
			seen := map[string]bool{}
			for _, d := range docs {
				g, err := decodeGroup(d)
				if err != nil || g.Items != perGroup(n) || seen[g.Cat] {
					return fmt.Errorf("group %s, want %d items in each of 10 distinct groups", d, perGroup(n))
				}
				seen[g.Cat] = true
			}
			return nil
		}
	}
	const groupBy = "SELECT c.cat, COUNT(1) AS items FROM c GROUP BY c.cat"
	const orderBy = "SELECT TOP 10 * FROM c ORDER BY c.n DESC"
	return []querySpec{
		{
			name: "equality filter", sql: "SELECT * FROM c WHERE c.k = @k", via: viaSDKCross, selective: true,
			run: func(n, i int) queryRun {
				return queryRun{params: map[string]any{"@k": "k" + strconv.Itoa(spread(i, n/10))}}
			},
			check: func(n int, r queryRun, docs [][]byte, full bool) error {
				if len(docs) != 10 || !full {
					return countErr(len(docs), 10)
				}
				for _, d := range docs {
					var doc struct{ K string }
					if err := json.Unmarshal(d, &doc); err != nil || doc.K != r.params["@k"] {
						return fmt.Errorf("result %s, want k = %v", d, r.params["@k"])
					}
				}
				return nil
			},
		},
		{
			name: "range filter", sql: "SELECT * FROM c WHERE c.n >= @lo AND c.n < @hi", via: viaSDKCross, selective: true,
			run: func(n, i int) queryRun {
				lo := spread(i, n-99)
				return queryRun{params: map[string]any{"@lo": lo, "@hi": lo + 100}}
			},
			check: func(n int, r queryRun, docs [][]byte, full bool) error {
				if len(docs) != 100 || !full {
					return countErr(len(docs), 100)
				}
				lo := r.params["@lo"].(int)
				for _, d := range docs {
					var doc struct{ N int }
					if err := json.Unmarshal(d, &doc); err != nil || doc.N < lo || doc.N >= lo+100 {
						return fmt.Errorf("result %s, want %d <= n < %d", d, lo, lo+100)
					}
				}
				return nil
			},
		},
		{
			name: "ORDER BY + TOP 10", sql: orderBy, via: viaSDKPartition, selective: true,
			run:   func(n, i int) queryRun { return queryRun{pk: queryPK(i)} },
			check: topCheck,
		},
		{
			name: "ORDER BY + TOP 10, all", sql: orderBy, via: viaRange0, selective: true,
			run:   func(n, i int) queryRun { return queryRun{} },
			check: topCheck,
		},
		{
			name: "COUNT, one partition", sql: "SELECT VALUE COUNT(1) FROM c", via: viaSDKPartition,
			run: func(n, i int) queryRun { return queryRun{pk: queryPK(i)} },
			check: func(n int, r queryRun, docs [][]byte, full bool) error {
				if len(docs) != 1 || string(docs[0]) != strconv.Itoa(n/queryPartitions) {
					return fmt.Errorf("results %q, want [%d]", docs, n/queryPartitions)
				}
				return nil
			},
		},
		{
			name: "GROUP BY, one partition", sql: groupBy, via: viaSDKPartition,
			run:   func(n, i int) queryRun { return queryRun{pk: queryPK(i)} },
			check: groupCheck(func(n int) int { return n / queryPartitions / 10 }),
		},
		{
			name: "GROUP BY, all", sql: groupBy, via: viaRange0,
			run:   func(n, i int) queryRun { return queryRun{} },
			check: groupCheck(func(n int) int { return n / 10 }),
		},
	}
}

// queryResult is the query scenario's part of the results.
type queryResult struct {
	Endpoint   string       `json:"endpoint,omitempty"`
	PGVersion  string       `json:"pg_version,omitempty"`
	Containers []int        `json:"container_items"`
	Partitions int          `json:"partitions"`
	ItemSize   int          `json:"item_size_bytes"`
	Runs       int          `json:"runs"`
	Warmup     int          `json:"warmup"`
	Seeding    []seedResult `json:"seeding"`
	Queries    []queryStats `json:"queries"`
	Notes      []string     `json:"notes,omitempty"`
	// Checks are the targets, measured against (never asserted).
	Checks []targetCheck `json:"checks,omitempty"`
}

// queryStats is one query measured on every container.
type queryStats struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
	Via  string `json:"via"`
	// Sent is the query sent to range 0, the plan's rewrite of SQL, when
	// it differs.
	Sent      string `json:"sent_sql,omitempty"`
	Selective bool   `json:"selective"`
	// Sizes are the measurements on each container, smallest first.
	Sizes []querySizeStats `json:"containers"`
	// P50Ratio and P99Ratio are the largest container's over the smallest's.
	P50Ratio float64 `json:"p50_ratio"`
	P99Ratio float64 `json:"p99_ratio"`
	// OtherCPU is the average CPU use of processes outside the run during
	// the measured runs, in cores (-1 unknown).
	OtherCPU float64 `json:"other_cpu_cores"`
}

// querySizeStats is one query measured on one container.
type querySizeStats struct {
	Items   int `json:"container_items"`
	Results int `json:"results"`
	// First is the first run of the query on the container, in ms;
	// IndexesBuilt the number of indexes the items table gained meanwhile.
	First        float64      `json:"first_run_ms"`
	IndexesBuilt int          `json:"indexes_built_by_first_run"`
	Latency      latencyStats `json:"latency"`
}

// check fills in Checks from what was measured.
func (q *queryResult) check() {
	q.Checks = nil
	for _, s := range q.Queries {
		if s.Selective && len(s.Sizes) > 1 {
			q.Checks = append(q.Checks, targetCheck{fmt.Sprintf("%s (%s), p50 %s/%s items", s.Name, s.Via, thousands(s.Sizes[len(s.Sizes)-1].Items), thousands(s.Sizes[0].Items)),
				s.P50Ratio, fmt.Sprintf("< %.0fx", targetQueryGrowth), s.P50Ratio < targetQueryGrowth})
		}
	}
}

// queryContainer is one container of the scenario.
type queryContainer struct {
	id    string
	items int
	table string
	sdk   *azcosmos.ContainerClient
}

// queryEnv is what a query run needs.
type queryEnv struct {
	db  string
	ctl *controlClient
}

// exec runs r of spec on c and returns the documents.
func (e *queryEnv) exec(ctx context.Context, spec querySpec, c *queryContainer, r queryRun) ([][]byte, error) {
	if spec.via == viaRange0 {
		sql := spec.sql
		if spec.sent != "" {
			sql = spec.sent
		}
		raw, _, err := e.ctl.queryRange(ctx, e.db, c.id, "0", sql, r.params)
		docs := make([][]byte, len(raw))
		for i, d := range raw {
			docs[i] = d
		}
		return docs, err
	}
	pk := azcosmos.NewPartitionKey()
	if spec.via == viaSDKPartition {
		pk = azcosmos.NewPartitionKeyString(r.pk)
	}
	var params []azcosmos.QueryParameter
	for name, v := range r.params {
		params = append(params, azcosmos.QueryParameter{Name: name, Value: v})
	}
	docs, _, err := sdkQuery(ctx, c.sdk, spec.sql, pk, params)
	return docs, err
}

// sdkQuery runs a query through the SDK's pager and returns the documents
// of every page and the number of pages.
func sdkQuery(ctx context.Context, c *azcosmos.ContainerClient, query string, pk azcosmos.PartitionKey, params []azcosmos.QueryParameter) (docs [][]byte, pages int, err error) {
	pager := c.NewQueryItemsPager(query, pk, &azcosmos.QueryOptions{QueryParameters: params})
	for pager.More() {
		resp, err := pager.NextPage(ctx)
		if err != nil {
			return docs, pages, err
		}
		pages++
		docs = append(docs, resp.Items...)
	}
	return docs, pages, nil
}

// runQuery runs the query scenario into res.
func (b *bench) runQuery(ctx context.Context, res *queryResult) (err error) {
	qc, logf := b.cfg.query, b.logf
	*res = queryResult{Containers: []int{qc.small, qc.large}, Partitions: queryPartitions, ItemSize: qc.size, Runs: qc.runs, Warmup: qc.warmup}
	run, err := b.startSDKRun(ctx, "query")
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
	var containers []*queryContainer
	for _, n := range []int{qc.small, qc.large} {
		c := &queryContainer{id: "items-" + strconv.Itoa(n), items: n}
		if c.sdk, c.table, err = run.createContainer(ctx, c.id); err != nil {
			return err
		}
		containers = append(containers, c)
	}

	// Seeding, straight into the items tables.
	for _, c := range containers {
		logf("query: seeding %s with %d items", c.id, c.items)
		r, err := seedQueryTable(ctx, pool, c.table, c.items, qc.size, now)
		r.Container = c.id
		if err != nil {
			return err
		}
		res.Seeding = append(res.Seeding, r)
		logf("query: %d rows in %.1f s, settled in %.1f s", r.Rows, r.Insert, r.Settle)
		if err := checkStats(ctx, ctl, run.dbID, c.id, c.items, c.items); err != nil {
			return err
		}
		// One point read, so that the first query is not the SDK's first
		// request (connection, TLS, account and container metadata).
		if _, err := c.sdk.ReadItem(ctx, azcosmos.NewPartitionKeyString("p0"), fmt.Sprintf("item-%0*d", idWidth(c.items), 0), nil); err != nil {
			return fmt.Errorf("SDK: reading the first item of %s: %w", c.id, err)
		}
	}

	env := &queryEnv{db: run.dbID, ctl: ctl}
	for _, spec := range querySpecs() {
		qs, err := measureQuery(ctx, env, pool, spec, containers, qc, emu.pid(), logf)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", spec.name, spec.sql, err)
		}
		res.Queries = append(res.Queries, qs)
	}
	res.Notes = append(res.Notes, crossPartitionRefusals(ctx, containers[len(containers)-1].sdk)...)
	return nil
}

// measureQuery runs spec on every container: the first run alone (counting
// the indexes it creates), then the warm-up, then the measured runs, the
// containers alternating.
func measureQuery(ctx context.Context, env *queryEnv, pool *pgxpool.Pool, spec querySpec, cs []*queryContainer, qc queryConfig, emuPID int, logf func(string, ...any)) (queryStats, error) {
	qs := queryStats{Name: spec.name, SQL: spec.sql, Via: spec.via.String(), Selective: spec.selective}
	if spec.via == viaRange0 {
		// What an SDK with a query pipeline sends: the plan's rewritten
		// query, its ORDER BY filter placeholder replaced as on a first page.
		rewritten, err := env.ctl.queryPlan(ctx, env.db, cs[0].id, spec.sql)
		if err != nil {
			return qs, err
		}
		spec.sent = strings.ReplaceAll(rewritten, "{documentdb-formattableorderbyquery-filter}", "true")
		qs.Sent = spec.sent
	}
	once := func(c *queryContainer, i int, full bool) (time.Duration, int, error) {
		r := spec.run(c.items, i)
		t0 := time.Now()
		docs, err := env.exec(ctx, spec, c, r)
		d := time.Since(t0)
		if err == nil {
			err = spec.check(c.items, r, docs, full)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("%s, run %d: %w", c.id, i, err)
		}
		return d, len(docs), nil
	}
	for _, c := range cs {
		idx0, err := countIndexes(ctx, pool, c.table)
		if err != nil {
			return qs, err
		}
		d, n, err := once(c, 0, true)
		if err != nil {
			return qs, err
		}
		idx1, err := countIndexes(ctx, pool, c.table)
		if err != nil {
			return qs, err
		}
		qs.Sizes = append(qs.Sizes, querySizeStats{Items: c.items, Results: n, First: ms(d), IndexesBuilt: idx1 - idx0})
		logf("query: %s (%s) on %s: first run %.1f ms, %d new index(es)", spec.name, spec.via, c.id, ms(d), idx1-idx0)
	}
	for i := 1; i <= qc.warmup; i++ {
		for _, c := range cs {
			if _, _, err := once(c, i, true); err != nil {
				return qs, err
			}
		}
	}
	lats := make([][]time.Duration, len(cs))
	c0 := sampleCPU(emuPID)
	for i := qc.warmup + 1; i <= qc.warmup+qc.runs; i++ {
		for j := range cs {
			if i%2 == 1 {
				j = len(cs) - 1 - j // alternate which container goes first
			}
			d, _, err := once(cs[j], i, false)
			if err != nil {
				return qs, err
			}
			lats[j] = append(lats[j], d)
		}
	}
	qs.OtherCPU = c0.othersCores(sampleCPU(emuPID))
	for j := range cs {
		var sum time.Duration
		for _, d := range lats[j] {
			sum += d
		}
		qs.Sizes[j].Latency = newLatencyStats(lats[j], sum)
	}
	first, last := qs.Sizes[0].Latency, qs.Sizes[len(qs.Sizes)-1].Latency
	qs.P50Ratio, qs.P99Ratio = ratio(last.P50, first.P50), ratio(last.P99, first.P99)
	logf("query: %s (%s): p50 %.3f ms vs %.3f ms (%.2fx)", spec.name, spec.via, last.P50, first.P50, qs.P50Ratio)
	return qs, nil
}

// crossPartitionRefusals sends the queries that need a query pipeline
// through the SDK without a partition key once, and describes the answers
// (expected: 400, sub-status 1004 for most, as on Azure).
func crossPartitionRefusals(ctx context.Context, c *azcosmos.ContainerClient) []string {
	var notes []string
	for _, q := range []string{"SELECT TOP 10 * FROM c ORDER BY c.n DESC", "SELECT VALUE COUNT(1) FROM c", "SELECT c.cat, COUNT(1) AS items FROM c GROUP BY c.cat"} {
		_, _, err := sdkQuery(ctx, c, q, azcosmos.NewPartitionKey(), nil)
		var re *azcore.ResponseError
		switch {
		case err == nil:
			notes = append(notes, fmt.Sprintf("the SDK's cross-partition %q was answered (expected a 400, as on Azure)", q))
		case errors.As(err, &re) && re.RawResponse != nil:
			sub := ""
			if s := re.RawResponse.Header.Get("x-ms-substatus"); s != "" && s != "0" {
				sub = ", sub-status " + s
			}
			match := "as on Azure"
			if re.StatusCode != http.StatusBadRequest {
				match = "expected 400, as on Azure"
			}
			notes = append(notes, fmt.Sprintf("the Go SDK (no query pipeline) sends %q across partitions: %d %s%s, %s",
				q, re.StatusCode, http.StatusText(re.StatusCode), sub, match))
		default:
			notes = append(notes, fmt.Sprintf("the SDK's cross-partition %q: %v", q, err))
		}
	}
	return notes
}

// countIndexes returns the number of indexes of table (schema-qualified).
func countIndexes(ctx context.Context, pool *pgxpool.Pool, table string) (int, error) {
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_index WHERE indrelid = $1::regclass`, table).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("pgx: counting the indexes of %s: %w", table, err)
	}
	return n, nil
}

// idWidth returns the digits of the item numbers in ids of a container of
// n items.
func idWidth(n int) int { return len(strconv.Itoa(n - 1)) }

// querySeedSQL returns the INSERT that writes n items of about size bytes
// into table as of time $1 (unix seconds); see the scenario's description
// for the properties.
func querySeedSQL(table string, n, size int) string {
	return fmt.Sprintf(`INSERT INTO %[1]s (pk, id, seq, body, ts, ttl, etag, lsn)
SELECT '["' || p || '"]', id, nextval('cosmos.doc_seq'),
       head || repeat('x', greatest(%[2]d - length(head) - 2, 0)) || '"}',
       ts, NULL,
       '"' || lpad(to_hex(g), 8, '0') || '-0000-0200-0000-' || lpad(to_hex(ts), 8, '0') || '0000"',
       nextval('cosmos.lsn_seq')
FROM (
    SELECT g, p, id, ts,
           '{"id":"' || id || '","pk":"' || p || '","k":"k' || g / 10 || '","n":' || g ||
           ',"cat":"c' || (g / 100) %% 10 || '","kind":"query-bench","payload":"' AS head
    FROM (
        SELECT g, 'p' || g %% %[3]d AS p, 'item-' || lpad(g::text, %[4]d, '0') AS id, $1::bigint - g %% 600 AS ts
        FROM generate_series(0::bigint, %[5]d) AS g
    ) a
) b`, table, size, queryPartitions, idWidth(n), n-1)
}

// seedQueryTable writes n items into table, then settles it (seedTable).
func seedQueryTable(ctx context.Context, pool *pgxpool.Pool, table string, n, size int, now int64) (seedResult, error) {
	return seedTable(ctx, pool, table, querySeedSQL(table, n, size), queryPartitions, n, now)
}

// seedTable runs insert, which writes n items of the keys ["p0"] ..
// ["p<partitions-1>"] into table as of time $1 (unix seconds; see
// execSeed), then settles the table as autovacuum would have by the
// time a container holds that many items: VACUUM (ANALYZE) of it and of
// the change log (which the inserts fed), and a CHECKPOINT, so that
// neither lands in a measurement.
func seedTable(ctx context.Context, pool *pgxpool.Pool, table, insert string, partitions, n int, now int64) (seedResult, error) {
	r := seedResult{What: "all"}
	t0 := time.Now()
	tag, err := execSeed(ctx, pool, table, insert, partitions, now)
	if err != nil {
		return r, fmt.Errorf("pgx: seeding %s: %w", table, err)
	}
	r.Rows, r.Insert = tag.RowsAffected(), time.Since(t0).Seconds()
	t0 = time.Now()
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) `+table); err != nil {
		return r, fmt.Errorf("pgx: VACUUM (ANALYZE) %s: %w", table, err)
	}
	_, _ = pool.Exec(ctx, `VACUUM (ANALYZE) cosmos.changes`)
	// CHECKPOINT needs superuser or pg_checkpoint: an external database may
	// refuse it, which only makes the numbers noisier.
	_, _ = pool.Exec(ctx, `CHECKPOINT`)
	r.Settle = time.Since(t0).Seconds()
	if r.Rows != int64(n) {
		return r, fmt.Errorf("seeding %s wrote %d rows, want %d", table, r.Rows, n)
	}
	return r, nil
}

// ms converts d to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
