package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestIsUnavailable: failures that mean PostgreSQL cannot be reached right
// now are 503 (retriable); errors of the request itself keep their kind.
func TestIsUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want emulator.Kind
	}{
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, emulator.KindUnavailable},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, emulator.KindUnavailable},
		{"starting up", &pgconn.PgError{Code: "57P03"}, emulator.KindUnavailable},
		{"connection failure", &pgconn.PgError{Code: "08006"}, emulator.KindUnavailable},
		{"too many connections", &pgconn.PgError{Code: "53300"}, emulator.KindUnavailable},
		{"connection lost", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), emulator.KindUnavailable},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), emulator.KindUnavailable},
		{"connection reset", fmt.Errorf("write: %w", syscall.ECONNRESET), emulator.KindUnavailable},
		{"already classified internal, cause unreachable", &emulator.Error{Kind: emulator.KindInternal, Err: io.EOF}, emulator.KindUnavailable},
		{"unique violation", &pgconn.PgError{Code: "23505"}, emulator.KindConflict},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, emulator.KindNotFound},
		{"no rows", pgx.ErrNoRows, emulator.KindNotFound},
		{"syntax error (a bug)", &pgconn.PgError{Code: "42601"}, emulator.KindInternal},
		{"cancelled by the client", context.Canceled, emulator.KindInternal},
		{"other", errors.New("boom"), emulator.KindInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := emulator.KindOf(classify("op", tt.err)); got != tt.want {
				t.Errorf("kind %v, want %v", got, tt.want)
			}
		})
	}
}
