package sqlgen

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
)

func translateUDF(t *testing.T, query string, batch *UDFBatch) (*Statement, error) {
	t.Helper()
	q, err := cosmosql.Parse(query)
	if err != nil {
		t.Fatalf("parse %q: %v", query, err)
	}
	return Translate(q, Input{Table: "cosmos.items_1", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, SelfPrefix: "dbs/x/colls/y/docs/",
		Live: "TRUE", PageSize: 10, UDF: &UDFStage{Batch: batch}})
}

// TestUDFWhereSplit: the conjuncts of WHERE without UDF calls go to the
// scan statement (with their index terms), those with calls to the
// evaluation statement, which reads the results from the batch.
func TestUDFWhereSplit(t *testing.T) {
	const query = `SELECT c.id, udf.Tax(c.income) AS tax FROM c WHERE c.country = "NL" AND udf.Tax(c.income) > 20000 AND (c.b OR udf.Flag(c.f, 2))`
	q, _ := cosmosql.Parse(query)
	plain, withUDF := SplitWhere(q.Where)
	if len(plain) != 1 || len(withUDF) != 2 {
		t.Fatalf("split %d plain, %d with UDFs; want 1 and 2", len(plain), len(withUDF))
	}
	scan, err := translateUDF(t, query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if scan.Mode != ModeUDFArgs || len(scan.UDFArgs) != 3 || scan.UDFArgs[0] != 1 || scan.UDFArgs[2] != 2 || scan.UDFCols != 4 {
		t.Fatalf("scan: mode %v, args %v / %d columns", scan.Mode, scan.UDFArgs, scan.UDFCols)
	}
	if strings.Contains(scan.SQL, "u.v") || !strings.Contains(scan.SQL, "country") || len(scan.IndexPaths) != 1 || strings.Join(scan.IndexPaths[0], ".") != "country" {
		t.Fatalf("scan statement should filter on country only (with its index) and read no results:\n%s\n%v", scan.SQL, scan.IndexPaths)
	}
	if !strings.Contains(scan.SQL, "LIMIT") {
		t.Fatalf("scan statement without a LIMIT:\n%s", scan.SQL)
	}
	s := "20000"
	ev, err := translateUDF(t, query, &UDFBatch{Seqs: []int64{1}, Results: [][]*string{{&s}, {&s}, {nil}}})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Mode != ModeObject || strings.Contains(ev.SQL, "country") || !strings.Contains(ev.SQL, "u.v1") || !strings.Contains(ev.SQL, "u.v2") ||
		!strings.Contains(ev.SQL, "JOIN unnest(") || strings.Contains(ev.SQL, "LIMIT") {
		t.Fatalf("evaluation statement should evaluate the UDF conjuncts only, over the batch:\n%s", ev.SQL)
	}
	if _, err := translateUDF(t, query, &UDFBatch{Seqs: []int64{1}, Results: [][]*string{{&s}}}); !errors.Is(err, ErrBadCursor) {
		t.Fatalf("a batch without every call's results: %v", err)
	}
}

// TestUDFPlacement: UDF calls where the two statements cannot evaluate
// them are refused with a 400 that says so. ORDER BY on a UDF, GROUP BY,
// DISTINCT and aggregates are refused batch by batch (their order or
// groups span batches) and translate for the whole-set evaluation.
func TestUDFPlacement(t *testing.T) {
	tests := []struct{ query, want string }{
		{`SELECT * FROM c ORDER BY udf.f(c.a)`, "ORDER BY on a user-defined function"},
		{`SELECT VALUE COUNT(1) FROM c WHERE udf.f(c.a)`, "GROUP BY, DISTINCT or aggregates"},
		{`SELECT DISTINCT VALUE udf.f(c.a) FROM c`, "GROUP BY, DISTINCT or aggregates"},
		{`SELECT udf.f(c.a) AS k FROM c GROUP BY udf.f(c.a)`, "GROUP BY, DISTINCT or aggregates"},
		{`SELECT VALUE udf.f(udf.g(c.a)) FROM c`, "in the arguments of another"},
		{`SELECT VALUE ARRAY(SELECT VALUE udf.f(t) FROM t IN c.tags) FROM c`, "inside subqueries"},
		{`SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE udf.f(t))`, "inside subqueries"},
		{`SELECT VALUE s FROM (SELECT VALUE c.a FROM c) s WHERE udf.f(s)`, "FROM subquery"},
	}
	for _, tt := range tests {
		_, err := translateUDF(t, tt.query, nil)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an UnsupportedError about %q", tt.query, err, tt.want)
		}
	}
	for _, query := range []string{
		`SELECT * FROM c ORDER BY udf.f(c.a)`,
		`SELECT VALUE COUNT(1) FROM c WHERE udf.f(c.a)`,
		`SELECT DISTINCT VALUE udf.f(c.a) FROM c`,
		`SELECT udf.f(c.a) AS k FROM c GROUP BY udf.f(c.a)`,
	} {
		q, _ := cosmosql.Parse(query)
		if !NeedsWholeSet(q) {
			t.Errorf("%s: NeedsWholeSet false", query)
		}
		for _, batch := range []*UDFBatch{nil, {Seqs: []int64{1}, Results: make([][]*string, len(UDFCalls(q)))}} {
			if _, err := Translate(q, Input{Table: "cosmos.items_1", Live: "TRUE", PageSize: 10, UDF: &UDFStage{Whole: true, Batch: batch}}); err != nil {
				t.Errorf("%s (whole set, batch %v): %v", query, batch != nil, err)
			}
		}
	}
	// without Input.UDF (metadata queries, scripts) UDF calls are refused
	if _, err := translate(t, `SELECT VALUE udf.f(1)`, nil); err == nil || !strings.Contains(err.Error(), "user-defined functions") {
		t.Fatalf("UDF without a caller: %v", err)
	}
}
