package main

import (
	"testing"
	"time"
)

// TestWindowRatio: a pair of windows gives the p99 ratio of its reads
// with the sweep over those without, and no ratio when either window holds
// fewer than windowMinReads reads.
func TestWindowRatio(t *testing.T) {
	reads := func(n int, lat time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = lat
		}
		return out
	}
	for _, tc := range []struct {
		with, without []time.Duration
		want          float64
		ok            bool
	}{
		{reads(998, 2*time.Millisecond), reads(999, time.Millisecond), 2, true},
		{reads(40, 3*time.Millisecond), reads(1000, time.Millisecond), 0, false},
		{reads(1000, time.Millisecond), reads(99, time.Millisecond), 0, false},
	} {
		if got, ok := windowRatio(tc.with, tc.without); got != tc.want || ok != tc.ok {
			t.Errorf("%d reads with, %d without: %v, %v; want %v, %v", len(tc.with), len(tc.without), got, ok, tc.want, tc.ok)
		}
	}
	if m := medianOf([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median %v, want 2.5", m)
	}
}
