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
		t.Skipf("no conformance queries in %s", conformanceDir)
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
