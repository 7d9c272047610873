package emulator

import "context"

// LSNStore is implemented by stores that can tell the latest log sequence
// number they have issued (pgstore). LSNs are drawn from one sequence for
// every container, so the latest is an upper bound of any LSN a client has
// seen.
type LSNStore interface {
	// CurrentLSN returns the latest LSN issued (0 before the first write).
	CurrentLSN(ctx context.Context) (int64, error)
}

// CurrentLSN returns the latest LSN the store has issued, or 0 when the
// store cannot tell (it is not an LSNStore). Direct-mode answers that
// carry no item (a 404 of a read) give it, so that a session read's
// answer is as recent as the client's session token asks.
func (s *Service) CurrentLSN(ctx context.Context) (int64, error) {
	if ls, ok := s.store.(LSNStore); ok {
		return ls.CurrentLSN(ctx)
	}
	return 0, nil
}
