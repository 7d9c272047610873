package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The udf scenario (-scenario udf) measures queries calling a
// user-defined function (the documentation's Tax UDF) over a container of
// -udf-items items in 100 partitions, through the Go SDK across
// partitions: a selective UDF filter (2.5 % of the items match), the same
// filter written with built-in arithmetic (which PostgreSQL evaluates on
// every row too: the cost of the UDF path over plain SQL), a UDF in the
// projection of every item (pages of 1,000), and a COUNT with the UDF
// filter (evaluated over the whole set: every item's call in one page;
// sent to range "0" over signed REST, as an SDK pipeline does). Each query is drained
// -udf-n times; the emulator's RSS is sampled every 10 ms while they run:
// a UDF query reads its rows in bounded batches, so it stays flat whatever
// the container's size.

// udfConfig holds the udf scenario's flags.
type udfConfig struct {
	items, runs int
}

// udfQueryResult is one measured query.
type udfQueryResult struct {
	Query   string       `json:"query"`
	Results int          `json:"results"`
	Latency latencyStats `json:"latency"`
	// ItemsPerSec is the container's items over the median drain time.
	ItemsPerSec float64 `json:"items_per_sec"`
}

// udfResult is what the udf scenario measured.
type udfResult struct {
	Items       int              `json:"items"`
	Queries     []udfQueryResult `json:"queries"`
	RSSBeforeMB float64          `json:"rss_before_mb"`
	RSSPeakMB   float64          `json:"rss_peak_mb"`
	RSSAfterMB  float64          `json:"rss_after_mb"`
}

// udfTax is the documentation's Tax UDF.
const udfTax = `function tax(income) {
    if (income == undefined) throw 'no input';
    if (income < 1000) return income * 0.1;
    else if (income < 10000) return income * 0.2;
    else return income * 0.4;
}`

// runUDF runs the udf scenario on a fresh emulator.
func (b *bench) runUDF(ctx context.Context, res *udfResult) error {
	cfg := b.cfg
	*res = udfResult{Items: cfg.udf.items}
	dataDir := filepath.Join(b.workDir, "udf")
	emu, err := b.start(ctx, dataDir, "emulator-udf.log")
	if err != nil {
		return err
	}
	defer emu.stop()
	sdk, err := newSDKBench(ctx, emu.url, 1, cfg.http1)
	if err != nil {
		return err
	}
	defer func() { _ = sdk.close(context.Background()) }()
	cc, err := newControlClient(emu.url, cfg.http1)
	if err != nil {
		return err
	}
	defer cc.close()
	def, _ := json.Marshal(map[string]string{"id": "Tax", "body": udfTax})
	if _, _, err := cc.doExpect(ctx, 201, "POST", "/dbs/"+url.PathEscape(sdk.db.ID())+"/colls/items/udfs", nil, def); err != nil {
		return err
	}
	pool, table, err := b.openItemsTable(ctx, dataDir, sdk)
	if err != nil {
		return err
	}
	defer pool.Close()
	b.logf("udf: seeding %d items", cfg.udf.items)
	if err := seedItems(ctx, pool, table, `'{"id":"' || g || '","pk":"p' || (g % 100) || '","income":' || (g::bigint * 100000 / $1) || ',"pad":"' || repeat('x', 300) || '"}'`, cfg.udf.items); err != nil {
		return err
	}
	pid := emu.pid()
	if res.RSSBeforeMB, err = rssMB(pid); err != nil {
		return err
	}
	res.RSSPeakMB = res.RSSBeforeMB
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if m, err := rssMB(pid); err == nil {
					mu.Lock()
					res.RSSPeakMB = max(res.RSSPeakMB, m)
					mu.Unlock()
				}
			}
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-sampled
	}()
	queries := []struct {
		query   string
		onRange bool // signed REST to range "0" (the Go SDK has no aggregate pipeline)
	}{
		{`SELECT VALUE c.id FROM c WHERE udf.Tax(c.income) > 39000`, false},
		{`SELECT VALUE c.id FROM c WHERE c.income * 0.4 > 39000`, false},
		{`SELECT VALUE udf.Tax(c.income) FROM c`, false},
		{`SELECT VALUE COUNT(1) FROM c WHERE udf.Tax(c.income) > 39000`, true},
	}
	for _, q := range queries {
		drain := func() (int, error) {
			if q.onRange {
				docs, _, err := cc.queryRange(ctx, sdk.db.ID(), sdk.container.ID(), "0", q.query, nil)
				return len(docs), err
			}
			pager := sdk.container.NewQueryItemsPager(q.query, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 1000})
			n := 0
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					return n, fmt.Errorf("%s: %w", q.query, err)
				}
				n += len(page.Items)
			}
			return n, nil
		}
		want, err := drain() // also the warm-up
		if err != nil {
			return err
		}
		b.logf("udf: %s (%d results) x %d", q.query, want, cfg.udf.runs)
		st, err := measureSequential(cfg.udf.runs, func(int) error {
			n, err := drain()
			if err == nil && n != want {
				err = fmt.Errorf("%s: %d results, then %d", q.query, want, n)
			}
			return err
		})
		if err != nil {
			return err
		}
		r := udfQueryResult{Query: q.query, Results: want, Latency: st}
		if st.P50 > 0 {
			r.ItemsPerSec = float64(cfg.udf.items) / (st.P50 / 1000)
		}
		res.Queries = append(res.Queries, r)
	}
	close(stop)
	<-sampled
	res.RSSAfterMB, _ = rssMB(pid)
	return nil
}

// writeUDFReport writes the udf scenario's table.
func writeUDFReport(w io.Writer, r *udfResult) {
	fmt.Fprintf(w, "\nUDF scenario: %d items in 100 partitions, queried across partitions through the Go SDK (pages of 1,000), latencies in ms\n", r.Items)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "query\tresults\t  runs\t    p50\t    p90\t    max\titems/s\t")
	for _, q := range r.Queries {
		fmt.Fprintf(tw, "%s\t%7d\t%6d\t%7.1f\t%7.1f\t%7.1f\t%.0f\t\n", q.Query, q.Results, q.Latency.Ops, q.Latency.P50, q.Latency.P90, q.Latency.Max, q.ItemsPerSec)
	}
	tw.Flush()
	fmt.Fprintf(w, "emulator RSS: %.1f MB before, %.1f MB at most while the queries ran (sampled every 10 ms), %.1f MB after\n", r.RSSBeforeMB, r.RSSPeakMB, r.RSSAfterMB)
}
