package sqlgen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

// grammarItems are the items of grammarDB, in seq order: names, LIKE
// patterns, prefixes and escapes read per row, and tags to iterate. Items
// 5 and 6 hold a number where a string goes (name, pattern).
var grammarItems = []string{
	`{"id":"1","name":"apple","pattern":"a%","prefix":"ap","esc":"!","tags":["red","green"]}`,
	`{"id":"2","name":"50% off","pattern":"50!%%","prefix":"50","esc":"!","tags":["sale"]}`,
	`{"id":"3","name":"Apple","pattern":"[A-C]pple","prefix":"Ap","tags":[]}`,
	`{"id":"4","name":"banana","pattern":"b_n%","prefix":"ba","tags":["yellow","green","yellow"]}`,
	`{"id":"5","name":42,"pattern":"4%","prefix":4}`,
	`{"id":"6","name":"cherry","pattern":7,"prefix":"ch","tags":"notarray"}`,
}

// grammarDB is a fresh migrated database holding gr_items, an items table
// shaped like a container's, with grammarItems.
func grammarDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, migratedDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE gr_items (pk text NOT NULL, id text NOT NULL, seq bigint NOT NULL, body text NOT NULL,
		doc jsonb GENERATED ALWAYS AS (body::jsonb) STORED, ts bigint NOT NULL, ttl integer, etag text NOT NULL, lsn bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for i, body := range grammarItems {
		if _, err := pool.Exec(ctx, `INSERT INTO gr_items (pk, id, seq, body, ts, etag, lsn) VALUES ($1, $1, $2, $3, 1, 'e', 1)`,
			fmt.Sprint(i+1), i+1, body); err != nil {
			t.Fatal(err)
		}
	}
	return pool
}

// grammarCase is a query over grammarItems and its exact results (JSON
// separated by spaces, in order), read whole and page by page.
type grammarCase struct {
	name, query string
	params      map[string]json.RawMessage
	want        string
}

func runGrammarCases(t *testing.T, pool *pgxpool.Pool, cases []grammarCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{100, 1} {
				pages, err := pageResults(t, pool, "gr_items", tt.query, tt.params, size)
				if err != nil {
					t.Fatalf("page size %d: %v", size, err)
				}
				var got []string
				for _, p := range pages {
					for _, r := range p {
						var b bytes.Buffer
						if err := json.Compact(&b, []byte(r)); err != nil {
							t.Fatalf("result %q: %v", r, err)
						}
						got = append(got, b.String())
					}
				}
				if g := strings.Join(got, " "); g != tt.want {
					t.Errorf("%s (page size %d):\n got %s\nwant %s", tt.query, size, g, tt.want)
				}
			}
		})
	}
}

// TestLikeNonConstantPattern: LIKE with a pattern (and an escape) that
// differs per row: % and _ wildcards, [..] sets, ESCAPE, case-sensitive;
// an operand, pattern or row escape that is not a string (or an escape
// that is not one character) makes the result undefined.
func TestLikeNonConstantPattern(t *testing.T) {
	pool := grammarDB(t)
	runGrammarCases(t, pool, []grammarCase{
		{"row pattern", `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern`, nil, `"1" "3" "4"`},
		{"row pattern, constant escape", `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern ESCAPE '!'`, nil, `"1" "2" "3" "4"`},
		{"row pattern, row escape", `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern ESCAPE c.esc`, nil, `"1" "2"`},
		{"constant pattern, row escape", `SELECT VALUE c.id FROM c WHERE c.name LIKE '50!% off' ESCAPE c.esc`, nil, `"2"`},
		{"CONCAT pattern", `SELECT VALUE c.id FROM c WHERE c.name LIKE CONCAT(c.prefix, '%')`, nil, `"1" "2" "3" "4" "6"`},
		{"CONCAT pattern with escape", `SELECT VALUE c.id FROM c WHERE c.name LIKE CONCAT(c.prefix, '!%%') ESCAPE '!'`, nil, `"2"`},
		{"case-sensitive", `SELECT VALUE c.id FROM c WHERE c.name LIKE LOWER(c.prefix) || '%'`, nil, `"1" "2" "4" "6"`},
		{"NOT LIKE", `SELECT VALUE c.id FROM c WHERE c.name NOT LIKE c.pattern`, nil, `"2"`},
		{"projected", `SELECT c.id, c.name LIKE c.pattern AS m FROM c`, nil,
			`{"id":"1","m":true} {"id":"2","m":false} {"id":"3","m":true} {"id":"4","m":true} {"id":"5"} {"id":"6"}`},
		{"pattern is its own value", `SELECT VALUE c.id FROM c WHERE c.name LIKE c.name`, nil, `"1" "2" "3" "4" "6"`},
		{"non-string parameter", `SELECT VALUE c.id FROM c WHERE c.name LIKE @p`, map[string]json.RawMessage{"@p": json.RawMessage(`5`)}, ``},
		{"non-string literal", `SELECT VALUE c.name LIKE 5 FROM c`, nil, ``},
		{"escape of two characters per row", `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern ESCAPE c.esc || 'x'`, nil, ``},
		{"inside a subquery", `SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.tags WHERE t LIKE '%' || SUBSTRING(c.name, 2, 1) || '%') FROM c`, nil,
			`[] ["sale"] [] ["green"] [] []`}, // "50% off": the pattern "%%%"
	})
}

// TestLikeRegexAgreesWithSQL: cosmos.like_regex (per-row patterns) builds
// exactly the regular expression likeToRegex (constant patterns) builds,
// for hand-picked and random patterns over LIKE's special characters, and
// every one of them compiles.
func TestLikeRegexAgreesWithSQL(t *testing.T) {
	pool := grammarDB(t)
	ctx := context.Background()
	type pe struct{ p, esc string }
	cases := []pe{
		{"abc", ""}, {"a%", ""}, {"_b", ""}, {"[a-f]%", ""}, {"[^x]", ""}, {"100!%", "!"}, {"a.b*", ""},
		{"[%]", ""}, {"[]a]", ""}, {"[^]", ""}, {"[z-a]", ""}, {"[^z-a]", ""}, {"[a-c-e]", ""}, {"[-a]", ""},
		{"[a-]", ""}, {"[", ""}, {"[]", ""}, {"a!", "!"}, {"!!", "!"}, {"!_!%![", "!"}, {`\`, ""}, {`[\]`, ""},
		{"[[:alpha:]]", ""}, {"(?i)a", ""}, {"***:a", ""}, {"é_ü%", ""}, {"[à-ÿ]", ""}, {"$^|{}+?.", ""},
		{"%%", "%"}, {"a%b", "%"}, {"[!%]", "!"}, {"a%%%b%%", ""}, {"%!%%", "!"}, {"%[%]%", ""},
	}
	rnd := rand.New(rand.NewSource(1))
	alphabet := []rune(`%_[]^-!\a.z*é`)
	for i := 0; i < 300; i++ {
		n := rnd.Intn(10)
		rs := make([]rune, n)
		for j := range rs {
			rs[j] = alphabet[rnd.Intn(len(alphabet))]
		}
		esc := ""
		if rnd.Intn(2) == 0 {
			esc = string(alphabet[rnd.Intn(len(alphabet))])
		}
		cases = append(cases, pe{string(rs), esc})
	}
	for _, c := range cases {
		want := sqlgen.LikeToRegex(c.p, c.esc)
		var got string
		var err error
		if c.esc == "" {
			err = pool.QueryRow(ctx, `SELECT cosmos.like_regex($1, NULL, false)`, c.p).Scan(&got)
		} else {
			err = pool.QueryRow(ctx, `SELECT cosmos.like_regex($1, $2, true)`, c.p, c.esc).Scan(&got)
		}
		if err != nil {
			t.Fatalf("like_regex(%q, %q): %v", c.p, c.esc, err)
		}
		if got != want {
			t.Errorf("like_regex(%q, %q) = %q, likeToRegex = %q", c.p, c.esc, got, want)
		}
		var ok bool
		if err := pool.QueryRow(ctx, `SELECT 'x' ~ $1`, got).Scan(&ok); err != nil {
			t.Errorf("regex %q of %q does not compile: %v", got, c.p, err)
		}
	}
}

// TestSelectStarInSubquery: SELECT * in a subquery yields the value of
// its single source, in EXISTS, ARRAY and scalar subqueries, over an
// iteration, a path and a FROM subquery, with DISTINCT and ORDER BY.
func TestSelectStarInSubquery(t *testing.T) {
	pool := grammarDB(t)
	runGrammarCases(t, pool, []grammarCase{
		{"scalar", `SELECT VALUE (SELECT * FROM t IN c.tags) FROM c`, nil, `"red" "sale" "yellow"`},
		{"EXISTS", `SELECT VALUE EXISTS(SELECT * FROM t IN c.tags WHERE t = 'green') FROM c`, nil, `true false false true false false`},
		{"EXISTS in WHERE", `SELECT VALUE c.id FROM c WHERE EXISTS(SELECT * FROM t IN c.tags WHERE t LIKE '%ee%')`, nil, `"1" "4"`},
		{"ARRAY", `SELECT VALUE ARRAY(SELECT * FROM t IN c.tags) FROM c`, nil, `["red","green"] ["sale"] [] ["yellow","green","yellow"] [] []`},
		{"ARRAY DISTINCT", `SELECT VALUE ARRAY(SELECT DISTINCT * FROM t IN c.tags) FROM c WHERE c.id = '4'`, nil, `["yellow","green"]`},
		{"ARRAY ORDER BY", `SELECT c.id, ARRAY(SELECT * FROM t IN c.tags ORDER BY t) AS s FROM c WHERE c.id = '4'`, nil, `{"id":"4","s":["green","yellow","yellow"]}`},
		{"over a path", `SELECT VALUE ARRAY(SELECT * FROM c.tags) FROM c`, nil, `[["red","green"]] [["sale"]] [[]] [["yellow","green","yellow"]] [] ["notarray"]`},
		{"over an aliased path", `SELECT VALUE ARRAY(SELECT * FROM c.name n WHERE IS_STRING(n)) FROM c`, nil, `["apple"] ["50% off"] ["Apple"] ["banana"] [] ["cherry"]`},
		{"over a FROM subquery", `SELECT VALUE ARRAY(SELECT * FROM (SELECT VALUE t FROM t IN c.tags WHERE t != 'green') x) FROM c WHERE c.id = '4'`, nil, `["yellow","yellow"]`},
		{"TOP", `SELECT VALUE ARRAY(SELECT TOP 1 * FROM t IN c.tags) FROM c WHERE c.id IN ('1', '4')`, nil, `["red"] ["yellow"]`},
		{"JOIN subquery", `SELECT VALUE x FROM c JOIN (SELECT * FROM t IN c.tags WHERE t != 'green') x`, nil, `"red" "sale" "yellow" "yellow"`},
		{"inside a FROM subquery", `SELECT VALUE SUM(n) FROM (SELECT VALUE ARRAY_LENGTH(ARRAY(SELECT * FROM t IN c.tags)) FROM c) n`, nil, `6`},
	})
}

// TestSubqueryInFromOfSubquery: a subquery's FROM (and JOIN) may itself be
// a subquery, correlated with the row and with the sources before it,
// nested, with aggregates, DISTINCT, TOP and ORDER BY inside.
func TestSubqueryInFromOfSubquery(t *testing.T) {
	pool := grammarDB(t)
	runGrammarCases(t, pool, []grammarCase{
		{"COUNT over a FROM subquery", `SELECT VALUE (SELECT VALUE COUNT(1) FROM (SELECT VALUE t FROM t IN c.tags) x) FROM c`, nil, `2 1 0 3 0 0`},
		{"DISTINCT inside", `SELECT VALUE ARRAY(SELECT VALUE x FROM (SELECT DISTINCT VALUE t FROM t IN c.tags) x) FROM c WHERE c.id = '4'`, nil, `["yellow","green"]`},
		{"SUM of a projection", `SELECT VALUE (SELECT VALUE SUM(x.l) FROM (SELECT LENGTH(t) AS l FROM t IN c.tags) x) FROM c WHERE c.id IN ('1', '4')`, nil, `8 17`},
		{"TOP and ORDER BY inside", `SELECT VALUE ARRAY(SELECT VALUE x FROM (SELECT TOP 2 VALUE t FROM t IN c.tags ORDER BY t DESC) x) FROM c WHERE c.id = '4'`, nil, `["yellow","yellow"]`},
		{"nested twice", `SELECT VALUE (SELECT VALUE COUNT(1) FROM (SELECT VALUE y FROM (SELECT VALUE t FROM t IN c.tags) y WHERE y != 'green') x) FROM c`, nil, `1 1 0 2 0 0`},
		{"JOIN subquery reading an earlier source", `SELECT VALUE ARRAY(SELECT VALUE [t, u] FROM t IN c.tags JOIN (SELECT VALUE LENGTH(t)) u) FROM c WHERE c.id = '1'`, nil, `[["red",3],["green",5]]`},
		{"JOIN path of an earlier source", `SELECT VALUE ARRAY(SELECT VALUE n FROM t IN c.tags JOIN t n) FROM c WHERE c.id = '1'`, nil, `["red","green"]`},
		{"in WHERE", `SELECT VALUE c.id FROM c WHERE (SELECT VALUE COUNT(1) FROM (SELECT VALUE t FROM t IN c.tags WHERE t = 'yellow') x) = 2`, nil, `"4"`},
	})
}

// maxSubqueryNesting is the deepest nesting of scalar subqueries
// (SELECT VALUE (SELECT VALUE ... c.id ...) FROM c) that cosmosql.Parse
// accepts: its syntax nesting bound, cosmosql.MaxDepth, is the only one.
func maxSubqueryNesting(t *testing.T) int {
	t.Helper()
	n := 1
	for ; n < cosmosql.MaxDepth; n++ {
		if _, err := cosmosql.Parse(nestedScalar(n + 1)); err != nil {
			return n
		}
	}
	t.Fatalf("%d nested subqueries parse", n)
	return n
}

// nestedScalar is SELECT VALUE (SELECT VALUE ...(c.id)...) FROM c WHERE
// c.id = '1' with n subqueries.
func nestedScalar(n int) string {
	return "SELECT VALUE " + strings.Repeat("(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n) + " FROM c WHERE c.id = '1'"
}

// TestDeepSubqueries: subqueries nest as deep as the parser accepts
// (scalar, ARRAY, EXISTS, and FROM subqueries of FROM subqueries), with the
// exact results; one level more is the parser's syntax error.
func TestDeepSubqueries(t *testing.T) {
	pool := grammarDB(t)
	max := maxSubqueryNesting(t)
	if max < 100 {
		t.Fatalf("only %d nested subqueries parse", max)
	}
	arrays := func(n int) string {
		return "SELECT VALUE " + strings.Repeat("ARRAY(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n) + " FROM c WHERE c.id = '1'"
	}
	exists := func(n int) string {
		return "SELECT VALUE " + strings.Repeat("EXISTS(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n) + " FROM c WHERE c.id = '1'"
	}
	froms := func(n int) string {
		q := "(SELECT VALUE t FROM t IN c.tags)"
		for i := 1; i < n; i++ {
			q = fmt.Sprintf("(SELECT VALUE x%d FROM %s x%d)", i, q, i)
		}
		return "SELECT VALUE (SELECT VALUE COUNT(1) FROM " + q + " y) FROM c"
	}
	var cases []grammarCase
	for _, n := range []int{9, 10, 32, max} {
		cases = append(cases,
			grammarCase{fmt.Sprintf("scalar %d", n), nestedScalar(n), nil, `"1"`},
			grammarCase{fmt.Sprintf("EXISTS %d", n), exists(n), nil, `true`})
		if n <= 32 {
			cases = append(cases,
				grammarCase{fmt.Sprintf("ARRAY %d", n), arrays(n), nil, strings.Repeat("[", n) + `"1"` + strings.Repeat("]", n)},
				grammarCase{fmt.Sprintf("FROM %d", n), froms(n), nil, `2 1 0 3 0 0`})
		}
	}
	runGrammarCases(t, pool, cases)
	_, err := cosmosql.Parse(nestedScalar(max + 1))
	var se *cosmosql.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "nested more than") {
		t.Errorf("%d nested subqueries: %v, want the parser's nesting error", max+1, err)
	}
}

// BenchmarkDeepSubqueries runs nested subqueries (scalar, EXISTS and FROM
// subqueries, 8 and 64 deep) over 2,000 items with PostgreSQL's JIT
// compilation off (what pgstore's connections set) and on (PostgreSQL's
// default): the FROM subqueries' estimated cost passes jit_above_cost, and
// compiling their plan costs more than it saves (figures in
// docs/benchmarks.md).
func BenchmarkDeepSubqueries(b *testing.B) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(b)
	s, err := pgstore.Open(ctx, dsn, pgstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE gr_items (pk text NOT NULL, id text NOT NULL, seq bigint NOT NULL, body text NOT NULL,
		doc jsonb GENERATED ALWAYS AS (body::jsonb) STORED, ts bigint NOT NULL, ttl integer, etag text NOT NULL, lsn bigint NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO gr_items (pk, id, seq, body, ts, etag, lsn)
		SELECT i::text, i::text, i, json_build_object('id', i::text, 'tags', json_build_array('a', 'b', i::text))::text, 1, 'e', 1
		FROM generate_series(1, 2000) AS i`); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE gr_items`); err != nil {
		b.Fatal(err)
	}
	froms := func(n int) string {
		q := "(SELECT VALUE t FROM t IN c.tags)"
		for i := 1; i < n; i++ {
			q = fmt.Sprintf("(SELECT VALUE x%d FROM %s x%d)", i, q, i)
		}
		return "SELECT VALUE (SELECT VALUE COUNT(1) FROM " + q + " y) FROM c"
	}
	scalar := func(n int) string {
		return "SELECT VALUE " + strings.Repeat("(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n) + " FROM c"
	}
	exists := func(n int) string {
		return "SELECT VALUE c.id FROM c WHERE " + strings.Repeat("EXISTS(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n)
	}
	for _, jit := range []string{"off", "on"} {
		for _, shape := range []struct {
			name string
			q    func(int) string
		}{{"scalar", scalar}, {"exists", exists}, {"from", froms}} {
			for _, n := range []int{8, 64} {
				q, err := cosmosql.Parse(shape.q(n))
				if err != nil {
					b.Fatal(err)
				}
				st, err := sqlgen.Translate(q, sqlgen.Input{Table: "gr_items", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
					SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 1000})
				if err != nil {
					b.Fatal(err)
				}
				b.Run(fmt.Sprintf("jit=%s/%s%d", jit, shape.name, n), func(b *testing.B) {
					conn, err := pool.Acquire(ctx)
					if err != nil {
						b.Fatal(err)
					}
					defer conn.Release()
					if _, err := conn.Exec(ctx, "SET jit = "+jit); err != nil {
						b.Fatal(err)
					}
					defer conn.Exec(ctx, "RESET jit")
					for b.Loop() {
						rows, err := conn.Query(ctx, st.SQL, st.Args...)
						if err != nil {
							b.Fatal(err)
						}
						n := 0
						for rows.Next() {
							n++
						}
						rows.Close()
						if err := rows.Err(); err != nil || n != 1001 {
							b.Fatalf("%d rows, %v", n, err)
						}
					}
				})
			}
		}
	}
}

// TestNestedSubqueryPlansStayPolynomial: PostgreSQL's plan of nested
// subqueries grows with the nesting like the statement does. A one-row
// subselect that the planner pulls up copies its expression into every
// place that reads it, doubling the plan at each level (32 nested scalar
// subqueries once exhausted the server's memory): EXPLAIN VERBOSE, which
// prints every expression, may grow at most 8 times from 6 to 12 levels
// (its indentation alone makes it quadratic: 4 times), where doubling would
// make it 64 times ($E marks where each level nests).
func TestNestedSubqueryPlansStayPolynomial(t *testing.T) {
	pool := grammarDB(t)
	ctx := context.Background()
	shapes := []string{
		"(SELECT VALUE $E)",
		"EXISTS(SELECT VALUE $E)",
		"ARRAY(SELECT VALUE $E)",
		"(SELECT VALUE y FROM c.name y WHERE IS_DEFINED($E))",
		"(SELECT VALUE COUNT(1) FROM (SELECT VALUE $E) x)",
		"(SELECT * FROM (SELECT VALUE $E) x)",
		"(SELECT VALUE t FROM t IN c.tags WHERE t != $E)",
		"(c.name LIKE $E || '%' ESCAPE c.esc)",
	}
	planSize := func(query string) int {
		q, err := cosmosql.Parse(query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		st, err := sqlgen.Translate(q, sqlgen.Input{Table: "gr_items", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
			SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 100})
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		rows, err := pool.Query(ctx, "EXPLAIN VERBOSE "+st.SQL, st.Args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			n += len(l)
		}
		return n
	}
	for _, shape := range shapes {
		nested := func(depth int) string {
			e := "c.name"
			for i := 0; i < depth; i++ {
				e = strings.Replace(shape, "$E", e, 1)
			}
			return "SELECT VALUE " + e + " FROM c"
		}
		small, large := planSize(nested(6)), planSize(nested(12))
		if large > 8*small {
			t.Errorf("%s: a plan of %d bytes at 6 levels, %d at 12 (%.0f times)", shape, small, large, float64(large)/float64(small))
		}
	}
}
