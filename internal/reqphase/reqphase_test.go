package reqphase

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestTimings: phases accumulate independently and concurrently; a nil
// Timings and a context without one record nothing and do not panic;
// unknown phases are ignored.
func TestTimings(t *testing.T) {
	var nilT *Timings
	nilT.Add(Postgres, time.Second)
	if got := nilT.Get(Postgres); got != 0 {
		t.Fatalf("nil Timings: %v", got)
	}
	Start(context.Background(), Auth)() // no Timings: nothing to record

	tm := new(Timings)
	ctx := NewContext(context.Background(), tm)
	if FromContext(ctx) != tm {
		t.Fatal("FromContext does not return the Timings NewContext stored")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				tm.Add(Postgres, time.Microsecond)
			}
		})
	}
	wg.Wait()
	tm.Add(Phase(-1), time.Hour)
	tm.Add(numPhases, time.Hour)
	stop := Start(ctx, Translate)
	time.Sleep(time.Millisecond)
	stop()
	tests := []struct {
		p        Phase
		min, max time.Duration
	}{
		{Auth, 0, 0},
		{Translate, time.Millisecond, time.Hour},
		{Postgres, 800 * time.Microsecond, 800 * time.Microsecond},
		{Encode, 0, 0},
	}
	for _, tt := range tests {
		if got := tm.Get(tt.p); got < tt.min || got > tt.max {
			t.Errorf("%s = %v, want [%v, %v]", tt.p, got, tt.min, tt.max)
		}
	}
	if Phase(42).String() != "unknown" || Encode.String() != "encode" {
		t.Errorf("names: %q %q", Phase(42).String(), Encode.String())
	}
}
