package pgstore

import "time"

// PoolStats is a snapshot of the store's PostgreSQL connection pool, in
// plain types so that callers (the metrics) need not import pgx.
type PoolStats struct {
	// MaxConns is the pool's size limit.
	MaxConns int32
	// TotalConns, IdleConns, AcquiredConns and ConstructingConns count the
	// connections now open, idle, in use and being opened.
	TotalConns, IdleConns, AcquiredConns, ConstructingConns int32
	// AcquireCount counts successful acquisitions; EmptyAcquireCount those
	// that had to wait for a connection; CanceledAcquireCount those whose
	// context ended while waiting.
	AcquireCount, EmptyAcquireCount, CanceledAcquireCount int64
	// AcquireDuration is the total time spent acquiring connections.
	AcquireDuration time.Duration
	// NewConnsCount counts connections opened; MaxLifetimeDestroyCount and
	// MaxIdleDestroyCount those closed for age or idleness.
	NewConnsCount, MaxLifetimeDestroyCount, MaxIdleDestroyCount int64
}

// PoolStats returns the connection pool's current statistics (cheap: no
// round trip to PostgreSQL).
func (s *Store) PoolStats() PoolStats {
	st := s.pool.Stat()
	return PoolStats{
		MaxConns: st.MaxConns(), TotalConns: st.TotalConns(), IdleConns: st.IdleConns(),
		AcquiredConns: st.AcquiredConns(), ConstructingConns: st.ConstructingConns(),
		AcquireCount: st.AcquireCount(), EmptyAcquireCount: st.EmptyAcquireCount(),
		CanceledAcquireCount: st.CanceledAcquireCount(), AcquireDuration: st.AcquireDuration(),
		NewConnsCount: st.NewConnsCount(), MaxLifetimeDestroyCount: st.MaxLifetimeDestroyCount(),
		MaxIdleDestroyCount: st.MaxIdleDestroyCount(),
	}
}
