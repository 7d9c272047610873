package server

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestDefaultDataDir: without --data-dir the emulator keeps its data in
// the per-user data directory ($XDG_DATA_HOME, else ~/.local/share, on
// Linux), not in the working directory; a ./.cosmos-emulator left by an
// earlier version in the working directory is still used.
func TestDefaultDataDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the per-user directory asserted here is Linux's")
	}
	home := t.TempDir()
	work := t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(work)
	tests := []struct {
		name   string
		xdg    string
		legacy bool
		want   string
	}{
		{"XDG_DATA_HOME unset", "", false, filepath.Join(home, ".local", "share", "cosmos-emulator")},
		{"XDG_DATA_HOME set", "/srv/data", false, "/srv/data/cosmos-emulator"},
		{"XDG_DATA_HOME relative is ignored", "rel", false, filepath.Join(home, ".local", "share", "cosmos-emulator")},
		{"an earlier version's directory here", "", true, LegacyDataDir},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			if tc.legacy {
				if err := os.Mkdir(LegacyDataDir, 0o700); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(LegacyDataDir)
			}
			if got := DefaultDataDir(); got != tc.want {
				t.Errorf("DefaultDataDir() = %q, want %q", got, tc.want)
			}
			if got := withDefaults(Config{}).DataDir; got != tc.want {
				t.Errorf("withDefaults: DataDir %q, want %q", got, tc.want)
			}
		})
	}
}
