package cosmosql

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// parseTests maps a query to the String rendering of its AST. Sections:
// clauses, FROM sources, literals, parameters, operators and precedence,
// member access with reserved words, calls, subqueries, case, comments,
// strings that look like injections.
var parseTests = []struct {
	query string
	want  string
}{
	// Clauses.
	{`SELECT * FROM c`, `SELECT * FROM c`},
	{`SELECT VALUE 1`, `SELECT VALUE 1`},
	{`SELECT 1`, `SELECT 1`},
	{`SELECT c.id FROM c`, `SELECT c.id FROM c`},
	{`SELECT c.id AS i, c.name n FROM c`, `SELECT c.id AS i, c.name AS n FROM c`},
	{`SELECT DISTINCT c.a FROM c`, `SELECT DISTINCT c.a FROM c`},
	{`SELECT DISTINCT VALUE c.a FROM c`, `SELECT DISTINCT VALUE c.a FROM c`},
	{`SELECT TOP 10 * FROM c`, `SELECT TOP 10 * FROM c`},
	{`SELECT DISTINCT TOP 5 VALUE c.a FROM c`, `SELECT DISTINCT TOP 5 VALUE c.a FROM c`},
	{`SELECT TOP 0 * FROM c`, `SELECT TOP 0 * FROM c`},
	{`SELECT * FROM c WHERE c.a = 1`, `SELECT * FROM c WHERE (= c.a 1)`},
	{`SELECT c.a FROM c GROUP BY c.a`, `SELECT c.a FROM c GROUP BY c.a`},
	{`SELECT c.a, c.b, COUNT(1) AS n FROM c GROUP BY c.a, c.b`, `SELECT c.a, c.b, (COUNT 1) AS n FROM c GROUP BY c.a, c.b`},
	{`SELECT * FROM c ORDER BY c.a`, `SELECT * FROM c ORDER BY c.a`},
	{`SELECT * FROM c ORDER BY c.a ASC, c.b DESC`, `SELECT * FROM c ORDER BY c.a, c.b DESC`},
	{`SELECT TOP 5 c.x FROM c ORDER BY RANK RRF(FullTextScore(c.t, "a"), VectorDistance(c.v, [1, 2]))`, `SELECT TOP 5 c.x FROM c ORDER BY RANK (RRF (FULLTEXTSCORE c.t "a") (VECTORDISTANCE c.v [1 2]))`},
	{`SELECT * FROM rank ORDER BY rank.x`, `SELECT * FROM rank ORDER BY rank.x`},
	{`SELECT * FROM c OFFSET 10 LIMIT 5`, `SELECT * FROM c OFFSET 10 LIMIT 5`},
	{`SELECT * FROM c WHERE c.a > 1 ORDER BY c.a DESC OFFSET 0 LIMIT 1`, `SELECT * FROM c WHERE (> c.a 1) ORDER BY c.a DESC OFFSET 0 LIMIT 1`},
	{"SELECT\n\t*\r\nFROM\tc", `SELECT * FROM c`},

	// FROM sources.
	{`SELECT * FROM root`, `SELECT * FROM root`},
	{`SELECT * FROM ROOT r`, `SELECT * FROM root AS r`},
	{`SELECT r.id FROM Root r`, `SELECT r.id FROM root AS r`},
	{`SELECT root.id FROM root`, `SELECT root.id FROM root`},
	{`SELECT * FROM products p`, `SELECT * FROM products AS p`},
	{`SELECT * FROM products AS p`, `SELECT * FROM products AS p`},
	{`SELECT * FROM c.children ch`, `SELECT * FROM c.children AS ch`},
	{`SELECT children.x FROM c.children`, `SELECT children.x FROM c.children`},
	{`SELECT * FROM employees.employment e`, `SELECT * FROM employees.employment AS e`},
	{`SELECT * FROM c["a b"] x`, `SELECT * FROM c["a b"] AS x`},
	{`SELECT * FROM c.a[0].b`, `SELECT * FROM c.a[0].b`},
	{`SELECT * FROM c.value`, `SELECT * FROM c.value`},
	{`SELECT t FROM t IN c.tags`, `SELECT t FROM t IN c.tags`},
	{`SELECT c.id, t FROM c JOIN t IN c.tags`, `SELECT c.id, t FROM c JOIN t IN c.tags`},
	{`SELECT c.id FROM c JOIN t IN c.tags JOIN s IN t.sizes WHERE s = "L"`, `SELECT c.id FROM c JOIN t IN c.tags JOIN s IN t.sizes WHERE (= s "L")`},
	{`SELECT c.id FROM c JOIN c.address a`, `SELECT c.id FROM c JOIN c.address AS a`},
	{`SELECT * FROM (SELECT VALUE c.x FROM c) x`, `SELECT * FROM (SELECT VALUE c.x FROM c) AS x`},
	{`SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.x FROM c)`, `SELECT VALUE (COUNT 1) FROM (SELECT DISTINCT VALUE c.x FROM c)`},
	{`SELECT p.id FROM p JOIN (SELECT VALUE t FROM t IN p.tags WHERE t.n > 1) AS tt`, `SELECT p.id FROM p JOIN (SELECT VALUE t FROM t IN p.tags WHERE (> t.n 1)) AS tt`},

	// Literals.
	{`SELECT VALUE [1, 1.5, .5, 1., 1e5, 1E+5, 2.5e-3, 0, 007]`, `SELECT VALUE [1 1.5 0.5 1 100000 100000 0.0025 0 7]`},
	{`SELECT VALUE [0x1F, 0XfF, 0x0]`, `SELECT VALUE [31 255 0]`},
	{`SELECT VALUE -1.5`, `SELECT VALUE (- 1.5)`},
	{`SELECT VALUE 18446744073709551615`, `SELECT VALUE 18446744073709552000`},
	{`SELECT VALUE [1e21, 1e-7, 123456789012]`, `SELECT VALUE [1e+21 1e-07 123456789012]`},
	{`SELECT 0x FROM c`, `SELECT 0 AS x FROM c`},
	{`SELECT 1e FROM c`, `SELECT 1 AS e FROM c`},
	{`SELECT 1.5.x`, `SELECT 1.5.x`},
	{`SELECT VALUE 1..x`, `SELECT VALUE 1.x`},
	{`SELECT VALUE 1e-400`, `SELECT VALUE 0`},
	{`SELECT VALUE ['a', "b", '', ""]`, `SELECT VALUE ["a" "b" "" ""]`},
	{`SELECT VALUE 'it\'s'`, `SELECT VALUE "it's"`},
	{`SELECT VALUE "say \"hi\""`, `SELECT VALUE "say \"hi\""`},
	{`SELECT VALUE 'a"b'`, `SELECT VALUE "a\"b"`},
	{`SELECT VALUE "a'b"`, `SELECT VALUE "a'b"`},
	{`SELECT VALUE '\\ \/ \b \f \n \r \t'`, `SELECT VALUE "\\ / \b \f \n \r \t"`},
	{`SELECT VALUE '\u0041\u00e9\u20AC'`, `SELECT VALUE "Aé€"`},
	{`SELECT VALUE '\uD83D\uDE00'`, `SELECT VALUE "😀"`},
	{`SELECT VALUE '\u0001'`, `SELECT VALUE "\u0001"`},
	{`SELECT VALUE "héllo wörld 日本"`, `SELECT VALUE "héllo wörld 日本"`},
	{`SELECT VALUE [true, false, null, undefined]`, `SELECT VALUE [true false null undefined]`},
	{`SELECT VALUE []`, `SELECT VALUE []`},
	{`SELECT VALUE {}`, `SELECT VALUE {}`},
	{`SELECT VALUE {a: 1, "b c": [2, {d: null}], 'e': 'f'}`, `SELECT VALUE {a:1 "b c":[2 {d:null}] e:"f"}`},
	{`SELECT VALUE {value: 1, select: 2, from: 3}`, `SELECT VALUE {value:1 select:2 from:3}`},
	{`SELECT VALUE {a: 1}.a`, `SELECT VALUE {a:1}.a`},
	{`SELECT VALUE {}.category`, `SELECT VALUE {}.category`},
	{`SELECT VALUE [1, 2][0]`, `SELECT VALUE [1 2][0]`},
	{`SELECT VALUE "abc".length`, `SELECT VALUE "abc".length`},

	// Parameters wherever a literal may stand.
	{`SELECT TOP @n * FROM c`, `SELECT TOP @n * FROM c`},
	{`SELECT * FROM c OFFSET @off LIMIT @lim`, `SELECT * FROM c OFFSET @off LIMIT @lim`},
	{`SELECT VALUE @p`, `SELECT VALUE @p`},
	{`SELECT @a AS a, @b FROM c`, `SELECT @a AS a, @b FROM c`},
	{`SELECT * FROM c WHERE c.a = @a AND c.b IN (@b1, @b2) AND c.n BETWEEN @lo AND @hi`, `SELECT * FROM c WHERE (AND (AND (= c.a @a) (IN c.b @b1 @b2)) (BETWEEN c.n @lo @hi))`},
	{`SELECT * FROM c WHERE c.s LIKE @pat ESCAPE @esc`, `SELECT * FROM c WHERE (LIKE c.s @pat ESCAPE @esc)`},
	{`SELECT VALUE c[@key] FROM c`, `SELECT VALUE c[@key] FROM c`},
	{`SELECT VALUE [@x, {k: @y}, CONCAT(@s, "x")]`, `SELECT VALUE [@x {k:@y} (CONCAT @s "x")]`},
	{`SELECT VALUE @p.a[0]`, `SELECT VALUE @p.a[0]`},
	{`SELECT VALUE @_x1`, `SELECT VALUE @_x1`},

	// Operators.
	{`SELECT VALUE 1 + 2 - 3`, `SELECT VALUE (- (+ 1 2) 3)`},
	{`SELECT VALUE 1 * 2 / 3 % 4`, `SELECT VALUE (% (/ (* 1 2) 3) 4)`},
	{`SELECT VALUE 1 + 2 * 3`, `SELECT VALUE (+ 1 (* 2 3))`},
	{`SELECT VALUE (1 + 2) * 3`, `SELECT VALUE (* (+ 1 2) 3)`},
	{`SELECT VALUE 1 << 2 + 3`, `SELECT VALUE (<< 1 (+ 2 3))`},
	{`SELECT VALUE 1 >> 2 >>> 3`, `SELECT VALUE (>>> (>> 1 2) 3)`},
	{`SELECT VALUE 1 < 2 << 3`, `SELECT VALUE (< 1 (<< 2 3))`},
	{`SELECT VALUE 1 = 2 < 3`, `SELECT VALUE (= 1 (< 2 3))`},
	{`SELECT VALUE 1 < 2 = 2 <= 3`, `SELECT VALUE (= (< 1 2) (<= 2 3))`},
	{`SELECT VALUE 1 > 2 != 3 >= 4`, `SELECT VALUE (!= (> 1 2) (>= 3 4))`},
	{`SELECT VALUE 1 <> 2`, `SELECT VALUE (!= 1 2)`},
	{`SELECT VALUE 1 & 2 = 3`, `SELECT VALUE (& 1 (= 2 3))`},
	{`SELECT VALUE 1 ^ 2 & 3`, `SELECT VALUE (^ 1 (& 2 3))`},
	{`SELECT VALUE 1 | 2 ^ 3`, `SELECT VALUE (| 1 (^ 2 3))`},
	{`SELECT VALUE "a" || "b" | "c"`, `SELECT VALUE (|| "a" (| "b" "c"))`},
	{`SELECT VALUE "a" || "b" || "c"`, `SELECT VALUE (|| (|| "a" "b") "c")`},
	{`SELECT VALUE "a" || "b" = "ab"`, `SELECT VALUE (|| "a" (= "b" "ab"))`},
	{`SELECT VALUE -1 * -2`, `SELECT VALUE (* (- 1) (- 2))`},
	{`SELECT VALUE - - 1`, `SELECT VALUE (- (- 1))`},
	{`SELECT VALUE +1`, `SELECT VALUE (+ 1)`},
	{`SELECT VALUE ~1 & ~2`, `SELECT VALUE (& (~ 1) (~ 2))`},
	{`SELECT VALUE -c.a.b FROM c`, `SELECT VALUE (- c.a.b) FROM c`},
	{`SELECT VALUE 1-1`, `SELECT VALUE (- 1 1)`},
	{`SELECT VALUE 1 - -1`, `SELECT VALUE (- 1 (- 1))`},
	{`SELECT * FROM c WHERE c.a = 1 AND c.b = 2 OR c.c = 3`, `SELECT * FROM c WHERE (OR (AND (= c.a 1) (= c.b 2)) (= c.c 3))`},
	{`SELECT * FROM c WHERE c.a = 1 OR c.b = 2 AND c.c = 3`, `SELECT * FROM c WHERE (OR (= c.a 1) (AND (= c.b 2) (= c.c 3)))`},
	{`SELECT * FROM c WHERE (c.a OR c.b) AND c.c`, `SELECT * FROM c WHERE (AND (OR c.a c.b) c.c)`},
	{`SELECT * FROM c WHERE NOT c.a`, `SELECT * FROM c WHERE (NOT c.a)`},
	{`SELECT * FROM c WHERE NOT NOT c.a`, `SELECT * FROM c WHERE (NOT (NOT c.a))`},
	{`SELECT * FROM c WHERE NOT c.a AND c.b`, `SELECT * FROM c WHERE (AND (NOT c.a) c.b)`},
	{`SELECT * FROM c WHERE c.a AND NOT c.b OR NOT c.c`, `SELECT * FROM c WHERE (OR (AND c.a (NOT c.b)) (NOT c.c))`},
	{`SELECT * FROM c WHERE NOT c.a IN (1, 2)`, `SELECT * FROM c WHERE (NOT (IN c.a 1 2))`},
	{`SELECT * FROM c WHERE NOT (c.a = 1)`, `SELECT * FROM c WHERE (NOT (= c.a 1))`},
	{`SELECT * FROM c WHERE c.a IN (1, "x", null)`, `SELECT * FROM c WHERE (IN c.a 1 "x" null)`},
	{`SELECT * FROM c WHERE c.a NOT IN (1)`, `SELECT * FROM c WHERE (NOT IN c.a 1)`},
	{`SELECT * FROM c WHERE c.a + 1 IN (2, 3 + 1)`, `SELECT * FROM c WHERE (IN (+ c.a 1) 2 (+ 3 1))`},
	{`SELECT * FROM c WHERE c.a BETWEEN 1 AND 5`, `SELECT * FROM c WHERE (BETWEEN c.a 1 5)`},
	{`SELECT * FROM c WHERE c.a NOT BETWEEN 1 AND 5 AND c.b`, `SELECT * FROM c WHERE (AND (NOT BETWEEN c.a 1 5) c.b)`},
	{`SELECT * FROM c WHERE c.a BETWEEN 1 + 1 AND 2 * 3`, `SELECT * FROM c WHERE (BETWEEN c.a (+ 1 1) (* 2 3))`},
	{`SELECT * FROM c WHERE c.s LIKE "a%"`, `SELECT * FROM c WHERE (LIKE c.s "a%")`},
	{`SELECT * FROM c WHERE c.s NOT LIKE "a!%%" ESCAPE "!"`, `SELECT * FROM c WHERE (NOT LIKE c.s "a!%%" ESCAPE "!")`},
	{`SELECT * FROM c WHERE c.s LIKE "a" || "%"`, `SELECT * FROM c WHERE (LIKE c.s (|| "a" "%"))`},
	{`SELECT VALUE c.a ?? c.b FROM c`, `SELECT VALUE (?? c.a c.b) FROM c`},
	{`SELECT VALUE c.a ?? c.b ?? 0 FROM c`, `SELECT VALUE (?? c.a (?? c.b 0)) FROM c`},
	{`SELECT VALUE c.a OR c.b ?? c.c FROM c`, `SELECT VALUE (?? (OR c.a c.b) c.c) FROM c`},
	{`SELECT VALUE c.a ? 1 : 2 FROM c`, `SELECT VALUE (? c.a 1 2) FROM c`},
	{`SELECT VALUE c.a > 1 ? "big" : c.a > 0 ? "small" : "none" FROM c`, `SELECT VALUE (? (> c.a 1) "big" (? (> c.a 0) "small" "none")) FROM c`},
	{`SELECT VALUE c.a ? c.b ? 1 : 2 : 3 FROM c`, `SELECT VALUE (? c.a (? c.b 1 2) 3) FROM c`},
	{`SELECT VALUE c.a AND c.b ? 1 : 2 FROM c`, `SELECT VALUE (? (AND c.a c.b) 1 2) FROM c`},
	{`SELECT VALUE c.a ?? c.b ? 1 : 2 FROM c`, `SELECT VALUE (?? c.a (? c.b 1 2)) FROM c`},
	{`SELECT VALUE (c.a ?? 1) + 1 FROM c`, `SELECT VALUE (+ (?? c.a 1) 1) FROM c`},
	{`SELECT VALUE 1 = NOT c.b FROM c`, `SELECT VALUE (= 1 (NOT c.b)) FROM c`},
	{`SELECT VALUE 1 = NOT c.b AND c.d FROM c`, `SELECT VALUE (AND (= 1 (NOT c.b)) c.d) FROM c`},
	{`SELECT VALUE c.a = 1 ? c.b IN (1) : NOT c.c FROM c`, `SELECT VALUE (? (= c.a 1) (IN c.b 1) (NOT c.c)) FROM c`},

	// Member access with reserved words after '.'.
	{`SELECT c.value, c.select, c.from, c["in"] FROM c`, `SELECT c.value, c.select, c.from, c["in"] FROM c`},
	{`SELECT VALUE c.root.true.null.undefined.not.and FROM c`, `SELECT VALUE c.root.true.null.undefined.not.and FROM c`},
	{`SELECT VALUE c.VALUE FROM c`, `SELECT VALUE c.VALUE FROM c`},
	{`SELECT VALUE c["a-b"]["c"][0][c.i] FROM c`, `SELECT VALUE c["a-b"]["c"][0][c.i] FROM c`},
	{`SELECT VALUE c . a FROM c`, `SELECT VALUE c.a FROM c`},
	{`SELECT VALUE c.tags[1 + 1] FROM c`, `SELECT VALUE c.tags[(+ 1 1)] FROM c`},

	// Calls.
	{`SELECT VALUE ABS(-1)`, `SELECT VALUE (ABS (- 1))`},
	{`SELECT VALUE abs(1)`, `SELECT VALUE (ABS 1)`},
	{`SELECT VALUE DateTimeAdd("yyyy", 1, "2020-07-03T00:00:00.0000000")`, `SELECT VALUE (DATETIMEADD "yyyy" 1 "2020-07-03T00:00:00.0000000")`},
	{`SELECT VALUE PI()`, `SELECT VALUE (PI)`},
	{`SELECT VALUE GetCurrentDateTime ( )`, `SELECT VALUE (GETCURRENTDATETIME)`},
	{`SELECT VALUE ARRAY_CONTAINS(c.tags, {a: 1}, true) FROM c`, `SELECT VALUE (ARRAY_CONTAINS c.tags {a:1} true) FROM c`},
	{`SELECT VALUE REVERSE(REVERSE("x"))`, `SELECT VALUE (REVERSE (REVERSE "x"))`},
	{`SELECT VALUE LEFT("abc", 1) || RIGHT("abc", 1)`, `SELECT VALUE (|| (LEFT "abc" 1) (RIGHT "abc" 1))`},
	{`SELECT VALUE udf.myFunc(c.a, 1) FROM c`, `SELECT VALUE (udf.myFunc c.a 1) FROM c`},
	{`SELECT VALUE UDF.MyFunc()`, `SELECT VALUE (udf.MyFunc)`},
	{`SELECT VALUE udf.select(1)`, `SELECT VALUE (udf.select 1)`},
	{`SELECT COUNT(1) AS n FROM c`, `SELECT (COUNT 1) AS n FROM c`},
	{`SELECT VALUE {n: count(c.id), s: Sum(c.x), a: AVG(c.x), mi: min(c.x), ma: MAX(c.x)} FROM c`, `SELECT VALUE {n:(COUNT c.id) s:(SUM c.x) a:(AVG c.x) mi:(MIN c.x) ma:(MAX c.x)} FROM c`},
	{`SELECT VALUE ST_DISTANCE(c.loc, {"type": "Point", "coordinates": [-122.1, 47.6]}) / 1000 FROM c`, `SELECT VALUE (/ (ST_DISTANCE c.loc {type:"Point" coordinates:[(- 122.1) 47.6]}) 1000) FROM c`},

	// Subqueries.
	{`SELECT VALUE (SELECT VALUE 1)`, `SELECT VALUE (SELECT VALUE 1)`},
	{`SELECT (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c`, `SELECT (SELECT VALUE (COUNT 1) FROM t IN c.tags) AS n FROM c`},
	{`SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.name = c.name)`, `SELECT * FROM c WHERE (EXISTS (SELECT VALUE t FROM t IN c.tags WHERE (= t.name c.name)))`},
	{`SELECT * FROM c WHERE NOT EXISTS (SELECT * FROM t IN c.tags)`, `SELECT * FROM c WHERE (NOT (EXISTS (SELECT * FROM t IN c.tags)))`},
	{`SELECT ARRAY(SELECT VALUE t.name FROM t IN c.tags) AS names FROM c`, `SELECT (ARRAY (SELECT VALUE t.name FROM t IN c.tags)) AS names FROM c`},
	{`SELECT VALUE (SELECT VALUE x FROM x IN c.a).b FROM c`, `SELECT VALUE (SELECT VALUE x FROM x IN c.a).b FROM c`},
	{`SELECT VALUE EXISTS(SELECT undefined)`, `SELECT VALUE (EXISTS (SELECT undefined))`},
	{`SELECT * FROM c WHERE (SELECT VALUE COUNT(1) FROM t IN c.tags) > 1`, `SELECT * FROM c WHERE (> (SELECT VALUE (COUNT 1) FROM t IN c.tags) 1)`},
	{`SELECT * FROM c WHERE EXISTS(SELECT VALUE s FROM t IN c.tags JOIN s IN t.sizes WHERE s = c.size)`, `SELECT * FROM c WHERE (EXISTS (SELECT VALUE s FROM t IN c.tags JOIN s IN t.sizes WHERE (= s c.size)))`},

	// Keywords are case-insensitive; identifiers keep their case.
	{`select * from c where c.a = 1 order by c.a desc`, `SELECT * FROM c WHERE (= c.a 1) ORDER BY c.a DESC`},
	{`SeLeCt DiStInCt ToP 1 VaLuE C.A fRoM C wHeRe C.B BeTwEeN 1 aNd 2`, `SELECT DISTINCT TOP 1 VALUE C.A FROM C WHERE (BETWEEN C.B 1 2)`},
	{`select c.a from c join t in c.t group by c.a`, `SELECT c.a FROM c JOIN t IN c.t GROUP BY c.a`},
	{`select * from c offset 1 limit 2`, `SELECT * FROM c OFFSET 1 LIMIT 2`},
	{`SELECT * FROM c WHERE c.a not in (1) and c.b not like "x" and c.c not between 1 and 2 or not c.d`, `SELECT * FROM c WHERE (OR (AND (AND (NOT IN c.a 1) (NOT LIKE c.b "x")) (NOT BETWEEN c.c 1 2)) (NOT c.d))`},
	{`SELECT VALUE [TRUE, False, NULL, Undefined]`, `SELECT VALUE [true false null undefined]`},
	{`SELECT VALUE exists(select value 1)`, `SELECT VALUE (EXISTS (SELECT VALUE 1))`},
	{`SELECT VALUE array(select value 1)`, `SELECT VALUE (ARRAY (SELECT VALUE 1))`},

	// Comments.
	{"SELECT * FROM c -- trailing comment", `SELECT * FROM c`},
	{"-- leading\nSELECT * FROM c", `SELECT * FROM c`},
	{"SELECT * -- one\n FROM c -- two\r\n WHERE c.a = 1 --", `SELECT * FROM c WHERE (= c.a 1)`},
	{"SELECT VALUE 1--1", `SELECT VALUE 1`},
	{`SELECT VALUE "-- not a comment"`, `SELECT VALUE "-- not a comment"`},
	{`SELECT VALUE '/* not a comment */'`, `SELECT VALUE "/* not a comment */"`},

	// Strings that look like injections are plain literals: \' is the only
	// way to put a quote in a single-quoted string.
	{`SELECT * FROM c WHERE c.name = 'x\'; DROP TABLE c; --'`, `SELECT * FROM c WHERE (= c.name "x'; DROP TABLE c; --")`},
	{`SELECT * FROM c WHERE c.name = "x\" OR 1=1 --"`, `SELECT * FROM c WHERE (= c.name "x\" OR 1=1 --")`},
	{`SELECT * FROM c WHERE c.name = "'; SELECT * FROM c"`, `SELECT * FROM c WHERE (= c.name "'; SELECT * FROM c")`},

	// NaN and Infinity are number literals, unless bound by FROM; a
	// property of that name stays a property.
	{`SELECT VALUE StringToNumber(NaN)`, `SELECT VALUE (STRINGTONUMBER NaN)`},
	{`SELECT VALUE [Infinity, -Infinity]`, `SELECT VALUE [Infinity (- Infinity)]`},
	{`SELECT VALUE NaN.x FROM c NaN`, `SELECT VALUE NaN.x FROM c AS NaN`},
	{`SELECT VALUE c.NaN FROM c WHERE c.Infinity > NaN`, `SELECT VALUE c.NaN FROM c WHERE (> c.Infinity NaN)`},
	{`SELECT VALUE (SELECT VALUE NaN FROM NaN IN c.a) FROM c`, `SELECT VALUE (SELECT VALUE NaN FROM NaN IN c.a) FROM c`},
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range parseTests {
		q, err := Parse(tt.query)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.query, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
}

// TestSQLRoundTrip checks that Query.SQL is accepted by Parse and yields the
// same tree.
func TestSQLRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range parseTests {
		q, err := Parse(tt.query)
		if err != nil {
			continue // reported by TestParse
		}
		checkRoundTrip(t, tt.query, q)
	}
}

func checkRoundTrip(t *testing.T, query string, q *Query) {
	t.Helper()
	sql := q.SQL()
	q2, err := Parse(sql)
	if err != nil {
		t.Errorf("Parse(%q).SQL() = %q does not parse: %v", query, sql, err)
		return
	}
	if got, want := q2.String(), q.String(); got != want {
		t.Errorf("Parse(%q).SQL() = %q\nparses to %s\n     want %s", query, sql, got, want)
	}
}

// errorTests lists rejected queries with the expected code, offending range
// and a fragment of the message.
var errorTests = []struct {
	query      string
	code       string
	start, end Pos
	msg        string
}{
	// Empty.
	{``, CodeEmpty, 0, 0, "end-of-file"},
	{"  \n\t", CodeEmpty, 0, 4, "end-of-file"},
	{"-- only a comment", CodeEmpty, 0, 17, "end-of-file"},

	// Invalid tokens.
	{`SELECT * FROM c;`, CodeInvalidToken, 15, 16, "Syntax error, invalid token ';'."},
	{`SELECT * FROM c ;  `, CodeInvalidToken, 16, 17, "invalid token ';'"},
	{`SELECT 1; SELECT 2`, CodeInvalidToken, 8, 9, "invalid token ';'"},
	{`;`, CodeInvalidToken, 0, 1, "invalid token ';'"},
	{`SELECT c.$x FROM c`, CodeInvalidToken, 9, 10, "invalid token '$'"},
	{`SELECT $1`, CodeInvalidToken, 7, 8, "invalid token '$'"},
	{`SELECT # FROM c`, CodeInvalidToken, 7, 8, "invalid token '#'"},
	{`SELECT !c.a FROM c`, CodeInvalidToken, 7, 8, "invalid token '!'"},
	{`SELECT @ FROM c`, CodeInvalidToken, 7, 8, "invalid token '@'"},
	{`SELECT @1 FROM c`, CodeInvalidToken, 7, 8, "invalid token '@'"},
	{`SELECT "abc FROM c`, CodeInvalidToken, 7, 18, `invalid token '"abc FROM c'`},
	{`SELECT 'abc`, CodeInvalidToken, 7, 11, "invalid token"},
	{`SELECT "a\qb"`, CodeInvalidToken, 7, 11, `invalid token '"a\q'`},
	{`SELECT "a\u12"`, CodeInvalidToken, 7, 14, "invalid token"},
	{"SELECT \"a\nb\"", CodeInvalidToken, 7, 10, "invalid token"},
	{"SELECT \"a\\", CodeInvalidToken, 7, 10, "invalid token"},
	{`SELECT 1e999`, CodeInvalidToken, 7, 12, "invalid token '1e999'"},
	// A lone UTF-16 surrogate escape in a literal: no UTF-8 result can
	// hold it (the emulator's choice, as for a body holding one: no
	// recording of the service's answer exists; it never answers U+FFFD).
	{`SELECT VALUE '\uD83D'`, CodeInvalidToken, 13, 20, `invalid token ''\uD83D'`},
	{`SELECT VALUE '\uDE00x'`, CodeInvalidToken, 13, 20, `invalid token ''\uDE00'`},
	{`SELECT VALUE "a\ud800\u0041"`, CodeInvalidToken, 13, 21, `invalid token '"a\ud800'`},
	{`SELECT 0x` + strings.Repeat("F", 300), CodeInvalidToken, 7, 309, "invalid token"},
	{`SELECT "` + strings.Repeat("x", 200), CodeInvalidToken, 7, 208, `invalid token '"` + strings.Repeat("x", 99) + `...'.`},
	{`SELECT "` + strings.Repeat("é", 100) + `" "x"`, CodeSyntax, 210, 213, `near '"x"'`},
	{`SELECT "x" "` + strings.Repeat("é", 100) + `"`, CodeSyntax, 11, 213, `near '"` + strings.Repeat("é", 49) + `...'.`},
	{`SELECT é FROM c`, CodeInvalidToken, 7, 9, "invalid token 'é'"},
	{"SELECT\f1", CodeInvalidToken, 6, 7, "invalid token"},
	{`SELECT * FROM c WHERE c.a = 1 ; DROP TABLE c`, CodeInvalidToken, 30, 31, "invalid token ';'"},

	// Syntax errors: the token where the grammar fails; at the end of the
	// text, the last token.
	{`SELECT`, CodeSyntax, 0, 6, "Syntax error, incorrect syntax near 'SELECT'."},
	{`SELECT FROM c`, CodeSyntax, 7, 11, "near 'FROM'"},
	{`SELECT * FROM`, CodeSyntax, 9, 13, "near 'FROM'"},
	{`SELECT * FROM c WHERE`, CodeSyntax, 16, 21, "near 'WHERE'"},
	{`SELECT * FROM c WHERE c.a =`, CodeSyntax, 26, 27, "near '='"},
	{`FROM c SELECT *`, CodeSyntax, 0, 4, "near 'FROM'"},
	{`SELECT * FROM c WHERE c.a = 1 c.b = 2`, CodeSyntax, 30, 31, "near 'c'"},
	{`SELECT VALUE * FROM c`, CodeSyntax, 13, 14, "near '*'"},
	{`SELECT *, c.x FROM c`, CodeSyntax, 8, 9, "near ','"},
	{`SELECT c.x, * FROM c`, CodeSyntax, 12, 13, "near '*'"},
	{`SELECT VALUE c.a, c.b FROM c`, CodeSyntax, 16, 17, "near ','"},
	{`SELECT * FROM c OFFSET 1`, CodeSyntax, 23, 24, "near '1'"},
	{`SELECT * FROM c LIMIT 1`, CodeSyntax, 16, 21, "near 'LIMIT'"},
	{`SELECT * FROM c OFFSET -1 LIMIT 1`, CodeSyntax, 23, 24, "near '-'"},
	{`SELECT * FROM c OFFSET 1.5 LIMIT 1`, CodeSyntax, 23, 26, "near '1.5'"},
	{`SELECT TOP 1.5 * FROM c`, CodeSyntax, 11, 14, "near '1.5'"},
	{`SELECT TOP c.x * FROM c`, CodeSyntax, 11, 12, "near 'c'"},
	{`SELECT TOP DISTINCT * FROM c`, CodeSyntax, 11, 19, "near 'DISTINCT'"},
	{`SELECT /* comment */ * FROM c`, CodeSyntax, 7, 8, "near '/'"},
	{`SELECT * FROM c WHERE c.name = 'x''; DROP TABLE c'`, CodeSyntax, 34, 50, `near ''; DROP TABLE c''`},
	{`SELECT 'x''y'`, CodeSyntax, 10, 13, "near ''y''"},
	{`SELECT c.x AS value FROM c`, CodeSyntax, 14, 19, "near 'value'"},
	{`SELECT c.x AS FROM c`, CodeSyntax, 14, 18, "near 'FROM'"},
	{`SELECT * FROM c AS select`, CodeSyntax, 19, 25, "near 'select'"},
	{`SELECT * FROM value`, CodeSyntax, 14, 19, "near 'value'"},
	{`SELECT * FROM c JOIN`, CodeSyntax, 16, 20, "near 'JOIN'"},
	{`SELECT * FROM c.1`, CodeSyntax, 15, 17, "near '.1'"},
	{`SELECT * FROM c[c.x]`, CodeSyntax, 16, 17, "near 'c'"},
	{`SELECT * FROM c[-1]`, CodeSyntax, 16, 17, "near '-'"},
	{`SELECT * FROM 1`, CodeSyntax, 14, 15, "near '1'"},
	{`SELECT * FROM (c)`, CodeSyntax, 15, 16, "near 'c'"},
	{`SELECT * FROM c WHERE c.a IN ()`, CodeSyntax, 30, 31, "near ')'"},
	{`SELECT * FROM c WHERE c.a IN 1`, CodeSyntax, 29, 30, "near '1'"},
	{`SELECT * FROM c WHERE c.a BETWEEN 1 OR 2`, CodeSyntax, 36, 38, "near 'OR'"},
	{`SELECT * FROM c WHERE c.a NOT = 1`, CodeSyntax, 26, 29, "near 'NOT'"},
	{`SELECT * FROM c WHERE c.a == 1`, CodeSyntax, 27, 28, "near '='"},
	{`SELECT VALUE c.a ? 1 FROM c`, CodeSyntax, 21, 25, "near 'FROM'"},
	{`SELECT VALUE (1`, CodeSyntax, 14, 15, "near '1'"},
	{`SELECT VALUE [1, 2`, CodeSyntax, 17, 18, "near '2'"},
	{`SELECT VALUE [1,]`, CodeSyntax, 16, 17, "near ']'"},
	{`SELECT VALUE {a 1}`, CodeSyntax, 16, 17, "near '1'"},
	{`SELECT VALUE {1: 1}`, CodeSyntax, 14, 15, "near '1'"},
	{`SELECT VALUE {a: 1,}`, CodeSyntax, 19, 20, "near '}'"},
	{`SELECT VALUE ABS(1,)`, CodeSyntax, 19, 20, "near ')'"},
	{`SELECT VALUE c.() FROM c`, CodeSyntax, 15, 16, "near '('"},
	{`SELECT VALUE c.foo() FROM c`, CodeSyntax, 18, 19, "near '('"},
	{`SELECT VALUE udf FROM c`, CodeSyntax, 17, 21, "near 'FROM'"},
	{`SELECT VALUE udf.f`, CodeSyntax, 17, 18, "near 'f'"},
	{`SELECT VALUE EXISTS(1)`, CodeSyntax, 20, 21, "near '1'"},
	{`SELECT VALUE ARRAY(c.x) FROM c`, CodeSyntax, 19, 20, "near 'c'"},
	{`SELECT VALUE COUNT(DISTINCT c.x) FROM c`, CodeSyntax, 19, 27, "near 'DISTINCT'"},
	{`SELECT VALUE select`, CodeSyntax, 13, 19, "near 'select'"},
	{`SELECT c.x FROM c ORDER BY RANK`, CodeUnresolvedIdentifier, 27, 31, "RANK"},
	{`SELECT * FROM c GROUP c.a`, CodeSyntax, 22, 23, "near 'c'"},
	{`SELECT * FROM c ORDER c.a`, CodeSyntax, 22, 23, "near 'c'"},
	{`SELECT * FROM c WHERE c.a = 1 WHERE c.b = 2`, CodeSyntax, 30, 35, "near 'WHERE'"},
	{`SELECT * FROM c ORDER BY c.a WHERE c.b = 2`, CodeSyntax, 29, 34, "near 'WHERE'"},
	{`SELECT TOP 1 DISTINCT * FROM c`, CodeSyntax, 13, 21, "near 'DISTINCT'"},
	{`SELECT c.a NOT LIKE FROM c`, CodeSyntax, 20, 24, "near 'FROM'"},

	// Semantic errors.
	{`SELECT d.x FROM c`, CodeUnresolvedIdentifier, 7, 8, "Identifier 'd' could not be resolved."},
	{`SELECT VALUE x`, CodeUnresolvedIdentifier, 13, 14, "Identifier 'x' could not be resolved."},
	{`SELECT C.id FROM c`, CodeUnresolvedIdentifier, 7, 8, "Identifier 'C' could not be resolved."},
	{`SELECT * FROM c WHERE d.x = 1`, CodeUnresolvedIdentifier, 22, 23, "'d'"},
	{`SELECT * FROM c ORDER BY x`, CodeUnresolvedIdentifier, 25, 26, "'x'"},
	{`SELECT c.id FROM c JOIN t IN d.tags`, CodeUnresolvedIdentifier, 29, 30, "'d'"},
	{`SELECT c.id FROM c JOIN t IN t.tags`, CodeUnresolvedIdentifier, 29, 30, "'t'"},
	{`SELECT c.id FROM c JOIN x.y z`, CodeUnresolvedIdentifier, 24, 25, "'x'"},
	{`SELECT c.id AS x FROM c WHERE x = 1`, CodeUnresolvedIdentifier, 30, 31, "'x'"},
	{`SELECT t FROM c`, CodeUnresolvedIdentifier, 7, 8, "'t'"},
	{`SELECT VALUE (SELECT VALUE 1 FROM x IN y.z)`, CodeUnresolvedIdentifier, 39, 40, "'y'"},
	{`SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE u = 1)`, CodeUnresolvedIdentifier, 67, 68, "'u'"},
	{`SELECT VALUE t FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags)`, CodeUnresolvedIdentifier, 13, 14, "'t'"},
	{`SELECT c.x FROM c JOIN (SELECT VALUE 1 FROM z IN q.tags) s`, CodeUnresolvedIdentifier, 49, 50, "'q'"},
	{`SELECT VALUE NAN`, CodeUnresolvedIdentifier, 13, 16, "'NAN'"},
	{`SELECT VALUE {a: 1, a: 2}`, CodeDuplicateProperty, 20, 21, "The object property name 'a' is specified more than once."},
	{`SELECT VALUE {a: 1, "a": 2}`, CodeDuplicateProperty, 20, 23, "'a'"},
	{`SELECT c.id, c.id FROM c`, CodeDuplicateProperty, 13, 17, "The object property name 'id' is specified more than once."},
	{`SELECT c.id, c.x.id FROM c`, CodeDuplicateProperty, 13, 19, "'id'"},
	{`SELECT c.a AS x, c.b AS x FROM c`, CodeDuplicateProperty, 17, 25, "'x'"},
	{`SELECT c.a AS id, c.id FROM c`, CodeDuplicateProperty, 18, 22, "'id'"},
	{`SELECT c["id"], c.id FROM c`, CodeDuplicateProperty, 16, 20, "'id'"},
	{`SELECT 1, 2 AS $1 FROM c`, CodeInvalidToken, 15, 16, "'$'"},
	{`SELECT 1 AS a, c.b.a FROM c`, CodeDuplicateProperty, 15, 20, "'a'"},
	{`SELECT * FROM c JOIN t IN c.tags`, CodeSelectStar, 7, 8, "'SELECT *' is only valid with a single input set."},
	{`SELECT *`, CodeSelectStar, 7, 8, "'SELECT *' is not valid if FROM clause is omitted."},
	{`SELECT * FROM c GROUP BY c.a`, CodeSelectStar, 7, 8, "GROUP BY"},
	{`SELECT * FROM c JOIN c IN c.tags`, CodeDuplicateAlias, 16, 32, "'c'"},
	{`SELECT t FROM c JOIN t IN c.a JOIN t IN c.b`, CodeDuplicateAlias, 30, 43, "'t'"},
	// full-text scoring placement (reference search §A2: codes and texts
	// the service returned for these shapes)
	{`SELECT * FROM c WHERE FullTextScore(c.t, "a") > 1`, CodeFullTextScorePlacement, 22, 45, "The FullTextScore function is only allowed in the ORDER BY RANK clause."},
	{`SELECT FullTextScore(c.t, "a") AS s FROM c`, CodeFullTextScorePlacement, 7, 30, "only allowed in the ORDER BY RANK clause"},
	{`SELECT c.id FROM c ORDER BY FullTextScore(c.t, "a")`, CodeFullTextScorePlacement, 28, 51, "only allowed in the ORDER BY RANK clause"},
	{`SELECT VALUE RRF(VectorDistance(c.v, [1]), VectorDistance(c.w, [1])) FROM c`, CodeUnknownFunction, 13, 68, "'RRF' is not a recognized built-in function name."},
	{`SELECT c.id FROM c ORDER BY RANK RRF(FullTextScore(c.t, "a"))`, CodeRankExpression, 33, 61, "The ORDER BY RANK clause must be followed by a VectorDistance and/or a FullTextScore function call."},
	{`SELECT c.id FROM c ORDER BY RANK c.x`, CodeRankExpression, 33, 36, "must be followed by a VectorDistance"},
	{`SELECT c.id FROM c ORDER BY RANK LOWER(c.x)`, CodeRankExpression, 33, 43, "must be followed by a VectorDistance"},
	{`SELECT c.id FROM c ORDER BY RANK RRF(FullTextScore(c.t, "a"), c.x)`, CodeRankExpression, 33, 66, "must be followed by a VectorDistance"},
	{`SELECT c.id FROM c ORDER BY RANK FullTextScore(c.t, FullTextScore(c.t, "a"))`, CodeFullTextScorePlacement, 52, 75, "only allowed in the ORDER BY RANK clause"},
	{`SELECT * FROM c WHERE COUNT(1) > 1`, CodeAggregatePlacement, 22, 30, "The aggregate function 'COUNT' is not allowed in the WHERE clause."},
	{`SELECT * FROM c WHERE c.a = max(c.b)`, CodeAggregatePlacement, 28, 36, "'MAX'"},
	{`SELECT COUNT(1) FROM c GROUP BY COUNT(1)`, CodeAggregatePlacement, 32, 40, "GROUP BY clause"},
	{`SELECT * FROM c ORDER BY SUM(c.a)`, CodeAggregatePlacement, 25, 33, "ORDER BY clause"},
	{`SELECT VALUE COUNT(SUM(c.a)) FROM c`, CodeNestedAggregate, 19, 27, "aggregate"},
	{`SELECT VALUE {a: MAX(1 + MIN(c.a))} FROM c`, CodeNestedAggregate, 25, 33, "aggregate"},
	{`SELECT COUNT(1) AS n, c.id FROM c`, CodeUngroupedReference, 22, 26, "Property reference 'c.id' is invalid in the select list"},
	{`SELECT VALUE {n: COUNT(1), c: c} FROM c`, CodeUngroupedReference, 30, 31, "'c'"},
	{`SELECT c.b FROM c GROUP BY c.a`, CodeUngroupedReference, 7, 10, "'c.b'"},
	{`SELECT c.a.b FROM c GROUP BY c.a`, CodeUngroupedReference, 7, 12, "'c.a.b'"},
	{`SELECT UPPER(c.b) AS u FROM c GROUP BY c.a`, CodeUngroupedReference, 13, 16, "'c.b'"},
	{`SELECT c.a, COUNT(1) AS n FROM c GROUP BY c.a ORDER BY c.a`, CodeGroupByOrderBy, 46, 51, "ORDER BY is not supported in combination with GROUP BY."},
	{`SELECT c.a FROM c GROUP BY (SELECT VALUE 1)`, CodeInvalidGroupBy, 27, 43, "Subqueries"},
	{`SELECT VALUE 1 FROM c` + strings.Repeat(" JOIN t IN c.x", 2), CodeDuplicateAlias, 36, 49, "'t'"},
	{manyJoins(11), CodeTooManyJoins, Pos(strings.LastIndex(manyJoins(11), "JOIN")), Pos(len(manyJoins(11))), "exceeds the maximum of 10"},
	{nestedJoins, CodeTooManyJoins, Pos(strings.LastIndex(nestedJoins, "JOIN")), Pos(len(nestedJoins) - 1), "exceeds"},
	{manyUDFs, CodeTooManyUDFs, Pos(strings.LastIndex(manyUDFs, "udf")), Pos(strings.LastIndex(manyUDFs, "udf") + 10), "The number of user-defined function references in the query exceeds the maximum of 10."},
}

// manyUDFs has 11 UDF references, the last one in a subquery.
var manyUDFs = "SELECT VALUE [" + strings.Repeat("udf.f(c.a), ", 9) + "udf.g(1)] FROM c WHERE EXISTS(SELECT VALUE 1 FROM t IN c.x WHERE udf.f(t.a))"

// manyJoins returns a query with n JOINs over distinct aliases.
func manyJoins(n int) string {
	q := "SELECT VALUE 1 FROM c"
	for i := range n {
		q += fmt.Sprintf(" JOIN t%d IN c.x", i)
	}
	return q
}

// nestedJoins has 11 JOINs, one in a first subquery, ten in a second.
var nestedJoins = func() string {
	q := "SELECT VALUE 1 FROM c WHERE EXISTS(SELECT VALUE 1 FROM x IN c.x JOIN y IN x.y) AND EXISTS(SELECT VALUE 1 FROM z IN c.x"
	for i := range 10 {
		q += fmt.Sprintf(" JOIN u%d IN z.x", i)
	}
	return q + ")"
}()

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range errorTests {
		q, err := Parse(tt.query)
		if err == nil {
			t.Errorf("Parse(%q) = %s, want error %s", tt.query, q, tt.code)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): error %T is not a *SyntaxError", tt.query, err)
			continue
		}
		if se.Code != tt.code || se.Start != tt.start || se.End != tt.end || !strings.Contains(se.Message, tt.msg) {
			t.Errorf("Parse(%q)\n got %s [%d,%d) %q\nwant %s [%d,%d) containing %q",
				tt.query, se.Code, se.Start, se.End, se.Message, tt.code, tt.start, tt.end, tt.msg)
		}
		if se.Start < 0 || se.End < se.Start || int(se.End) > len(tt.query) {
			t.Errorf("Parse(%q): range [%d,%d) outside the query", tt.query, se.Start, se.End)
		}
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	_, err := Parse("SELECT * FROM c;")
	if got, want := err.Error(), "SC1010: Syntax error, invalid token ';'."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestNotBindsLooserThanComparisonAsDocumented records the NOT precedence
// decision: the documentation's NOT > AND > OR, with NOT below comparisons
// and IN/LIKE/BETWEEN, not the .NET grammar's (NOT c.a) = 1.
func TestNotBindsLooserThanComparisonAsDocumented(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]string{
		`SELECT * FROM c WHERE NOT c.a = 1`:                  `(NOT (= c.a 1))`,
		`SELECT * FROM c WHERE NOT c.a LIKE "x%"`:            `(NOT (LIKE c.a "x%"))`,
		`SELECT * FROM c WHERE NOT c.a BETWEEN 1 AND 2`:      `(NOT (BETWEEN c.a 1 2))`,
		`SELECT * FROM c WHERE NOT c.a = 1 AND c.b = 2`:      `(AND (NOT (= c.a 1)) (= c.b 2))`,
		`SELECT * FROM c WHERE NOT c.a = 1 OR NOT c.b = 2`:   `(OR (NOT (= c.a 1)) (NOT (= c.b 2)))`,
		`SELECT * FROM c WHERE NOT c.a + 1 > 2 * 3`:          `(NOT (> (+ c.a 1) (* 2 3)))`,
		`SELECT * FROM c WHERE NOT (c.a) = 1`:                `(NOT (= c.a 1))`,
		`SELECT * FROM c WHERE (NOT c.a) = false`:            `(= (NOT c.a) false)`,
		`SELECT * FROM c WHERE c.x AND NOT c.a = 1 AND c.b`:  `(AND (AND c.x (NOT (= c.a 1))) c.b)`,
		`SELECT * FROM c WHERE NOT c.a = 1 ? true : false`:   `(? (NOT (= c.a 1)) true false)`,
		`SELECT * FROM c WHERE NOT c.a ?? c.b`:               `(?? (NOT c.a) c.b)`,
		`SELECT * FROM c WHERE c.a = NOT c.b = c.d`:          `(= c.a (NOT (= c.b c.d)))`,
		`SELECT * FROM c WHERE NOT EXISTS(SELECT VALUE 1)`:   `(NOT (EXISTS (SELECT VALUE 1)))`,
		`SELECT * FROM c WHERE NOT IS_DEFINED(c.a) AND c.b`:  `(AND (NOT (IS_DEFINED c.a)) c.b)`,
		`SELECT * FROM c WHERE NOT NOT c.a = 1`:              `(NOT (NOT (= c.a 1)))`,
		`SELECT * FROM c WHERE -c.a = 1`:                     `(= (- c.a) 1)`,
		`SELECT * FROM c WHERE ~c.a & 1 = 0`:                 `(& (~ c.a) (= 1 0))`,
		`SELECT * FROM c WHERE NOT c.a IN (1, 2) AND c.b`:    `(AND (NOT (IN c.a 1 2)) c.b)`,
		`SELECT * FROM c WHERE NOT c.s || "x" LIKE "%x"`:     `(NOT (LIKE (|| c.s "x") "%x"))`,
		`SELECT * FROM c WHERE NOT c.a BETWEEN 1 AND 2 OR 1`: `(OR (NOT (BETWEEN c.a 1 2)) 1)`,
	} {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("Parse(%q): %v", query, err)
			continue
		}
		if got := ExprString(q.Where); got != want {
			t.Errorf("Parse(%q) WHERE = %s, want %s", query, got, want)
		}
	}
}

// TestLiteralKeywordsAreCaseInsensitive records the literal case decision:
// true, false, null, undefined and udf match in any case, like every other
// keyword (the .NET grammar has them lower-case only). They are therefore
// reserved in any case.
func TestLiteralKeywordsAreCaseInsensitive(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]string{
		`SELECT VALUE [true, TRUE, True, tRuE]`:             `[true true true true]`,
		`SELECT VALUE [false, FALSE, False]`:                `[false false false]`,
		`SELECT VALUE [null, NULL, Null]`:                   `[null null null]`,
		`SELECT VALUE [undefined, UNDEFINED, Undefined]`:    `[undefined undefined undefined]`,
		`SELECT VALUE [udf.f(), UDF.f(), Udf.f()]`:          `[(udf.f) (udf.f) (udf.f)]`,
		`SELECT VALUE c.NULL FROM c`:                        `c.NULL`,
		`SELECT VALUE {True: TRUE}`:                         `{True:true}`,
		`SELECT VALUE c.a = NULL OR c.b = Undefined FROM c`: `(OR (= c.a null) (= c.b undefined))`,
	} {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("Parse(%q): %v", query, err)
			continue
		}
		if got := ExprString(q.Select.Value); got != want {
			t.Errorf("Parse(%q) = %s, want %s", query, got, want)
		}
	}
	for _, query := range []string{`SELECT * FROM True`, `SELECT c.x AS Null FROM c`, `SELECT * FROM c JOIN UNDEFINED IN c.x`} {
		if _, err := Parse(query); err == nil {
			t.Errorf("Parse(%q) succeeded; a literal keyword is reserved in any case", query)
		}
	}
}

// TestHexNumbersAreAccepted records that 0x literals (documented, absent
// from the .NET grammar) are numbers.
func TestHexNumbersAreAccepted(t *testing.T) {
	t.Parallel()
	q, err := Parse(`SELECT VALUE [0x1F, 0xff, 0X10, 0x0000000000000001, 0xFFFFFFFFFFFFFFFF]`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ExprString(q.Select.Value), `[31 255 16 1 18446744073709552000]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestDollarIsNotAnIdentifierCharacter records that identifiers are
// [A-Za-z_][A-Za-z0-9_]* as in the reference: '$' is an invalid token even
// though generated output names are "$1", "$2", ...
func TestDollarIsNotAnIdentifierCharacter(t *testing.T) {
	t.Parallel()
	for _, query := range []string{`SELECT $x FROM c`, `SELECT c.$1 FROM c`, `SELECT * FROM $c`, `SELECT c.a AS $1 FROM c`} {
		_, err := Parse(query)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Code != CodeInvalidToken || !strings.Contains(se.Message, "'$'") {
			t.Errorf("Parse(%q) = %v, want invalid token '$'", query, err)
		}
	}
	q, err := Parse(`SELECT c["$1"], c._x_1 FROM c`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(q.Select.OutputNames(), ","), "$1,_x_1"; got != want {
		t.Errorf("OutputNames = %s, want %s", got, want)
	}
}

// TestDepthLimit checks that deep nesting is an error, not a stack overflow,
// and that long flat chains are not limited.
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	deep := []string{
		"SELECT VALUE " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000),
		"SELECT VALUE " + strings.Repeat("[", 100000),
		"SELECT VALUE " + strings.Repeat("{a:", 100000),
		"SELECT VALUE " + strings.Repeat("- ", 100000) + "1",
		"SELECT VALUE " + strings.Repeat("NOT ", 100000) + "true",
		"SELECT VALUE " + strings.Repeat("ABS(", 100000),
		"SELECT VALUE " + strings.Repeat("(SELECT VALUE ", 100000),
		"SELECT VALUE " + strings.Repeat("EXISTS(SELECT VALUE ", 100000),
		"SELECT VALUE 1" + strings.Repeat(" ?? 1", 100000),
		"SELECT VALUE 1" + strings.Repeat(" ? 1 : 1", 100000),
		"SELECT VALUE c" + strings.Repeat("[c", 100000),
		"SELECT * FROM " + strings.Repeat("(SELECT * FROM ", 100000),
	}
	for _, query := range deep {
		_, err := Parse(query)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Code != CodeSyntax || !strings.Contains(se.Message, "nested more than 256 levels") {
			t.Errorf("Parse(%.40q...) = %v, want the nesting error", query, err)
		}
	}
	ok := []string{
		"SELECT VALUE " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200),
		"SELECT * FROM c WHERE c.id = 'x'" + strings.Repeat(" OR c.id = 'x'", 50000),
		"SELECT VALUE 1" + strings.Repeat(" + 1", 50000),
		"SELECT VALUE c" + strings.Repeat(".a", 50000) + " FROM c",
		"SELECT * FROM c WHERE c.id IN (1" + strings.Repeat(", 1", 50000) + ")",
	}
	for _, query := range ok {
		if _, err := Parse(query); err != nil {
			t.Errorf("Parse(%.40q...): %v", query, err)
		}
	}
}

func TestOutputNames(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]string{
		`SELECT "Adventure", "Works"`:                          `$1,$2`,
		`SELECT {a: 1}`:                                        `$1`,
		`SELECT c.address.city, c["zip code"], c FROM c`:       `city,zip code,c`,
		`SELECT 1, c.id, 2, c.x AS y, 3 AS z, 4 FROM c`:        `$1,id,$2,y,z,$3`,
		`SELECT c.tags[0], c.a + 1, UPPER(c.n) FROM c`:         `$1,$2,$3`,
		`SELECT c.a.b AS x, (c.q) FROM c`:                      `x,q`,
		`SELECT {a: 1}.a, [1][0], (SELECT VALUE 1) AS s`:       `a,$1,s`,
		`SELECT c.value, c.select FROM c`:                      `value,select`,
		`SELECT COUNT(1) AS n, c.a FROM c GROUP BY c.a`:        `n,a`,
		`SELECT t, c.id FROM c JOIN t IN c.tags`:               `t,id`,
		`SELECT c[@p], c.x FROM c`:                             `$1,x`,
		`SELECT ARRAY(SELECT VALUE 1), EXISTS(SELECT VALUE 1)`: `$1,$2`,
	} {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("Parse(%q): %v", query, err)
			continue
		}
		if got := strings.Join(q.Select.OutputNames(), ","); got != want {
			t.Errorf("Parse(%q) names = %s, want %s", query, got, want)
		}
	}
	for _, query := range []string{`SELECT * FROM c`, `SELECT VALUE c.x FROM c`} {
		q, err := Parse(query)
		if err != nil {
			t.Fatal(err)
		}
		if names := q.Select.OutputNames(); names != nil {
			t.Errorf("Parse(%q) names = %v, want nil", query, names)
		}
	}
	if got := (SelectItem{Expr: &Literal{Value: 1.0}}).OutputName(7); got != "$7" {
		t.Errorf("OutputName(7) = %q", got)
	}
	if got := (SelectItem{Expr: &Literal{Value: 1.0}, Alias: "a"}).OutputName(7); got != "a" {
		t.Errorf("OutputName with alias = %q", got)
	}
}

func TestDerivedSourceAliases(t *testing.T) {
	t.Parallel()
	q, err := Parse(`SELECT VALUE 1 FROM c JOIN c.children JOIN c["grand kids"] JOIN c.a[0] JOIN t IN c.tags JOIN (SELECT VALUE 1) JOIN (SELECT VALUE 2) s`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range q.From.Sources() {
		got = append(got, s.Alias)
	}
	if want := []string{"c", "children", "grand kids", "", "t", "", "s"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("aliases = %q, want %q", got, want)
	}
	if !q.From.Joins[3].In || q.From.Joins[0].In {
		t.Errorf("In flags wrong: %+v", q.From.Joins)
	}
	if q.From.Joins[4].Subquery == nil || q.From.Joins[4].Expr != nil {
		t.Errorf("subquery source wrong: %+v", q.From.Joins[4])
	}
}

func TestPositions(t *testing.T) {
	t.Parallel()
	const query = `SELECT c.a + 1 AS x, ABS(@p) FROM c JOIN t IN c.tags WHERE NOT t = "x"`
	q, err := Parse(query)
	if err != nil {
		t.Fatal(err)
	}
	at := func(e Expr) string { return query[e.Position():] }
	checks := []struct {
		e    Expr
		want string
	}{
		{q.Select.Items[0].Expr, "c.a + 1"},
		{q.Select.Items[0].Expr.(*Binary).R, "1 AS"},
		{q.Select.Items[1].Expr, "ABS("},
		{q.Select.Items[1].Expr.(*Call).Args[0], "@p)"},
		{q.Where, "NOT t"},
		{q.Where.(*Unary).X, `t = "x"`},
		{q.Where.(*Unary).X.(*Binary).R, `"x"`},
	}
	for _, c := range checks {
		if got := at(c.e); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s at %q, want prefix %q", ExprString(c.e), got, c.want)
		}
	}
	if q.Pos != 0 || query[q.From.Source.Pos:][:1] != "c" || query[q.From.Joins[0].Pos:][:1] != "t" {
		t.Errorf("query/source positions wrong: %d %d %d", q.Pos, q.From.Source.Pos, q.From.Joins[0].Pos)
	}
	sub, err := Parse(`SELECT VALUE EXISTS(SELECT VALUE 1)`)
	if err != nil {
		t.Fatal(err)
	}
	if s := sub.Select.Value.(*Subquery); s.P != 13 || s.Query.Pos != 20 {
		t.Errorf("subquery positions %d %d", s.P, s.Query.Pos)
	}
}

func TestASTShapes(t *testing.T) {
	t.Parallel()
	q, err := Parse(`SELECT VALUE [c.a <> 1, udf.Foo(1), Foo(1), c["k"], c.s NOT LIKE "a" ESCAPE "!", c.x NOT IN (1), c.y NOT BETWEEN 1 AND 2, 'x'] FROM c`)
	if err != nil {
		t.Fatal(err)
	}
	el := q.Select.Value.(*ArrayLit).Elems
	if b := el[0].(*Binary); b.Op != "!=" {
		t.Errorf("<> gives Op %q", b.Op)
	}
	if c := el[1].(*Call); !c.UDF || c.Name != "Foo" {
		t.Errorf("udf call = %+v", c)
	}
	if c := el[2].(*Call); c.UDF || c.Name != "FOO" {
		t.Errorf("call = %+v", c)
	}
	if ix := el[3].(*Index); ix.Index.(*Literal).Value != "k" {
		t.Errorf("index = %+v", ix)
	}
	if l := el[4].(*Like); !l.Not || l.Escape.(*Literal).Value != "!" {
		t.Errorf("like = %+v", l)
	}
	if in := el[5].(*In); !in.Not || len(in.List) != 1 {
		t.Errorf("in = %+v", in)
	}
	if bt := el[6].(*Between); !bt.Not {
		t.Errorf("between = %+v", bt)
	}
	if l := el[7].(*Literal); l.Value != "x" {
		t.Errorf("string = %#v", l.Value)
	}
	lit, err := Parse(`SELECT VALUE [1, "s", true, null, undefined]`)
	if err != nil {
		t.Fatal(err)
	}
	vals := lit.Select.Value.(*ArrayLit).Elems
	if vals[0].(*Literal).Value != 1.0 || vals[1].(*Literal).Value != "s" || vals[2].(*Literal).Value != true ||
		vals[3].(*Literal).Value != nil || vals[4].(*Literal).Value != (Undefined{}) {
		t.Errorf("literal values = %#v %#v %#v %#v %#v", vals[0], vals[1], vals[2], vals[3], vals[4])
	}
	top, err := Parse(`SELECT TOP 3 * FROM c OFFSET 1 LIMIT @l`)
	if err != nil {
		t.Fatal(err)
	}
	if top.Top.(*Literal).Value != 3.0 || top.Offset.(*Literal).Value != 1.0 || top.Limit.(*Param).Name != "@l" {
		t.Errorf("counts = %#v %#v %#v", top.Top, top.Offset, top.Limit)
	}
	root, err := Parse(`SELECT * FROM ROOT`)
	if err != nil {
		t.Fatal(err)
	}
	if id := root.From.Source.Expr.(*Ident); id.Name != "root" || root.From.Source.Alias != "root" {
		t.Errorf("ROOT = %+v alias %q", id, root.From.Source.Alias)
	}
}

func TestSQL(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]string{
		`select * from c where not c.a = 1 and (c.b or c.c) and c.d in (1,2)`:        `SELECT * FROM c WHERE NOT c.a = 1 AND (c.b OR c.c) AND c.d IN (1, 2)`,
		`SELECT VALUE 1 - (2 - 3) - -4 * (5 + 6)`:                                    `SELECT VALUE 1 - (2 - 3) - -4 * (5 + 6)`,
		`SELECT VALUE 1 = NOT c.b = 2 FROM c`:                                        `SELECT VALUE 1 = (NOT c.b = 2) FROM c`,
		`SELECT VALUE (NOT c.a) = 1 FROM c`:                                          `SELECT VALUE (NOT c.a) = 1 FROM c`,
		`SELECT VALUE (c.a ?? c.b) ?? c.c ?? c.d FROM c`:                             `SELECT VALUE (c.a ?? c.b) ?? c.c ?? c.d FROM c`,
		`SELECT VALUE (c.a ? 1 : 2) ? 3 : c.b ? 4 : 5 FROM c`:                        `SELECT VALUE (c.a ? 1 : 2) ? 3 : c.b ? 4 : 5 FROM c`,
		`SELECT VALUE [-(1+2).x, (-1).x, - -1, ~-1, (-c.a).b, -NOT c.a] FROM c`:      `SELECT VALUE [-(1 + 2).x, (-1).x, - -1, ~-1, (-c.a).b, -(NOT c.a)] FROM c`,
		`SELECT VALUE (c.a IN (1)) IN (true) FROM c`:                                 `SELECT VALUE c.a IN (1) IN (true) FROM c`,
		`SELECT VALUE c.a BETWEEN (1 IN (1)) AND 2 FROM c`:                           `SELECT VALUE c.a BETWEEN (1 IN (1)) AND 2 FROM c`,
		`SELECT VALUE c.a & (1 = 2) FROM c`:                                          `SELECT VALUE c.a & 1 = 2 FROM c`,
		`SELECT VALUE (c.a & 1) = 2 FROM c`:                                          `SELECT VALUE (c.a & 1) = 2 FROM c`,
		`SELECT c.value, c["a b"], {'k': 'it\'s'} AS o FROM ROOT c`:                  `SELECT c.value, c["a b"], {"k": "it's"} AS o FROM root AS c`,
		`SELECT TOP @n c.id FROM c JOIN t IN c.tags WHERE udf.f(t) OFFSET 1 LIMIT 2`: `SELECT TOP @n c.id FROM c JOIN t IN c.tags WHERE udf.f(t) OFFSET 1 LIMIT 2`,
		`SELECT VALUE EXISTS(select value 1) AND ARRAY(select value 2) = [2]`:        `SELECT VALUE EXISTS(SELECT VALUE 1) AND ARRAY(SELECT VALUE 2) = [2]`,
	} {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("Parse(%q): %v", query, err)
			continue
		}
		if got := q.SQL(); got != want {
			t.Errorf("Parse(%q).SQL()\n got %s\nwant %s", query, got, want)
		}
		checkRoundTrip(t, query, q)
	}
}

// TestSQLRoundTripOfLongChains checks that flat chains stay flat in SQL,
// so that they parse again however long they are.
func TestSQLRoundTripOfLongChains(t *testing.T) {
	t.Parallel()
	for _, query := range []string{
		"SELECT * FROM c WHERE c.id = 'x'" + strings.Repeat(" OR c.id = 'x'", 1000),
		"SELECT VALUE 1" + strings.Repeat(" - 1", 1000),
		"SELECT VALUE 1" + strings.Repeat(" ?? 1", 200),
		"SELECT VALUE " + strings.Repeat("NOT ", 200) + "true",
		"SELECT VALUE " + strings.Repeat("- ", 200) + "1",
		"SELECT VALUE c" + strings.Repeat(".a[0]", 1000) + " FROM c",
	} {
		q, err := Parse(query)
		if err != nil {
			t.Errorf("Parse(%.40q...): %v", query, err)
			continue
		}
		checkRoundTrip(t, query[:40], q)
	}
}
