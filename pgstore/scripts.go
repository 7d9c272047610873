package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Scripts live in cosmos.scripts (migration 0013), keyed by container,
// kind and id; the container's deletion cascades to them.

const scriptCols = `kind, id, seq, rid, props, ts, etag`

func scanScript(row pgx.Row) (emulator.Script, error) {
	var sc emulator.Script
	var kind, props string
	err := row.Scan(&kind, &sc.ID, &sc.Seq, &sc.RID, &props, &sc.TS, &sc.ETag)
	sc.Kind, sc.Props = emulator.ScriptKind(kind), []byte(props)
	return sc, err
}

// lookupScript selects a script by id, else by RID ($3).
const lookupScript = `SELECT ` + scriptCols + ` FROM cosmos.scripts
WHERE coll_num = $1 AND kind = $2 AND (id = $3 OR rid = $3) ORDER BY (id = $3) DESC LIMIT 1`

// CreateScript implements emulator.ScriptStore.
func (s *Store) CreateScript(ctx context.Context, p emulator.WriteScriptParams) (emulator.Script, error) {
	var sc emulator.Script
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		var seq int64
		if err := tx.QueryRow(ctx, `SELECT nextval('cosmos.script_seq')`).Scan(&seq); err != nil {
			return err
		}
		rid := emulator.ScriptRID(p.Container.RID, p.Kind, seq)
		tag, err := tx.Exec(ctx, `INSERT INTO cosmos.scripts (coll_num, kind, id, seq, rid, props, ts, etag)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (coll_num, kind, id) DO NOTHING`,
			p.Container.Num, string(p.Kind), p.ID, seq, rid, string(p.Props), p.TS, p.ETag)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return emulator.ErrConflict
		}
		sc = emulator.Script{Kind: p.Kind, Seq: seq, ID: p.ID, RID: rid, Props: p.Props, TS: p.TS, ETag: p.ETag}
		return nil
	})
	return sc, classify("create script", err)
}

// GetScript implements emulator.ScriptStore.
func (s *Store) GetScript(ctx context.Context, c emulator.Container, kind emulator.ScriptKind, ref string) (emulator.Script, error) {
	sc, err := scanScript(s.pool.QueryRow(ctx, lookupScript, c.Num, string(kind), ref))
	return sc, classify("get script", err)
}

// ListScripts implements emulator.ScriptStore.
func (s *Store) ListScripts(ctx context.Context, c emulator.Container, kind emulator.ScriptKind) ([]emulator.Script, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+scriptCols+` FROM cosmos.scripts WHERE coll_num = $1 AND kind = $2 ORDER BY seq`, c.Num, string(kind))
	if err != nil {
		return nil, classify("list scripts", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (emulator.Script, error) { return scanScript(r) })
	return out, classify("list scripts", err)
}

// ReplaceScript implements emulator.ScriptStore.
func (s *Store) ReplaceScript(ctx context.Context, p emulator.WriteScriptParams) (emulator.Script, error) {
	var sc emulator.Script
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanScript(tx.QueryRow(ctx, lookupScript+` FOR UPDATE`, p.Container.Num, string(p.Kind), p.Ref))
		if err != nil {
			return err
		}
		if p.IfMatch != "" && p.IfMatch != "*" && p.IfMatch != cur.ETag {
			return emulator.ErrPrecondition
		}
		if p.ID != cur.ID {
			return emulator.BadRequest("The id '%s' in the request body does not match the id '%s' of the addressed resource.", p.ID, cur.ID)
		}
		if _, err := tx.Exec(ctx, `UPDATE cosmos.scripts SET props = $4, ts = $5, etag = $6 WHERE coll_num = $1 AND kind = $2 AND id = $3`,
			p.Container.Num, string(p.Kind), cur.ID, string(p.Props), p.TS, p.ETag); err != nil {
			return err
		}
		sc = cur
		sc.Props, sc.TS, sc.ETag = p.Props, p.TS, p.ETag
		return nil
	})
	return sc, classify("replace script", err)
}

// DeleteScript implements emulator.ScriptStore.
func (s *Store) DeleteScript(ctx context.Context, c emulator.Container, kind emulator.ScriptKind, ref, ifMatch string) error {
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanScript(tx.QueryRow(ctx, lookupScript+` FOR UPDATE`, c.Num, string(kind), ref))
		if err != nil {
			return err
		}
		if ifMatch != "" && ifMatch != "*" && ifMatch != cur.ETag {
			return emulator.ErrPrecondition
		}
		_, err = tx.Exec(ctx, `DELETE FROM cosmos.scripts WHERE coll_num = $1 AND kind = $2 AND id = $3`, c.Num, string(kind), cur.ID)
		return err
	})
	return classify("delete script", err)
}

// scriptTx is a script's transaction: the item statements of the single
// operations (itemOps) with the transaction's shared LSN, and the query
// engine, all on tx.
type scriptTx struct {
	itemOps
	s  *Store
	tx pgx.Tx
}

// QueryItems implements emulator.ScriptTx: Store.QueryItems on the
// transaction, so a script's queries see its own writes.
func (t scriptTx) QueryItems(ctx context.Context, p emulator.QueryItemsParams) (emulator.QueryPage, error) {
	return t.s.runQuery(ctx, queryRun{QueryItemsParams: p, on: t.tx})
}

// InScriptTx implements emulator.Store: one READ COMMITTED
// transaction whose writes share one LSN, as a transactional batch's do
// (InItemTx), so TTL, _lsn and the change log treat them like any other
// write. When a path index refuses a long value (oversize.go),
// the transaction is rolled back (the deferred Rollback, before the next
// attempt), the index dropped and fn run again from the start, a bounded
// number of times.
//
// A script holds its connection for its whole run, up to its time limit,
// so at most scriptSlotCount scripts run at once; the others wait for a
// slot (until ctx ends) rather than for a connection that the requests of
// every other client need too.
func (s *Store) InScriptTx(ctx context.Context, fn func(emulator.ScriptTx) error) error {
	select {
	case s.scriptSlots <- struct{}{}:
		defer func() { <-s.scriptSlots }()
	case <-ctx.Done():
		return classify("begin script", ctx.Err())
	}
	return s.retryOversize(ctx, s.pool, func(over *oversize) error {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			return classify("begin script", err)
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
		err = fn(scriptTx{itemOps: itemOps{q: tx, lsn: lsnShared, over: over, sub: true}, s: s, tx: tx})
		if err == nil && over.hit() {
			// the script went on after a path index refused a long
			// value: roll back, and retryOversize drops it and runs fn
			// again
			err = errOversize
		}
		if err != nil {
			return err
		}
		return classify("commit script", tx.Commit(ctx))
	})
}
