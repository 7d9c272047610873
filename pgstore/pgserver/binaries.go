package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoBinaries is the sentinel wrapped by the error that FindBinaries (and
// Start) return when the PostgreSQL server programs cannot be found. Test it
// with errors.Is.
var ErrNoBinaries = errors.New("pgserver: PostgreSQL server binaries not found")

// searchRoot is the directory whose */bin subdirectories FindBinaries searches
// after PATH (Debian and Ubuntu install each major version as
// /usr/lib/postgresql/<major>/bin). It is a variable so tests can point it
// at an empty directory.
var searchRoot = "/usr/lib/postgresql"

// Binaries holds absolute paths to the PostgreSQL server programs. All three
// come from the same directory, so they belong to the same installation and
// major version.
type Binaries struct {
	Dir      string // the directory that holds the three programs
	Initdb   string // initdb: creates a cluster
	PgCtl    string // pg_ctl: stops a cluster
	Postgres string // postgres: the server itself
}

// noBinariesError is the one-sentence error returned when no installation is
// found; it unwraps to ErrNoBinaries.
type noBinariesError struct{ root string }

func (e *noBinariesError) Error() string {
	return "PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found on PATH or under " +
		filepath.Join(e.root, "*", "bin") +
		": install PostgreSQL (for example `apt-get install postgresql`), pass --pg <connection string> to use an existing server, or run `docker compose up`"
}

func (e *noBinariesError) Unwrap() error { return ErrNoBinaries }

// FindBinaries locates initdb, pg_ctl and postgres. It first looks at the
// directories of PATH, in order, and takes the first one that holds all three
// programs as executables; then it looks at /usr/lib/postgresql/*/bin, highest
// major version first. Symbolic links are kept as found (pg_ctl and initdb
// resolve them themselves to find their sibling programs). If nothing is found
// the error wraps ErrNoBinaries and its message is a single sentence that
// names the ways out.
func FindBinaries() (Binaries, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue // an empty PATH element means ".", which we do not trust
		}
		if b, ok := binariesIn(dir); ok {
			return b, nil
		}
	}
	for _, dir := range versionDirs(searchRoot) {
		if b, ok := binariesIn(dir); ok {
			return b, nil
		}
	}
	return Binaries{}, &noBinariesError{root: searchRoot}
}

// BinariesIn returns the PostgreSQL programs in dir (the directory that
// holds initdb, pg_ctl and postgres, e.g. /usr/lib/postgresql/16/bin). When
// one is missing the error wraps ErrNoBinaries and names dir.
func BinariesIn(dir string) (Binaries, error) {
	if b, ok := binariesIn(dir); ok {
		return b, nil
	}
	return Binaries{}, fmt.Errorf("%w: %s does not hold the PostgreSQL server programs initdb, pg_ctl and postgres", ErrNoBinaries, dir)
}

// binariesIn reports whether dir holds all three programs as executable
// regular files and returns their absolute paths.
func binariesIn(dir string) (Binaries, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Binaries{}, false
	}
	b := Binaries{
		Dir:      abs,
		Initdb:   filepath.Join(abs, "initdb"),
		PgCtl:    filepath.Join(abs, "pg_ctl"),
		Postgres: filepath.Join(abs, "postgres"),
	}
	for _, p := range []string{b.Initdb, b.PgCtl, b.Postgres} {
		if _, err := exec.LookPath(p); err != nil {
			return Binaries{}, false
		}
	}
	return b, true
}

// versionDirs returns root/*/bin for every subdirectory of root, highest
// version first ("15" before "9.6"; names that are not versions last).
func versionDirs(root string) []string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.SliceStable(names, func(i, j int) bool { return versionLess(names[j], names[i]) })
	dirs := make([]string, 0, len(names))
	for _, n := range names {
		dirs = append(dirs, filepath.Join(root, n, "bin"))
	}
	return dirs
}

// versionLess orders dotted numeric versions numerically; a name that is not
// a version sorts before every version (so it comes last when descending).
func versionLess(a, b string) bool {
	va, okA := parseVersion(a)
	vb, okB := parseVersion(b)
	switch {
	case !okA && !okB:
		return a < b
	case !okA:
		return true
	case !okB:
		return false
	}
	for i := 0; i < len(va) && i < len(vb); i++ {
		if va[i] != vb[i] {
			return va[i] < vb[i]
		}
	}
	return len(va) < len(vb)
}

func parseVersion(s string) ([]int, bool) {
	parts := strings.Split(s, ".")
	v := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		v[i] = n
	}
	return v, true
}
