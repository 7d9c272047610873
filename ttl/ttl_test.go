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
}

func (f *fakeExpirer) DeleteExpired(_ context.Context, now int64, limit int) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.nows = append(f.nows, now)
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
