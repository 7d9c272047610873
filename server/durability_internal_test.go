package server

import (
	"strings"
	"testing"
)

// TestDurabilityLevel: an explicit level wins, then --fast-unsafe-commit,
// then the data's lifetime (ephemeral: process; a data directory: full);
// an external server is reported as such whatever was asked, and only an
// unknown level is refused.
func TestDurabilityLevel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		cfg  Config
		want Durability
	}{
		{"data directory", Config{}, DurabilityFull},
		{"ephemeral", Config{Ephemeral: true}, DurabilityProcess},
		{"fast unsafe commit", Config{FastUnsafeCommit: true}, DurabilityNone},
		{"fast unsafe commit, ephemeral", Config{FastUnsafeCommit: true, Ephemeral: true}, DurabilityNone},
		{"explicit full on ephemeral", Config{Ephemeral: true, Durability: DurabilityFull}, DurabilityFull},
		{"explicit process on a data directory", Config{Durability: DurabilityProcess}, DurabilityProcess},
		{"explicit none", Config{Durability: DurabilityNone}, DurabilityNone},
		{"explicit wins over fast unsafe commit", Config{Durability: DurabilityFull, FastUnsafeCommit: true}, DurabilityFull},
		{"any case", Config{Durability: "Process"}, DurabilityProcess},
		{"external server", Config{PG: "postgres://h/db"}, DurabilityExternal},
		{"external server, level given anyway", Config{PG: "postgres://h/db", Durability: DurabilityNone}, DurabilityExternal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.cfg.DurabilityLevel()
			if err != nil || got != tt.want {
				t.Errorf("DurabilityLevel(%+v) = %q, %v; want %q", tt.cfg, got, err, tt.want)
			}
		})
	}
	for _, cfg := range []Config{{Durability: "fast"}, {PG: "postgres://h/db", Durability: "sync"}} {
		if _, err := cfg.DurabilityLevel(); err == nil || !strings.Contains(err.Error(), "full, process, none") {
			t.Errorf("DurabilityLevel(%+v): %v, want an error naming the accepted values", cfg, err)
		}
	}
}
