package emulator

import "context"

// Resetter is implemented by a Store that can remove every database at
// once, faster than deleting them one by one.
type Resetter interface {
	// ResetAll removes every database with everything in it (containers,
	// items, scripts, users, permissions, offers, partition key ranges,
	// change feeds) as one atomic step: a concurrent request sees all of
	// it or none of it, and one that addresses a removed resource after
	// the step fails as it would after a delete (404, or 410 for a
	// partition key range). Resources created again afterwards with the
	// same ids are new ones (new RIDs, empty change feeds), so nothing a
	// client cached about the old ones applies to them. It returns how
	// many databases it removed.
	ResetAll(ctx context.Context) (int, error)
}

// Reset removes every database and everything in it (POST
// /_emulator/reset, --reset): the emulator is then as freshly started,
// except for its clock and its settings. It returns how many databases it
// removed. A store that cannot reset answers 503.
func (s *Service) Reset(ctx context.Context) (int, error) {
	r, ok := s.store.(Resetter)
	if !ok {
		return 0, Errorf(KindUnavailable, "This emulator's store cannot reset.")
	}
	return r.ResetAll(ctx)
}
