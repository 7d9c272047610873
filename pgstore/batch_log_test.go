package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestBatchCreateRunLog: a transaction whose only write is a run of
// creates logs them itself at commit (batchTx.commit), others
// through the trigger; either way the change log holds every write exactly
// once, in order, with its body, seq and LSN, and a later write of the
// same session is logged again.
func TestBatchCreateRunLog(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		ttl    *int32
		shared bool
		ops    []emulator.ItemOp // run after "old" and "gone" exist
		want   []string          // op and id of the entries after those
	}{
		{"batch of creates", nil, true, []emulator.ItemOp{create("a"), create("b"), create("c")}, []string{"c a", "c b", "c c"}},
		{"bulk of creates", nil, false, []emulator.ItemOp{create("a"), create("b"), create("c")}, []string{"c a", "c b", "c c"}},
		{"bulk with a conflict", nil, false, []emulator.ItemOp{create("a"), create("old"), create("c")}, []string{"c a", "c c"}},
		{"creates and a read", nil, true, []emulator.ItemOp{create("a"), create("b"), read("a")}, []string{"c a", "c b"}},
		{"creates then a replace of one", nil, true, []emulator.ItemOp{create("a"), create("b"), replace("a")}, []string{"c a", "c b", "r a"}},
		{"a write then creates", nil, true, []emulator.ItemOp{del("gone"), create("a"), create("b")}, []string{"d gone", "c a", "c b"}},
		{"two runs", nil, true, []emulator.ItemOp{create("a"), create("b"), read("a"), create("c"), create("d")}, []string{"c a", "c b", "c c", "c d"}},
		{"container with ttl", i32(100), true, []emulator.ItemOp{create("a"), create("b")}, []string{"c a", "c b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			c := newContainer(t, s, tc.ttl)
			for _, id := range []string{"old", "gone"} {
				if _, err := s.CreateItem(ctx, at(c, create(id)).Params); err != nil {
					t.Fatal(err)
				}
			}
			ops := make([]emulator.ItemOp, len(tc.ops))
			for i, op := range tc.ops {
				ops[i] = at(c, op)
			}
			var res []emulator.ItemOpResult
			err := s.InItemTx(ctx, emulator.TxOptions{SharedLSN: tc.shared}, func(st emulator.ItemTx) error {
				var err error
				res, err = st.RunItemOps(ctx, ops)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			// a later single create on the pool is logged by the trigger
			if _, err := s.CreateItem(ctx, at(c, create("after")).Params); err != nil {
				t.Fatal(err)
			}
			page, err := s.ReadChangeLog(ctx, emulator.ReadChangeLogParams{Container: c, Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			written := map[string]emulator.ItemOpResult{}
			for i, r := range res {
				if r.Err == nil && ops[i].Op != emulator.BatchRead {
					written[ops[i].Op[:1]+" "+ops[i].Params.ID] = r
				}
			}
			for i, ch := range page.Changes {
				if i > 0 && ch.Seq <= page.Changes[i-1].Seq {
					t.Fatalf("entries out of order: %+v", page.Changes)
				}
				got = append(got, string(ch.Op)+" "+ch.ID)
				if ch.Op == 'd' {
					continue
				}
				if want := fmt.Sprintf(`{"id":%q,"v":%q}`, ch.ID, string(ch.Op)); string(ch.Body) != want {
					t.Errorf("%c %s: body %s, want %s", ch.Op, ch.ID, ch.Body, want)
				}
				key := map[byte]string{'c': "C", 'r': "R"}[ch.Op] + " " + ch.ID
				if r, ok := written[key]; ok && (ch.DocSeq != r.Item.Seq || ch.LSN != r.Item.LSN || ch.ETag != r.Item.ETag) {
					t.Errorf("%s: seq %d lsn %d etag %s, want %d %d %s", key, ch.DocSeq, ch.LSN, ch.ETag, r.Item.Seq, r.Item.LSN, r.Item.ETag)
				}
			}
			want := append(append([]string{"c old", "c gone"}, tc.want...), "c after")
			if !slices.Equal(got, want) {
				t.Fatalf("change log %v, want %v", got, want)
			}
		})
	}
}

// create, read, replace and del are operations on item id, placed in a
// container by at; a write's body names its operation.
func create(id string) emulator.ItemOp  { return itemOp(emulator.BatchCreate, id, "c") }
func replace(id string) emulator.ItemOp { return itemOp(emulator.BatchReplace, id, "r") }
func read(id string) emulator.ItemOp    { return itemOp(emulator.BatchRead, id, "") }
func del(id string) emulator.ItemOp     { return itemOp(emulator.BatchDelete, id, "") }

func itemOp(op, id, v string) emulator.ItemOp {
	return emulator.ItemOp{Op: op, Params: emulator.WriteItemParams{ItemKey: emulator.ItemKey{PK: `["p"]`, ID: id},
		Body: []byte(fmt.Sprintf(`{"id":%q,"v":%q}`, id, v)), TS: 1, ETag: `"` + v + id + `"`}}
}

func at(c emulator.Container, op emulator.ItemOp) emulator.ItemOp {
	op.Params.Container = c
	op.Params.Expiry = emulator.Expiry{DefaultTTL: c.DefaultTTL, Now: 1}
	return op
}

// TestMigrationLoggedRunsExistingContainers: migration 0015 applies to
// the items tables of containers created before it (their trigger calls
// the function it replaces), so a batch of creates is logged exactly once
// there too.
func TestMigrationLoggedRunsExistingContainers(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	// Back to the state before 0015: the trigger function of 0012.
	var before string
	for _, m := range ms {
		if m.version == 12 {
			before = m.sql[strings.Index(m.sql, "CREATE OR REPLACE FUNCTION cosmos.log_change"):]
		}
	}
	if before == "" {
		t.Fatal("migration 0012 not found")
	}
	if _, err := s.pool.Exec(ctx, before+"; DELETE FROM cosmos.schema_migrations WHERE version = 15"); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, s.pool); err != nil {
		t.Fatal(err)
	}
	runTx(t, s, emulator.TxOptions{SharedLSN: true}, at(c, create("a")), at(c, create("b")))
	got, _ := readSummaries(t, s, c, 0)
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
		t.Fatalf("change log after the migration: %+v", got)
	}
}
