package compat_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// hostileRequest is one request a hostile or careless client may send.
// Add new cases to hostileRequests (database "h", container "c"
// partitioned on /pk, items "keep" and "victim" in partition "p").
// want is the exact status expected, or 0 for "any status below 500 with a
// Cosmos-shaped body when it is an error".
type hostileRequest struct {
	name   string
	method string
	path   string // escaped
	body   []byte
	hdr    []string // name, value pairs
	want   int
}

// repeatJoin returns n copies of s joined by sep.
func repeatJoin(s, sep string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+sep, n), sep)
}

// nested returns open^n + inner + close^n.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// queryBody returns a query request body for text.
func queryBody(text string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"query":`)
	b.WriteString(strconv.Quote(text))
	b.WriteString(`,"parameters":[]}`)
	return b.Bytes()
}

// queryHeaders are the headers of a cross-partition query.
var queryHeaders = []string{
	"Content-Type", "application/query+json",
	"x-ms-documentdb-isquery", "True",
	"x-ms-documentdb-query-enablecrosspartition", "True",
}

// hostileQueries are query texts that once cost the server exponential
// time or memory, or reached PostgreSQL as errors (issue 8 items 3 and 4).
func hostileQueries() map[string]string {
	q := map[string]string{}
	// Chains of every binary operator: generated SQL must stay linear.
	for _, op := range []string{"%", "|", "&", "^", "<<", ">>", ">>>", "+", "-", "*", "/", "||", "??", "=", "!=", "<", "AND", "OR"} {
		q["chain "+op] = "SELECT VALUE " + repeatJoin("c.n", " "+op+" ", 40) + " FROM c"
	}
	for _, op := range []string{"-", "~", "NOT ", "+"} {
		q["unary "+op] = "SELECT VALUE " + strings.Repeat(op, 200) + "c.n FROM c"
	}
	q["parentheses 100000 deep"] = "SELECT VALUE " + nested("(", "1", ")", 100000) + " FROM c"
	q["function calls 5000 deep"] = "SELECT VALUE " + nested("ABS(", "c.n", ")", 5000) + " FROM c"
	q["ternary 2000 deep"] = "SELECT VALUE " + nested("(c.n > 0 ? ", "1", " : 0)", 2000) + " FROM c"
	q["object literal 5000 deep"] = "SELECT VALUE " + nested(`{"a":`, "1", "}", 5000) + " FROM c"
	q["array literal 5000 deep"] = "SELECT VALUE " + nested("[", "1", "]", 5000) + " FROM c"
	q["property path 5000 long"] = "SELECT VALUE c" + strings.Repeat(".a", 5000) + " FROM c"
	q["index path 5000 long"] = "SELECT VALUE c" + strings.Repeat(`["a"]`, 5000) + " FROM c"
	vals := make([]string, 40000)
	for i := range vals {
		vals[i] = strconv.Itoa(i)
	}
	q["IN with 40000 values"] = "SELECT * FROM c WHERE c.n IN (" + strings.Join(vals, ",") + ")"
	q["text over 512 KB"] = "SELECT * FROM c WHERE c.s = '" + strings.Repeat("x", 600*1024) + "'"
	q["many joins"] = "SELECT VALUE 1 FROM c" + strings.Repeat(" JOIN x IN c.arr", 40)
	q["subqueries 200 deep"] = nested("SELECT VALUE (", "1", ")", 200)
	q["backslash and quote in string"] = `SELECT * FROM c WHERE c.s = '\\'' OR 1=1 --'`
	q["NUL in string literal"] = "SELECT * FROM c WHERE c.s = '\x00'"
	q["TOP with string parameter"] = "SELECT TOP @p * FROM c"
	// Found by the fuzzer: each once answered 500, or 400 with
	// PostgreSQL's wording (see queryRuntimeCases for their results).
	for _, c := range queryRuntimeCases() {
		q["runtime: "+c.name] = c.query
	}
	// Work bounded by the page, not by the data (query_budget_test.go).
	q["self-JOIN of an array"] = `SELECT c.id,x,y FROM c JOIN x IN c.a JOIN y IN c.a WHERE c.id = "arr100000"`
	q["self-JOIN of an array, filtered"] = "SELECT c.id,x,y FROM c JOIN x IN c.arr JOIN y IN c.arr WHERE x = y"
	ors := make([]string, 1000)
	for i := range ors {
		ors[i] = fmt.Sprintf(`c.id = "x%d"`, i+1)
	}
	q["1000 OR'd equalities"] = "SELECT * FROM c WHERE " + strings.Join(ors, " OR ")
	q["REPLACE of REPLICATE into 100 MB"] = `SELECT TOP 1 VALUE REPLACE(REPLICATE("a",10000),"a",REPLICATE("b",10000)) FROM c`
	q["CONCAT into 100 MB"] = `SELECT VALUE CONCAT(` + repeatJoin(`REPLACE(REPLICATE("a",10000),"a",REPLICATE("b",100))`, ", ", 100) + `) FROM c`
	return q
}

// hostileRequests builds the table of hostile requests against database
// db, container coll (partition key /pk).
func hostileRequests() []hostileRequest {
	docs := docsPath("h", "c")
	var rs []hostileRequest
	for name, text := range hostileQueries() {
		rs = append(rs, hostileRequest{name: "query: " + name, method: http.MethodPost, path: docs, body: queryBody(text), hdr: queryHeaders})
	}
	wide := new(bytes.Buffer)
	wide.WriteString(`{"id":"wide","pk":"w"`)
	for i := 0; i < 80000; i++ {
		fmt.Fprintf(wide, `,"k%d":%d`, i, i)
	}
	wide.WriteString("}")
	pkW := []string{pkHeader, `["w"]`}
	rs = append(rs,
		hostileRequest{name: "item nested 100000 deep (arrays)", method: http.MethodPost, path: docs, body: []byte(`{"id":"deep1","pk":"w","a":` + nested("[", "1", "]", 100000) + "}"), hdr: pkW, want: 400},
		hostileRequest{name: "item nested 100000 deep (objects)", method: http.MethodPost, path: docs, body: []byte(`{"id":"deep2","pk":"w","a":` + nested(`{"a":`, "1", "}", 100000) + "}"), hdr: pkW, want: 400},
		hostileRequest{name: "item with invalid UTF-8", method: http.MethodPost, path: docs, body: []byte("{\"id\":\"u1\",\"pk\":\"w\",\"s\":\"\xff\xfe\"}"), hdr: pkW, want: 400},
		hostileRequest{name: "item with NUL in id", method: http.MethodPost, path: docs, body: []byte(`{"id":"a\u0000b","pk":"w"}`), hdr: pkW},
		hostileRequest{name: "item with escaped NUL in value", method: http.MethodPost, path: docs, body: []byte(`{"id":"nul","pk":"w","s":"a\u0000b"}`), hdr: pkW},
		hostileRequest{name: "item with lone surrogate", method: http.MethodPost, path: docs, body: []byte(`{"id":"sur","pk":"w","s":"\ud800"}`), hdr: pkW, want: 400},
		hostileRequest{name: "item with lone low surrogate id", method: http.MethodPost, path: docs, body: []byte(`{"id":"\udfff","pk":"w"}`), hdr: pkW, want: 400},
		hostileRequest{name: "item with surrogate pair", method: http.MethodPost, path: docs, body: []byte(`{"id":"pair","pk":"w","s":"\ud83d\ude00"}`), hdr: pkW, want: 201},
		hostileRequest{name: "patch value with lone surrogate", method: http.MethodPatch, path: docPath("h", "c", "victim"), body: []byte(`{"operations":[{"op":"set","path":"/x","value":"\ud800"}]}`), hdr: []string{pkHeader, `["p"]`}, want: 400},
		hostileRequest{name: "query parameter with lone surrogate", method: http.MethodPost, path: docs, body: []byte(`{"query":"SELECT * FROM c WHERE c.s = @s","parameters":[{"name":"@s","value":"\udc00"}]}`), hdr: queryHeaders, want: 400},
		// the escape in the query's own text (a JSON-escaped backslash):
		// a lexical error, never a result holding U+FFFD
		hostileRequest{name: "query literal with lone surrogate escape", method: http.MethodPost, path: docs, body: []byte(`{"query":"SELECT VALUE '\\ud800'"}`), hdr: queryHeaders, want: 400},
		hostileRequest{name: "item with number beyond double", method: http.MethodPost, path: docs, body: []byte(`{"id":"big","pk":"w","n":1e400}`), hdr: pkW, want: 400},
		hostileRequest{name: "item with 80000 members", method: http.MethodPost, path: docs, body: wide.Bytes(), hdr: pkW, want: 201},
		hostileRequest{name: "item not an object", method: http.MethodPost, path: docs, body: []byte(`[1,2]`), hdr: pkW, want: 400},
		hostileRequest{name: "patch nested 100000 deep", method: http.MethodPatch, path: docPath("h", "c", "keep"), body: []byte(`{"operations":[{"op":"set","path":"/x","value":` + nested("[", "1", "]", 100000) + "}]}"), hdr: []string{pkHeader, `["p"]`}, want: 400},
		hostileRequest{name: "patch path with NUL", method: http.MethodPatch, path: docPath("h", "c", "victim"), body: []byte(`{"operations":[{"op":"set","path":"/x\u0000","value":1}]}`), hdr: []string{pkHeader, `["p"]`}},
		hostileRequest{name: "partition key header invalid UTF-8", method: http.MethodGet, path: docPath("h", "c", "keep"), hdr: []string{pkHeader, "[\"\xff\"]"}},
		hostileRequest{name: "partition key header nested deep", method: http.MethodGet, path: docPath("h", "c", "keep"), hdr: []string{pkHeader, nested("[", `"p"`, "]", 50000)}},
		hostileRequest{name: "max item count huge", method: http.MethodGet, path: docs, hdr: []string{"x-ms-max-item-count", "100000000000000000000"}},
		hostileRequest{name: "max item count garbage", method: http.MethodGet, path: docs, hdr: []string{"x-ms-max-item-count", "x"}},
		hostileRequest{name: "continuation garbage", method: http.MethodGet, path: docs, hdr: []string{"x-ms-continuation", "%%garbage{"}},
		hostileRequest{name: "continuation deep JSON", method: http.MethodGet, path: docs, hdr: []string{"x-ms-continuation", nested("[", "1", "]", 3000)}},
		hostileRequest{name: "if-match garbage", method: http.MethodPut, path: docPath("h", "c", "keep"), body: []byte(`{"id":"keep","pk":"p"}`), hdr: []string{pkHeader, `["p"]`, "If-Match", "\"not-an-etag\""}, want: 412},
		hostileRequest{name: "database name with NUL", method: http.MethodPost, path: "/dbs", body: []byte(`{"id":"a\u0000b"}`), want: 400},
		hostileRequest{name: "database path with invalid UTF-8", method: http.MethodGet, path: "/dbs/%FF%FE"},
		hostileRequest{name: "database path with NUL", method: http.MethodGet, path: "/dbs/a%00b"},
		hostileRequest{name: "document path with invalid UTF-8", method: http.MethodGet, path: docPath("h", "c", "x") + "%FF", hdr: []string{pkHeader, `["p"]`}},
		hostileRequest{name: "container with hostile partition key path", method: http.MethodPost, path: "/dbs/h/colls", body: []byte(`{"id":"hpk","partitionKey":{"paths":["/a'; DROP TABLE x; --"],"kind":"Hash"}}`), want: 400},
		hostileRequest{name: "container with partition key path with NUL", method: http.MethodPost, path: "/dbs/h/colls", body: []byte(`{"id":"hpk2","partitionKey":{"paths":["/a\u0000"],"kind":"Hash"}}`), want: 400},
		hostileRequest{name: "container with hostile composite index path", method: http.MethodPost, path: "/dbs/h/colls", body: []byte(`{"id":"hci","partitionKey":{"paths":["/pk"],"kind":"Hash"},"indexingPolicy":{"compositeIndexes":[[{"path":"/a\\'); COPY (SELECT 1) TO PROGRAM 'touch /tmp/pwned'; --","order":"ascending"},{"path":"/b","order":"ascending"}]]}}`), want: 400},
		hostileRequest{name: "container with hostile included path", method: http.MethodPost, path: "/dbs/h/colls", body: []byte(`{"id":"hip","partitionKey":{"paths":["/pk"],"kind":"Hash"},"indexingPolicy":{"includedPaths":[{"path":"/a'\\\\;/?"}]}}`), want: 400},
		hostileRequest{name: "truncated JSON item", method: http.MethodPost, path: docs, body: []byte(`{"id":"a","pk":`), hdr: pkW, want: 400},
		hostileRequest{name: "partition key header not JSON", method: http.MethodPost, path: docs, body: []byte(`{"id":"a","pk":"p"}`), hdr: []string{pkHeader, `p`}, want: 400},
		hostileRequest{name: "query body not JSON", method: http.MethodPost, path: docs, body: []byte(`SELECT`), hdr: queryHeaders, want: 400},
		hostileRequest{name: "query syntax error", method: http.MethodPost, path: docs, body: queryBody("SELECT * FROM WHERE"), hdr: queryHeaders, want: 400},
		hostileRequest{name: "patch with no operations", method: http.MethodPatch, path: docPath("h", "c", "victim"), body: []byte(`{"operations":[]}`), hdr: []string{pkHeader, `["p"]`}, want: 400},
		hostileRequest{name: "container with a relative partition key path", method: http.MethodPost, path: "/dbs/h/colls", body: []byte(`{"id":"bad","partitionKey":{"paths":["nope"],"kind":"Hash"}}`), want: 400},
		hostileRequest{name: "container body nested deep", method: http.MethodPost, path: "/dbs/h/colls", body: []byte(`{"id":"hdeep","partitionKey":{"paths":["/pk"],"kind":"Hash"},"x":` + nested("[", "1", "]", 100000) + "}")},
	)
	return rs
}

// postgresPhrases are phrases of PostgreSQL's error messages (and of the
// SQL the emulator generates) that no Cosmos message holds: a client
// reading one would learn about the emulator's database, not its query.
// Generic words ("out of range", "does not exist", "function") are not
// here: the service's own messages use them (patch: "The array index '1'
// is out of range.").
var postgresPhrases = []string{
	"SQLSTATE", "ERROR:", "pq:", "value out of range", "input is out of range", "could not determine data type",
	"syntax error at or near", "invalid input syntax", "operator does not exist", "function cosmos.", "column \"",
	"relation \"", "invalid regular expression", "unsupported Unicode escape sequence", "invalid byte sequence for encoding",
	"double precision", "jsonb", "cannot take logarithm", "raised to a", "stack depth limit", "numeric field overflow",
	"canceling statement", "duplicate key value", "violates ", "statement too complex",
}

// postgresPhrase returns the first of postgresPhrases in msg, or "".
func postgresPhrase(msg string) string {
	for _, p := range postgresPhrases {
		if strings.Contains(msg, p) {
			return p
		}
	}
	return ""
}

// fuzzCorpusQueries returns the query texts of the parser's and the
// translator's fuzz corpora (go test fuzz v1 files of one string).
func fuzzCorpusQueries(t *testing.T) []string {
	var out []string
	for _, dir := range []string{"../emulator/cosmosql/testdata/fuzz", "../pgstore/sqlgen/testdata/fuzz"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if !strings.HasPrefix(line, "string(") || !strings.HasSuffix(line, ")") {
					continue
				}
				if s, err := strconv.Unquote(line[len("string(") : len(line)-1]); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// randomQueries returns n pseudo-random queries (fixed seed, so a failure
// reproduces) from a small grammar of operators, functions and literals,
// nested up to depth deep.
func randomQueries(n, depth int) []string {
	rng := rand.New(rand.NewSource(8))
	ops := []string{"+", "-", "*", "/", "%", "|", "&", "^", "<<", ">>", ">>>", "||", "??", "=", "!=", "<", ">=", "AND", "OR"}
	funcs := []string{"ABS", "LOWER", "ToString", "IS_DEFINED", "LENGTH", "ARRAY_LENGTH", "FLOOR", "StringToNumber", "IS_NUMBER", "TRIM"}
	atoms := []string{"c.n", "c.s", "c.arr", "c.o.x", `c["pk"]`, "1", "-0.5", "'\\''", "null", "true", "[]", "{}", "'x'", "1e308", "@p", "undefined"}
	var expr func(d int) string
	expr = func(d int) string {
		if d <= 0 {
			return atoms[rng.Intn(len(atoms))]
		}
		switch rng.Intn(6) {
		case 0, 1:
			return expr(d-1) + " " + ops[rng.Intn(len(ops))] + " " + expr(d-1)
		case 2:
			return funcs[rng.Intn(len(funcs))] + "(" + expr(d-1) + ")"
		case 3:
			return "(" + expr(d-1) + " ? " + expr(d-1) + " : " + expr(d-1) + ")"
		case 4:
			return "[" + expr(d-1) + ", " + expr(d-1) + "]"
		default:
			return "NOT (" + expr(d-1) + ")"
		}
	}
	out := make([]string, n)
	for i := range out {
		d := 1 + rng.Intn(depth)
		switch rng.Intn(3) {
		case 0:
			out[i] = "SELECT VALUE " + expr(d) + " FROM c"
		case 1:
			out[i] = "SELECT * FROM c WHERE " + expr(d)
		default:
			out[i] = "SELECT c.n FROM c ORDER BY " + expr(1) + " OFFSET 1 LIMIT 2"
		}
	}
	return out
}

// TestHostileInputsNeverFail5xx replays hostile requests and a fuzz corpus
// of queries against the server (issue 8, "Done when"): no response is a
// 5xx, errors are Cosmos-shaped, the server keeps serving and stored data
// is untouched. Each request has a generous client timeout, so a request
// that makes the server work without bound fails the test instead of
// hanging it.
func TestHostileInputsNeverFail5xx(t *testing.T) {
	f := newFixture(t)
	raw := &rawClient{t: t, endpoint: f.raw.endpoint, hc: emulatortest.HTTPClient()}
	raw.hc.Timeout = 60 * time.Second
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"h"}`)), 201)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/h/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), 201)
	keep := []byte(`{"id":"keep","pk":"p","n":1,"s":"x","arr":[1,2],"o":{"x":1}}`)
	wantStatus(t, raw.do(http.MethodPost, docsPath("h", "c"), keep, pkHeader, `["p"]`), 201)
	wantStatus(t, raw.do(http.MethodPost, docsPath("h", "c"), []byte(`{"id":"victim","pk":"p"}`), pkHeader, `["p"]`), 201)
	before := raw.do(http.MethodGet, docPath("h", "c", "keep"), nil, pkHeader, `["p"]`)
	wantStatus(t, before, 200)

	check := func(t *testing.T, hr hostileRequest) {
		c := &rawClient{t: t, endpoint: raw.endpoint, hc: raw.hc}
		r := c.do(hr.method, hr.path, hr.body, hr.hdr...)
		if r.Status >= 500 {
			t.Fatalf("status %d, want < 500; body %.300s", r.Status, r.Body)
		}
		if hr.want != 0 && r.Status != hr.want {
			t.Fatalf("status %d, want %d; body %.300s", r.Status, hr.want, r.Body)
		}
		if r.Status >= 400 {
			_, msg := errorBody(t, r.Body)
			if p := postgresPhrase(msg); p != "" {
				t.Fatalf("status %d: the message holds PostgreSQL's wording %q: %s", r.Status, p, msg)
			}
		}
	}
	for _, hr := range hostileRequests() {
		t.Run(hr.name, func(t *testing.T) { check(t, hr) })
	}
	queries := append(fuzzCorpusQueries(t), randomQueries(300, 6)...)
	params := `[{"name":"@p","value":"x"}]`
	t.Run("fuzz corpus", func(t *testing.T) {
		for _, q := range queries {
			body := []byte(`{"query":` + strconv.Quote(q) + `,"parameters":` + params + `}`)
			c := &rawClient{t: t, endpoint: raw.endpoint, hc: raw.hc}
			r := c.do(http.MethodPost, docsPath("h", "c"), body, queryHeaders...)
			if r.Status >= 500 {
				t.Errorf("query %.200q: status %d; body %.300s", q, r.Status, r.Body)
			} else if r.Status >= 400 {
				if _, msg := errorBody(t, r.Body); postgresPhrase(msg) != "" {
					t.Errorf("query %.200q: status %d: the message holds PostgreSQL's wording %q: %s", q, r.Status, postgresPhrase(msg), msg)
				}
			}
		}
	})

	// The server still serves, and the item the hostile requests aimed at
	// is exactly as it was.
	after := raw.do(http.MethodGet, docPath("h", "c", "keep"), nil, pkHeader, `["p"]`)
	wantStatus(t, after, 200)
	if !bytes.Equal(before.Body, after.Body) {
		t.Fatalf("stored item changed:\nbefore %s\nafter  %s", before.Body, after.Body)
	}
	health, err := raw.hc.Get(raw.endpoint + "/_emulator/health")
	if err != nil {
		t.Fatal(err)
	}
	health.Body.Close()
	if health.StatusCode != 200 {
		t.Fatalf("health after hostile inputs: %d", health.StatusCode)
	}
}
