package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The ranges scenario (-scenario ranges) compares a point read and a query
// by id on a container of one partition key range and on one of -ranges
// (the throughput that gives that many), alternating (compare).

// rangesConfig holds the ranges scenario's flags.
type rangesConfig struct {
	ranges       int // ranges of the second container
	items        int // items per container
	runs, warmup int
}

// rangesKey is item g's id and partition key: 10 items per partition.
func rangesKey(g int) (id, pk string) { return fmt.Sprintf("item-%06d", g), fmt.Sprintf("p%d", g/10) }

// runRanges runs the ranges scenario.
func (b *bench) runRanges(ctx context.Context, r *results) (err error) {
	res := &compareResult{}
	r.Ranges = res
	rc := b.cfg.ranges
	run, err := b.startSDKRun(ctx, "ranges")
	if err != nil {
		return err
	}
	defer run.close()
	var cs []*azcosmos.ContainerClient
	for _, n := range []int{1, rc.ranges} {
		id := fmt.Sprintf("ranges-%d", n)
		props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
		tp := azcosmos.NewManualThroughputProperties(400)
		if n > 1 {
			tp = azcosmos.NewManualThroughputProperties(int32(n) * 6000)
		}
		if _, err := run.db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
			return fmt.Errorf("creating %s: %w", id, err)
		}
		c, err := run.db.NewContainer(id)
		if err != nil {
			return err
		}
		if frs, err := c.ReadFeedRanges(ctx, nil); err != nil || len(frs) != n {
			return fmt.Errorf("%s has %d ranges, want %d (%v)", id, len(frs), n, err)
		}
		b.logf("ranges: creating %d items in %s", rc.items, id)
		for g := range rc.items {
			id, pk := rangesKey(g)
			if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), fmt.Appendf(nil, `{"id":%q,"pk":%q,"n":%d}`, id, pk, g), nil); err != nil {
				return err
			}
		}
		cs = append(cs, c)
	}
	rnd := rand.New(rand.NewPCG(1, 7))
	*res, err = b.compare("ranges", []string{"1 range", fmt.Sprintf("%d ranges", rc.ranges)}, rc.warmup, rc.runs, []compareOp{
		{"read", 0, func(j, _ int) error {
			id, pk := rangesKey(rnd.IntN(rc.items))
			_, err := cs[j].ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
			return err
		}},
		{"query by id", 0, func(j, _ int) error {
			id, pk := rangesKey(rnd.IntN(rc.items))
			docs, _, err := sdkQuery(ctx, cs[j], "SELECT * FROM c WHERE c.id = @id", azcosmos.NewPartitionKeyString(pk), []azcosmos.QueryParameter{{Name: "@id", Value: id}})
			if err == nil && len(docs) != 1 {
				err = fmt.Errorf("query for %s returned %d items", id, len(docs))
			}
			return err
		}},
	})
	return err
}
