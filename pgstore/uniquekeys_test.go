package pgstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// uniqueProps declares two unique keys: /a, and the pair /b/c, /d. The
// tests give each item its own /d unless a case is about that pair: a
// missing pair is null, null, which only one item per partition may have.
const uniqueProps = `{"id":"u","uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/a"]},{"paths":["/b/c","/d"]}]}}`

// TestUniqueKeysEnforced runs writes against a container with unique keys
// and TTL on (defaultTtl 10), created on a fresh table and on a pooled
// one, and checks each outcome: a duplicate of a key's values in one
// logical partition is a conflict (409) and writes nothing, while other
// partitions, other values and expired holders do not count.
func TestUniqueKeysEnforced(t *testing.T) {
	t.Parallel()
	long := randomText(5000)
	type step struct {
		name     string
		op       string // create, upsert, replace
		pk, id   string
		body     string // without the id
		now      int64
		conflict bool
	}
	steps := []step{
		{"first value", "create", "p", "x1", `"a":1`, 100, false},
		{"duplicate value", "create", "p", "x2", `"a":1`, 100, true},
		{"same number spelt otherwise", "create", "p", "x2b", `"a":1.0`, 100, true},
		{"other partition", "create", "q", "x3", `"a":1`, 100, false},
		{"missing value", "create", "p", "x4", `"z":1`, 100, false},
		{"null equals missing", "create", "p", "x5", `"a":null`, 100, true},
		{"pair missing", "create", "p", "n1", `"a":"n1","d":null`, 100, false},
		{"pair missing again", "create", "p", "n2", `"a":"n2","b":{}`, 100, true},
		{"long value", "create", "p", "l1", `"a":"` + long + `"`, 100, false},
		{"same long value", "create", "p", "l2", `"a":"` + long + `"`, 100, true},
		{"other long value", "create", "p", "l3", `"a":"` + long + `x"`, 100, false},
		{"two paths", "create", "p", "m1", `"a":10,"b":{"c":1},"d":1`, 100, false},
		{"two paths, one differs elsewhere", "create", "p", "m2", `"a":11,"b":{"c":1},"d":1`, 100, true},
		{"two paths, other pair", "create", "p", "m3", `"a":12,"b":{"c":1},"d":2`, 100, false},
		{"upsert new duplicate", "upsert", "p", "x6", `"a":1`, 100, true},
		{"upsert itself", "upsert", "p", "x1", `"a":1,"v":2`, 100, false},
		{"replace into duplicate", "replace", "p", "x4", `"a":1`, 100, true},
		{"replace keeping its value", "replace", "p", "m3", `"a":12,"b":{"c":1},"d":2,"v":1`, 100, false},
		{"expires later", "create", "p", "e1", `"a":"e"`, 100, false},
		{"held while live", "create", "p", "e2", `"a":"e"`, 109, true},
		{"free once expired", "create", "p", "e2", `"a":"e"`, 111, false},
	}
	for _, spares := range []int{-1, 1} {
		t.Run(fmt.Sprintf("spares=%d", spares), func(t *testing.T) {
			t.Parallel()
			s, err := Open(context.Background(), pgtest.NewDatabase(t), Options{SpareTables: spares})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			if spares > 0 {
				waitTablesSettled(t, s)
			}
			c := createContainer(t, s, "u", uniqueProps, i32(10))
			if n := queryInt(t, s, `SELECT count(*) FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 AND indexname LIKE '%\_u\_%'`, "items_"+itoa(c.Num)); n != 2 {
				t.Fatalf("%d unique key indexes, want 2", n)
			}
			ctx := context.Background()
			for _, st := range steps {
				body := st.body
				if !strings.Contains(body, `"d":`) && !strings.Contains(body, `"b":`) {
					body += `,"d":"` + st.id + `"`
				}
				p := emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["` + st.pk + `"]`, ID: st.id,
					Expiry: emulator.Expiry{Now: st.now, DefaultTTL: c.DefaultTTL}},
					Body: []byte(`{"id":"` + st.id + `",` + body + `}`), TS: st.now, ETag: `"` + st.name + `"`}
				start := time.Now()
				switch st.op {
				case "create":
					_, err = s.CreateItem(ctx, p)
				case "upsert":
					_, _, err = s.UpsertItem(ctx, p)
				case "replace":
					_, err = s.ReplaceItem(ctx, p)
				}
				t.Logf("%s: %v in %v", st.name, err, time.Since(start))
				if st.conflict != emulator.IsKind(err, emulator.KindConflict) || (!st.conflict && err != nil) {
					t.Fatalf("%s: %s %s: err = %v, want conflict %v", st.name, st.op, st.id, err, st.conflict)
				}
				if st.conflict {
					it, err := s.ReadItem(ctx, p.ItemKey)
					if st.op == "create" || st.op == "upsert" {
						if !emulator.IsKind(err, emulator.KindNotFound) {
							t.Fatalf("%s: refused %s wrote %s (%v)", st.name, st.op, it.Body, err)
						}
					} else if err != nil || string(it.Body) == string(p.Body) {
						t.Fatalf("%s: refused replace changed the item: %s (%v)", st.name, it.Body, err)
					}
				}
			}
			// the expired holder was removed and logged as an expiry
			if n := queryInt(t, s, `SELECT count(*) FROM cosmos.changes WHERE coll = $1 AND id = 'e1' AND op = 'd' AND ttl_expired`, c.Num); n != 1 {
				t.Errorf("expiry of e1 logged %d times, want 1", n)
			}
		})
	}
}

// TestUniqueKeysInTransaction: inside a transaction (a batch, a stored
// procedure) a write refused by a unique key is a conflict that leaves the
// transaction usable, pipelined (RunItemOps) or one by one; and a value
// held only by an expired row is taken, the transaction running again.
func TestUniqueKeysInTransaction(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	c := createContainer(t, s, "u", uniqueProps, i32(10))
	ctx := context.Background()
	w := func(op, id, a string, now int64) emulator.ItemOp {
		return emulator.ItemOp{Op: op, Params: emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id,
			Expiry: emulator.Expiry{Now: now, DefaultTTL: c.DefaultTTL}},
			Body: []byte(`{"id":"` + id + `","a":"` + a + `","d":"` + id + `"}`), TS: now, ETag: `"` + id + `"`}}
	}
	cases := []struct {
		name      string
		pipelined bool
		ops       []emulator.ItemOp
		conflicts []bool
	}{
		{"pipelined", true, []emulator.ItemOp{w(emulator.BatchCreate, "b1", "b", 100), w(emulator.BatchCreate, "b2", "b", 100), w(emulator.BatchCreate, "b3", "c", 100), w(emulator.BatchUpsert, "b4", "c", 100), w(emulator.BatchCreate, "b5", "d", 100)},
			[]bool{false, true, false, true, false}},
		{"one by one", false, []emulator.ItemOp{w(emulator.BatchCreate, "o1", "o", 100), w(emulator.BatchCreate, "o2", "o", 100), w(emulator.BatchCreate, "o3", "q", 100)},
			[]bool{false, true, false}},
		{"expired holder", true, []emulator.ItemOp{w(emulator.BatchCreate, "t2", "b", 111), w(emulator.BatchCreate, "t3", "t", 111)},
			[]bool{false, false}},
	}
	for _, tc := range cases {
		runs := 0
		var res []emulator.ItemOpResult
		err := s.InItemTx(ctx, emulator.TxOptions{}, func(st emulator.ItemTx) error {
			runs++
			o := st.(itemOps)
			if tc.pipelined {
				var err error
				res, err = o.RunItemOps(ctx, tc.ops)
				return err
			}
			res = nil
			for _, op := range tc.ops {
				_, err := o.CreateItem(ctx, op.Params)
				res = append(res, emulator.ItemOpResult{Err: err})
			}
			return nil
		})
		t.Logf("%s: %d runs", tc.name, runs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, r := range res {
			if tc.conflicts[i] != emulator.IsKind(r.Err, emulator.KindConflict) || (!tc.conflicts[i] && r.Err != nil) {
				t.Errorf("%s: op %d (%s): %v, want conflict %v", tc.name, i, tc.ops[i].Params.ID, r.Err, tc.conflicts[i])
			}
			_, rerr := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: `["p"]`, ID: tc.ops[i].Params.ID, Expiry: emulator.Expiry{Now: 100, DefaultTTL: c.DefaultTTL}})
			if tc.name != "expired holder" && (rerr == nil) == tc.conflicts[i] {
				t.Errorf("%s: op %d (%s) committed: %v, want %v", tc.name, i, tc.ops[i].Params.ID, rerr == nil, !tc.conflicts[i])
			}
		}
	}
}
