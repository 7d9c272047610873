//go:build !unix

package pgserver

import (
	"context"
	"errors"
	"fmt"
	"runtime"
)

// Start is not supported on this platform: it returns an error wrapping
// errors.ErrUnsupported. Use an existing server instead.
func Start(ctx context.Context, opts Options) (*Server, error) {
	return nil, fmt.Errorf("pgserver: managing a private PostgreSQL server is not supported on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

// Stop does nothing on this platform and returns nil.
func (s *Server) Stop() error { return nil }
