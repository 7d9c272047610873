package pgstore

import (
	"context"
	"errors"
	"fmt"
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

// pageContext returns the context of one page's statements: ctx with the
// store's page budget as its deadline.
func (s *Store) pageContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.pageTimeout)
}

// budgetSpent reports whether err ended a statement run under pctx (from
// pageContext, derived from ctx) because the page budget ran out, rather
// than because the request itself ended or the statement failed.
func budgetSpent(ctx, pctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded)
}

// boundedRows is the rows of a statement run by boundedQuery; Close must
// be called (after reading, in every case).
type boundedRows struct {
	pgx.Rows
	finish func()
}

// Close closes the rows and releases what boundedQuery took.
func (r *boundedRows) Close() {
	r.Rows.Close()
	r.finish()
}

// boundedQuery runs sql on q under ctx and makes sure the backend stops
// when ctx ends before the statement does. pgx alone, on a cancelled
// context, only closes its socket (its default context watcher sets a
// deadline on the connection), and a backend busy sorting or scanning
// notices a closed socket only when it next writes to it, which may be
// minutes later. So when ctx ends while the statement runs, a cancel
// request goes to the backend too (pgconn.CancelRequest, on a connection
// of its own), and a pool connection that had one sent is closed rather
// than reused, so that a late cancel can never hit the next statement.
// On a transaction q (a script's, a UDF query's snapshot), its connection
// is cancelled the same way; the transaction fails, as it must.
func (s *Store) boundedQuery(ctx context.Context, q querier, sql string, args ...any) (*boundedRows, error) {
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
	stop := func() bool { return false }
	if pc != nil {
		stop = cancelOnDone(ctx, pc)
	}
	release := func() {
		if stop() && conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = conn.Conn().Close(closeCtx)
			cancel()
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
	return &boundedRows{Rows: rows, finish: release}, nil
}

// cancelOnDone sends a cancel request to pc's backend when ctx ends. The
// returned stop, called once the statement is over, reports whether one
// was sent (waiting for it to finish if it is being sent).
func cancelOnDone(ctx context.Context, pc *pgconn.PgConn) (stop func() bool) {
	done := make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		defer close(done)
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = pc.CancelRequest(cctx) // best effort: the socket is closed as well
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
