package emulator

import "context"

// CurrentLSN returns the latest LSN the store has issued. Direct-mode
// answers that carry no item (a 404 of a read) give it, so that a session
// read's answer is as recent as the client's session token asks.
func (s *Service) CurrentLSN(ctx context.Context) (int64, error) {
	return s.store.CurrentLSN(ctx)
}
