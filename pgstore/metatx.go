package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// metaTxAttempts bounds how often metaTx runs a transaction that lost a
// deadlock or serialization conflict.
const metaTxAttempts = 4

// metaTx runs fn in a transaction on s's pool, as pgx.BeginFunc does, and
// runs it again (in a new transaction, at most metaTxAttempts times in
// all) when PostgreSQL aborted it for a deadlock (40P01) or a
// serialization failure (40001). Metadata changes of different clients
// lock databases, containers, offers and items tables in orders that a
// deadlock can break only by aborting one of them (deleting a database
// while a container is created in it); the service serialises such
// requests and answers each as if it ran alone (the create wins or finds
// the database gone), so the aborted one is retried rather than answered
// with 503, which the SDKs do not retry for writes. fn must keep no
// state outside the transaction that a second run would not reset.
func (s *Store) metaTx(ctx context.Context, fn func(pgx.Tx) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = pgx.BeginFunc(ctx, s.pool, fn)
		if attempt == metaTxAttempts || !isTxConflict(err) {
			return err
		}
		// a short pause, longer each time, lets the winner commit
		select {
		case <-time.After(time.Duration(attempt) * 5 * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
}

// isTxConflict reports whether err is PostgreSQL's deadlock or
// serialization failure.
func isTxConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}
