package cosmosql

import (
	"os"
	"path/filepath"
	"testing"
)

// conformanceDir holds the query samples shared by the project's
// conformance test (../shared/conformance/ from the repository root).
var conformanceDir = filepath.Join("..", "..", "..", "shared", "conformance", "query-samples")

// conformanceQueries returns the text of every query.sql of the conformance
// samples, keyed by case name; nil if the directory is absent.
func conformanceQueries(tb testing.TB) map[string]string {
	files, err := filepath.Glob(filepath.Join(conformanceDir, "*", "query.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	queries := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		queries[filepath.Base(filepath.Dir(f))] = string(b)
	}
	return queries
}

// TestConformanceQueriesParse parses every sample query of the conformance
// data and checks that its SQL form round-trips.
func TestConformanceQueriesParse(t *testing.T) {
	t.Parallel()
	queries := conformanceQueries(t)
	if len(queries) == 0 {
		missingSharedData(t, "no conformance queries in %s", conformanceDir)
		return
	}
	for name, query := range queries {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("%s: Parse: %v\n%s", name, err, query)
			continue
		}
		checkRoundTrip(t, name, q)
	}
	t.Logf("parsed %d conformance queries", len(queries))
}

// missingSharedData skips a test whose data in ../shared is absent, except
// on CI (CI set), where shared/ is always checked out beside the repository:
// there its absence fails the test instead of passing it silently.
func missingSharedData(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("CI must not skip: "+format, args...)
		return
	}
	tb.Skipf(format, args...)
}

// skipRecorder records what missingSharedData did instead of doing it.
type skipRecorder struct {
	testing.TB
	skipped, failed bool
}

func (r *skipRecorder) Helper()               {}
func (r *skipRecorder) Skipf(string, ...any)  { r.skipped = true }
func (r *skipRecorder) Fatalf(string, ...any) { r.failed = true }

// TestMissingSharedDataFailsOnCI checks that absent conformance data is a
// skip on a developer's machine and a failure on CI.
func TestMissingSharedDataFailsOnCI(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r := &skipRecorder{TB: t}
		missingSharedData(r, "%s is absent", "shared")
		if r.failed != (ci != "") || r.skipped != (ci == "") {
			t.Errorf("CI=%q: failed %v, skipped %v", ci, r.failed, r.skipped)
		}
	}
}
