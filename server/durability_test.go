package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// TestDurabilityInForce: the level chosen is the one the managed cluster
// really runs with (SHOW fsync, SHOW synchronous_commit on it), an
// ephemeral cluster defaults to process, and the start-up description
// names the level; an external server is described by its own settings.
func TestDurabilityInForce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name              string
		opts              []emulatortest.Option
		want              server.Durability
		fsync, syncCommit string
		describe          string
	}{
		{"ephemeral default", nil, server.DurabilityProcess, "off", "on", "process (survives process crashes; not an OS crash)"},
		{"full asked", []emulatortest.Option{emulatortest.WithDurability(server.DurabilityFull)}, server.DurabilityFull, "on", "on", "full (survives process and OS crashes)"},
		{"none asked", []emulatortest.Option{emulatortest.WithDurability(server.DurabilityNone)}, server.DurabilityNone, "on", "off", "none (a crash may lose the last ~0.6 s of writes)"},
		{"fast unsafe commit", []emulatortest.Option{func(c *server.Config) { c.FastUnsafeCommit = true }}, server.DurabilityNone, "on", "off", "none ("},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := emulatortest.StartManaged(t, tt.opts...)
			if got := e.Durability(); got != tt.want {
				t.Errorf("Durability() = %q, want %q", got, tt.want)
			}
			if got := e.DescribeDurability(context.Background()); !strings.HasPrefix(got, tt.describe) {
				t.Errorf("DescribeDurability() = %q, want it to start with %q", got, tt.describe)
			}
			fsync, syncCommit := showDurability(t, e.ManagedPostgres().ConnString())
			if fsync != tt.fsync || syncCommit != tt.syncCommit {
				t.Errorf("managed cluster: fsync=%s synchronous_commit=%s, want fsync=%s synchronous_commit=%s", fsync, syncCommit, tt.fsync, tt.syncCommit)
			}
		})
	}
	t.Run("external server", func(t *testing.T) {
		t.Parallel()
		e := emulatortest.Start(t, emulatortest.WithDurability(server.DurabilityFull)) // not refused, not applied
		fsync, syncCommit := showDurability(t, e.PG)
		if got := e.Durability(); got != server.DurabilityExternal {
			t.Errorf("Durability() = %q, want %q", got, server.DurabilityExternal)
		}
		want := "external (--pg: the server's own settings, fsync=" + fsync + ", synchronous_commit=" + syncCommit + ";"
		if got := e.DescribeDurability(context.Background()); !strings.HasPrefix(got, want) {
			t.Errorf("DescribeDurability() = %q, want it to start with %q", got, want)
		}
	})
}

// showDurability reads fsync and synchronous_commit from the server at
// connString.
func showDurability(t *testing.T, connString string) (fsync, syncCommit string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	if err := conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&syncCommit); err != nil {
		t.Fatal(err)
	}
	return fsync, syncCommit
}
