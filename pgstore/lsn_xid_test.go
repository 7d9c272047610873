package pgstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestWritesHaveTransactionIDBeforeLSN: every way a write draws an item's
// LSN (a single create, upsert or replace, a bulk run of creates, a
// transactional batch's shared LSN) does so once its transaction has a
// transaction ID. A BEFORE ROW trigger runs after the row's values (its
// LSN among them) are computed and before the row is written: it records
// whether the transaction had an ID by then. Without that order, the
// latest-version change feed could skip a write that drew its LSN before
// a concurrent writer's and committed after a reader had passed that one
// (see lsnEach).
func TestWritesHaveTransactionIDBeforeLSN(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	c := newContainer(t, s, nil)
	tbl := itemsTable(c.Num)
	if _, err := s.pool.Exec(ctx, `CREATE TABLE probe_xid (op text, id text, had_xid boolean);
CREATE FUNCTION probe_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO probe_xid VALUES (TG_OP, NEW.id, pg_current_xact_id_if_assigned() IS NOT NULL);
    RETURN NEW;
END $$;
CREATE TRIGGER probe_xid BEFORE INSERT OR UPDATE ON `+tbl+` FOR EACH ROW EXECUTE FUNCTION probe_xid();`); err != nil {
		t.Fatal(err)
	}
	params := func(id string) emulator.WriteItemParams {
		return emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id}, Body: []byte(fmt.Sprintf(`{"id":%q,"pk":"p"}`, id)), TS: 1, ETag: `"e"`}
	}
	tx := func(shared bool, ids ...string) func() error {
		return func() error {
			ops := make([]emulator.ItemOp, len(ids))
			for i, id := range ids {
				ops[i] = emulator.ItemOp{Op: emulator.BatchCreate, Params: params(id)}
			}
			return s.InItemTx(ctx, emulator.TxOptions{SharedLSN: shared}, func(st emulator.ItemTx) error {
				res, err := st.RunItemOps(ctx, ops)
				for _, r := range res {
					if err == nil {
						err = r.Err
					}
				}
				return err
			})
		}
	}
	for _, tc := range []struct {
		name  string
		write func() error
		ids   []string
	}{
		{"create", func() error { _, err := s.CreateItem(ctx, params("c1")); return err }, []string{"c1"}},
		{"upsert of a new item", func() error { _, _, err := s.UpsertItem(ctx, params("u1")); return err }, []string{"u1"}},
		{"replace", func() error { _, err := s.ReplaceItem(ctx, params("c1")); return err }, []string{"c1"}},
		{"bulk creates", tx(false, "b1", "b2"), []string{"b1", "b2"}},
		{"transactional batch", tx(true, "t1", "t2"), []string{"t1", "t2"}},
		{"transactional batch, one create", tx(true, "t3"), []string{"t3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.pool.Exec(ctx, `TRUNCATE probe_xid`); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(); err != nil {
				t.Fatal(err)
			}
			rows, err := s.pool.Query(ctx, `SELECT id, had_xid FROM probe_xid ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var id string
				var had bool
				if err := rows.Scan(&id, &had); err != nil {
					t.Fatal(err)
				}
				n++
				if !had {
					t.Errorf("%s: the row's LSN was drawn before its transaction had an ID", id)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n != len(tc.ids) {
				t.Fatalf("%d rows probed, want %d", n, len(tc.ids))
			}
		})
	}
}
