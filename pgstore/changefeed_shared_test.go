package pgstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// sharedServerRounds is how many write-then-read rounds
// TestChangeFeedReadsAcknowledgedWritesOnSharedServer runs: 25 to 65 s on
// a shared 2-core machine, so go test -short runs sharedServerShortRounds.
const sharedServerRounds, sharedServerShortRounds = 10_000, 1_000

// TestChangeFeedReadsAcknowledgedWritesOnSharedServer: on a PostgreSQL
// server shared with another database, under load, a change feed read
// made right after a write was acknowledged always includes that write.
// Beside the rounds run, in the store's own database, writers to other
// partitions of the same container and, in another database of the same
// server, short transactions (each takes a transaction ID and commits at
// once, so many end while a read is running) and long ones (held open
// across many rounds). Each round creates an item, then reads the feed of
// its partition from just before its LSN: every round must see its item
// (0 misses).
func TestChangeFeedReadsAcknowledgedWritesOnSharedServer(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	other, err := pgxpool.New(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(ctx, `CREATE TABLE load (n bigint)`); err != nil {
		t.Fatal(err)
	}
	write := func(ctx context.Context, pk, id string) (emulator.Item, error) {
		return s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: pk, ID: id},
			Body: []byte(fmt.Sprintf(`{"id":%q}`, id)), TS: 1, ETag: `"e"`})
	}

	loadCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	// done counts the transactions each kind of load committed
	var done [3]atomic.Int64
	const writers, short, long = 0, 1, 2
	background := func(kind int, name string, f func(n int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; loadCtx.Err() == nil; n++ {
				if err := f(n); err != nil {
					if loadCtx.Err() == nil {
						errs <- fmt.Errorf("%s: %w", name, err)
					}
					return
				}
				done[kind].Add(1)
			}
		}()
	}
	for w := range 2 { // writers in the store's own database
		background(writers, fmt.Sprintf("writer %d", w), func(n int) error {
			_, err := write(loadCtx, fmt.Sprintf(`["w%d"]`, w), fmt.Sprintf("w%d-%d", w, n))
			return err
		})
	}
	for w := range 3 { // short transactions of another database
		background(short, fmt.Sprintf("short %d", w), func(n int) error {
			_, err := other.Exec(loadCtx, `INSERT INTO load VALUES ($1)`, n)
			return err
		})
	}
	for w := range 2 { // long transactions of another database
		background(long, fmt.Sprintf("long %d", w), func(int) error {
			tx, err := other.Begin(loadCtx)
			if err != nil {
				return err
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck
			if _, err := tx.Exec(loadCtx, `INSERT INTO load VALUES (0)`); err != nil {
				return err
			}
			select { // held open across many rounds
			case <-loadCtx.Done():
			case <-time.After(500 * time.Millisecond):
			}
			return tx.Commit(loadCtx)
		})
	}

	rounds := sharedServerRounds
	if testing.Short() {
		rounds = sharedServerShortRounds
	}
	start := time.Now()
	misses := 0
	for r := range rounds {
		pk := fmt.Sprintf(`["r%d"]`, r%16)
		it, err := write(ctx, pk, fmt.Sprintf("r%d", r))
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.ReadChanges(ctx, emulator.ChangesParams{Container: c, PK: &pk, AfterLSN: it.LSN - 1, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) == 0 || page.Items[0].LSN != it.LSN {
			misses++
			if misses <= 5 {
				t.Errorf("round %d: the read after the write of LSN %d gave %d items (last LSN %d, exhausted %v)", r, it.LSN, len(page.Items), page.LastLSN, page.Exhausted)
			}
		}
	}
	elapsed := time.Since(start)
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d write-then-read rounds in %s, %d misses; meanwhile %d writes of other writers, %d short and %d long transactions of another database",
		rounds, elapsed.Round(time.Millisecond), misses, done[writers].Load(), done[short].Load(), done[long].Load())
	for kind, name := range []string{"writers", "short transactions", "long transactions"} {
		if done[kind].Load() == 0 {
			t.Errorf("no %s ran beside the rounds", name)
		}
	}
	if misses != 0 {
		t.Fatalf("%d of %d reads after an acknowledged write missed it", misses, rounds)
	}
}
