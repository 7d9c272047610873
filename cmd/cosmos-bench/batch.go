package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Targets of the batch scenario (issue "Change feed, transactional batch
// and bulk").
const (
	// targetBatchRatio: a transactional batch of 100 creates within this
	// many times a single create (p50).
	targetBatchRatio = 3.0
	// targetBulkSpeedup: bulk creates at least this many times the rate of
	// sequential single creates.
	targetBulkSpeedup = 5.0
)

// batchConfig configures the batch scenario.
type batchConfig struct {
	runs      int // measured transactional batches (and single creates)
	bulkItems int // items created by the bulk run
}

// batchResult is what the batch scenario measured.
type batchResult struct {
	Single     latencyStats `json:"single_create_sdk"`
	Batch      latencyStats `json:"transactional_batch_100_creates_sdk"`
	BatchRatio float64      `json:"batch_p50_over_single_p50"`
	BulkItems  int          `json:"bulk_items"`
	Bulk       latencyStats `json:"bulk_requests_100_creates"`
	BulkRate   float64      `json:"bulk_items_per_sec"`
	SingleRate float64      `json:"sequential_creates_per_sec"`
	Speedup    float64      `json:"bulk_speedup"`
	// HandlerMeanMs is the emulator's mean time in its handler per
	// transactional batch (its request-duration metric, warm-up included).
	HandlerMeanMs float64 `json:"batch_handler_mean_ms"`
	// SDKFloor is transactional batches through a proxy that answers
	// them from memory (replay.go): the SDK's own cost of a batch of 100
	// creates, with no server work.
	SDKFloor latencyStats `json:"batch_sdk_floor"`
}

// runBatch runs the batch scenario on a fresh emulator: single creates and
// transactional batches of 100 creates through the Go SDK, then bulk
// requests of 100 creates each (atomic False, continue-on-error True, the
// JS SDK's executeBulkOperations requests) sent one after another.
func (b *bench) runBatch(ctx context.Context, res *batchResult) (err error) {
	cfg := b.cfg
	emu, err := b.start(ctx, filepath.Join(b.workDir, "batch"), "emulator-batch.log")
	if err != nil {
		return err
	}
	defer emu.stop()
	sdk, err := newSDKBench(ctx, emu.url)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, sdk.close(ctx)) }()
	body := func(id string) []byte {
		return []byte(fmt.Sprintf(`{"id":%q,"pk":"p","pad":%q}`, id, strings.Repeat("x", max(cfg.itemSize-64, 0))))
	}
	pk := azcosmos.NewPartitionKeyString("p")
	measure := measureSequential
	single := func(prefix string) func(i int) error {
		return func(i int) error {
			_, err := sdk.container.CreateItem(ctx, pk, body(fmt.Sprintf("%s%d", prefix, i)), nil)
			return err
		}
	}
	batch := func(prefix string) func(i int) error {
		return func(i int) error { return createBatch(ctx, sdk.container, body, fmt.Sprintf("%s%d-", prefix, i)) }
	}
	b.logf("batch: %d single creates and %d transactional batches of 100 creates (after %d of each unmeasured)", cfg.batch.runs, cfg.batch.runs, cfg.warmup)
	if _, err := measure(cfg.warmup, single("w")); err != nil {
		return fmt.Errorf("single create: %w", err)
	}
	if _, err := measure(min(cfg.warmup, 20), batch("wb")); err != nil {
		return fmt.Errorf("transactional batch: %w", err)
	}
	if res.Single, err = measure(cfg.batch.runs, single("s")); err != nil {
		return fmt.Errorf("single create: %w", err)
	}
	before, err := docsMetrics(ctx, sdk.http, emu.url)
	if err != nil {
		return err
	}
	if res.Batch, err = measure(cfg.batch.runs, batch("b")); err != nil {
		return fmt.Errorf("transactional batch: %w", err)
	}
	after, err := docsMetrics(ctx, sdk.http, emu.url)
	if err != nil {
		return err
	}
	res.HandlerMeanMs = after["Batch"].meanMs(before["Batch"])
	res.BatchRatio = ratio(res.Batch.P50, res.Single.P50)
	if res.SDKFloor, err = batchSDKFloor(ctx, emu.url, sdk.db.ID(), cfg.batch.runs, body); err != nil {
		return err
	}

	cc, err := newControlClient(emu.url)
	if err != nil {
		return err
	}
	defer cc.close()
	path := "/dbs/" + sdk.db.ID() + "/colls/items/docs"
	headers := map[string]string{"x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "False",
		"x-ms-cosmos-batch-continue-on-error": "True", "x-ms-documentdb-partitionkeyrangeid": "0"}
	res.BulkItems = cfg.batch.bulkItems
	b.logf("batch: bulk of %d creates in requests of 100", cfg.batch.bulkItems)
	requests := (cfg.batch.bulkItems + emulator.MaxBatchOperations - 1) / emulator.MaxBatchOperations
	res.Bulk, err = measure(requests, func(i int) error {
		var sb strings.Builder
		sb.WriteByte('[')
		for k := 0; k < emulator.MaxBatchOperations && i*emulator.MaxBatchOperations+k < cfg.batch.bulkItems; k++ {
			if k > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"operationType":"Create","partitionKey":"[\"p%d\"]","resourceBody":{"id":"k%d","pk":"p%d","pad":%q}}`,
				k%10, i*emulator.MaxBatchOperations+k, k%10, strings.Repeat("x", max(cfg.itemSize-64, 0)))
		}
		sb.WriteByte(']')
		_, out, err := cc.do(ctx, "POST", path, headers, []byte(sb.String()))
		if err == nil && strings.Contains(string(out), `"statusCode":4`) {
			err = fmt.Errorf("bulk request %d: an operation failed: %.300s", i, out)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("bulk: %w", err)
	}
	res.BulkRate = float64(cfg.batch.bulkItems) / res.Bulk.Seconds
	res.SingleRate = res.Single.OpsPerSec
	res.Speedup = ratio(res.BulkRate, res.SingleRate)
	return nil
}

// writeBatchReport writes the batch scenario's table.
func writeBatchReport(w io.Writer, r *batchResult) {
	fmt.Fprintln(w, "\nBatch scenario: one client, items in one logical partition (bulk: 10 partitions), latencies in ms")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "operation\t  ops\t    p50\t    p90\t    p99\t  items/s\ttarget\t")
	fmt.Fprintf(tw, "single create (SDK)\t%5d\t%7.3f\t%7.3f\t%7.3f\t%9.0f\t\t\n", r.Single.Ops, r.Single.P50, r.Single.P90, r.Single.P99, r.SingleRate)
	fmt.Fprintf(tw, "transactional batch, 100 creates (SDK)\t%5d\t%7.3f\t%7.3f\t%7.3f\t%9.0f\tp50 %.1fx single, < %.0fx %s\t\n",
		r.Batch.Ops, r.Batch.P50, r.Batch.P90, r.Batch.P99, 100*r.Batch.OpsPerSec, r.BatchRatio, targetBatchRatio, verdict(r.BatchRatio < targetBatchRatio))
	fmt.Fprintf(tw, "bulk, %d creates in requests of 100\t%5d\t%7.3f\t%7.3f\t%7.3f\t%9.0f\t%.1fx sequential, >= %.0fx %s\t\n",
		r.BulkItems, r.Bulk.Ops, r.Bulk.P50, r.Bulk.P90, r.Bulk.P99, r.BulkRate, r.Speedup, targetBulkSpeedup, verdict(r.Speedup >= targetBulkSpeedup))
	if r.SDKFloor.Ops > 0 {
		fmt.Fprintf(tw, "  the same batch answered from memory (SDK floor)\t%5d\t%7.3f\t%7.3f\t%7.3f\t\t= %.1fx the single create: the SDK's own share\t\n",
			r.SDKFloor.Ops, r.SDKFloor.P50, r.SDKFloor.P90, r.SDKFloor.P99, ratio(r.SDKFloor.P50, r.Single.P50))
	}
	tw.Flush()
	if r.HandlerMeanMs > 0 {
		fmt.Fprintf(w, "transactional batch: the emulator's handler took %.3f ms on average (its request-duration metric)\n", r.HandlerMeanMs)
	}
}

// createBatch runs one transactional batch of emulator.MaxBatchOperations
// creates in logical partition "p" of c, the items' ids prefix0, prefix1, ...
func createBatch(ctx context.Context, c *azcosmos.ContainerClient, body func(string) []byte, prefix string) error {
	tb := c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("p"))
	for k := 0; k < emulator.MaxBatchOperations; k++ {
		tb.CreateItem(body(prefix+strconv.Itoa(k)), nil)
	}
	r, err := c.ExecuteTransactionalBatch(ctx, tb, nil)
	if err == nil && !r.Success {
		err = errors.New("transactional batch failed")
	}
	return err
}

// batchSDKFloor measures n transactional batches of 100 creates through a
// proxy of the emulator at endpoint that answers every batch with the first
// one's recorded response: the SDK's encoding of the batch, loopback, TLS
// and HTTP, and the SDK's parsing of the 100 results, without any server
// work.
func batchSDKFloor(ctx context.Context, endpoint, dbID string, n int, body func(string) []byte) (latencyStats, error) {
	sb, _, done, err := startReplaySDK(ctx, endpoint, dbID)
	if err != nil {
		return latencyStats{}, err
	}
	defer done()
	one := func(i int) error { return createBatch(ctx, sb.container, body, fmt.Sprintf("f%d-", i)) }
	if _, err := measureSequential(20, one); err != nil {
		return latencyStats{}, fmt.Errorf("batch SDK floor: %w", err)
	}
	s, err := measureSequential(n, one)
	if err != nil {
		return latencyStats{}, fmt.Errorf("batch SDK floor: %w", err)
	}
	return s, nil
}
