package sqlgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/cosmosql"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/sqlgen"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// fnDoc is the one document of the items table of the tests (seq 13);
// its members are deliberately not in jsonb's key order.
const fnDoc = `{"id":"1","s":"abc","n":5,"dt":"2021-01-08T18:35:00.0000000","arr":[1,2,3],
 "q":{"small":15,"medium":24,"large":2,"xlarge":0},"nested":{"z":[{"b":1,"a":2}],"y":1.50}}`

// fnDB is a fresh database with the migrations applied (through
// pgstore.Open) and a table shaped like a container's items table holding
// fnDoc.
func fnDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool := fnDBAt(t, pgtest.NewDatabase(t))
	if _, err := pool.Exec(ctx, `CREATE TABLE fn_items (pk text NOT NULL, id text NOT NULL, seq bigint NOT NULL, body text NOT NULL,
		doc jsonb GENERATED ALWAYS AS (body::jsonb) STORED, ts bigint NOT NULL, ttl integer, etag text NOT NULL, lsn bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO fn_items (pk, id, seq, body, ts, etag, lsn) VALUES ('1', '1', 13, $1, 1, 'e', 1)`, fnDoc); err != nil {
		t.Fatal(err)
	}
	return pool
}

// fnDBAt applies the migrations to the database dsn (through
// pgstore.Open) and returns a pool on it, closed when t ends.
func fnDBAt(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	s, err := pgstore.Open(ctx, dsn, pgstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// evalQuery runs a query through sqlgen and returns its results (the last
// column of each row is the value).
func evalQuery(t *testing.T, pool *pgxpool.Pool, query string) ([]any, error) {
	t.Helper()
	q, err := cosmosql.Parse(query)
	if err != nil {
		t.Fatalf("parse %s: %v", query, err)
	}
	st, err := sqlgen.Translate(q, sqlgen.Input{Table: "fn_items", CollRID: []byte{1, 2, 3, 4, 5, 6, 7, 8},
		SelfPrefix: "dbs/x/colls/y/docs/", Live: "TRUE", PageSize: 100})
	if err != nil {
		t.Fatalf("translate %s: %v", query, err)
	}
	rows, err := pool.Query(context.Background(), st.SQL, st.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		var v any
		s, _ := vals[len(vals)-1].(string)
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: result %q: %v", query, s, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// fnCase is a query and its expected result: a JSON value, or "" for
// undefined (SELECT VALUE then yields no row).
type fnCase struct{ query, want string }

func runCases(t *testing.T, pool *pgxpool.Pool, cases []fnCase) {
	t.Helper()
	for _, c := range cases {
		got, err := evalQuery(t, pool, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if c.want == "" {
			if len(got) != 0 {
				g, _ := json.Marshal(got[0])
				t.Errorf("%s = %s, want undefined", c.query, g)
			}
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatalf("%s: bad want %s", c.query, c.want)
		}
		if len(got) != 1 {
			t.Errorf("%s: %d results, want %s", c.query, len(got), c.want)
			continue
		}
		if !sameJSON(got[0], want) {
			g, _ := json.Marshal(got[0])
			t.Errorf("%s = %s, want %s", c.query, g, c.want)
		}
	}
}

// sameJSON compares decoded JSON; numbers within 1e-15 relative; arrays in
// order; strings exactly.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.Abs(x-y) <= 1e-15*math.Max(math.Abs(x), math.Abs(y)))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// v is SELECT VALUE without FROM.
func v(expr, want string) fnCase { return fnCase{"SELECT VALUE " + expr, want} }

// d is SELECT VALUE over the items table (one document, fnDoc).
func d(expr, want string) fnCase { return fnCase{"SELECT VALUE " + expr + " FROM c", want} }

// TestFunctions checks the built-in functions against the examples of the
// reference (§6.10) and the edge cases chosen where it is silent.
func TestFunctions(t *testing.T) {
	pool := fnDB(t)
	t.Run("math", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`COT(124.1332)`, `-0.040311998371148884`),
			v(`COT(0)`, ``),
			v(`ATN2(35.175643, 129.44)`, `0.265344532064832`),
			v(`LOG(5)`, `1.6094379124341003`),
			v(`LOG(2, 10)`, `0.30102999566398114`),
			v(`LOG(0)`, ``),
			v(`LOG(8, 1)`, ``),
			v(`LOG(-8, 2)`, ``),
			v(`LOG("8")`, ``),
			v(`NumberBin(37.752, 10)`, `30`),
			v(`NumberBin(37.752, 0.1)`, `37.7`),
			v(`NumberBin(37.752, -100)`, `100`),
			v(`NumberBin(37.752, 0)`, ``),
			v(`NumberBin(37.752)`, `37`),
			v(`NumberBin(-1.5, 1)`, `-2`),
			v(`IS_NUMBER(RAND())`, `true`),
			v(`IS_INTEGER(9223372036854775807)`, `true`),
			v(`IS_INTEGER(-9223372036854775808)`, `true`),
			v(`IS_INTEGER(18446744073709551615)`, `false`),
			v(`IS_INTEGER(3454.123)`, `false`),
			v(`IS_INTEGER(5523432)`, `true`),
			v(`IS_INTEGER("1")`, `false`),
			v(`IS_INTEGER(undefined)`, `false`),
		})
	})
	t.Run("type checks", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`IS_BOOL(true)`, `true`),
			v(`IS_BOOL(1)`, `false`),
			// IS_BOOLEAN, the name the Java SDK's ORDER BY continuations use.
			v(`IS_BOOLEAN(false)`, `true`),
			v(`IS_BOOLEAN("true")`, `false`),
			v(`IS_BOOLEAN(undefined)`, `false`),
		})
	})
	t.Run("integer", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`IntAdd(20, 10)`, `30`),
			v(`IntAdd(20, 0.10)`, ``),
			v(`IntAdd(20, "1")`, ``),
			v(`IntSub(5, 8)`, `-3`),
			v(`IntMul(5, IntMul(5, 5))`, `125`),
			v(`IntMul(5, -2)`, `-10`),
			v(`IntDiv(10, -2)`, `-5`),
			v(`IntDiv(7, 2)`, `3`),
			v(`IntDiv(-7, 2)`, `-3`),
			v(`IntDiv(1, 0)`, ``),
			v(`IntMod(12, 5)`, `2`),
			v(`IntMod(12, -5)`, `2`),
			v(`IntMod(-12, -5)`, `-2`),
			v(`IntMod(15, 5)`, `0`),
			v(`IntMod(12, 0)`, ``),
			v(`IntMod(12, 0.2)`, ``),
			// int64 overflow wraps around
			v(`IntAdd(9223372036854775807, 1)`, `-9223372036854775808`),
			v(`IntMul(4611686018427387904, 2)`, `-9223372036854775808`),
			v(`IntBitAnd(15, 25)`, `9`),
			v(`IntBitOr(56, 100)`, `124`),
			v(`IntBitXor(56, 100)`, `92`),
			v(`IntBitNot(65)`, `-66`),
			v(`IntBitLeftShift(16, 4)`, `256`),
			v(`IntBitRightShift(16, 4)`, `1`),
			v(`IntBitRightShift(-16, 2)`, `-4`),
			v(`IntBitLeftShift(1, 62)`, `4611686018427387904`),
			v(`IntBitAnd(1.5, 1)`, ``),
		})
	})
	t.Run("string", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`INDEX_OF("AdventureWorks", "Works", 5)`, `9`),
			v(`INDEX_OF("AdventureWorks", "Adventure", 5)`, `-1`),
			v(`INDEX_OF("AdventureWorks", "aD")`, `-1`),
			v(`INDEX_OF("abc", "", 1)`, `1`),
			v(`INDEX_OF("abc", "c", 3)`, `-1`),
			v(`INDEX_OF("abc", "c", 1e12)`, `-1`),
			v(`INDEX_OF("abc", "c", -1)`, ``),
			v(`INDEX_OF("abc", "c", 0.5)`, ``),
			v(`LASTINDEXOF("abcabc", "bc")`, `4`),
			v(`LASTINDEXOF("abcabc", "x")`, `-1`),
			v(`TRIM("-_-AdventureWorks-_-", "-_")`, `"AdventureWorks"`),
			v(`TRIM("-- AdventureWorks --", "-")`, `" AdventureWorks "`),
			v(`TRIM("\t x \n")`, `"x"`),
			v(`LTRIM("AdventureWorks", "Adventure")`, `"Works"`),
			v(`LTRIM("AdventureWorks", "")`, `"AdventureWorks"`),
			v(`LTRIM("  a  ")`, `"a  "`),
			v(`RTRIM("AdventureWorks", "Works")`, `"Adventure"`),
			v(`RTRIM("  a \t")`, `"  a"`),
			v(`TRIM("a", 1)`, ``),
			v(`REPLICATE("Cosmic", 3)`, `"CosmicCosmicCosmic"`),
			v(`REPLICATE("a", -1)`, ``),
			v(`REPLICATE("a", 1.5)`, ``),
			v(`REPLICATE("a", 10000) = REPLICATE("a", 10000)`, `true`),
			v(`REPLICATE("a", 10001)`, ``),
			v(`REPLICATE("ab", 0)`, `""`),
			v(`REPLICATE("", 100000)`, `""`),
			v(`REPLICATE("a", 1e12)`, ``),
			v(`TOSTRING(125)`, `"125"`),
			v(`TOSTRING(0.1234)`, `"0.1234"`),
			v(`TOSTRING(false)`, `"false"`),
			v(`TOSTRING(null)`, `"null"`),
			v(`TOSTRING([1, 2, 3])`, `"[1,2,3]"`),
			v(`TOSTRING({"department": "Bicycles"})`, `"{\"department\":\"Bicycles\"}"`),
			v(`TOSTRING({"a": [1.5, "q\"", null, {"b": true}]})`, `"{\"a\":[1.5,\"q\\\"\",null,{\"b\":true}]}"`),
			v(`TOSTRING("x")`, `"x"`),
			v(`TOSTRING(undefined)`, ``),
			v(`TOSTRING(0.1 + 0.2)`, `"0.30000000000000004"`),
			v(`TOSTRING(1e21)`, `"1e+21"`),
			v(`TOSTRING(1e20)`, `"100000000000000000000"`),
			v(`TOSTRING(0.000001)`, `"0.000001"`),
			v(`TOSTRING(1e-7)`, `"1e-7"`),
			v(`TOSTRING(-1.5e-10)`, `"-1.5e-10"`),
			v(`TOSTRING(-0)`, `"0"`),
			v(`STRINGTONUMBER("100")`, `100`),
			v(`STRINGTONUMBER("   60   ")`, `60`),
			v(`STRINGTONUMBER("-1.79769e+308")`, `-1.79769e+308`),
			v(`STRINGTONUMBER("Hello")`, ``),
			v(`STRINGTONUMBER("1e400")`, ``),
			v(`STRINGTONUMBER("01")`, ``),
			v(`STRINGTONUMBER("0x1F")`, ``),
			v(`STRINGTONUMBER("[1]")`, ``),
			v(`STRINGTONUMBER(5)`, ``),
			v(`STRINGTOBOOLEAN("true")`, `true`),
			v(`STRINGTOBOOLEAN("  false  ")`, `false`),
			v(`STRINGTOBOOLEAN("TRUE")`, ``),
			v(`STRINGTOBOOLEAN("1")`, ``),
			v(`STRINGTONULL("null")`, `null`),
			v(`STRINGTONULL("  null  ")`, `null`),
			v(`STRINGTONULL("NULL")`, ``),
			v(`STRINGTONULL("Null")`, ``),
			v(`STRINGTONULL(null)`, ``),
			v(`STRINGTOARRAY('[ "coats", "gloves" ]')`, `["coats", "gloves"]`),
			v(`STRINGTOARRAY("[ 'coats', 'gloves' ]")`, ``),
			v(`STRINGTOARRAY("[1,]")`, ``),
			v(`STRINGTOARRAY("{}")`, ``),
			v(`STRINGTOOBJECT('{"a": [1, {"b": null}]}')`, `{"a": [1, {"b": null}]}`),
			v(`STRINGTOOBJECT("{'a': 1}")`, ``),
			v(`STRINGTOOBJECT("[1]")`, ``),
			v(`STRINGJOIN(["a", "b", "c"], ", ")`, `"a, b, c"`),
			v(`STRINGJOIN([], "-")`, `""`),
			v(`STRINGJOIN(["a", 1], "-")`, ``),
			v(`STRINGJOIN("a", "-")`, ``),
			v(`STRINGSPLIT("a,b,,c", ",")`, `["a", "b", "", "c"]`),
			v(`STRINGSPLIT("", ",")`, `[""]`),
			v(`STRINGSPLIT("abc", "")`, `["abc"]`),
			v(`STRINGSPLIT("abc", 1)`, ``),
		})
	})
	t.Run("regexmatch", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			v(`RegexMatch("abcd", "ABC")`, `false`),
			v(`RegexMatch("abcd", "ABC", "i")`, `true`),
			v(`RegexMatch("abcd", "ab.", "")`, `true`),
			v(`RegexMatch("abcd", "ab c", "x")`, `true`),
			v(`RegexMatch("abcd", "aB c", "ix")`, `true`),
			v(`RegexMatch("03a", "[0-9]")`, `true`),
			v(`RegexMatch("salt3824908", "salt{1}")`, `true`),
			v(`RegexMatch("shame", "s....", "i")`, `true`),
			v(`RegexMatch("a\nb", "a.b")`, `false`),
			v(`RegexMatch("a\nb", "a.b", "s")`, `true`),
			v(`RegexMatch("a\nb", "^b$")`, `false`),
			v(`RegexMatch("a\nb", "^b$", "m")`, `true`),
			v(`RegexMatch("a\nb", "^b$.", "ms")`, `false`),
			v(`RegexMatch("hello world", "\\bworld\\b")`, `true`),
			v(`RegexMatch("helloworld", "\\bworld")`, `false`),
			v(`RegexMatch("a-b", "[\\b-]")`, `true`),
			v(`RegexMatch("2021-01", "(?<year>\\d{4})-(?P<m>\\d\\d)")`, `true`),
			v(`RegexMatch("abc", "b", "q")`, ``),
			v(`RegexMatch("abc", 1)`, ``),
			v(`RegexMatch(1, "1")`, ``),
		})
	})
	t.Run("array", func(t *testing.T) {
		const fruits = `["apples", "strawberries", "bananas"]`
		runCases(t, pool, []fnCase{
			v(`ARRAY_SLICE(`+fruits+`, 1)`, `["strawberries", "bananas"]`),
			v(`ARRAY_SLICE(`+fruits+`, 1, 1)`, `["strawberries"]`),
			v(`ARRAY_SLICE(`+fruits+`, -2, 1)`, `["strawberries"]`),
			v(`ARRAY_SLICE(`+fruits+`, -2, 2)`, `["strawberries", "bananas"]`),
			v(`ARRAY_SLICE(`+fruits+`, 1, 0)`, `[]`),
			v(`ARRAY_SLICE(`+fruits+`, 1, 1000)`, `["strawberries", "bananas"]`),
			v(`ARRAY_SLICE(`+fruits+`, 1, -100)`, `[]`),
			v(`ARRAY_SLICE(`+fruits+`, 10)`, `[]`),
			v(`ARRAY_SLICE(`+fruits+`, -100)`, fruits),
			v(`ARRAY_SLICE([1, 2, 3, 4, 5, 90, 82], -2, 1)`, `[90]`),
			v(`ARRAY_SLICE("abc", 1)`, ``),
			v(`ARRAY_SLICE(`+fruits+`, 0.5)`, ``),
			v(`ARRAY_CONCAT(["A", "B"], ["C"], [1])`, `["A", "B", "C", 1]`),
			v(`ARRAY_CONCAT([1], "x")`, ``),
			v(`ARRAY_CONTAINS_ANY([1, true, "3", [1, 2, 3]], 2, true)`, `true`),
			v(`ARRAY_CONTAINS_ANY([1, 2], 3, 4)`, `false`),
			v(`ARRAY_CONTAINS_ANY([1], undefined)`, ``),
			v(`ARRAY_CONTAINS_ALL([1, true, "3", [1, 2, 3]], 1, true, "3", [1, 2, 3])`, `true`),
			v(`ARRAY_CONTAINS_ALL([1, 2], 1, 3)`, `false`),
			v(`ARRAY_CONTAINS_ALL({"a": 1}, 1)`, ``),
			v(`SETINTERSECT([1, 2, "A", "B"], ["A", 1])`, `["A", 1]`),
			v(`SETINTERSECT([1, 2, 3, 4], [1, 1, 1, 1])`, `[1]`),
			v(`SETINTERSECT([1], 1)`, ``),
			v(`SETUNION([1, 2, "A", "B"], ["A", 1])`, `[1, 2, "A", "B"]`),
			v(`SETUNION([1, 2, 3, 4], [3, 4, 5, 6])`, `[1, 2, 3, 4, 5, 6]`),
			v(`SETUNION([1, 1, {"a": 1}], [{"a": 1}])`, `[1, {"a": 1}]`),
			v(`CHOOSE(1, "abc", 1, true, [1])`, `"abc"`),
			v(`CHOOSE(4, "abc", 1, true, [1])`, `[1]`),
			v(`CHOOSE(0, "abc", 1)`, ``),
			v(`CHOOSE(3, "abc", 1)`, ``),
			v(`CHOOSE("1", "abc")`, ``),
			v(`OBJECTTOARRAY({"a": "1", "b": "2"})`, `[{"k": "a", "v": "1"}, {"k": "b", "v": "2"}]`),
			v(`OBJECTTOARRAY({"a": "1"}, "key", "value")`, `[{"key": "a", "value": "1"}]`),
			v(`OBJECTTOARRAY({})`, `[]`),
			v(`OBJECTTOARRAY([1])`, ``),
			v(`OBJECTTOARRAY({"a": 1}, 1)`, ``),
		})
	})
	t.Run("datetime", func(t *testing.T) {
		const dt = `"2020-07-03T00:00:00.0000000"`
		runCases(t, pool, []fnCase{
			v(`DateTimeAdd("mm", 1, `+dt+`)`, `"2020-08-03T00:00:00.0000000Z"`),
			v(`DateTimeAdd("yyyy", 1, `+dt+`)`, `"2021-07-03T00:00:00.0000000Z"`),
			v(`DateTimeAdd("yyyy", -1, `+dt+`)`, `"2019-07-03T00:00:00.0000000Z"`),
			v(`DateTimeAdd("dd", -1, `+dt+`)`, `"2020-07-02T00:00:00.0000000Z"`),
			v(`DateTimeAdd("hh", -1, `+dt+`)`, `"2020-07-02T23:00:00.0000000Z"`),
			v(`DateTimeAdd("ss", 5 * -5, `+dt+`)`, `"2020-07-02T23:59:35.0000000Z"`),
			v(`DateTimeAdd("ms", 1, `+dt+`)`, `"2020-07-03T00:00:00.0010000Z"`),
			v(`DateTimeAdd("mcs", 1, `+dt+`)`, `"2020-07-03T00:00:00.0000010Z"`),
			v(`DateTimeAdd("ns", 100, `+dt+`)`, `"2020-07-03T00:00:00.0000001Z"`),
			v(`DateTimeAdd("month", 1, "2020-01-31T10:00:00Z")`, `"2020-02-29T10:00:00.0000000Z"`),
			v(`DateTimeAdd("m", 13, "2020-01-31T10:00:00.5")`, `"2021-02-28T10:00:00.5000000Z"`),
			v(`DateTimeAdd("dd", 1.5, `+dt+`)`, ``),
			v(`DateTimeAdd("xx", 1, `+dt+`)`, ``),
			v(`DateTimeAdd("dd", 1, "2020-13-01T00:00:00")`, ``),
			v(`DateTimeAdd("dd", 1, "2020-07-03")`, ``),
			v(`DateTimeAdd("yyyy", 8000, `+dt+`)`, ``),
			v(`DateTimeAdd("dd", 1e300, `+dt+`)`, ``),
			v(`DateTimeDiff("yyyy", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `1`),
			v(`DateTimeDiff("mm", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `11`),
			v(`DateTimeDiff("dd", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `336`),
			v(`DateTimeDiff("hh", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `8075`),
			v(`DateTimeDiff("ss", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `29070000`),
			v(`DateTimeDiff("dd", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-336`),
			v(`DateTimeDiff("mm", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-11`),
			v(`DateTimeDiff("dd", "2020-01-01T23:59:59", "2020-01-02T00:00:00")`, `1`),
			v(`DateTimeDiff("ms", "1969-12-31T23:59:59.9999", "1970-01-01T00:00:00")`, `1`),
			v(`DateTimeDiff("ns", "2020-01-01T00:00:00", "2020-01-01T00:00:00.0000001")`, `100`),
			v(`DateTimeDiff("dd", "x", "2020-01-01T00:00:00")`, ``),
			v(`DateTimePart("yyyy", "2016-05-29T08:30:00.1301617")`, `2016`),
			v(`DateTimePart("mm", "2016-05-29T08:30:00.1301617")`, `5`),
			v(`DateTimePart("dd", "2016-05-29T08:30:00.1301617")`, `29`),
			v(`DateTimePart("hh", "2016-05-29T08:30:00.1301617")`, `8`),
			v(`DateTimePart("mi", "2016-05-29T08:30:00.1301617")`, `30`),
			v(`DateTimePart("ss", "2016-05-29T08:30:00.1301617")`, `0`),
			v(`DateTimePart("ms", "2016-05-29T08:30:00.1301617")`, `130`),
			v(`DateTimePart("mcs", "2016-05-29T08:30:00.1301617")`, `130161`),
			v(`DateTimePart("ns", "2016-05-29T08:30:00.1301617")`, `130161700`),
			v(`DateTimePart("yy", "1601-01-01T00:00:00Z")`, `1601`),
			v(`DateTimePart("week", "2016-05-29T08:30:00")`, ``),
			v(`DateTimeFromParts(2017, 4, 20)`, `"2017-04-20T00:00:00.0000000Z"`),
			v(`DateTimeFromParts(2017, 4, 20, 13, 15, 20, 3456789)`, `"2017-04-20T13:15:20.3456789Z"`),
			v(`DateTimeFromParts(2017, 4, 20, 13, 15)`, `"2017-04-20T13:15:00.0000000Z"`),
			v(`DateTimeFromParts(-2000, -1, -1)`, ``),
			v(`DateTimeFromParts(2017, 2, 29)`, ``),
			v(`DateTimeFromParts(2016, 2, 29)`, `"2016-02-29T00:00:00.0000000Z"`),
			v(`DateTimeFromParts(2017, 4, 20.5)`, ``),
			v(`DateTimeFromParts(2017, 4, 20, 24)`, ``),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "dd")`, `"2021-01-08T00:00:00.0000000Z"`),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "hh")`, `"2021-01-08T18:00:00.0000000Z"`),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "hh", 5)`, `"2021-01-08T15:00:00.0000000Z"`),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 7)`, `"2021-01-07T00:00:00.0000000Z"`),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 7, "1601-01-01T00:00:00.0000000")`, `"2021-01-04T00:00:00.0000000Z"`),
			v(`DateTimeBin("1960-01-08T18:35:00.0000000", "dd")`, `"1960-01-08T00:00:00.0000000Z"`),
			v(`DateTimeBin("2021-01-08T18:35:00.1234567", "ms", 250)`, `"2021-01-08T18:35:00.0000000Z"`),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "hh", 0)`, ``),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "hh", -1)`, ``),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "yyyy")`, ``),
			v(`DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 1, "x")`, ``),
			v(`DateTimeToTicks("2015-05-19T12:00:00.0000000")`, `14320368000000000`),
			v(`DateTimeToTimestamp("2015-05-19T12:00:00.0000000")`, `1432036800000`),
			v(`DateTimeToTimestamp("2015-05-19")`, ``),
			v(`TicksToDateTime(15973607943002652)`, `"2020-08-13T23:19:54.3002652Z"`),
			v(`TicksToDateTime(0)`, `"1970-01-01T00:00:00.0000000Z"`),
			v(`TicksToDateTime(-116444736000000000)`, `"1601-01-01T00:00:00.0000000Z"`),
			v(`TicksToDateTime(1e20)`, ``),
			v(`TicksToDateTime("0")`, ``),
			v(`TimestampToDateTime(1597360794300)`, `"2020-08-13T23:19:54.3000000Z"`),
			v(`TimestampToDateTime(-11644473600000)`, `"1601-01-01T00:00:00.0000000Z"`),
			v(`TimestampToDateTime(253402300800000)`, ``),
			v(`ABS(GetCurrentTimestamp() - DateTimeToTimestamp(GetCurrentDateTime())) < 5000`, `true`),
			v(`ABS(GetCurrentTicks() / 10000 - GetCurrentTimestampStatic()) < 5000`, `true`),
			v(`GetCurrentDateTimeStatic() = TicksToDateTime(GetCurrentTicksStatic())`, `true`),
		})
		got, err := evalQuery(t, pool, `SELECT VALUE GetCurrentDateTime()`)
		if err != nil || len(got) != 1 {
			t.Fatalf("GetCurrentDateTime(): %v %v", got, err)
		}
		if s, _ := got[0].(string); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$`).MatchString(s) {
			t.Errorf("GetCurrentDateTime() = %v", got[0])
		}
	})
	t.Run("document", func(t *testing.T) {
		runCases(t, pool, []fnCase{
			// members of the stored document keep their order
			d(`ObjectToArray(c.q, "size", "quantity")`, `[{"size": "small", "quantity": 15}, {"size": "medium", "quantity": 24},
				{"size": "large", "quantity": 2}, {"size": "xlarge", "quantity": 0}]`),
			d(`ObjectToArray(c["q"])[0].k`, `"small"`),
			d(`ToString(c.q)`, `"{\"small\":15,\"medium\":24,\"large\":2,\"xlarge\":0}"`),
			d(`ToString(c.nested)`, `"{\"z\":[{\"b\":1,\"a\":2}],\"y\":1.5}"`),
			d(`ToString(c.nested.z[0])`, `"{\"b\":1,\"a\":2}"`),
			d(`DocumentId(c)`, `13`),
			// guarded casts: constants that would raise if cast unguarded
			d(`REPLICATE(c.s, 1e12)`, ``),
			d(`LEFT(c.s, 1e12)`, `"abc"`),
			d(`SUBSTRING(c.s, -1e12, 1e12)`, `"abc"`),
			d(`INDEX_OF(c.s, "a", 1e12)`, `-1`),
			d(`IntDiv(c.n, 0)`, ``),
			d(`IntAdd(c.n, 1e300)`, ``),
			d(`NumberBin(c.n, 0)`, ``),
			d(`LOG(c.n, 1)`, ``),
			d(`LOG(-1, c.n)`, ``),
			d(`DateTimeFromParts(c.n, 13, 1)`, ``),
			d(`DateTimeBin(c.dt, "hh", 0)`, ``),
			d(`DateTimeBin(c.dt, "hh", 5)`, `"2021-01-08T15:00:00.0000000Z"`),
			d(`TicksToDateTime(c.n * 1e20)`, ``),
			d(`ARRAY_SLICE(c.arr, 1e12)`, `[]`),
			d(`ARRAY_SLICE(c.arr, -1)`, `[3]`),
			d(`STRINGTONUMBER(CONCAT(c.s, "1e400"))`, ``),
			d(`RegexMatch(c.s, "B", "i")`, `true`),
		})
	})
}

// TestFunctionsOverGroups: the functions that read the stored document's
// text (member order) fall back to their plain form over groups.
func TestFunctionsOverGroups(t *testing.T) {
	pool := fnDB(t)
	runCases(t, pool, []fnCase{
		{`SELECT VALUE TOSTRING(c.n) FROM c GROUP BY c.n`, `"5"`},
		{`SELECT VALUE OBJECTTOARRAY({"n": c.n}) FROM c GROUP BY c.n`, `[{"k": "n", "v": 5}]`},
		{`SELECT VALUE REGEXMATCH(c.s, "b") FROM c GROUP BY c.s`, `true`},
	})
}

// TestInvalidRegex: an invalid pattern is a PostgreSQL data exception
// (class 22), which pgstore reports as a 400, never a 500.
func TestInvalidRegex(t *testing.T) {
	pool := fnDB(t)
	for _, q := range []string{`SELECT VALUE RegexMatch("abc", "(")`, `SELECT VALUE RegexMatch(c.s, "a{2,1}") FROM c`} {
		_, err := evalQuery(t, pool, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code[:2] != "22" {
			t.Errorf("%s: %v, want an error of class 22", q, err)
		}
	}
}

// TestLongArrayLiterals: array literals longer than PostgreSQL's 100
// function arguments (a polygon, an id list) are built in chunks, inside
// expressions and as projected values.
func TestLongArrayLiterals(t *testing.T) {
	pool := fnDB(t)
	elems := make([]string, 250)
	for i := range elems {
		elems[i] = strconv.Itoa(i)
	}
	lit := "[" + strings.Join(elems, ", ") + "]"
	runCases(t, pool, []fnCase{
		{`SELECT VALUE ARRAY_LENGTH(` + lit + `) FROM c`, `250`},
		{`SELECT VALUE ARRAY_CONTAINS(` + lit + `, 249) FROM c`, `true`},
		{`SELECT VALUE ` + lit + `[200] FROM c`, `200`},
		{`SELECT VALUE ` + lit + ` FROM c`, "[" + strings.Join(elems, ",") + "]"},
	})
}

// TestCaseMappingIsNotASCIIOnly: LOWER, UPPER and case-insensitive
// matching map every letter, as the service (.NET invariant culture) does,
// also under the managed cluster's "C" collation.
func TestCaseMappingIsNotASCIIOnly(t *testing.T) {
	pool := fnDB(t)
	runCases(t, pool, []fnCase{
		{`SELECT VALUE LOWER("ÉCOLE Ω") FROM c`, `"école ω"`},
		{`SELECT VALUE CONTAINS("ÉCOLE", "éc", true) FROM c`, `true`},
		{`SELECT VALUE STRINGEQUALS("Ωmega", "ωMEGA", true) FROM c`, `true`},
		{`SELECT VALUE UPPER("straße é ǆ") FROM c`, `"STRAßE É Ǆ"`}, // per character, as .NET ToUpperInvariant
	})
}
