package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// TestFirstStartAnnouncesInitdb: the first start over a new data dir says,
// at info level, that it creates the managed PostgreSQL cluster with
// initdb (what `make run` waits for the first time) and when it is done;
// the next start over the same dir says nothing of it.
func TestFirstStartAnnouncesInitdb(t *testing.T) {
	if _, err := pgserver.FindBinaries(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for i, wantInitdb := range []bool{true, false} {
		var logs lockedBuffer
		cfg := server.Config{Addr: "127.0.0.1:0", DataDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))}
		s, err := server.Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := logs.String()
		for _, w := range []string{"first start: creating the managed PostgreSQL cluster with initdb", "initdb created a new cluster"} {
			if strings.Contains(got, w) != wantInitdb {
				t.Errorf("start %d: log has %q = %v, want %v:\n%s", i+1, w, !wantInitdb, wantInitdb, got)
			}
		}
	}
}
