package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The changefeed scenario (-scenario changefeed) seeds -cf-items items and
// drains the container's change feed through the Go SDK in pages of 1,000,
// sampling the emulator's RSS. Targets: 10,000 items/s, RSS +30 MB at most.

// cfConfig holds the changefeed scenario's flags.
type cfConfig struct {
	items, page, size int
}

// Targets of the changefeed scenario.
const (
	targetCFItemsPerSec = 10_000.0
	targetCFRSSGrowthMB = 30.0
)

// cfResult is the changefeed scenario's results.
type cfResult struct {
	Items       int           `json:"items"`
	Pages       int           `json:"pages"`
	Seconds     float64       `json:"drain_seconds"`
	ItemsPerSec float64       `json:"items_per_sec"`
	RSSBeforeMB float64       `json:"rss_before_mb"`
	RSSPeakMB   float64       `json:"rss_peak_mb"`
	Checks      []targetCheck `json:"checks,omitempty"`
}

// check fills in Checks from what was measured.
func (r *cfResult) check() {
	growth := r.RSSPeakMB - r.RSSBeforeMB
	r.Checks = []targetCheck{atLeast("change feed drain items/s", r.ItemsPerSec, targetCFItemsPerSec),
		{"emulator RSS growth during the drain, MB", growth, fmt.Sprintf("<= %.0f", targetCFRSSGrowthMB), growth <= targetCFRSSGrowthMB}}
}

// runChangeFeed runs the changefeed scenario into res.
func (b *bench) runChangeFeed(ctx context.Context, r *results) (err error) {
	res := &cfResult{}
	r.ChangeFeed = res
	cc := b.cfg.cf
	defer res.check()
	run, err := b.startSDKRun(ctx, "cf")
	if err != nil {
		return err
	}
	defer run.close()
	c, table, err := run.createContainer(ctx, "items", nil)
	if err != nil {
		return err
	}
	b.logf("changefeed: seeding %d items", cc.items)
	if err := seedRows(ctx, run.pool, table, seedSQL(table, cc.items, cc.size, 9, "g % 100", `',"n":' || g`, "", "$1::bigint", ""), 100, cc.items, time.Now().Unix()); err != nil {
		return err
	}
	rss := watchRSS(run.emu.pid())
	b.logf("changefeed: draining (pages of %d)", cc.page)
	opts := azcosmos.ChangeFeedOptions{MaxItemCount: int32(cc.page), FeedRange: &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}}
	t0 := time.Now()
	for {
		resp, err := c.ReadChangeFeed(ctx, &opts)
		if err != nil {
			return fmt.Errorf("ReadChangeFeed after %d items: %w", res.Items, err)
		}
		if resp.Count == 0 {
			break
		}
		res.Pages++
		res.Items += resp.Count
		tok := resp.ContinuationToken
		opts.Continuation, opts.FeedRange = &tok, nil
	}
	res.Seconds = time.Since(t0).Seconds()
	res.ItemsPerSec = float64(res.Items) / res.Seconds
	res.RSSBeforeMB, res.RSSPeakMB = rss()
	if res.Items != cc.items {
		return fmt.Errorf("the change feed returned %d items, want %d", res.Items, cc.items)
	}
	return nil
}

// writeCFReport writes the changefeed scenario's results.
func writeCFReport(w io.Writer, r *cfResult) {
	fmt.Fprintf(w, "\nChange feed: %d items drained through the Go SDK in %d pages in %.2f s: %.0f items/s; emulator RSS %.1f MB before, at most %.1f MB\n",
		r.Items, r.Pages, r.Seconds, r.ItemsPerSec, r.RSSBeforeMB, r.RSSPeakMB)
	writeChecks(w, r.Checks)
}
