package compat_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// queryRuntimeCase is a query whose evaluation once failed (500, or 400
// with PostgreSQL's wording) or gave a result the service does not give.
// Run against items "a" ({"arr":[[1,2]],"s":"x"}) and "nul" ({"s":"a\u0000b"}).
type queryRuntimeCase struct {
	name   string
	query  string
	params string // JSON array; "" for none
	docs   string // the Documents expected (JSON), when status is 200
	status int
	msg    string // a fragment of the error message, when status is 400
}

// queryRuntimeCases: results as the service gives them. Numbers are IEEE
// doubles: a non-finite result (an overflow, ACOS out of its domain) is
// undefined, as division by zero already is here, so SELECT VALUE yields
// no row; TOSTRING prints it by name. ACOS(2) is NaN (C's acos, which the
// service's engine calls; the reference records SQRT(-1.0) as NaN the same
// way), not an error. Bitwise operators convert with ECMAScript's ToInt32
// (ToUint32 for the left operand of >>>); the expected values are
// JavaScript's (node: 1234567890123457 | 0 === 1015724737).
func queryRuntimeCases() []queryRuntimeCase {
	const a = ` FROM c WHERE c.id = "a"`
	return []queryRuntimeCase{
		{name: "array index 1.5", query: "SELECT VALUE c.arr[0][1.5] FROM c", docs: `[]`},
		{name: "array index beyond 2^53", query: "SELECT VALUE c.arr[0][9007199254740993] FROM c", docs: `[]`},
		{name: "array index 0.5 after a member", query: "SELECT VALUE c.arr[0].x[0.5] FROM c", docs: `[]`},
		{name: "array index 1 (control)", query: "SELECT VALUE c.arr[0][1] FROM c", docs: `[2]`},
		{name: "bitwise beyond 2^31", query: "SELECT VALUE [1234567890123457 | 0, 9007199254740993 | 0, ~1234567890123457, 1e21 | 0, -1e21 | 0, " +
			"4294967296.5 | 0, -2147483649 | 0, -1234567890123457 >>> 0, 1234567890123457 << 3, -1234567890123457 >> 2, " +
			"1234567890123457 & 65535, 1234567890123457 ^ 1, 1e308 | 0, -1 >>> 0]" + a,
			docs: `[[1015724737, 0, -1015724738, -559939584, 559939584, 0, 2147483647, 3279242559, -464136696, -253931185, 47809, 1015724736, 0, 4294967295]]`},
		{name: "NUL in a string literal", query: `SELECT VALUE c.id FROM c WHERE c.s = "a\u0000b"`, docs: `["nul"]`},
		{name: "NUL in a parameter", query: `SELECT VALUE c.id FROM c WHERE c.s = @s`, params: `[{"name":"@s","value":"a\u0000b"}]`, docs: `["nul"]`},
		{name: "NUL in a long IN list", query: `SELECT VALUE c.id FROM c WHERE c.s IN ("a\u0000b"` + strings.Repeat(`, "z"`, 70) + ")", docs: `["nul"]`},
		{name: "NUL in CONTAINS", query: `SELECT VALUE c.id FROM c WHERE CONTAINS(c.s, "\u0000")`, docs: `["nul"]`},
		{name: "overflowing product", query: "SELECT VALUE 1e308 * 10" + a, docs: `[]`},
		{name: "overflowing product printed", query: "SELECT VALUE [ToString(1e308 * 10), ToString(-1e308 * 10), ToString(1e308 + 1e308)]" + a,
			docs: `[["Infinity", "-Infinity", "Infinity"]]`},
		{name: "underflowing product", query: "SELECT VALUE 1e-300 * 1e-300" + a, docs: `[0]`},
		{name: "overflowing quotient", query: "SELECT VALUE 1e300 / 1e-300" + a, docs: `[]`},
		{name: "POWER beyond double", query: "SELECT VALUE POWER(10, 400)" + a, docs: `[]`},
		{name: "POWER edge cases printed", query: "SELECT VALUE [ToString(POWER(10, 400)), ToString(POWER(0, -1)), ToString(POWER(-8, 0.5)), ToString(POWER(-10, 309)), POWER(0.1, 400), POWER(2, 10)]" + a,
			docs: `[["Infinity", "Infinity", "NaN", "-Infinity", 0, 1024]]`},
		{name: "EXP beyond double", query: "SELECT VALUE EXP(1000)" + a, docs: `[]`},
		{name: "EXP below double", query: "SELECT VALUE EXP(-1000)" + a, docs: `[0]`},
		{name: "ACOS(2) is NaN, so undefined", query: "SELECT VALUE ACOS(2)" + a, docs: `[]`},
		{name: "ACOS(2) and ASIN(-2) print NaN", query: "SELECT VALUE [ToString(ACOS(2)), ToString(ASIN(-2)), ACOS(-1)]" + a,
			docs: `[["NaN", "NaN", 3.141592653589793]]`},
		{name: "RegexMatch with an invalid pattern", query: `SELECT VALUE RegexMatch(c.s, "(")` + a, status: 400,
			msg: "the pattern given to RegexMatch is not valid"},
		{name: "LIKE with a row pattern of 10,000 % (one .*)", query: `SELECT VALUE c.id FROM c WHERE c.s LIKE REPLICATE('%', 10000) || c.s` + " AND c.id = \"a\"", docs: `["a"]`},
	}
}

// TestQueryRuntimeResults runs queryRuntimeCases through the REST API:
// each gives the service's result, and an error holds no PostgreSQL
// wording.
func TestQueryRuntimeResults(t *testing.T) {
	f := newFixture(t)
	raw := f.raw
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"rt"}`)), 201)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/rt/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), 201)
	for _, d := range []string{`{"id":"a","pk":"p","arr":[[1,2]],"s":"x"}`, `{"id":"nul","pk":"p","s":"a\u0000b"}`} {
		wantStatus(t, raw.do(http.MethodPost, docsPath("rt", "c"), []byte(d), pkHeader, `["p"]`), 201)
	}
	for _, c := range queryRuntimeCases() {
		t.Run(c.name, func(t *testing.T) {
			params := c.params
			if params == "" {
				params = "[]"
			}
			body := []byte(`{"query":` + strconv.Quote(c.query) + `,"parameters":` + params + `}`)
			r := f.rawFor(t).do(http.MethodPost, docsPath("rt", "c"), body, queryHeaders...)
			want := c.status
			if want == 0 {
				want = 200
			}
			if r.Status != want {
				t.Fatalf("status %d, want %d; body %.500s", r.Status, want, r.Body)
			}
			if want != 200 {
				_, msg := errorBody(t, r.Body)
				if !strings.Contains(msg, c.msg) || postgresPhrase(msg) != "" {
					t.Fatalf("message %q: want %q and no PostgreSQL wording", msg, c.msg)
				}
				return
			}
			var got struct{ Documents []any }
			if err := json.Unmarshal(r.Body, &got); err != nil {
				t.Fatal(err)
			}
			var docs []any
			if err := json.Unmarshal([]byte(c.docs), &docs); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Documents, docs) {
				t.Fatalf("Documents %s, want %s", mustJSON(t, got.Documents), c.docs)
			}
		})
	}
}
