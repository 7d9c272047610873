package cosmosql

import (
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	t.Parallel()
	q, err := Parse(`SELECT VALUE c.a + ABS(-c.b) FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = @p)`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	Walk(q.Select.Value, func(e Expr) bool {
		got = append(got, ExprString(e))
		return true
	})
	want := []string{"(+ c.a (ABS (- c.b)))", "c.a", "c", "(ABS (- c.b))", "(- c.b)", "c.b", "c"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("Walk visited\n%q\nwant\n%q", got, want)
	}

	// Descends into subqueries, including their FROM container expressions.
	got = nil
	Walk(q.Where, func(e Expr) bool {
		got = append(got, ExprString(e))
		return true
	})
	want = []string{
		"(EXISTS (SELECT VALUE t FROM t IN c.tags WHERE (= t @p)))",
		"t", "c.tags", "c", "(= t @p)", "t", "@p",
	}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("Walk visited\n%q\nwant\n%q", got, want)
	}

	// Returning false prunes the children.
	got = nil
	Walk(q.Select.Value, func(e Expr) bool {
		got = append(got, ExprString(e))
		_, isCall := e.(*Call)
		return !isCall
	})
	want = []string{"(+ c.a (ABS (- c.b)))", "c.a", "c", "(ABS (- c.b))"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("pruned Walk visited\n%q\nwant\n%q", got, want)
	}

	Walk(nil, func(Expr) bool { t.Error("visited nil"); return true })
	WalkQuery(nil, func(Expr) bool { t.Error("visited nil query"); return true })
}

func TestWalkCoversEveryNode(t *testing.T) {
	t.Parallel()
	q, err := Parse(`SELECT DISTINCT TOP @top VALUE [c.a[0] ?? 1, c.b ? {k: 2} : 3, c.s NOT LIKE "x" ESCAPE "!", c.n BETWEEN 4 AND 5, c.i IN (6, 7), udf.f(8), ~9, ARRAY(SELECT VALUE 10)]
		FROM c JOIN (SELECT VALUE 11 FROM z IN c.zs) s WHERE c.w = 12 ORDER BY c.o DESC OFFSET 13 LIMIT @lim`)
	if err != nil {
		t.Fatal(err)
	}
	var nums []string
	var params []string
	WalkQuery(q, func(e Expr) bool {
		switch x := e.(type) {
		case *Literal:
			if _, ok := x.Value.(float64); ok {
				nums = append(nums, ExprString(x))
			}
		case *Param:
			params = append(params, x.Name)
		}
		return true
	})
	if got, want := strings.Join(nums, " "), "0 1 2 3 4 5 6 7 8 9 10 11 12 13"; got != want {
		t.Errorf("numbers visited %s, want %s", got, want)
	}
	if got, want := strings.Join(params, " "), "@top @lim"; got != want {
		t.Errorf("params visited %s, want %s", got, want)
	}
}

func TestIsAggregate(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"COUNT", "count", "Sum", "AVG", "min", "MAX", "MAKELIST", "MakeSet", "makelist", "COUNTIF", "CountIf"} {
		if !IsAggregate(name) {
			t.Errorf("IsAggregate(%q) = false", name)
		}
	}
	for _, name := range []string{"", "ABS", "COUNT_IF", "MAKE_LIST", "SETUNION", "ARRAY_LENGTH", "COUNT_"} {
		if IsAggregate(name) {
			t.Errorf("IsAggregate(%q) = true", name)
		}
	}
}

func TestHasAggregates(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]bool{
		`SELECT VALUE COUNT(1) FROM c`:                                       true,
		`SELECT COUNT(1) AS n FROM c`:                                        true,
		`SELECT VALUE {n: count(1), s: SUM(c.x)} FROM c`:                     true,
		`SELECT c.a, MAX(c.b) AS m FROM c GROUP BY c.a`:                      true,
		`SELECT VALUE 1 + AVG(c.x) FROM c`:                                   true,
		`SELECT c.a FROM c GROUP BY c.a`:                                     false,
		`SELECT * FROM c`:                                                    false,
		`SELECT VALUE ABS(c.x) FROM c`:                                       false,
		`SELECT VALUE udf.COUNT(c.x) FROM c`:                                 false,
		`SELECT (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c`:        false,
		`SELECT VALUE ARRAY(SELECT VALUE MIN(t) FROM t IN c.tags) FROM c`:    false,
		`SELECT * FROM c WHERE (SELECT VALUE COUNT(1) FROM t IN c.tags) > 1`: false,
		`SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.x FROM c)`:      true,
		`SELECT VALUE x FROM (SELECT VALUE COUNT(1) FROM c) x`:               false,
	} {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("Parse(%q): %v", query, err)
			continue
		}
		if got := q.HasAggregates(); got != want {
			t.Errorf("Parse(%q).HasAggregates() = %v, want %v", query, got, want)
		}
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
	expr := func(s string) Expr {
		t.Helper()
		q, err := Parse("SELECT VALUE " + s + " FROM c JOIN t IN c.tags")
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		return q.Select.Value
	}
	same := [][2]string{
		{"c.a", "c . a"},
		{"c.a", `c["a"]`},
		{`c["a"].b[0]`, `c.a["b"][0]`},
		{"1 + 2", "(1)+(2)"},
		{"c.a <> 1", "c.a != 1"},
		{"abs(c.x)", "ABS(c.x)"},
		{"{a: 1, b: [null, true]}", `{"a": 1, 'b': [NULL, TRUE]}`},
		{"c.a NOT IN (1, 2)", "c.a not in (1,2)"},
		{"c.s LIKE 'x' ESCAPE '!'", `c.s LIKE "x" ESCAPE "!"`},
		{"c.n BETWEEN 1 AND 2", "c.n between 1 and 2"},
		{"c.a ? 1 : 2", "c.a ? 1 : 2"},
		{"EXISTS(SELECT VALUE t FROM t IN c.x)", "exists (select value t from t in c.x)"},
		{"NaN", "NaN"},
		{"Infinity", "Infinity"},
		{"@p", "@p"},
		{"0x10", "16"},
	}
	for _, p := range same {
		if !Equal(expr(p[0]), expr(p[1])) {
			t.Errorf("Equal(%s, %s) = false", p[0], p[1])
		}
	}
	different := [][2]string{
		{"c.a", "c.b"},
		{"c.a", "t.a"},
		{"c.a", "c[0]"},
		{`c["0"]`, "c[0]"},
		{"1", `"1"`},
		{"null", "undefined"},
		{"undefined", "NaN"},
		{"NaN", "Infinity"},
		{"Infinity", "-Infinity"},
		{"false", "0"},
		{"1 + 2", "2 + 1"},
		{"c.a IN (1)", "c.a NOT IN (1)"},
		{"c.s LIKE 'x'", "c.s LIKE 'x' ESCAPE '!'"},
		{"ABS(1)", "udf.ABS(1)"},
		{"{a: 1}", "{a: 1, b: 2}"},
		{"[1]", "[1, 2]"},
		{"(SELECT VALUE 1)", "ARRAY(SELECT VALUE 1)"},
		{"-c.a", "~c.a"},
		{"@p", "@q"},
	}
	for _, p := range different {
		if Equal(expr(p[0]), expr(p[1])) {
			t.Errorf("Equal(%s, %s) = true", p[0], p[1])
		}
	}
	if !Equal(nil, nil) || Equal(nil, expr("1")) || Equal(expr("1"), nil) {
		t.Error("Equal with nil is wrong")
	}
}

func TestExprStringNil(t *testing.T) {
	t.Parallel()
	if got := ExprString(nil); got != "<nil>" {
		t.Errorf("ExprString(nil) = %q", got)
	}
	if got := ExprSQL(nil); got != "<nil>" {
		t.Errorf("ExprSQL(nil) = %q", got)
	}
	var q *Query
	if got := q.String(); got != "<nil>" {
		t.Errorf("nil Query String = %q", got)
	}
	if got := (&Binary{Op: "+", L: &Literal{Value: 1.0}, R: &Param{Name: "@x"}}).String(); got != "(+ 1 @x)" {
		t.Errorf("Binary.String = %q", got)
	}
	if got := ExprSQL(&Member{X: &Literal{Value: 1.0}, Name: "a b"}); got != `(1)["a b"]` {
		t.Errorf("ExprSQL = %q", got)
	}
}

func TestRewrite(t *testing.T) {
	t.Parallel()
	// Every number literal is replaced by its successor: Rewrite reaches
	// every expression node but not into the query of a *Subquery.
	tests := []struct{ in, want string }{
		{`SELECT VALUE [c.a[0] ?? 1, c.b ? {k: 2} : 3, c.s NOT LIKE "x" ESCAPE "!", c.n BETWEEN 4 AND 5, c.i IN (6, 7), udf.f(8), ~9, -c.x * 10]`,
			`[c.a[1] ?? 2, c.b ? {"k": 3} : 4, c.s NOT LIKE "x" ESCAPE "!", c.n BETWEEN 5 AND 6, c.i IN (7, 8), udf.f(9), ~10, -c.x * 11]`},
		{`SELECT VALUE ARRAY(SELECT VALUE 10) + 1`, `ARRAY(SELECT VALUE 10) + 2`},
	}
	for _, tt := range tests {
		q, err := Parse(tt.in + " FROM c")
		if err != nil {
			t.Fatal(err)
		}
		got := Rewrite(q.Select.Value, func(e Expr) (Expr, bool) {
			if l, ok := e.(*Literal); ok {
				if f, ok := l.Value.(float64); ok {
					return &Literal{P: l.P, Value: f + 1}, false
				}
			}
			return e, true
		})
		if s := ExprSQL(got); s != tt.want {
			t.Errorf("Rewrite(%s)\n got %s\nwant %s", tt.in, s, tt.want)
		}
	}
	// A replacement's children are not rewritten when fn says so.
	q, _ := Parse(`SELECT VALUE c.a + c.b FROM c`)
	got := Rewrite(q.Select.Value, func(e Expr) (Expr, bool) {
		if m, ok := e.(*Member); ok && m.Name == "a" {
			return &Member{X: &Member{X: m.X, Name: "a"}, Name: "z"}, false
		}
		if m, ok := e.(*Member); ok && m.Name == "b" {
			return &Literal{Value: "B"}, true
		}
		return e, true
	})
	if s := ExprSQL(got); s != `c.a.z + "B"` {
		t.Errorf("Rewrite = %s", s)
	}
	if Rewrite(nil, func(Expr) (Expr, bool) { t.Error("fn called for nil"); return nil, true }) != nil {
		t.Error("Rewrite(nil) != nil")
	}
}
