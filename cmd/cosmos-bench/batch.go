package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// The batch scenario (-scenario batch) times, through the Go SDK in one
// partition, single creates and transactional batches of 100 creates (and
// the emulator's handler time per batch), the same batch answered from
// memory by the replaying proxy, and a bulk of -bulk-items creates in
// non-atomic batch requests of 100, as the SDKs' bulk mode sends them.

// batchConfig configures the batch scenario.
type batchConfig struct {
	runs      int // measured transactional batches (and single creates)
	bulkItems int // items created by the bulk run
}

// batchResult is what the batch scenario measured.
type batchResult struct {
	Single        latencyStats `json:"single_create_sdk"`
	Batch         latencyStats `json:"transactional_batch_100_creates_sdk"`
	HandlerMeanMs float64      `json:"batch_handler_mean_ms"`
	SDKFloor      latencyStats `json:"batch_sdk_floor"`
	BulkItems     int          `json:"bulk_items"`
	Bulk          latencyStats `json:"bulk_requests_100_creates"`
}

// runBatch runs the batch scenario on a fresh emulator.
func (b *bench) runBatch(ctx context.Context, r *results) (err error) {
	res := &batchResult{}
	r.Batch = res
	cfg := b.cfg
	run, err := b.startSDKRun(ctx, "batch")
	if err != nil {
		return err
	}
	defer run.close()
	c, _, err := run.createContainer(ctx, "items", nil)
	if err != nil {
		return err
	}
	pad := strings.Repeat("x", max(cfg.itemSize-64, 0))
	body := func(id string) []byte { return fmt.Appendf(nil, `{"id":%q,"pk":"p","pad":%q}`, id, pad) }
	b.logf("batch: %d single creates and %d transactional batches of 100 creates", cfg.batch.runs, cfg.batch.runs)
	if res.Single, err = measure(cfg.warmup, cfg.batch.runs, func(i int) error {
		_, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), body("s"+strconv.Itoa(i)), nil)
		return err
	}); err != nil {
		return err
	}
	before, err := docsMetrics(ctx, run.hc, run.emu.url)
	if err != nil {
		return err
	}
	if res.Batch, err = measure(20, cfg.batch.runs, func(i int) error { return createBatch(ctx, c, body, fmt.Sprintf("b%d-", i)) }); err != nil {
		return err
	}
	after, err := docsMetrics(ctx, run.hc, run.emu.url)
	if err != nil {
		return err
	}
	res.HandlerMeanMs = after["Batch"].meanMs(before["Batch"])
	sb, _, done, err := startReplaySDK(ctx, run.emu.url, run.dbID)
	if err != nil {
		return err
	}
	defer done()
	if res.SDKFloor, err = measure(20, cfg.batch.runs, func(i int) error { return createBatch(ctx, sb.container, body, fmt.Sprintf("f%d-", i)) }); err != nil {
		return fmt.Errorf("batch SDK floor: %w", err)
	}
	headers := map[string]string{"x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "False",
		"x-ms-cosmos-batch-continue-on-error": "True", "x-ms-documentdb-partitionkeyrangeid": "0"}
	res.BulkItems = cfg.batch.bulkItems
	b.logf("batch: bulk of %d creates in requests of 100", cfg.batch.bulkItems)
	const per = emulator.MaxBatchOperations
	res.Bulk, err = measure(0, (cfg.batch.bulkItems+per-1)/per, func(i int) error {
		var ops []string
		for k := 0; k < per && i*per+k < cfg.batch.bulkItems; k++ {
			ops = append(ops, fmt.Sprintf(`{"operationType":"Create","partitionKey":"[\"p%d\"]","resourceBody":{"id":"k%d","pk":"p%d","pad":%q}}`, k%10, i*per+k, k%10, pad))
		}
		_, out, err := run.ctl.do(ctx, "POST", docsPath(run.dbID, "items"), headers, []byte("["+strings.Join(ops, ",")+"]"))
		if err == nil && strings.Contains(string(out), `"statusCode":4`) {
			err = fmt.Errorf("bulk request %d: an operation failed: %.300s", i, out)
		}
		return err
	})
	return err
}

// createBatch executes a transactional batch of 100 creates of items
// prefix0..prefix99 in partition "p".
func createBatch(ctx context.Context, c *azcosmos.ContainerClient, body func(string) []byte, prefix string) error {
	tb := c.NewTransactionalBatch(azcosmos.NewPartitionKeyString("p"))
	for k := range emulator.MaxBatchOperations {
		tb.CreateItem(body(prefix+strconv.Itoa(k)), nil)
	}
	r, err := c.ExecuteTransactionalBatch(ctx, tb, nil)
	if err == nil && !r.Success {
		err = errors.New("transactional batch failed")
	}
	return err
}

// writeBatchReport writes the batch scenario's table.
func writeBatchReport(w io.Writer, r *batchResult) {
	bulkRate := float64(r.BulkItems) / r.Bulk.Seconds
	fmt.Fprintf(w, "\nBatch (Go SDK, one client, one partition; ms): single create p50 %.3f; transactional batch of 100 creates p50 %.3f (%.1fx the single create), "+
		"answered from memory %.3f, the emulator's handler %.3f (mean)\n", r.Single.P50, r.Batch.P50, ratio(r.Batch.P50, r.Single.P50), r.SDKFloor.P50, r.HandlerMeanMs)
	fmt.Fprintf(w, "bulk, %d creates in requests of 100: %.0f items/s (%.1fx sequential creates)\n", r.BulkItems, bulkRate, ratio(bulkRate, r.Single.OpsPerSec))
}
