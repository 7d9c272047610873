package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// DefaultPageTimeout is the time budget of one page of a query or feed
// when Options.PageTimeout is 0: the service's execution limit of a query
// page (reference §4, 5 s).
const DefaultPageTimeout = 5 * time.Second

// errPageTimeout is the answer to a page whose budget ran out before it
// held a single result, so that no continuation could move past anything.
//
// 408 rather than 400: the service's status for an operation that ran
// past its execution limit is 408 (reference §3.1), and the query itself
// is not malformed: it asks for more work than a page may do. The SDKs
// retry a 408 read once (sdk-notes §8), which costs at most one more
// budget.
func errPageTimeout(d time.Duration, err error) error {
	return &emulator.Error{Kind: emulator.KindRequestTimeout, Err: err, Message: fmt.Sprintf(
		"The query exceeded the execution time budget of one page (%s) before it produced a result; narrow it with filters, a partition key or fewer JOINs.", d)}
}

// pageContext returns the context of one page's statements: ctx with a
// deadline some time after the page budget, a backstop for a backend that
// a cancel request (boundedQuery) did not stop.
func (s *Store) pageContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.pageTimeout+pageBackstop)
}

// pageBackstop is how long after the page budget's cancel request the
// page's context ends, closing the connection (see boundedQuery).
const pageBackstop = 5 * time.Second

// budgetSpent reports whether err ended a statement because the page
// budget ran out (rows' cancel request, or the backstop of pctx, derived
// from ctx), rather than because the request itself ended or the
// statement failed.
func budgetSpent(ctx, pctx context.Context, rows *boundedRows, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	return (rows != nil && rows.spent()) || errors.Is(pctx.Err(), context.DeadlineExceeded)
}

// boundedRows is the rows of a statement run by boundedQuery; Close must
// be called (after reading, in every case).
type boundedRows struct {
	pgx.Rows
	spent  func() bool
	finish func()
}

// Close closes the rows and releases what boundedQuery took.
func (r *boundedRows) Close() {
	r.Rows.Close()
	r.finish()
}

// boundedQuery runs sql on q under ctx and the time budget d: when d
// passes before the statement ends, the backend gets a cancel request
// (pgconn.CancelRequest, on a connection of its own) and stops with an
// error; the rows it produced before it (PostgreSQL sends them ahead of
// the error) can still be read, so a page can end with them (rows.spent
// then reports true). Closing the socket would lose them, and a backend
// busy sorting or scanning notices a closed socket only when it next
// writes, which may be minutes later: pgx alone, on a cancelled context,
// does only that (its default context watcher sets a deadline on the
// connection), so ctx ending also sends a cancel request. A pool
// connection that had one sent is closed rather than reused, so that a
// late cancel can never hit the next statement. On a transaction q (a
// script's, a UDF query's snapshot), its connection is cancelled the same
// way; the transaction fails, as it must.
func (s *Store) boundedQuery(ctx context.Context, q querier, d time.Duration, sql string, args ...any) (*boundedRows, error) {
	var pc *pgconn.PgConn
	var conn *pgxpool.Conn
	switch x := q.(type) {
	case *pgxpool.Pool:
		c, err := x.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		conn, pc, q = c, c.Conn().PgConn(), c
	case pgx.Tx:
		pc = x.Conn().PgConn()
	}
	stopDone, stopBudget := func() bool { return false }, func() bool { return false }
	var fired atomic.Bool
	if pc != nil {
		stopDone = cancelOnDone(ctx, pc, nil)
		budgetCtx, endBudget := context.WithTimeout(context.Background(), d)
		// fired is set before the cancel request goes out: the error the
		// backend answers it with must never be read as anything but the
		// budget's (a separate AfterFunc could run after the reader saw
		// the error, making a spent budget a 500 under load)
		stop := cancelOnDone(budgetCtx, pc, func() {
			if errors.Is(budgetCtx.Err(), context.DeadlineExceeded) {
				fired.Store(true)
			}
		})
		stopBudget = func() bool {
			sent := stop()
			endBudget()
			return sent
		}
	}
	release := func() {
		sent := stopBudget()
		if stopDone() || sent {
			if conn != nil {
				closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
				_ = conn.Conn().Close(closeCtx)
				cancel()
			}
		}
		if conn != nil {
			conn.Release()
		}
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		release()
		return nil, err
	}
	return &boundedRows{Rows: rows, spent: fired.Load, finish: release}, nil
}

// cancelOnDone sends a cancel request to pc's backend when ctx ends,
// calling before (when not nil) first. The returned stop, called once the statement is over, reports whether one
// was sent (waiting for it to finish if it is being sent).
func cancelOnDone(ctx context.Context, pc *pgconn.PgConn, before func()) (stop func() bool) {
	done := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		defer close(done)
		if before != nil {
			before()
		}
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = pc.CancelRequest(cctx) // best effort: the backstop closes the socket
	})
	return func() bool {
		if stopAfter() {
			return false
		}
		<-done
		return true
	}
}

// errResultTooLarge is the answer to a query one of whose results would
// not fit a response (emulator.MaxResponseBytes): what is names the
// result. The service answers a response past its size limit with 413,
// substatus 3402 (ResponseSizeExceeded, reference §3.1-3.2); a page
// cannot end before its first result, so the query fails.
func errResultTooLarge(what string, err error) error {
	return &emulator.Error{Kind: emulator.KindTooLarge, SubStatus: emulator.SubStatusResponseSizeExceeded, Err: err,
		Message: fmt.Sprintf("The query's response exceeds the response size limit: %s than the %d MB a response may hold.", what, emulator.MaxResponseBytes>>20)}
}
