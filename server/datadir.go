package server

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// LegacyDataDir is the data directory of earlier versions, relative to
// the working directory: used instead of the per-user one when it exists
// there, so that data kept by an earlier version is found again.
const LegacyDataDir = ".cosmos-emulator"

// DefaultDataDir is the data directory used when Config.DataDir is empty:
// ./.cosmos-emulator when the working directory holds one (LegacyDataDir),
// else the per-user data directory, as other local servers keep theirs:
// $XDG_DATA_HOME/cosmos-emulator (default ~/.local/share/cosmos-emulator)
// on Linux and other Unix systems, ~/Library/Application Support/
// cosmos-emulator on macOS, %LocalAppData%\cosmos-emulator on Windows. It
// falls back to LegacyDataDir when no home directory is known.
func DefaultDataDir() string {
	if fi, err := os.Stat(LegacyDataDir); err == nil && fi.IsDir() {
		return LegacyDataDir
	}
	dir, err := userDataDir()
	if err != nil {
		return LegacyDataDir
	}
	return filepath.Join(dir, "cosmos-emulator")
}

// userDataDir is the base directory of per-user application data.
func userDataDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return "", errors.New("%LocalAppData% is not set")
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support"), nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// DataDir is the data directory in force (Config.DataDir, or
// DefaultDataDir's choice); unused with Config.PG or Config.Ephemeral,
// except for the TLS certificate without Ephemeral.
func (s *Server) DataDir() string { return s.cfg.DataDir }
