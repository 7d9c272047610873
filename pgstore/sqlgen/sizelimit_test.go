package sqlgen_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestStringBuildersAreBounded: REPLACE, CONCAT and || refuse, in the
// database and before building it, a string past the 4 MB response limit
// (SQLSTATE Z9413, which pgstore answers with 413/3402), and keep their
// results below it; REPLICATE stays undefined past 10,000 characters, as
// the service's.
func TestStringBuildersAreBounded(t *testing.T) {
	pool := fnDB(t)
	// s1m is a 1,000,000-character string: REPLICATE caps at 10,000, so
	// it is built by a REPLACE of each character of one by 100 others
	const s1m = `REPLACE(REPLICATE("a", 10000), "a", REPLICATE("b", 100))`
	tests := []struct {
		name, query string
		tooLarge    bool
		want        string // the result's length, or "" for undefined
	}{
		{"the issue's REPLACE of 10,000 by 10,000", `SELECT VALUE REPLACE(REPLICATE("a",10000),"a",REPLICATE("b",10000)) FROM c`, true, ""},
		{"REPLACE within the limit", `SELECT VALUE LENGTH(` + s1m + `) FROM c`, false, "1000000"},
		{"REPLACE that shrinks", `SELECT VALUE LENGTH(REPLACE(REPLICATE("ab", 5000), "ab", "c")) FROM c`, false, "5000"},
		{"REPLACE of an undefined", `SELECT VALUE REPLACE(c.missing, "a", "b") FROM c`, false, ""},
		{"CONCAT past the limit", `SELECT VALUE CONCAT(` + strings.Repeat(s1m+", ", 4) + s1m + `) FROM c`, true, ""},
		{"CONCAT within the limit", `SELECT VALUE LENGTH(CONCAT(` + s1m + `, ` + s1m + `, "x")) FROM c`, false, "2000001"},
		{"CONCAT with an undefined", `SELECT VALUE CONCAT("a", c.missing) FROM c`, false, ""},
		{"|| past the limit", `SELECT VALUE ` + strings.Repeat(s1m+" || ", 4) + s1m + ` FROM c`, true, ""},
		{"|| within the limit", `SELECT VALUE LENGTH(c.s || ` + s1m + `) FROM c`, false, "1000003"},
		{"|| with an undefined", `SELECT VALUE c.s || c.missing FROM c`, false, ""},
		{"REPLICATE past 10,000 characters is undefined", `SELECT VALUE REPLICATE("ab", 5001) FROM c`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalQuery(t, pool, tt.query)
			var pe *pgconn.PgError
			if tt.tooLarge {
				if !errors.As(err, &pe) || pe.Code != "Z9413" {
					t.Fatalf("error %v, want SQLSTATE Z9413", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %d results, want undefined", len(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d results, want one", len(got))
			}
			if g, ok := got[0].(float64); !ok || strconv.FormatFloat(g, 'f', -1, 64) != tt.want {
				t.Fatalf("got %v, want %s", got[0], tt.want)
			}
		})
	}
}
