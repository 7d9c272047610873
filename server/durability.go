package server

import (
	"context"
	"fmt"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
)

// Durability is what an acknowledged write survives (Config.Durability);
// the levels are pgserver's.
type Durability = pgserver.Durability

// The durability levels of the managed cluster (pgserver.Durability), and
// the one Server.Durability reports with an external server.
const (
	DurabilityFull    = pgserver.DurabilityFull
	DurabilityProcess = pgserver.DurabilityProcess
	DurabilityNone    = pgserver.DurabilityNone
	// DurabilityExternal is the level of an external server (Config.PG):
	// its own settings decide, the emulator changes none.
	DurabilityExternal Durability = "external"
)

// DurabilityLevel returns the level cfg asks for, as Start resolves it:
// an explicit Config.Durability, else none for FastUnsafeCommit, else by
// the data's lifetime (process for Ephemeral, full for a data directory),
// or DurabilityExternal with Config.PG whatever was asked (an external
// server keeps its own settings; a level given anyway is not refused).
// Only an unknown level is an error.
func (cfg Config) DurabilityLevel() (Durability, error) {
	level := cfg.Durability
	if level != "" {
		var err error
		if level, err = pgserver.ParseDurability(string(level)); err != nil {
			return "", err
		}
	}
	switch {
	case cfg.PG != "":
		return DurabilityExternal, nil
	case level != "":
		return level, nil
	case cfg.FastUnsafeCommit:
		return DurabilityNone, nil
	case cfg.Ephemeral:
		return DurabilityProcess, nil
	}
	return DurabilityFull, nil
}

// Durability returns the durability level in force: the managed cluster's,
// or DurabilityExternal when the emulator uses an external server
// (Config.PG).
func (s *Server) Durability() Durability { return s.durability }

// DescribeDurability says in one line which durability level is in force
// and what it means, for the start-up output, e.g. "process (survives
// process crashes; not an OS crash)". With an external server it names
// that server's fsync and synchronous_commit settings, read from it (or
// says they could not be read).
func (s *Server) DescribeDurability(ctx context.Context) string {
	if s.durability != DurabilityExternal {
		return fmt.Sprintf("%s (%s)", s.durability, s.durability.Describe())
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var fsync, syncCommit string
	err := s.store.Pool().QueryRow(ctx, `SELECT current_setting('fsync'), current_setting('synchronous_commit')`).Scan(&fsync, &syncCommit)
	if err != nil {
		return "external (--pg: the server's own settings, which could not be read; --durability applies to the managed cluster only)"
	}
	return fmt.Sprintf("external (--pg: the server's own settings, fsync=%s, synchronous_commit=%s; --durability applies to the managed cluster only)", fsync, syncCommit)
}
