package pgstore

import (
	"context"

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
