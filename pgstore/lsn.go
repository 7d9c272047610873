package pgstore

import (
	"context"
)

// CurrentLSN returns the last value of cosmos.lsn_seq, the sequence every
// write's LSN is drawn from (1 before the first write, the sequence's
// start: what a point read reports as the current LSN too).
func (s *Store) CurrentLSN(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT `+currentLSNExpr).Scan(&n); err != nil {
		return 0, classify("current lsn", err)
	}
	return n, nil
}
