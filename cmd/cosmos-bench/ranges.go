package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The ranges scenario (-scenario ranges) measures whether a point
// operation's cost grows with the number of partition key ranges of its
// container. One emulator process serves two containers that differ only
// in their ranges: one range (400 RU/s) and -ranges N (N x 6,000 RU/s, the
// service's sizing rule giving N ranges), each seeded with -ranges-items
// items through the SDK (10 per logical partition). Through the Go SDK,
// each operation runs -ranges-warmup unmeasured then -ranges-n measured
// times on each container, the containers alternating (which goes first
// alternates too), so that drift in the machine's speed hits both alike:
//
//   - read: ReadItem of a random item;
//   - query by id: SELECT * FROM c WHERE c.id = @id with the item's
//     partition key (a single-partition query).
//
// For each it reports p50/p99 on both containers and the ratio of the N
// ranges container's p50 to the single range's.

// rangesConfig holds the ranges scenario's flags.
type rangesConfig struct {
	ranges       int // ranges of the second container
	items        int // items per container
	runs, warmup int
}

// rangesResult is the ranges scenario's results.
type rangesResult struct {
	Ranges []int         `json:"ranges"` // of the two containers, as ReadFeedRanges reports them
	Items  int           `json:"items_per_container"`
	Runs   int           `json:"runs"`
	Warmup int           `json:"warmup"`
	Ops    []rangesOpRes `json:"operations"`
}

// rangesOpRes is one operation's latencies on each container and the
// ratio of the p50s (many ranges over one).
type rangesOpRes struct {
	Name     string         `json:"name"`
	Latency  []latencyStats `json:"latency"`
	P50Ratio float64        `json:"p50_ratio"`
	P99Ratio float64        `json:"p99_ratio"`
}

// rangesContainer is one of the scenario's containers.
type rangesContainer struct {
	id  string
	sdk *azcosmos.ContainerClient
	rnd *rand.Rand
}

// rangesKey is item g's id and partition key: 10 items per partition.
func rangesKey(g int) (id, pk string) { return fmt.Sprintf("item-%06d", g), fmt.Sprintf("p%d", g/10) }

// runRanges runs the ranges scenario.
func (b *bench) runRanges(ctx context.Context, res *rangesResult) (err error) {
	rc, logf := b.cfg.ranges, b.logf
	*res = rangesResult{Items: rc.items, Runs: rc.runs, Warmup: rc.warmup}
	run, err := b.startSDKRun(ctx, "ranges")
	if err != nil {
		return err
	}
	defer func() {
		if cerr := run.close(logf); cerr != nil && err == nil {
			err = cerr
		}
	}()
	var cs []*rangesContainer
	for i, n := range []int{1, rc.ranges} {
		c := &rangesContainer{id: fmt.Sprintf("ranges-%d", n), rnd: rand.New(rand.NewPCG(uint64(i)+1, 7))}
		props := azcosmos.ContainerProperties{ID: c.id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
		tp := azcosmos.NewManualThroughputProperties(400)
		if n > 1 {
			tp = azcosmos.NewManualThroughputProperties(int32(n) * 6000)
		}
		if _, err := run.db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
			return fmt.Errorf("creating %s: %w", c.id, err)
		}
		if c.sdk, err = run.db.NewContainer(c.id); err != nil {
			return err
		}
		frs, err := c.sdk.ReadFeedRanges(ctx, nil)
		if err != nil {
			return err
		}
		if len(frs) != n {
			return fmt.Errorf("%s has %d ranges, want %d", c.id, len(frs), n)
		}
		res.Ranges = append(res.Ranges, len(frs))
		logf("ranges: seeding %s (%d ranges) with %d items", c.id, n, rc.items)
		for g := range rc.items {
			id, pk := rangesKey(g)
			body := fmt.Appendf(nil, `{"id":%q,"pk":%q,"n":%d}`, id, pk, g)
			if _, err := c.sdk.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), body, nil); err != nil {
				return fmt.Errorf("seeding %s: %w", c.id, err)
			}
		}
		cs = append(cs, c)
	}
	ops := []struct {
		name string
		run  func(c *rangesContainer) error
	}{
		{"read", func(c *rangesContainer) error {
			id, pk := rangesKey(c.rnd.IntN(rc.items))
			_, err := c.sdk.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
			return err
		}},
		{"query by id", func(c *rangesContainer) error {
			id, pk := rangesKey(c.rnd.IntN(rc.items))
			pager := c.sdk.NewQueryItemsPager("SELECT * FROM c WHERE c.id = @id", azcosmos.NewPartitionKeyString(pk),
				&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: id}}})
			page, err := pager.NextPage(ctx)
			if err == nil && len(page.Items) != 1 {
				err = fmt.Errorf("query for %s returned %d items", id, len(page.Items))
			}
			return err
		}},
	}
	for _, op := range ops {
		logf("ranges: %s (%d + %d runs on each container)", op.name, rc.warmup, rc.runs)
		lats := make([][]time.Duration, len(cs))
		var elapsed time.Duration
		for i := range rc.warmup + rc.runs {
			for j := range cs {
				if i%2 == 1 {
					j = len(cs) - 1 - j // alternate which container goes first
				}
				t := time.Now()
				if err := op.run(cs[j]); err != nil {
					return fmt.Errorf("%s on %s: %w", op.name, cs[j].id, err)
				}
				if d := time.Since(t); i >= rc.warmup {
					lats[j] = append(lats[j], d)
					elapsed += d
				}
			}
		}
		r := rangesOpRes{Name: op.name}
		for j := range cs {
			r.Latency = append(r.Latency, newLatencyStats(lats[j], elapsed/time.Duration(len(cs))))
		}
		r.P50Ratio, r.P99Ratio = ratio(r.Latency[1].P50, r.Latency[0].P50), ratio(r.Latency[1].P99, r.Latency[0].P99)
		logf("ranges: %s: p50 %.3f ms with %d ranges vs %.3f ms with 1 (%.2fx)", op.name, r.Latency[1].P50, rc.ranges, r.Latency[0].P50, r.P50Ratio)
		res.Ops = append(res.Ops, r)
	}
	return nil
}

// writeRangesReport writes the ranges scenario's table.
func writeRangesReport(w io.Writer, r *rangesResult) {
	fmt.Fprintf(w, "\nranges: point operations on 1 range vs %d (%d items each, %d runs after %d warm-up, alternating)\n",
		r.Ranges[len(r.Ranges)-1], r.Items, r.Runs, r.Warmup)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "operation\tp50 1 range\tp50 %d ranges\tratio\tp99 1 range\tp99 %d ranges\tratio\n", r.Ranges[len(r.Ranges)-1], r.Ranges[len(r.Ranges)-1])
	for _, op := range r.Ops {
		fmt.Fprintf(tw, "%s\t%.3f ms\t%.3f ms\t%.2fx\t%.3f ms\t%.3f ms\t%.2fx\n", op.Name,
			op.Latency[0].P50, op.Latency[1].P50, op.P50Ratio, op.Latency[0].P99, op.Latency[1].P99, op.P99Ratio)
	}
	tw.Flush()
}
