package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The scale scenario (-scenario scale) compares point operations and
// single-partition queries on containers of 1,000 and -scale-items 1 KB
// items, 100 per partition (compare). Item g has id item-<g>, pk p<g mod
// items/100>, n = g div (items/100) and an incompressible payload (sha512
// hex). Target: the reads' and queries' p50 at most 1.2x on the large one.

// scaleConfig holds the scale scenario's flags.
type scaleConfig struct {
	small, large int // items in the two containers, multiples of scalePerPartition
	size         int // bytes of each item's JSON
	runs, warmup int // measured and unmeasured runs of each operation per container
	hot          int // distinct items of the hot reads
}

// Settings of the scale scenario.
const (
	scalePerPartition = 100
	scaleIDWidth      = 9
	targetScaleRatio  = 1.2
)

// scaleKey returns the id and partition key value of item g of a container
// of n items.
func scaleKey(n, g int) (id, pk string) {
	return fmt.Sprintf("item-%0*d", scaleIDWidth, g), "p" + strconv.Itoa(g%(n/scalePerPartition))
}

// scaleSeedSQL returns the seedSQL of a scale container of n items.
func scaleSeedSQL(table string, n, size int) string {
	p := n / scalePerPartition
	return seedSQL(table, n, size, scaleIDWidth, fmt.Sprintf("g %% %d", p), fmt.Sprintf(`',"n":' || g / %d || ',"kind":"scale-bench"'`, p),
		fmt.Sprintf("(SELECT string_agg(encode(sha512((g || '.' || j)::bytea), 'hex'), '') FROM generate_series(1, %d) AS j)", size/128+1),
		"$1::bigint - g % 600", "")
}

// runScale runs the scale scenario into res.
func (b *bench) runScale(ctx context.Context, r *results) (err error) {
	res := &compareResult{}
	r.Scale = res
	sc := b.cfg.scale
	run, err := b.startSDKRun(ctx, "scale")
	if err != nil {
		return err
	}
	defer run.close()
	now, err := run.ctl.clockNow(ctx)
	if err != nil {
		return err
	}
	sizes := []int{sc.small, sc.large}
	cs := make([]*azcosmos.ContainerClient, 2)
	for j, n := range sizes {
		id := "scale-" + strconv.Itoa(n)
		var table string
		if cs[j], table, err = run.createContainer(ctx, id, nil); err != nil {
			return err
		}
		b.logf("scale: seeding %s with %d items", id, n)
		if err := seedRows(ctx, run.pool, table, scaleSeedSQL(table, n, sc.size), n/scalePerPartition, n, now); err != nil {
			return err
		}
	}
	rnd := rand.New(rand.NewPCG(1, 42))
	read := func(j, g int) error {
		id, pk := scaleKey(sizes[j], g)
		resp, err := cs[j].ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		if err == nil && len(resp.Value) < sc.size {
			err = fmt.Errorf("item %s: %d bytes, want at least %d", id, len(resp.Value), sc.size)
		}
		return err
	}
	query := func(j int, sql, pk string, want int, params ...azcosmos.QueryParameter) error {
		docs, _, err := sdkQuery(ctx, cs[j], sql, azcosmos.NewPartitionKeyString(pk), params)
		if err == nil && len(docs) != want {
			err = fmt.Errorf("%s: %d results, want %d", sql, len(docs), want)
		}
		return err
	}
	made := 0
	*res, err = b.compare("scale", []string{strconv.Itoa(sc.small) + " items", strconv.Itoa(sc.large) + " items"}, sc.warmup, sc.runs, []compareOp{
		{"read, random items", targetScaleRatio, func(j, _ int) error { return read(j, rnd.IntN(sizes[j])) }},
		{fmt.Sprintf("read, %d hot items", sc.hot), 0, func(j, i int) error { return read(j, (i%sc.hot)*(sizes[j]/sc.hot)) }},
		{"query by id, random items", targetScaleRatio, func(j, _ int) error {
			id, pk := scaleKey(sizes[j], rnd.IntN(sizes[j]))
			return query(j, "SELECT * FROM c WHERE c.id = @id", pk, 1, azcosmos.QueryParameter{Name: "@id", Value: id})
		}},
		{"filter query, 10 of a random partition", targetScaleRatio, func(j, _ int) error {
			pk := "p" + strconv.Itoa(rnd.IntN(sizes[j]/scalePerPartition))
			return query(j, "SELECT * FROM c WHERE c.pk = @pk AND c.n >= 90", pk, 10, azcosmos.QueryParameter{Name: "@pk", Value: pk})
		}},
		{"create", 0, func(j, _ int) error {
			made++
			id, pk := fmt.Sprintf("new-%0*d", scaleIDWidth, made), "p"+strconv.Itoa(rnd.IntN(sizes[j]/scalePerPartition))
			_, err := cs[j].CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), document(id, pk, 1, sc.size), nil)
			return err
		}},
	})
	return err
}
