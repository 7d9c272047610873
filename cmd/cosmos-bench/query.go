package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The query scenario (-scenario query) compares item queries on containers
// of 1,000 and -query-large items over 100 partitions (compare): filters
// across partitions and ORDER BY, COUNT and GROUP BY in one partition
// through the Go SDK, and ORDER BY and GROUP BY over every item as the SDKs
// with a query pipeline send them (the plan's rewrite, posted to partition
// key range 0). Item g has id item-<g>, pk p<g mod 100>, k "k<g div 10>",
// n = g and cat "c<(g div 100) mod 10>": each query returns as many results
// on both. Target: the selective queries' p50 less than 2x on the large one.

// queryConfig holds the query scenario's flags.
type queryConfig struct {
	small, large int // items in the two containers
	size         int // bytes of each item's JSON
	runs, warmup int // measured and unmeasured runs of each query per container
}

// Settings of the query scenario.
const (
	queryPartitions   = 100
	targetQueryGrowth = 2.0
)

// queryRun is one execution of a query: its parameters and partition key
// ("" for none).
type queryRun struct {
	params map[string]any
	pk     string
}

// querySpec is one query the scenario measures.
type querySpec struct {
	name, sql string
	range0    bool    // sent to range 0 as the plan's rewrite
	target    float64 // 0: growth reported only
	// run returns the parameters of run i on a container of n items.
	run func(n, i int) queryRun
	// check checks the documents of run r on a container of n items.
	check func(n int, r queryRun, docs [][]byte) error
}

// spread returns a pseudo-random but repeatable value in [0, m) for run i.
func spread(i, m int) int { return (i*7919 + 13) % m }

// queryPK returns the partition key value of run i.
func queryPK(n, i int) queryRun { return queryRun{pk: "p" + strconv.Itoa(spread(i, queryPartitions))} }

// unwrap returns a result's payload when it is in the shape of the plan's
// rewrites ({"orderByItems"|"groupByItems": ..., "payload": ...}).
func unwrap(d []byte) []byte {
	var r struct {
		OrderByItems, GroupByItems, Payload json.RawMessage
	}
	if json.Unmarshal(d, &r) == nil && (r.OrderByItems != nil || r.GroupByItems != nil) {
		return r.Payload
	}
	return d
}

// each checks that there are want docs and that every one, decoded
// (unwrapped) into a map, passes ok.
func each(docs [][]byte, want int, ok func(j int, doc map[string]any) bool) error {
	if len(docs) != want {
		return fmt.Errorf("%d results, want %d", len(docs), want)
	}
	for j, d := range docs {
		var doc map[string]any
		if err := json.Unmarshal(unwrap(d), &doc); err != nil || !ok(j, doc) {
			return fmt.Errorf("result %d is %s", j, d)
		}
	}
	return nil
}

// num returns a JSON number member as an int; a GROUP BY rewrite's
// aggregate is {"item": n}.
func num(v any) int {
	if m, ok := v.(map[string]any); ok {
		v = m["item"]
	}
	f, _ := v.(float64)
	return int(f)
}

// querySpecs returns the queries of the scenario.
func querySpecs() []querySpec {
	top := func(n int, r queryRun, docs [][]byte) error {
		first, step := n-1, 1
		if r.pk != "" {
			p, _ := strconv.Atoi(r.pk[1:])
			first, step = n-queryPartitions+p, queryPartitions
		}
		return each(docs, 10, func(j int, doc map[string]any) bool { return num(doc["n"]) == first-j*step })
	}
	groups := func(per func(n int) int) func(n int, r queryRun, docs [][]byte) error {
		return func(n int, r queryRun, docs [][]byte) error {
			seen := map[any]bool{}
			return each(docs, 10, func(_ int, doc map[string]any) bool {
				ok := num(doc["items"]) == per(n) && !seen[doc["cat"]]
				seen[doc["cat"]] = true
				return ok
			})
		}
	}
	all := func(n, i int) queryRun { return queryRun{} }
	const orderBy, groupBy = "SELECT TOP 10 * FROM c ORDER BY c.n DESC", "SELECT c.cat, COUNT(1) AS items FROM c GROUP BY c.cat"
	return []querySpec{
		{name: "equality filter, cross-partition", sql: "SELECT * FROM c WHERE c.k = @k", target: targetQueryGrowth,
			run: func(n, i int) queryRun {
				return queryRun{params: map[string]any{"@k": "k" + strconv.Itoa(spread(i, n/10))}}
			},
			check: func(n int, r queryRun, docs [][]byte) error {
				return each(docs, 10, func(_ int, doc map[string]any) bool { return doc["k"] == r.params["@k"] })
			}},
		{name: "range filter, cross-partition", sql: "SELECT * FROM c WHERE c.n >= @lo AND c.n < @hi", target: targetQueryGrowth,
			run: func(n, i int) queryRun {
				lo := spread(i, n-99)
				return queryRun{params: map[string]any{"@lo": lo, "@hi": lo + 100}}
			},
			check: func(n int, r queryRun, docs [][]byte) error {
				lo := r.params["@lo"].(int)
				return each(docs, 100, func(_ int, doc map[string]any) bool { return num(doc["n"]) >= lo && num(doc["n"]) < lo+100 })
			}},
		{name: "ORDER BY + TOP 10, one partition", sql: orderBy, target: targetQueryGrowth, run: queryPK, check: top},
		{name: "ORDER BY + TOP 10, all, range 0", sql: orderBy, range0: true, target: targetQueryGrowth, run: all, check: top},
		{name: "COUNT, one partition", sql: "SELECT VALUE COUNT(1) FROM c", run: queryPK,
			check: func(n int, r queryRun, docs [][]byte) error {
				if len(docs) != 1 || string(docs[0]) != strconv.Itoa(n/queryPartitions) {
					return fmt.Errorf("results %q, want [%d]", docs, n/queryPartitions)
				}
				return nil
			}},
		{name: "GROUP BY, one partition", sql: groupBy, run: queryPK, check: groups(func(n int) int { return n / queryPartitions / 10 })},
		{name: "GROUP BY, all, range 0", sql: groupBy, range0: true, run: all, check: groups(func(n int) int { return n / 10 })},
	}
}

// querySeedSQL returns the seedSQL of a query container of n items.
func querySeedSQL(table string, n, size int) string {
	return seedSQL(table, n, size, len(strconv.Itoa(n-1)), fmt.Sprintf("g %% %d", queryPartitions),
		`',"k":"k' || g / 10 || '","n":' || g || ',"cat":"c' || (g / 100) % 10 || '","kind":"query-bench"'`, "", "$1::bigint - g % 600", "")
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
func (b *bench) runQuery(ctx context.Context, r *results) (err error) {
	res := &compareResult{}
	r.Query = res
	qc := b.cfg.query
	run, err := b.startSDKRun(ctx, "query")
	if err != nil {
		return err
	}
	defer run.close()
	now, err := run.ctl.clockNow(ctx)
	if err != nil {
		return err
	}
	sizes, ids := []int{qc.small, qc.large}, []string{"items-" + strconv.Itoa(qc.small), "items-" + strconv.Itoa(qc.large)}
	cs := make([]*azcosmos.ContainerClient, 2)
	for j, n := range sizes {
		var table string
		if cs[j], table, err = run.createContainer(ctx, ids[j], nil); err != nil {
			return err
		}
		b.logf("query: seeding %s", ids[j])
		if err := seedRows(ctx, run.pool, table, querySeedSQL(table, n, qc.size), queryPartitions, n, now); err != nil {
			return err
		}
		// One point read, so that the first query is not the SDK's first
		// request (connection, TLS, account and container metadata).
		if _, err := cs[j].ReadItem(ctx, azcosmos.NewPartitionKeyString("p0"), fmt.Sprintf("item-%0*d", len(strconv.Itoa(n-1)), 0), nil); err != nil {
			return err
		}
	}
	var ops []compareOp
	for _, spec := range querySpecs() {
		sent := spec.sql
		if spec.range0 {
			// What an SDK with a query pipeline sends: the plan's rewrite,
			// its ORDER BY filter placeholder replaced as on a first page.
			rw, err := run.ctl.queryPlan(ctx, run.dbID, ids[0], spec.sql)
			if err != nil {
				return err
			}
			sent = strings.ReplaceAll(rw, "{documentdb-formattableorderbyquery-filter}", "true")
		}
		ops = append(ops, compareOp{spec.name, spec.target, func(j, i int) error {
			r := spec.run(sizes[j], i)
			var docs [][]byte
			var err error
			if spec.range0 {
				var raw []json.RawMessage
				raw, err = run.ctl.queryRange(ctx, run.dbID, ids[j], "0", sent, r.params)
				for _, d := range raw {
					docs = append(docs, d)
				}
			} else {
				pk := azcosmos.NewPartitionKey()
				if r.pk != "" {
					pk = azcosmos.NewPartitionKeyString(r.pk)
				}
				var params []azcosmos.QueryParameter
				for name, v := range r.params {
					params = append(params, azcosmos.QueryParameter{Name: name, Value: v})
				}
				docs, _, err = sdkQuery(ctx, cs[j], spec.sql, pk, params)
			}
			if err == nil {
				err = spec.check(sizes[j], r, docs)
			}
			return err
		}})
	}
	*res, err = b.compare("query", []string{strconv.Itoa(qc.small) + " items", strconv.Itoa(qc.large) + " items"}, qc.warmup, qc.runs, ops)
	return err
}
