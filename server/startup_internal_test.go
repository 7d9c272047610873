package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
)

// TestExplain: each start-up failure becomes one line with its cause and
// its fix, whatever the underlying error looks like.
func TestExplain(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		err  error
		want []string
	}{
		{"no binaries anywhere", Config{}, fmt.Errorf("pgserver: %w", pgserver.ErrNoBinaries),
			[]string{"PostgreSQL is not installed", "apt-get install postgresql", "--pg-bin", "--pg"}},
		{"data dir in use", Config{DataDir: "/d"}, fmt.Errorf("x: %w", pgserver.ErrDataDirInUse),
			[]string{"/d is in use by another running emulator", "--data-dir"}},
		{"interrupted", Config{}, fmt.Errorf("pgserver: waiting: %w", context.Canceled),
			[]string{"start-up was interrupted: context canceled"}},
		{"managed cluster failed, multi-line log", Config{}, errors.New("pgserver: PostgreSQL exited during startup (exit status 1): could not map anonymous shared memory; the end of log:\nline 1\nline 2"),
			[]string{"the managed PostgreSQL failed: pgserver: PostgreSQL exited during startup (exit status 1): could not map anonymous shared memory", "--log-level debug"}},
		{"schema refused", Config{PG: "postgres://u@h/db"}, errors.New("pgstore: migration 0001: permission denied for database db"),
			[]string{"refused to set up the emulator's schema", "may create schemas"}},
		{"already explained", Config{}, &StartError{Cause: "c", Fix: "f"}, []string{"c; f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := explain(tt.cfg, tt.err).Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("more than one line: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
}
