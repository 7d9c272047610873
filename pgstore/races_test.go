package pgstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Which seq (document number, _rid) a write that raced ends with.
const (
	seqAny   = iota // not checked
	seqOld          // the item's before the race
	seqOther        // the one the other transaction created
	seqNew          // a new one
)

// TestWriteRacesAnswerLikeTheService pins down each interleaving of a
// write with a concurrent one on the same item: the other write runs in a
// transaction left open until the write under test waits on its row lock
// (seen in pg_blocking_pids), then commits. Under READ COMMITTED the write
// then judges the row the other left, so its outcome must be the one the
// service gives when the other write came first: a 412 only for an
// If-Match that no longer holds, a 404 for an item that is gone (deleted
// or, with TTL on, expired), an upsert that finds the other's new row
// replaces it (200, its seq), a create that does gets 409. Each case runs
// as a single operation and inside a batch's transaction, without and with
// TTL.
func TestWriteRacesAnswerLikeTheService(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	cases := []struct {
		name    string
		exists  bool   // the item exists before the race (etag "e1")
		other   string // the concurrent write: delete, replace (etag "e2"), create, expire (TTL on only)
		op      string
		ifMatch string
		wantErr error
		created bool
		seq     int
	}{
		{name: "delete after delete", exists: true, other: "delete", op: emulator.BatchDelete, wantErr: emulator.ErrItemNotFound},
		{name: "delete after replace", exists: true, other: "replace", op: emulator.BatchDelete},
		{name: "delete if-match after delete", exists: true, other: "delete", op: emulator.BatchDelete, ifMatch: `"e1"`, wantErr: emulator.ErrItemNotFound},
		{name: "delete if-match after replace", exists: true, other: "replace", op: emulator.BatchDelete, ifMatch: `"e1"`, wantErr: emulator.ErrPrecondition},
		{name: "delete if-match after expiry", exists: true, other: "expire", op: emulator.BatchDelete, ifMatch: `"e1"`, wantErr: emulator.ErrItemNotFound},
		{name: "replace after delete", exists: true, other: "delete", op: emulator.BatchReplace, wantErr: emulator.ErrItemNotFound},
		{name: "replace after replace", exists: true, other: "replace", op: emulator.BatchReplace, seq: seqOld},
		{name: "replace after expiry", exists: true, other: "expire", op: emulator.BatchReplace, wantErr: emulator.ErrItemNotFound},
		{name: "replace if-match after delete", exists: true, other: "delete", op: emulator.BatchReplace, ifMatch: `"e1"`, wantErr: emulator.ErrItemNotFound},
		{name: "replace if-match after replace", exists: true, other: "replace", op: emulator.BatchReplace, ifMatch: `"e1"`, wantErr: emulator.ErrPrecondition},
		{name: "upsert after create", other: "create", op: emulator.BatchUpsert, seq: seqOther},
		{name: "upsert after replace", exists: true, other: "replace", op: emulator.BatchUpsert, seq: seqOld},
		{name: "upsert after delete", exists: true, other: "delete", op: emulator.BatchUpsert, created: true, seq: seqNew},
		{name: "upsert after expiry", exists: true, other: "expire", op: emulator.BatchUpsert, created: true, seq: seqNew},
		{name: "upsert if-match after replace", exists: true, other: "replace", op: emulator.BatchUpsert, ifMatch: `"e1"`, wantErr: emulator.ErrPrecondition},
		{name: "create after create", other: "create", op: emulator.BatchCreate, wantErr: emulator.ErrConflict},
		{name: "create after expiry", exists: true, other: "expire", op: emulator.BatchCreate, created: true, seq: seqNew},
	}
	for _, ttl := range []*int32{nil, i32(3600)} {
		c := newContainer(t, s, ttl)
		for _, mode := range []string{"single", "batch"} {
			for _, tc := range cases {
				if tc.other == "expire" && ttl == nil {
					continue
				}
				name := fmt.Sprintf("ttl=%v/%s/%s", ttl != nil, mode, tc.name)
				t.Run(name, func(t *testing.T) {
					id := name
					e := emulator.Expiry{Now: 100, DefaultTTL: ttl}
					params := func(etag string, ts int64, itemTTL *int32) emulator.WriteItemParams {
						return emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id, Expiry: e},
							Body: []byte(`{"id":"x","pk":"p"}`), TS: ts, TTL: itemTTL, ETag: etag}
					}
					var old emulator.Item
					if tc.exists {
						var err error
						if old, err = s.CreateItem(ctx, params(`"e1"`, 100, nil)); err != nil {
							t.Fatal(err)
						}
					}
					// the other write, in a transaction left open
					tx, err := s.pool.Begin(ctx)
					if err != nil {
						t.Fatal(err)
					}
					defer func() { _ = tx.Rollback(ctx) }()
					var pid int32
					if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
						t.Fatal(err)
					}
					o := itemOps{q: tx}
					var other emulator.Item
					switch tc.other {
					case "delete":
						_, err = o.DeleteItem(ctx, params("", 0, nil).ItemKey, "")
					case "replace":
						other, err = o.ReplaceItem(ctx, params(`"e2"`, 100, nil))
					case "create":
						other, err = o.CreateItem(ctx, params(`"e2"`, 100, nil))
					case "expire": // a replace whose own ttl has run out by now
						other, err = o.ReplaceItem(ctx, params(`"e2"`, 1, i32(1)))
					}
					if err != nil {
						t.Fatalf("other write: %v", err)
					}
					// the write under test, which waits on the other's row
					p := params(`"e3"`, 100, nil)
					p.IfMatch = tc.ifMatch
					done := make(chan emulator.ItemOpResult, 1)
					go func() { done <- runRaceOp(ctx, s, mode, emulator.ItemOp{Op: tc.op, Params: p}) }()
					waitBlocked(t, s, pid, done)
					if err := tx.Commit(ctx); err != nil {
						t.Fatal(err)
					}
					r := <-done
					if !errors.Is(r.Err, tc.wantErr) || (tc.wantErr == nil && r.Err != nil) {
						t.Fatalf("error %v, want %v", r.Err, tc.wantErr)
					}
					if r.Err != nil {
						return
					}
					if (tc.op == emulator.BatchUpsert || (tc.op == emulator.BatchCreate && mode == "single")) && r.Created != tc.created {
						t.Errorf("created %v, want %v", r.Created, tc.created)
					}
					got, err := s.ReadItem(ctx, p.ItemKey)
					if tc.op == emulator.BatchDelete {
						if !errors.Is(err, emulator.ErrItemNotFound) {
							t.Errorf("read after the delete: %v", err)
						}
						return
					}
					if err != nil || got.ETag != `"e3"` || got.Seq != r.Item.Seq {
						t.Fatalf("read after the write: %v, etag %s seq %d, want the write's (seq %d)", err, got.ETag, got.Seq, r.Item.Seq)
					}
					want := map[int]int64{seqOld: old.Seq, seqOther: other.Seq}[tc.seq]
					switch {
					case tc.seq == seqNew && (r.Item.Seq == old.Seq || r.Item.Seq == other.Seq):
						t.Errorf("seq %d, want a new one (old %d, other's %d)", r.Item.Seq, old.Seq, other.Seq)
					case (tc.seq == seqOld || tc.seq == seqOther) && r.Item.Seq != want:
						t.Errorf("seq %d, want %d (old %d, other's %d)", r.Item.Seq, want, old.Seq, other.Seq)
					}
				})
			}
		}
	}
}

// runRaceOp runs op as a single operation (mode "single") or as the one
// operation of a batch's transaction.
func runRaceOp(ctx context.Context, s *Store, mode string, op emulator.ItemOp) emulator.ItemOpResult {
	if mode == "batch" {
		var r emulator.ItemOpResult
		err := s.InItemTx(ctx, emulator.TxOptions{SharedLSN: true}, func(st emulator.ItemTx) error {
			out, err := st.RunItemOps(ctx, []emulator.ItemOp{op})
			if err == nil {
				r = out[0]
			}
			return err
		})
		if err != nil {
			r.Err = err
		}
		return r
	}
	var r emulator.ItemOpResult
	switch op.Op {
	case emulator.BatchCreate:
		r.Item, r.Err = s.CreateItem(ctx, op.Params)
		r.Created = r.Err == nil
	case emulator.BatchUpsert:
		r.Item, r.Created, r.Err = s.UpsertItem(ctx, op.Params)
	case emulator.BatchReplace:
		r.Item, r.Err = s.ReplaceItem(ctx, op.Params)
	case emulator.BatchDelete:
		r.Item.LSN, r.Err = s.DeleteItem(ctx, op.Params.ItemKey, op.Params.IfMatch)
	}
	return r
}

// waitBlocked returns once a backend waits on a lock held by backend pid;
// it fails the test when the operation (done) finished first or nothing
// waits within a minute (a hang, not a timing expectation).
func waitBlocked(t *testing.T, s *Store, pid int32, done chan emulator.ItemOpResult) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < time.Minute {
		var blocked bool
		if err := s.pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)))`, pid).Scan(&blocked); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		if blocked {
			t.Logf("the write waited on the other after %v", time.Since(start).Round(time.Microsecond))
			return
		}
		select {
		case r := <-done:
			t.Fatalf("the write finished without waiting for the other: %+v", r)
		case <-time.After(2 * time.Millisecond):
		}
	}
	t.Fatal("the write did not wait for the other transaction")
}
