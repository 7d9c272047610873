package ttl

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// fakeExpirer holds a backlog of expired rows and can fail on demand (a fake
// is fine here: it unit-tests the loop and its error paths; the real store
// is exercised by pgstore's and compat_test's tests).
type fakeExpirer struct {
	mu      sync.Mutex
	backlog int
	failAt  int // fail on this call (1-based); 0 never
	calls   int
	nows    []int64
	limits  []int
}

func (f *fakeExpirer) DeleteExpired(_ context.Context, now int64, limit int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.nows = append(f.nows, now)
	f.limits = append(f.limits, limit)
	if f.calls == f.failAt {
		return 0, errors.New("database unavailable")
	}
	n := min(limit, f.backlog)
	f.backlog -= n
	return n, nil
}

func TestSweepOnce(t *testing.T) {
	clock := emulator.NewClock(func() time.Time { return time.Unix(500, 0) })
	tests := []struct {
		name        string
		backlog     int
		batch       int
		failAt      int
		wantDeleted int
		wantCalls   int
		wantErr     bool
	}{
		{"empty", 0, 10, 0, 0, 1, false},
		{"batches until a short one", 25, 10, 0, 25, 3, false},
		{"exact multiple needs one empty batch", 20, 10, 0, 20, 3, false},
		{"default batch size", 2500, 0, 0, 2500, 3, false},
		{"error ends the sweep early", 25, 10, 2, 10, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeExpirer{backlog: tt.backlog, failAt: tt.failAt}
			s := &Sweeper{Expirer: f, Clock: clock, BatchSize: tt.batch}
			n, err := s.SweepOnce(context.Background())
			if n != tt.wantDeleted || (err != nil) != tt.wantErr || f.calls != tt.wantCalls {
				t.Fatalf("deleted %d err %v calls %d; want %d, err=%v, %d calls", n, err, f.calls, tt.wantDeleted, tt.wantErr, tt.wantCalls)
			}
			for _, now := range f.nows {
				if now != 500 {
					t.Fatalf("swept as of %d, want the emulator clock's 500", now)
				}
			}
			st := s.Stats()
			if st.Sweeps != 1 || st.Deleted != int64(tt.wantDeleted) || (st.Errors == 1) != tt.wantErr {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestRunKeepsGoingAfterErrors: a failing sweep is counted and the next
// interval sweeps again.
func TestRunKeepsGoingAfterErrors(t *testing.T) {
	f := &fakeExpirer{backlog: 5, failAt: 1}
	s := &Sweeper{Expirer: f, Clock: emulator.NewClock(nil), Interval: 5 * time.Millisecond, BatchSize: 10}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Deleted < 5 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	st := s.Stats()
	if st.Errors != 1 || st.Deleted != 5 || st.Sweeps < 2 || st.LastError != "" {
		t.Fatalf("stats %+v: want one error, then the backlog of 5 deleted and no current error", st)
	}
}

// TestLastErrorClearedByRecovery: lastError reports the current failure
// only; a successful sweep clears it (the error count stays).
func TestLastErrorClearedByRecovery(t *testing.T) {
	f := &fakeExpirer{backlog: 3, failAt: 1}
	s := &Sweeper{Expirer: f, Clock: emulator.NewClock(nil), BatchSize: 10}
	if _, err := s.SweepOnce(context.Background()); err == nil {
		t.Fatal("first sweep: want the injected error")
	}
	if st := s.Stats(); st.LastError != "database unavailable" || st.Errors != 1 {
		t.Fatalf("after the failure: %+v", st)
	}
	if n, err := s.SweepOnce(context.Background()); err != nil || n != 3 {
		t.Fatalf("second sweep: %d, %v", n, err)
	}
	if st := s.Stats(); st.LastError != "" || st.Errors != 1 || st.Sweeps != 2 {
		t.Fatalf("after the recovery: %+v, want no lastError and errors still 1", st)
	}
}

// load is a Foreground that reports a fixed activity.
type load Activity

func (l load) Activity() Activity { return Activity(l) }

var (
	idle      = Activity{Idle: time.Second}
	inFlight  = Activity{InFlight: 2}
	justEnded = Activity{Idle: busyWindow / 2}
)

// TestPacingDecisions: full batches back to back when idle; under load
// (a request in flight or one that just ended) a quarter of the batch, a
// rest of busyRestFactor times the batch's duration, then a bounded wait
// for no request in flight.
func TestPacingDecisions(t *testing.T) {
	const took = 10 * time.Millisecond
	rest := busyRestFactor * took
	limit := rest + busyYieldFactor*took
	tests := []struct {
		name      string
		a         Activity
		full      int
		wantBatch int
		waited    time.Duration
		wantPause time.Duration
	}{
		{"idle: full batch, no rest", idle, 1000, 1000, 0, 0},
		{"never a request", Activity{Idle: time.Hour}, 1000, 1000, 0, 0},
		{"in flight: a quarter, rest first", inFlight, 1000, 250, 0, rest},
		{"in flight: rest partly done", inFlight, 1000, 250, took, rest - took},
		{"in flight after the rest: yield a poll", inFlight, 1000, 250, rest, yieldPoll},
		{"in flight near the bound: up to the bound", inFlight, 1000, 250, limit - yieldPoll/2, yieldPoll / 2},
		{"in flight at the bound: go on (minimum duty)", inFlight, 1000, 250, limit, 0},
		{"just ended: still load, rest", justEnded, 1000, 250, 0, rest},
		{"just ended after the rest: no request in flight, go on", justEnded, 1000, 250, rest, 0},
		{"load ended during the rest: go on", Activity{Idle: busyWindow}, 1000, 1000, took, 0},
		{"small batch under load: at least 1 row", inFlight, 3, 1, 0, rest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := batchSize(tt.a, tt.full); got != tt.wantBatch {
				t.Errorf("batchSize = %d, want %d", got, tt.wantBatch)
			}
			if got := pause(tt.a, took, tt.waited); got != tt.wantPause {
				t.Errorf("pause after waiting %v = %v, want %v", tt.waited, got, tt.wantPause)
			}
		})
	}
}

// TestSweepOncePacing: with no foreground load (or no Foreground) every
// batch is the full one; under constant load the batches are a quarter and
// the backlog is still drained.
func TestSweepOncePacing(t *testing.T) {
	tests := []struct {
		name       string
		fg         Foreground
		wantLimit  int
		wantPaced  bool
		wantBatchs int
	}{
		{"no foreground signal", nil, 100, false, 6},
		{"idle", load(idle), 100, false, 6},
		{"constant load", load(inFlight), 25, true, 21},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeExpirer{backlog: 500}
			s := &Sweeper{Expirer: f, Clock: emulator.NewClock(nil), BatchSize: 100, Foreground: tt.fg}
			n, err := s.SweepOnce(context.Background())
			if err != nil || n != 500 {
				t.Fatalf("deleted %d, %v; want the whole backlog of 500", n, err)
			}
			for _, l := range f.limits {
				if l != tt.wantLimit {
					t.Fatalf("batch limits %v, want all %d", f.limits, tt.wantLimit)
				}
			}
			st := s.Stats()
			wantPaced := int64(0)
			if tt.wantPaced {
				wantPaced = int64(tt.wantBatchs)
			}
			if st.Batches != int64(tt.wantBatchs) || st.PacedBatches != wantPaced {
				t.Fatalf("stats %+v, want %d batches, %d paced", st, tt.wantBatchs, wantPaced)
			}
		})
	}
}

// TestSweepOnceUnderLoadEndsWithContext: a sweep waiting between batches
// under load ends as soon as its context does.
func TestSweepOnceUnderLoadEndsWithContext(t *testing.T) {
	f := &slowExpirer{fakeExpirer: fakeExpirer{backlog: 1 << 30}, took: 20 * time.Millisecond}
	s := &Sweeper{Expirer: f, Clock: emulator.NewClock(nil), BatchSize: 100, Foreground: load(inFlight)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { n, _ := s.SweepOnce(ctx); done <- n }()
	for f.callCount() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the sweep did not end with its context")
	}
}

// slowExpirer takes took per batch.
type slowExpirer struct {
	fakeExpirer
	took time.Duration
}

func (f *slowExpirer) DeleteExpired(ctx context.Context, now int64, limit int) (int, error) {
	time.Sleep(f.took)
	return f.fakeExpirer.DeleteExpired(ctx, now, limit)
}

func (f *slowExpirer) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}
