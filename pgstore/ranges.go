package pgstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// SplitRanges implements emulator.Store: one transaction holding the
// container's row lock (so that two splits of one container serialise and
// each plans over the other's result), announced to every emulator
// process like any metadata change, so that cached containers pick up the
// new ranges.
func (s *Store) SplitRanges(ctx context.Context, p emulator.SplitRangesParams) (emulator.Container, error) {
	var c emulator.Container
	err := s.metaTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanContainer(tx.QueryRow(ctx, lookupContainer+` FOR UPDATE OF c`, p.DatabaseRef, p.CollRef))
		if err != nil {
			return err
		}
		splits, err := p.Plan(cur)
		if err != nil {
			return err
		}
		if len(splits) == 0 {
			c = cur
			return nil
		}
		next := cur.NextRangeID
		for _, sp := range splits {
			id, err := strconv.ParseInt(sp.ParentID, 10, 32)
			if err != nil {
				return fmt.Errorf("partition key range id %q: %w", sp.ParentID, err)
			}
			tag, err := tx.Exec(ctx, `UPDATE cosmos.partition_key_ranges SET status = 'split' WHERE coll_num = $1 AND id = $2 AND status = 'online'`, cur.Num, id)
			if err != nil {
				return err
			}
			if tag.RowsAffected() != 1 {
				return emulator.RangeGone(sp.ParentID)
			}
			if err := insertRanges(ctx, tx, cur.Num, sp.Children[:]); err != nil {
				return err
			}
			for _, ch := range sp.Children {
				if n, err := strconv.Atoi(ch.ID); err == nil && n >= next {
					next = n + 1
				}
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE cosmos.containers SET ranges_version = ranges_version + 1, next_range_id = $2 WHERE num = $1`, cur.Num, next); err != nil {
			return err
		}
		if c, err = scanContainer(tx.QueryRow(ctx, lookupContainer, p.DatabaseRef, p.CollRef)); err != nil {
			return err
		}
		return s.notifyMetadataChanged(ctx, tx)
	})
	s.cache.clear()
	return c, classify("split partition key ranges", err)
}
