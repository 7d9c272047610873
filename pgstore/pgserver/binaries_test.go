//go:build unix

package pgserver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeInstall creates dir holding the named programs as executable files.
func fakeInstall(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// withSearch points PATH and searchRoot somewhere else for one test.
func withSearch(t *testing.T, path, root string) {
	t.Setenv("PATH", path)
	old := searchRoot
	searchRoot = root
	t.Cleanup(func() { searchRoot = old })
}

func TestFindBinariesNotFound(t *testing.T) {
	emptyRoot := t.TempDir()
	partial := fakeInstall(t, filepath.Join(t.TempDir(), "bin"), "initdb", "pg_ctl") // no postgres
	nonExec := filepath.Join(t.TempDir(), "bin")
	fakeInstall(t, nonExec, "initdb", "pg_ctl", "postgres")
	for _, n := range []string{"initdb", "pg_ctl", "postgres"} {
		if err := os.Chmod(filepath.Join(nonExec, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	incompleteRoot := t.TempDir()
	fakeInstall(t, filepath.Join(incompleteRoot, "15", "bin"), "pg_ctl", "postgres")

	tests := []struct {
		name, path, root string
	}{
		{"empty PATH, empty root", "", emptyRoot},
		{"missing root", "", filepath.Join(emptyRoot, "does-not-exist")},
		{"PATH dir lacks postgres", partial, emptyRoot},
		{"programs not executable", nonExec, emptyRoot},
		{"root version lacks initdb", "", incompleteRoot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withSearch(t, tc.path, tc.root)
			b, err := FindBinaries()
			if err == nil {
				t.Fatalf("FindBinaries() = %+v, want an error", b)
			}
			if !errors.Is(err, ErrNoBinaries) {
				t.Errorf("error %v does not wrap ErrNoBinaries", err)
			}
			msg := err.Error()
			for _, want := range []string{"apt-get install postgresql", "--pg <connection string>", "docker compose up"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, ". ") {
				t.Errorf("error %q is not a single sentence", msg)
			}
		})
	}
}

func TestFindBinaries(t *testing.T) {
	all := []string{"initdb", "pg_ctl", "postgres"}
	pathA := fakeInstall(t, filepath.Join(t.TempDir(), "a"), "initdb") // incomplete
	pathB := fakeInstall(t, filepath.Join(t.TempDir(), "b"), all...)
	pathC := fakeInstall(t, filepath.Join(t.TempDir(), "c"), all...)

	root := t.TempDir()
	for _, v := range []string{"9.6", "14", "13", "10", "beta"} {
		fakeInstall(t, filepath.Join(root, v, "bin"), all...)
	}
	fakeInstall(t, filepath.Join(root, "15", "bin"), "initdb", "postgres") // incomplete: skipped
	emptyRoot := t.TempDir()

	sep := string(os.PathListSeparator)
	tests := []struct {
		name, path, root, wantDir string
	}{
		{"first complete PATH dir wins", pathA + sep + pathB + sep + pathC, root, pathB},
		{"empty PATH elements ignored", sep + pathC, emptyRoot, pathC},
		{"PATH before root", pathC, root, pathC},
		{"highest complete version in root", pathA, root, filepath.Join(root, "14", "bin")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withSearch(t, tc.path, tc.root)
			b, err := FindBinaries()
			if err != nil {
				t.Fatal(err)
			}
			want := Binaries{
				Dir:      tc.wantDir,
				Initdb:   filepath.Join(tc.wantDir, "initdb"),
				PgCtl:    filepath.Join(tc.wantDir, "pg_ctl"),
				Postgres: filepath.Join(tc.wantDir, "postgres"),
			}
			if b != want {
				t.Errorf("FindBinaries() = %+v, want %+v", b, want)
			}
		})
	}
}

func TestVersionDirsOrder(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "15", "notes", "10", "9.10", "16.1"} {
		if err := os.Mkdir(filepath.Join(root, v), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, d := range versionDirs(root) {
		got = append(got, filepath.Base(filepath.Dir(d)))
	}
	want := []string{"16.1", "15", "10", "9.10", "9.6", "notes"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("versionDirs order = %v, want %v", got, want)
	}
}
