package emulator

import "context"

// Reset removes every database and everything in it (POST
// /_emulator/reset, --reset): the emulator is then as freshly started,
// except for its clock and its settings. It returns how many databases it
// removed.
func (s *Service) Reset(ctx context.Context) (int, error) {
	return s.store.ResetAll(ctx)
}
