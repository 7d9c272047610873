package main

import (
	"testing"
	"time"
)

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
