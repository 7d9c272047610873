package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
)

// phaseTracer adds the wall time of every statement and batch to the
// request's reqphase.Postgres phase, when the request's context carries
// reqphase.Timings (the wire layer's metrics put them there). A context
// without them is returned as is: no clock is read and nothing allocated.
type phaseTracer struct{}

type phaseStartKey struct{}

// phaseStart is what TraceQueryStart and TraceBatchStart leave in the
// context for their End: the request's timings and the start time.
type phaseStart struct {
	t     *reqphase.Timings
	start time.Time
}

func (phaseTracer) begin(ctx context.Context) context.Context {
	t := reqphase.FromContext(ctx)
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, phaseStartKey{}, phaseStart{t: t, start: time.Now()})
}

func (phaseTracer) end(ctx context.Context) {
	if s, ok := ctx.Value(phaseStartKey{}).(phaseStart); ok {
		s.t.Add(reqphase.Postgres, time.Since(s.start))
	}
}

// TraceQueryStart implements pgx.QueryTracer.
func (p phaseTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return p.begin(ctx)
}

// TraceQueryEnd implements pgx.QueryTracer.
func (p phaseTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	p.end(ctx)
}

// TraceBatchStart implements pgx.BatchTracer.
func (p phaseTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return p.begin(ctx)
}

// TraceBatchQuery implements pgx.BatchTracer (the batch is timed whole).
func (phaseTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (p phaseTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	p.end(ctx)
}
