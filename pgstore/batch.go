package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

var _ emulator.TxStore = (*Store)(nil)

// InItemTx implements emulator.TxStore: fn's item operations run in one
// READ COMMITTED transaction on one connection, committed when fn returns
// nil and rolled back otherwise. The item statements are those of the
// single operations (itemOps), so a batch behaves exactly like its
// operations run one by one, except that it commits once.
func (s *Store) InItemTx(ctx context.Context, fn func(emulator.ItemStore) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return classify("begin batch", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := fn(itemOps{tx}); err != nil {
		return err
	}
	return classify("commit batch", tx.Commit(ctx))
}

var _ emulator.PartitionDeleter = (*Store)(nil)

// DeletePartitionItems implements emulator.PartitionDeleter: one DELETE of
// at most limit rows of the partition, found through the (pk, id) key.
func (s *Store) DeletePartitionItems(ctx context.Context, c emulator.Container, pk string, limit int) (int64, error) {
	t := itemsTable(c.Num)
	tag, err := s.pool.Exec(ctx, `DELETE FROM `+t+` WHERE pk = $1 AND id IN (SELECT id FROM `+t+` WHERE pk = $1 LIMIT $2)`, pk, limit)
	if err != nil {
		return 0, classify("delete partition", err)
	}
	return tag.RowsAffected(), nil
}

var _ emulator.ItemPipeliner = itemOps{}

// RunItemOps implements emulator.ItemPipeliner: the operations' statements
// go to PostgreSQL in one pgx.Batch (one round trip) and run in order on
// o's querier (a batch's transaction).
func (o itemOps) RunItemOps(ctx context.Context, ops []emulator.ItemOp) ([]emulator.ItemOpResult, error) {
	stmts := make([]itemStmt, len(ops))
	b := &pgx.Batch{}
	for i, op := range ops {
		switch op.Op {
		case emulator.BatchCreate:
			stmts[i] = createStmt(op.Params)
		case emulator.BatchUpsert:
			stmts[i] = upsertStmt(op.Params)
		case emulator.BatchReplace:
			stmts[i] = replaceStmt(op.Params)
		case emulator.BatchRead:
			stmts[i] = readStmt(op.Params.ItemKey)
		case emulator.BatchDelete:
			stmts[i] = deleteStmt(op.Params.ItemKey, op.Params.IfMatch)
		default:
			return nil, fmt.Errorf("pipelined item operation %q: %w", op.Op, errors.ErrUnsupported)
		}
		b.Queue(stmts[i].sql, stmts[i].args...)
	}
	br := o.q.SendBatch(ctx, b)
	out := make([]emulator.ItemOpResult, len(ops))
	for i, st := range stmts {
		out[i] = st.scan(br.QueryRow())
		if emulator.IsStorageFailure(out[i].Err) {
			_ = br.Close()
			return nil, out[i].Err
		}
	}
	return out, classify("batch", br.Close())
}
