package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// The reset comparison of the containers scenario: a suite that wants a
// clean slate between tests either deletes its databases one by one
// through the API or calls POST /_emulator/reset once. Each round fills
// the emulator with -reset-dbs databases of -reset-containers containers
// of 20 items (untimed), then empties it one way; the two ways alternate,
// -reset-rounds times each.

// resetResult is what the reset comparison measured.
type resetResult struct {
	Databases  int `json:"databases"`
	Containers int `json:"containers_per_database"`
	Items      int `json:"items_per_container"`
	// OneByOne is the time to delete every database through the API,
	// Reset the time of POST /_emulator/reset, per round.
	OneByOne latencyStats `json:"delete_one_by_one"`
	Reset    latencyStats `json:"reset"`
}

// resetItems is how many items each container of the comparison holds.
const resetItems = 20

// runResetCompare runs the reset comparison against the emulator at url.
func (b *bench) runResetCompare(ctx context.Context, url string, res *containersResult) error {
	cfg := b.cfg.containers
	if cfg.resetRounds == 0 {
		return nil
	}
	b.logf("containers: reset of %d databases x %d containers against deleting them one by one, %d rounds", cfg.resetDBs, cfg.resetContainers, cfg.resetRounds)
	client, _, err := newSDKClient(url, 1, b.cfg.http1)
	if err != nil {
		return err
	}
	cc, err := newControlClient(url, b.cfg.http1)
	if err != nil {
		return err
	}
	defer cc.close()
	fill := func(round int) ([]string, error) {
		var ids []string
		for d := range cfg.resetDBs {
			id := fmt.Sprintf("reset%d-%d-%s", round, d, newDatabaseID())
			if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: id}, nil); err != nil {
				return nil, fmt.Errorf("creating database: %w", err)
			}
			ids = append(ids, id)
			db, _ := client.NewDatabase(id)
			for c := range cfg.resetContainers {
				cid := fmt.Sprintf("c%d", c)
				if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: cid, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
					return nil, fmt.Errorf("creating container: %w", err)
				}
				coll, _ := db.NewContainer(cid)
				for i := range resetItems {
					pk := fmt.Sprintf("p%d", i%5)
					if _, err := coll.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(fmt.Sprintf(`{"id":"%d","pk":%q}`, i, pk)), nil); err != nil {
						return nil, fmt.Errorf("creating item: %w", err)
					}
				}
			}
		}
		return ids, nil
	}
	var oneByOne, resets []time.Duration
	for round := range cfg.resetRounds {
		ids, err := fill(2 * round)
		if err != nil {
			return err
		}
		t0 := time.Now()
		for _, id := range ids {
			db, _ := client.NewDatabase(id)
			if _, err := db.Delete(ctx, nil); err != nil {
				return fmt.Errorf("deleting database: %w", err)
			}
		}
		oneByOne = append(oneByOne, time.Since(t0))
		if _, err := fill(2*round + 1); err != nil {
			return err
		}
		t0 = time.Now()
		if _, _, err := cc.doExpect(ctx, http.StatusNoContent, http.MethodPost, "/_emulator/reset", nil, []byte("{}")); err != nil {
			return err
		}
		resets = append(resets, time.Since(t0))
	}
	res.Reset = &resetResult{Databases: cfg.resetDBs, Containers: cfg.resetContainers, Items: resetItems,
		OneByOne: newLatencyStats(oneByOne, 0), Reset: newLatencyStats(resets, 0)}
	return nil
}

// writeResetReport writes the reset comparison's rows.
func writeResetReport(w io.Writer, r *resetResult) {
	fmt.Fprintf(w, "\nClean slate: %d databases x %d containers x %d items, %d rounds each (ms)\n", r.Databases, r.Containers, r.Items, r.Reset.Ops)
	fmt.Fprintf(w, "  delete the databases one by one (SDK)  p50 %8.1f  max %8.1f\n", r.OneByOne.P50, r.OneByOne.Max)
	fmt.Fprintf(w, "  POST /_emulator/reset                  p50 %8.1f  max %8.1f\n", r.Reset.P50, r.Reset.Max)
}
