package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == replayProxyArg {
		// startReplayProcess runs the test binary as the proxy.
		main()
		return
	}
	os.Exit(pgtest.Main(m))
}

// TestSeedSQL seeds a real items table (created by pgstore, as the emulator
// does) and checks through the store that exactly the items ttlKey names
// are live, readable under their ids and partition keys, each partition
// holding as many, and shaped as the scenario says.
func TestSeedSQL(t *testing.T) {
	ctx := context.Background()
	s, pool := newSeedStore(t)
	ttl := int32(ttlDefaultTTL)
	const now = 1_800_000_000
	{
		cfg := ttlConfig{items: 3000, live: 300, partitions: 30, size: 300}
		id := "c-ttl"
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(`{"id":"` + id + `"}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, DefaultTTL: &ttl, TS: 1, ETag: `"e"`})
		if err != nil {
			t.Fatal(err)
		}
		table := "cosmos.items_" + strconv.FormatInt(c.Num, 10)
		if err := seedRows(ctx, pool, table, ttlSeedSQL(cfg, table, "all"), cfg.partitions, cfg.items, now); err != nil {
			t.Fatal(err)
		}
		// every row carries the EPK the emulator computes for its key
		rows, err := pool.Query(ctx, `SELECT DISTINCT pk, epk FROM `+table)
		if err != nil {
			t.Fatal(err)
		}
		keys := 0
		for rows.Next() {
			var pk, epk string
			if err := rows.Scan(&pk, &epk); err != nil {
				t.Fatal(err)
			}
			if want := emulator.CanonicalEPK(c.PartitionKey, pk); epk != want || want == "" {
				t.Fatalf("%s: key %s stored with epk %q, want %q", id, pk, epk, want)
			}
			keys++
		}
		if rows.Close(); rows.Err() != nil || keys != cfg.partitions {
			t.Fatalf("%s: %d keys with their EPK, want %d (%v)", id, keys, cfg.partitions, rows.Err())
		}
		e := emulator.Expiry{Now: now, DefaultTTL: &ttl}
		stats, err := s.CountItems(ctx, c, e)
		if err != nil {
			t.Fatal(err)
		}
		if stats.StoredRows != int64(cfg.items) || stats.LiveItems != int64(cfg.live) {
			t.Fatalf("%s: %d stored, %d live", id, stats.StoredRows, stats.LiveItems)
		}
		perPartition := map[string]int{}
		for j := range cfg.live {
			var k struct{ id, pk string }
			k.id, k.pk = ttlKey(cfg, j)
			perPartition[k.pk]++
			pk, _ := emulator.PartitionKeyFromJSON([]any{k.pk})
			it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: pk.Canonical(), ID: k.id, Expiry: e})
			if err != nil {
				t.Fatalf("%s: live item %d (%s/%s): %v", id, j, k.pk, k.id, err)
			}
			var doc map[string]any
			if err := json.Unmarshal(it.Body, &doc); err != nil {
				t.Fatalf("%s: body %s: %v", id, it.Body, err)
			}
			if doc["id"] != k.id || doc["pk"] != k.pk || len(it.Body) != cfg.size || it.TS <= now-ttlDefaultTTL {
				t.Fatalf("%s: live item %d: ts %d, %d-byte body %s", id, j, it.TS, len(it.Body), it.Body)
			}
			if !strings.HasPrefix(it.ETag, `"`) || !bytes.Contains(it.Body, []byte(`"kind":"ttl-bench"`)) {
				t.Fatalf("%s: live item %d: etag %s", id, j, it.ETag)
			}
		}
		if len(perPartition) != cfg.partitions || perPartition["p0"] != cfg.live/cfg.partitions {
			t.Fatalf("live items per partition: %v", perPartition)
		}
		// Reseeding the expired rows after a delete restores the backlog.
		if _, err := pool.Exec(ctx, `DELETE FROM `+table+` WHERE ts <= $1`, int64(now-ttlDefaultTTL)); err != nil {
			t.Fatal(err)
		}
		if err := seedRows(ctx, pool, table, ttlSeedSQL(cfg, table, "expired"), cfg.partitions, cfg.items-cfg.live, now); err != nil {
			t.Fatalf("%s: reseeding: %v", id, err)
		}
		n, err := s.DeleteExpired(ctx, now, 10*cfg.items)
		if err != nil || n != cfg.items-cfg.live {
			t.Fatalf("%s: the store's sweep deleted %d rows (%v), want %d", id, n, err, cfg.items-cfg.live)
		}
	}
}

// TestPairWindows: reads count in the window they start and end in (one
// straddling two windows counts in neither), each window without the
// sweep pairs with the next one with it, and pairs with too few reads
// give no ratio.
func TestPairWindows(t *testing.T) {
	ms := time.Millisecond
	// reads of lat, one every ms from start to end (exclusive)
	fill := func(start, end, lat time.Duration) []timedRead {
		var rs []timedRead
		for at := start; at < end; at += ms {
			rs = append(rs, timedRead{at, lat})
		}
		return rs
	}
	wins := []window{{0, 1000 * ms, false}, {1000 * ms, 2000 * ms, true}, {2500 * ms, 3500 * ms, false}, {3500 * ms, 3550 * ms, true}}
	var reads []timedRead
	reads = append(reads, fill(0, 999*ms, ms)...)           // 999 reads of 1 ms, the last ends at 999 ms
	reads = append(reads, timedRead{999 * ms, 5 * ms})      // straddles the first two windows
	reads = append(reads, fill(1000*ms, 1998*ms, 2*ms)...)  // 998 reads of 2 ms
	reads = append(reads, fill(2000*ms, 2500*ms, 50*ms)...) // the settling gap: not counted
	reads = append(reads, fill(2500*ms, 3500*ms, ms)...)    // 1000 reads
	reads = append(reads, fill(3500*ms, 3540*ms, 3*ms)...)  // 40 reads: too few for a pair
	ratios, with, without := pairWindows(reads, wins)
	if len(ratios) != 1 || ratios[0] != 2 {
		t.Fatalf("ratios %v, want [2]", ratios)
	}
	if len(with) != 998+40 || len(without) != 999+1000 {
		t.Fatalf("%d reads with, %d without; want %d and %d", len(with), len(without), 998+40, 999+1000)
	}
	if m := medianOf([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Fatalf("median %v, want 2.5", m)
	}
}
