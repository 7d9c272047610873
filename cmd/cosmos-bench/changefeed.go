package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The changefeed scenario (-scenario changefeed) drains the latest-version
// change feed of a container of -cf-items items through the Go SDK
// (ReadChangeFeed from the beginning, pages of -cf-page items, each call
// continuing from the previous one's token) and reports items/s and the
// emulator's RSS before, at its highest between pages, and after: a feed
// that streams pages keeps it flat, one that loaded the container would
// not. The items are written directly into the container's items table
// (one INSERT ... SELECT through pgx, each row with its own LSN from the
// emulator's sequence), then VACUUM ANALYZEd.

// cfConfig holds the changefeed scenario's flags.
type cfConfig struct {
	items, page, size int
}

// Targets of the changefeed scenario.
const (
	targetCFItemsPerSec = 10_000.0 // items/s drained through the SDK
	targetCFRSSGrowthMB = 30.0     // emulator RSS growth during the drain
)

// cfResult is the changefeed scenario's part of the results.
type cfResult struct {
	Endpoint    string        `json:"endpoint,omitempty"`
	Items       int           `json:"items"`
	ItemSize    int           `json:"item_size_bytes"`
	PageSize    int           `json:"page_size"`
	SeedSeconds float64       `json:"seed_seconds"`
	Pages       int           `json:"pages"`
	Drained     int           `json:"drained"`
	Seconds     float64       `json:"drain_seconds"`
	ItemsPerSec float64       `json:"items_per_sec"`
	RSSBeforeMB float64       `json:"rss_before_mb"`
	RSSPeakMB   float64       `json:"rss_peak_between_pages_mb"`
	RSSAfterMB  float64       `json:"rss_after_mb"`
	Checks      []targetCheck `json:"checks,omitempty"`
}

func (r *cfResult) check() {
	r.Checks = []targetCheck{
		atLeast("change feed drain items/s", r.ItemsPerSec, targetCFItemsPerSec),
		{"emulator RSS growth during the drain, MB", r.RSSPeakMB - r.RSSBeforeMB, fmt.Sprintf("<= %.0f", targetCFRSSGrowthMB), r.RSSPeakMB-r.RSSBeforeMB <= targetCFRSSGrowthMB},
	}
}

// runChangeFeed runs the changefeed scenario into res.
func (b *bench) runChangeFeed(ctx context.Context, res *cfResult) error {
	cfg, cc, logf := b.cfg, b.cfg.cf, b.logf
	*res = cfResult{Items: cc.items, ItemSize: cc.size, PageSize: cc.page}
	dataDir := filepath.Join(b.workDir, "cf")
	p, err := b.start(ctx, dataDir, "cf-emulator.log")
	if err != nil {
		return err
	}
	defer p.stop()
	res.Endpoint = p.url
	sdk, err := newSDKBench(ctx, p.url, 1, cfg.http1)
	if err != nil {
		return err
	}
	defer func() { _ = sdk.close(context.Background()) }()

	pool, table, err := b.openItemsTable(ctx, dataDir, sdk)
	if err != nil {
		return err
	}
	defer pool.Close()
	logf("changefeed: seeding %d items", cc.items)
	t0 := time.Now()
	pad := cc.size - 60
	if err := seedItems(ctx, pool, table, `'{"id":"' || g || '","pk":"p' || (g % 100) || '","n":' || g || ',"pad":"' || repeat('x', $2) || '"}'`, cc.items, pad); err != nil {
		return err
	}
	res.SeedSeconds = time.Since(t0).Seconds()

	pid := p.pid()
	if res.RSSBeforeMB, err = rssMB(pid); err != nil {
		return err
	}
	res.RSSPeakMB = res.RSSBeforeMB
	logf("changefeed: draining (pages of %d)", cc.page)
	opts := azcosmos.ChangeFeedOptions{MaxItemCount: int32(cc.page), FeedRange: &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}}
	t0 = time.Now()
	for {
		resp, err := sdk.container.ReadChangeFeed(ctx, &opts)
		if err != nil {
			return fmt.Errorf("ReadChangeFeed after %d items: %w", res.Drained, err)
		}
		if resp.Count == 0 {
			break
		}
		res.Pages++
		res.Drained += resp.Count
		tok := resp.ContinuationToken
		opts.Continuation, opts.FeedRange = &tok, nil
		if m, err := rssMB(pid); err == nil && m > res.RSSPeakMB {
			res.RSSPeakMB = m
		}
	}
	elapsed := time.Since(t0)
	res.Seconds = elapsed.Seconds()
	res.ItemsPerSec = float64(res.Drained) / elapsed.Seconds()
	res.RSSAfterMB, _ = rssMB(pid)
	if res.Drained != cc.items {
		return fmt.Errorf("the change feed returned %d items, want %d", res.Drained, cc.items)
	}
	return nil
}

// writeCFReport writes the changefeed scenario's table.
func writeCFReport(w io.Writer, r *cfResult) {
	fmt.Fprintf(w, "\nChange feed scenario: %d items of %d bytes, drained through the Go SDK in pages of %d.\n", r.Items, r.ItemSize, r.PageSize)
	fmt.Fprintf(w, "seeded in %.1f s; drained %d items in %d pages in %.2f s: %.0f items/s\n", r.SeedSeconds, r.Drained, r.Pages, r.Seconds, r.ItemsPerSec)
	fmt.Fprintf(w, "emulator RSS: %.1f MB before, %.1f MB at most between pages, %.1f MB after\n", r.RSSBeforeMB, r.RSSPeakMB, r.RSSAfterMB)
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  %-45s %10.1f  target %-8s %s\n", c.Name, c.Value, c.Target, verdict(c.Met))
	}
}

// openItemsTable connects to the PostgreSQL database of the emulator
// running on dataDir and returns the items table of sdk's container.
func (b *bench) openItemsTable(ctx context.Context, dataDir string, sdk *sdkBench) (*pgxpool.Pool, string, error) {
	pool, err := b.connectPG(ctx, dataDir)
	if err != nil {
		return nil, "", err
	}
	_, table, err := itemsTable(ctx, pool, sdk.db.ID(), sdk.container.ID())
	if err != nil {
		pool.Close()
		return nil, "", err
	}
	return pool, table, nil
}

// seedItems writes items g = 1..n into an items table in 100 logical
// partitions ("p" || g % 100), each with its own seq and LSN, body being
// the SQL of each item's JSON over g ($1 is n, args follow as $2...), then
// VACUUM ANALYZEs the table.
func seedItems(ctx context.Context, pool *pgxpool.Pool, table, body string, n int, args ...any) error {
	if _, err := execSeed(ctx, pool, table, `INSERT INTO `+table+` (pk, id, seq, body, ts, ttl, etag, lsn)
SELECT '["p' || (g % 100) || '"]', g::text, nextval('cosmos.doc_seq'), `+body+`,
       extract(epoch FROM now())::bigint, NULL, '"' || md5(g::text) || '"', nextval('cosmos.lsn_seq')
FROM generate_series(1, $1) g`, 100, append([]any{n}, args...)...); err != nil {
		return fmt.Errorf("pgx: seeding: %w", err)
	}
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) `+table); err != nil {
		return fmt.Errorf("pgx: vacuum: %w", err)
	}
	return nil
}

// connectPG connects to the PostgreSQL database of the emulator running on
// dataDir: -pg, or the managed cluster's socket.
func (b *bench) connectPG(ctx context.Context, dataDir string) (*pgxpool.Pool, error) {
	pgConn, err := b.pgConnString(dataDir)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, pgConn)
	if err != nil {
		return nil, fmt.Errorf("pgx: connect: %w", err)
	}
	return pool, nil
}

// pgConnString returns the connection string of the PostgreSQL database of
// the emulator running on dataDir: -pg, or the managed cluster's socket.
func (b *bench) pgConnString(dataDir string) (string, error) {
	if b.cfg.pg != "" {
		return b.cfg.pg, nil
	}
	return managedConnString(dataDir)
}

// itemsTable returns the items table of container containerID in database
// dbID.
func itemsTable(ctx context.Context, pool *pgxpool.Pool, dbID, containerID string) (num int64, table string, err error) {
	err = pool.QueryRow(ctx, `SELECT c.num FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num WHERE d.id = $1 AND c.id = $2`, dbID, containerID).Scan(&num)
	if err != nil {
		return 0, "", fmt.Errorf("pgx: finding container %s: %w", containerID, err)
	}
	return num, "cosmos.items_" + strconv.FormatInt(num, 10), nil
}
