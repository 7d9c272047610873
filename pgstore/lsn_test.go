package pgstore

import (
	"context"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestCurrentLSN: CurrentLSN is 1 (the sequence's start, also the first
// write's LSN) before the first write and the latest write's LSN after it,
// and a point read reports the same value as its current LSN (both read it
// through currentLSNExpr), also after a write to another item.
func TestCurrentLSN(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	if got, err := s.CurrentLSN(ctx); err != nil || got != 1 {
		t.Fatalf("before any write: CurrentLSN %d, %v; want 1", got, err)
	}
	key := func(id string) emulator.ItemKey { return emulator.ItemKey{Container: c, PK: `["p"]`, ID: id} }
	write := func(id string) emulator.Item {
		it, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: key(id), Body: []byte(`{"id":"` + id + `","pk":"p"}`), TS: 1, ETag: `"` + id + `"`})
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	// check: CurrentLSN is want, and a point read of a reports it as its
	// current LSN next to a's own LSN.
	a := write("a")
	check := func(step string, want int64) {
		cur, err := s.CurrentLSN(ctx)
		if err != nil || cur != want {
			t.Errorf("%s: CurrentLSN %d, %v; want the write's LSN %d", step, cur, err, want)
		}
		read, err := s.ReadItem(ctx, key("a"))
		if err != nil {
			t.Fatal(err)
		}
		if read.CurrentLSN != cur || read.LSN != a.LSN {
			t.Errorf("%s: read of a: current LSN %d, item LSN %d; want %d and %d", step, read.CurrentLSN, read.LSN, cur, a.LSN)
		}
	}
	check("after the first write", a.LSN)
	check("after a write to another item", write("b").LSN)
}
