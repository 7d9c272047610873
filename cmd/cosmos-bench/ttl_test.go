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

func TestLayout(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		cfg := ttlConfig{items: 1000, live: 100, partitions: 10, interleave: interleave}
		l := newLayout(cfg)
		perPartition := map[string]int{}
		prev := -1
		for j := range cfg.live {
			g := l.liveG(j)
			if g <= prev || g >= cfg.items {
				t.Fatalf("interleave %v: live item %d is item number %d after %d", interleave, j, g, prev)
			}
			prev = g
			perPartition[l.key(j).pk]++
		}
		if len(perPartition) != cfg.partitions {
			t.Fatalf("interleave %v: live items in %d partitions, want %d", interleave, len(perPartition), cfg.partitions)
		}
		for pk, n := range perPartition {
			if n != cfg.live/cfg.partitions {
				t.Fatalf("interleave %v: partition %s has %d live items", interleave, pk, n)
			}
		}
	}
	if got := newLayout(ttlConfig{items: 1000, live: 100, partitions: 10}).key(0).id; got != "item-900" {
		t.Fatalf("first live id %q", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -50000: "-50,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSeedSQL seeds real items tables (created by pgstore, as the emulator
// does) and checks through the store that exactly the items the layout
// calls live are live, readable under their ids and partition keys, and
// shaped as the scenario says.
func TestSeedSQL(t *testing.T) {
	ctx := context.Background()
	s, pool := newSeedStore(t)
	ttl := int32(ttlDefaultTTL)
	const now = 1_800_000_000
	for _, interleave := range []bool{false, true} {
		cfg := ttlConfig{items: 3000, live: 300, partitions: 30, size: 300, interleave: interleave}
		lay := newLayout(cfg)
		id := "c-" + lay.name()
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: []byte(`{"id":"` + id + `"}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, DefaultTTL: &ttl, TS: 1, ETag: `"e"`})
		if err != nil {
			t.Fatal(err)
		}
		table := "cosmos.items_" + strconv.FormatInt(c.Num, 10)
		st := &ttlStore{pool: pool, lay: lay}
		r, err := st.seed(ctx, table, "all", now)
		if err != nil {
			t.Fatal(err)
		}
		if r.Rows != int64(cfg.items) {
			t.Fatalf("%s: seeded %d rows", lay.name(), r.Rows)
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
				t.Fatalf("%s: key %s stored with epk %q, want %q", lay.name(), pk, epk, want)
			}
			keys++
		}
		if rows.Close(); rows.Err() != nil || keys != cfg.partitions {
			t.Fatalf("%s: %d keys with their EPK, want %d (%v)", lay.name(), keys, cfg.partitions, rows.Err())
		}
		e := emulator.Expiry{Now: now, DefaultTTL: &ttl}
		stats, err := s.CountItems(ctx, c, e)
		if err != nil {
			t.Fatal(err)
		}
		if stats.StoredRows != int64(cfg.items) || stats.LiveItems != int64(cfg.live) {
			t.Fatalf("%s: %d stored, %d live", lay.name(), stats.StoredRows, stats.LiveItems)
		}
		for j := range cfg.live {
			k := lay.key(j)
			pk, _ := emulator.PartitionKeyFromJSON([]any{k.pk})
			it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: pk.Canonical(), ID: k.id, Expiry: e})
			if err != nil {
				t.Fatalf("%s: live item %d (%s/%s): %v", lay.name(), j, k.pk, k.id, err)
			}
			var doc map[string]any
			if err := json.Unmarshal(it.Body, &doc); err != nil {
				t.Fatalf("%s: body %s: %v", lay.name(), it.Body, err)
			}
			if doc["id"] != k.id || doc["pk"] != k.pk || len(it.Body) != cfg.size || it.TS <= now-ttlDefaultTTL {
				t.Fatalf("%s: live item %d: ts %d, %d-byte body %s", lay.name(), j, it.TS, len(it.Body), it.Body)
			}
			if !strings.HasPrefix(it.ETag, `"`) || !bytes.Contains(it.Body, []byte(`"kind":"ttl-bench"`)) {
				t.Fatalf("%s: live item %d: etag %s", lay.name(), j, it.ETag)
			}
		}
		// Reseeding the expired rows after a delete restores the backlog.
		if _, err := pool.Exec(ctx, `DELETE FROM `+table+` WHERE ts <= $1`, int64(now-ttlDefaultTTL)); err != nil {
			t.Fatal(err)
		}
		if r, err = st.seed(ctx, table, "expired", now); err != nil || r.Rows != int64(cfg.items-cfg.live) {
			t.Fatalf("%s: reseeding: %d rows, %v", lay.name(), r.Rows, err)
		}
		n, err := s.DeleteExpired(ctx, now, 10*cfg.items)
		if err != nil || n != cfg.items-cfg.live {
			t.Fatalf("%s: the store's sweep deleted %d rows (%v), want %d", lay.name(), n, err, cfg.items-cfg.live)
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
	ratios, with, without, seconds := pairWindows(reads, wins)
	if len(ratios) != 1 || ratios[0] != 2 {
		t.Fatalf("ratios %v, want [2]", ratios)
	}
	if len(with) != 998+40 || len(without) != 999+1000 {
		t.Fatalf("%d reads with, %d without; want %d and %d", len(with), len(without), 998+40, 999+1000)
	}
	if seconds != 1.05 {
		t.Fatalf("seconds with the sweep %v, want 1.05", seconds)
	}
	if m := medianOf([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Fatalf("median %v, want 2.5", m)
	}
}
