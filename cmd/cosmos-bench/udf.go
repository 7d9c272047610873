package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The udf scenario (-scenario udf) times queries across partitions calling a
// user-defined function, against the same filter in built-in arithmetic,
// on -udf-items items, sampling the emulator's RSS meanwhile.

// udfConfig holds the udf scenario's flags.
type udfConfig struct {
	items, runs int
}

// udfQueryResult is one measured query.
type udfQueryResult struct {
	Query   string       `json:"query"`
	Results int          `json:"results"`
	Latency latencyStats `json:"latency"`
}

// udfResult is the udf scenario's results.
type udfResult struct {
	Items       int              `json:"items"`
	Queries     []udfQueryResult `json:"queries"`
	RSSBeforeMB float64          `json:"rss_before_mb"`
	RSSPeakMB   float64          `json:"rss_peak_mb"`
}

// udfTax is the scenario's user-defined function.
const udfTax = `function tax(income) {
    if (income == undefined) throw 'no input';
    if (income < 1000) return income * 0.1;
    else if (income < 10000) return income * 0.2;
    else return income * 0.4;
}`

// runUDF runs the udf scenario into res.
func (b *bench) runUDF(ctx context.Context, r *results) (err error) {
	res := &udfResult{}
	r.UDF = res
	n := b.cfg.udf.items
	res.Items = n
	run, err := b.startSDKRun(ctx, "udf")
	if err != nil {
		return err
	}
	defer run.close()
	c, table, err := run.createContainer(ctx, "items", nil)
	if err != nil {
		return err
	}
	def, _ := json.Marshal(map[string]string{"id": "Tax", "body": udfTax})
	if _, _, err := run.ctl.doExpect(ctx, http.StatusCreated, http.MethodPost, "/dbs/"+run.dbID+"/colls/items/udfs", nil, def); err != nil {
		return err
	}
	b.logf("udf: seeding %d items", n)
	if err := seedRows(ctx, run.pool, table, seedSQL(table, n, 400, 9, "g % 100", fmt.Sprintf(`',"income":' || (g * 100000 / %d)`, n), "", "$1::bigint", ""), 100, n, time.Now().Unix()); err != nil {
		return err
	}
	rss := watchRSS(run.emu.pid())
	for _, q := range []struct {
		query   string
		onRange bool
	}{
		{`SELECT VALUE c.id FROM c WHERE udf.Tax(c.income) > 39000`, false},
		{`SELECT VALUE c.id FROM c WHERE c.income * 0.4 > 39000`, false},
		{`SELECT VALUE udf.Tax(c.income) FROM c`, false},
		{`SELECT VALUE COUNT(1) FROM c WHERE udf.Tax(c.income) > 39000`, true},
	} {
		drain := func() (int, error) {
			if q.onRange {
				docs, err := run.ctl.queryRange(ctx, run.dbID, "items", "0", q.query, nil)
				return len(docs), err
			}
			pager := c.NewQueryItemsPager(q.query, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 1000})
			k := 0
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					return k, fmt.Errorf("%s: %w", q.query, err)
				}
				k += len(page.Items)
			}
			return k, nil
		}
		want, err := drain() // also the warm-up
		if err != nil {
			return err
		}
		b.logf("udf: %s (%d results) x %d", q.query, want, b.cfg.udf.runs)
		st, err := measure(0, b.cfg.udf.runs, func(int) error {
			k, err := drain()
			if err == nil && k != want {
				err = fmt.Errorf("%s: %d results, then %d", q.query, want, k)
			}
			return err
		})
		if err != nil {
			return err
		}
		res.Queries = append(res.Queries, udfQueryResult{Query: q.query, Results: want, Latency: st})
	}
	res.RSSBeforeMB, res.RSSPeakMB = rss()
	return nil
}

// writeUDFReport writes the udf scenario's table.
func writeUDFReport(w io.Writer, r *udfResult) {
	fmt.Fprintf(w, "\nUDF: %d items in 100 partitions, queried across partitions (pages of 1,000); ms\n", r.Items)
	for _, q := range r.Queries {
		fmt.Fprintf(w, "  %-62s %6d results  p50 %7.1f  p90 %7.1f  %8.0f items/s\n", q.Query, q.Results, q.Latency.P50, q.Latency.P90, ratio(float64(r.Items), q.Latency.P50/1000))
	}
	fmt.Fprintf(w, "emulator RSS: %.1f MB before, at most %.1f MB while the queries ran\n", r.RSSBeforeMB, r.RSSPeakMB)
}
