package pgstore

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestMetaTxRetriesConflicts: a metadata transaction that PostgreSQL
// aborted for a deadlock or a serialization failure runs again (at most
// metaTxAttempts times in all), and its effects are those of the run that
// committed; any other error ends it at once. The conflicts are returned
// by fn (a fake of PostgreSQL's abort; provoking a real deadlock cannot
// choose its victim).
func TestMetaTxRetriesConflicts(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, `CREATE TABLE metatx_probe (n int)`); err != nil {
		t.Fatal(err)
	}
	deadlock := &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}
	serialization := &pgconn.PgError{Code: "40001", Message: "could not serialize access"}
	other := &pgconn.PgError{Code: "23505", Message: "duplicate key"}
	tests := []struct {
		name      string
		fails     []error // what the runs return before one succeeds
		wantRuns  int
		wantErr   error
		wantAdded int // rows metatx_probe gains
	}{
		{"no conflict", nil, 1, nil, 1},
		{"one deadlock", []error{deadlock}, 2, nil, 1},
		{"deadlock then serialization failure", []error{deadlock, serialization}, 3, nil, 1},
		{"conflicts every time", []error{deadlock, deadlock, deadlock, deadlock, deadlock}, metaTxAttempts, deadlock, 0},
		{"another error is not retried", []error{other}, 1, other, 0},
	}
	for _, tc := range tests {
		var before, after int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM metatx_probe`).Scan(&before); err != nil {
			t.Fatal(err)
		}
		runs := 0
		err := s.metaTx(ctx, func(tx pgx.Tx) error {
			runs++
			if _, err := tx.Exec(ctx, `INSERT INTO metatx_probe VALUES (1)`); err != nil {
				return err
			}
			if runs <= len(tc.fails) {
				return tc.fails[runs-1]
			}
			return nil
		})
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM metatx_probe`).Scan(&after); err != nil {
			t.Fatal(err)
		}
		if runs != tc.wantRuns || !errors.Is(err, tc.wantErr) || after-before != tc.wantAdded {
			t.Errorf("%s: %d runs, error %v, %d rows added; want %d runs, error %v, %d rows",
				tc.name, runs, err, after-before, tc.wantRuns, tc.wantErr, tc.wantAdded)
		}
	}
}
