package compat_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestTTLSweeperPacing: with no client request being served the sweeper
// deletes full batches (--ttl-sweep-batch); under a steady stream of SDK
// reads it deletes smaller, paced batches and still drains the backlog.
func TestTTLSweeperPacing(t *testing.T) {
	t.Parallel()
	const batch, backlog = 100, 400
	env := newTTLEnv(t, emulatortest.WithoutBackgroundSweeper(), emulatortest.WithSweeper(-1, batch))
	c := env.container(t, "c", i32(10))
	if _, err := c.CreateItem(env.ctx, pk, doc("live", i32(-1)), nil); err != nil {
		t.Fatal(err)
	}
	expire := func(prefix string) {
		t.Helper()
		for i := range backlog {
			if _, err := c.CreateItem(env.ctx, pk, doc(fmt.Sprintf("%s%d", prefix, i), nil), nil); err != nil {
				t.Fatal(err)
			}
		}
		env.advance(t, 10)
	}

	// Idle: the creates are over (a request that ended within the last
	// 100 ms still counts as load, so wait longer than that).
	expire("a")
	time.Sleep(300 * time.Millisecond)
	n, err := env.e.Sweep(env.ctx)
	st := env.e.SweeperStats()
	if err != nil || n != backlog {
		t.Fatalf("idle sweep: deleted %d, %v; want %d", n, err, backlog)
	}
	if want := int64(backlog/batch + 1); st.Batches != want || st.PacedBatches != 0 {
		t.Fatalf("idle sweep: stats %+v, want %d full batches and none paced", st, want)
	}

	// Under load: two SDK clients read an item in a loop during the sweep.
	expire("b")
	ctx, stop := context.WithCancel(env.ctx)
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if _, err := c.ReadItem(ctx, pk, "live", nil); err != nil && ctx.Err() == nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		}()
	}
	for reads.Load() == 0 && len(errs) == 0 {
		time.Sleep(time.Millisecond)
	}
	before := reads.Load()
	n, err = env.e.Sweep(env.ctx)
	during := reads.Load() - before
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("read during the sweep: %v", err)
	}
	st2 := env.e.SweeperStats()
	if err != nil || n != backlog {
		t.Fatalf("sweep under load: deleted %d, %v; want the whole backlog of %d", n, err, backlog)
	}
	if paced := st2.PacedBatches - st.PacedBatches; paced == 0 || during == 0 {
		t.Fatalf("sweep under load: %d paced batches of %d, %d reads during it; want paced batches while reads ran", paced, st2.Batches-st.Batches, during)
	}
	t.Logf("under load: %d batches, %d paced, %d reads during the sweep", st2.Batches-st.Batches, st2.PacedBatches-st.PacedBatches, during)
}
