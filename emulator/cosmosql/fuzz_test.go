package cosmosql

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that errors are *SyntaxError
// with a range inside the query, and that accepted queries survive the
// SQL round trip and the helpers (String, OutputNames, Walk,
// HasAggregates). Seeds: the conformance queries and every table query.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 3m ./emulator/cosmosql/
func FuzzParse(f *testing.F) {
	for _, q := range conformanceQueries(f) {
		f.Add(q)
	}
	for _, tt := range parseTests {
		f.Add(tt.query)
	}
	for _, tt := range errorTests {
		f.Add(tt.query)
	}
	f.Fuzz(func(t *testing.T, query string) {
		q, err := Parse(query)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): error %T %v is not a *SyntaxError", query, err, err)
			}
			if se.Start < 0 || se.End < se.Start || int(se.End) > len(query) {
				t.Fatalf("Parse(%q): range [%d,%d) outside the query", query, se.Start, se.End)
			}
			if se.Code == "" || se.Message == "" || !utf8.ValidString(se.Code) {
				t.Fatalf("Parse(%q): empty code or message: %#v", query, se)
			}
			return
		}
		_ = q.Select.OutputNames()
		_ = q.HasAggregates()
		WalkQuery(q, func(e Expr) bool {
			_ = ExprString(e)
			return true
		})
		sql := q.SQL()
		q2, err := Parse(sql)
		var se *SyntaxError
		if errors.As(err, &se) && strings.Contains(se.Message, "nested more than") {
			return // SQL added parentheses beyond MaxDepth (see Query.SQL)
		}
		if err != nil {
			t.Fatalf("Parse(%q).SQL() = %q does not parse: %v", query, sql, err)
		}
		if got, want := q2.String(), q.String(); got != want {
			t.Fatalf("Parse(%q).SQL() = %q\nparses to %s\n     want %s", query, sql, got, want)
		}
	})
}
