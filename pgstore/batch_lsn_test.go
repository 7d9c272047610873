package pgstore

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// writeOp is a write of item id in partition ["p"] of c.
func writeOp(c emulator.Container, op, id string) emulator.ItemOp {
	return emulator.ItemOp{Op: op, Params: emulator.WriteItemParams{
		ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id},
		Body:    []byte(`{"id":"` + id + `","pk":"p"}`), TS: 1, ETag: `"` + id + `"`}}
}

// runTx runs ops in one InItemTx transaction with opts and returns their
// results.
func runTx(t *testing.T, s *Store, opts emulator.TxOptions, ops ...emulator.ItemOp) []emulator.ItemOpResult {
	t.Helper()
	var out []emulator.ItemOpResult
	err := s.InItemTx(context.Background(), opts, func(st emulator.ItemTx) error {
		var err error
		out, err = st.RunItemOps(context.Background(), ops)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range out {
		if r.Err != nil {
			t.Fatalf("operation %d: %v", i, r.Err)
		}
	}
	return out
}

// TestBatchWritesShareOneLSN: the writes of a transactional batch
// (SharedLSN) carry one LSN, in their results, in reads and in the change
// log (deletes included); bulk (no SharedLSN) and single operations draw
// one per write.
func TestBatchWritesShareOneLSN(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	if _, err := s.CreateItem(ctx, writeOp(c, emulator.BatchCreate, "old").Params); err != nil {
		t.Fatal(err)
	}
	// a run of creates (one multi-row INSERT), then single statements
	res := runTx(t, s, emulator.TxOptions{SharedLSN: true},
		writeOp(c, emulator.BatchCreate, "a"), writeOp(c, emulator.BatchCreate, "b"), writeOp(c, emulator.BatchCreate, "c"),
		writeOp(c, emulator.BatchUpsert, "d"), writeOp(c, emulator.BatchReplace, "a"),
		emulator.ItemOp{Op: emulator.BatchDelete, Params: writeOp(c, "", "old").Params})
	lsn := res[0].Item.LSN
	for i, r := range res {
		if r.Item.LSN != lsn || lsn == 0 {
			t.Fatalf("operation %d has lsn %d, want the batch's %d", i, r.Item.LSN, lsn)
		}
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: `["p"]`, ID: id})
		if err != nil || it.LSN != lsn {
			t.Fatalf("read %s: lsn %d, %v; want %d", id, it.LSN, err, lsn)
		}
	}
	page, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, Limit: 100})
	log := page.Changes
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 7 { // old; a, b, c, d, a replaced, old deleted
		t.Fatalf("change log has %d entries, want 7: %+v", len(log), log)
	}
	for _, ch := range log[1:] {
		if ch.LSN != lsn {
			t.Fatalf("change log entry %c %s has lsn %d, want the batch's %d", ch.Op, ch.ID, ch.LSN, lsn)
		}
	}

	// the next batch draws a new LSN; bulk and single writes one each
	next := runTx(t, s, emulator.TxOptions{SharedLSN: true}, writeOp(c, emulator.BatchCreate, "e"), writeOp(c, emulator.BatchUpsert, "f"))
	if next[0].Item.LSN <= lsn || next[1].Item.LSN != next[0].Item.LSN {
		t.Fatalf("second batch lsns %d, %d; want one above %d", next[0].Item.LSN, next[1].Item.LSN, lsn)
	}
	bulk := runTx(t, s, emulator.TxOptions{}, writeOp(c, emulator.BatchCreate, "g"), writeOp(c, emulator.BatchCreate, "h"), writeOp(c, emulator.BatchUpsert, "i"))
	if !(bulk[0].Item.LSN < bulk[1].Item.LSN && bulk[1].Item.LSN < bulk[2].Item.LSN) {
		t.Fatalf("bulk lsns %d, %d, %d; want one each", bulk[0].Item.LSN, bulk[1].Item.LSN, bulk[2].Item.LSN)
	}
	one, err := s.CreateItem(ctx, writeOp(c, emulator.BatchCreate, "j").Params)
	if err != nil || one.LSN <= bulk[2].Item.LSN {
		t.Fatalf("single create lsn %d, %v; want above %d", one.LSN, err, bulk[2].Item.LSN)
	}
}

// TestChangeFeedDrainsSharedLSNsOnce: drained with pages of one item,
// the latest-version feed gives every item of several batches exactly
// once, each batch on one page (a page never ends inside an LSN), with
// and without an effective partition key range, whose row limit may cut
// an LSN's rows.
func TestChangeFeedDrainsSharedLSNsOnce(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	var want []string
	batches := map[string]int64{}
	for b, n := range []int{3, 1, 60, 60, 2} {
		var ops []emulator.ItemOp
		for k := range n {
			op := writeOp(c, emulator.BatchCreate, fmt.Sprintf("b%d-%03d", b, k))
			if b < 3 { // the filtered drain skips these rows
				op.Params.PK = `["q"]`
			}
			ops = append(ops, op)
		}
		if b == 1 { // a single write between batches
			if _, err := s.CreateItem(ctx, ops[0].Params); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, r := range runTx(t, s, emulator.TxOptions{SharedLSN: true}, ops...) {
				batches[r.Item.ID] = r.Item.LSN
			}
		}
		for _, op := range ops {
			want = append(want, op.Params.ID)
		}
	}
	// Filtered, the statement skips 64 rows of partition q, then meets a
	// batch of 60 rows that its row limit (1 + maxTxnRows) cuts.
	for _, tc := range []struct {
		name string
		epk  *emulator.EPKRange
		want []string
	}{{"all", nil, want}, {"filtered", pointRange(itemEPK(c, `["p"]`)), want[64:]}} {
		t.Run(tc.name, func(t *testing.T) {
			p := emulator.ChangesParams{Container: c, Limit: 1, EPK: tc.epk}
			var got []string
			for range 1000 {
				page, err := s.ReadChanges(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range page.Items {
					if it.LSN != page.Items[0].LSN {
						t.Fatalf("a page holds lsns %d and %d", page.Items[0].LSN, it.LSN)
					}
					got = append(got, it.ID)
				}
				if len(page.Items) > 0 {
					if l, ok := batches[page.Items[0].ID]; ok {
						n := 0
						for _, bl := range batches {
							if bl == l {
								n++
							}
						}
						if len(page.Items) != n {
							t.Fatalf("page of lsn %d has %d items, want its batch's %d", l, len(page.Items), n)
						}
					}
				}
				if page.Exhausted && len(page.Items) == 0 {
					break
				}
				p.AfterLSN = max(p.AfterLSN, page.LastLSN)
			}
			slices.Sort(got)
			w := slices.Clone(tc.want)
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Fatalf("drained %d items, want each of %d once:\n%v", len(got), len(w), got)
			}
		})
	}
}
