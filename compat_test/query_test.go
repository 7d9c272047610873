package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// queryEnv is one emulator with a container of seeded items, shared by the
// query tests (each subtest reads only).
type queryEnv struct {
	e   *emulatortest.Emulator
	c   *azcosmos.ContainerClient
	ctx context.Context
}

func newQueryEnv(t *testing.T, docs []map[string]any) *queryEnv {
	t.Helper()
	env := &queryEnv{e: emulatortest.Start(t), ctx: context.Background()}
	cl := env.e.Client(t)
	if _, err := cl.CreateDatabase(env.ctx, azcosmos.DatabaseProperties{ID: "q"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("q")
	if _, err := db.CreateContainer(env.ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	env.c, _ = db.NewContainer("c")
	for _, d := range docs {
		b, _ := json.Marshal(d)
		var pk azcosmos.PartitionKey
		switch v := d["pk"].(type) {
		case string:
			pk = azcosmos.NewPartitionKeyString(v)
		case float64:
			pk = azcosmos.NewPartitionKeyNumber(v)
		case int:
			pk = azcosmos.NewPartitionKeyNumber(float64(v))
		case nil:
			pk = azcosmos.NullPartitionKey
		}
		if _, err := env.c.CreateItem(env.ctx, pk, b, nil); err != nil {
			t.Fatalf("seed %s: %v", b, err)
		}
	}
	return env
}

// run collects every result of a query across pages, checking the headers
// the SDK's own tests check on every page.
func (env *queryEnv) run(t *testing.T, query string, pk *azcosmos.PartitionKey, opts *azcosmos.QueryOptions) ([]json.RawMessage, int, error) {
	t.Helper()
	key := azcosmos.NewPartitionKey()
	if pk != nil {
		key = *pk
	}
	pager := env.c.NewQueryItemsPager(query, key, opts)
	var out []json.RawMessage
	pages := 0
	for pager.More() {
		resp, err := pager.NextPage(env.ctx)
		if err != nil {
			return out, pages, err
		}
		pages++
		if resp.QueryMetrics == nil || resp.ActivityID == "" || resp.RequestCharge <= 0 {
			t.Fatalf("page %d lacks query metrics, activity id or charge", pages)
		}
		// the metrics report what was measured (the time, the results'
		// count and size; the documents retrieved as the results); every
		// other member is there, as the Java SDK reads each one, at 0
		// (and an index utilization of 1), nothing else invented
		metrics := map[string]string{}
		for _, kv := range strings.Split(*resp.QueryMetrics, ";") {
			k, v, _ := strings.Cut(kv, "=")
			metrics[k] = v
		}
		measured := map[string]bool{"totalExecutionTimeInMs": true, "outputDocumentCount": true, "outputDocumentSize": true,
			"retrievedDocumentCount": true, "retrievedDocumentSize": true, "indexUtilizationRatio": true}
		for k, v := range metrics {
			if !measured[k] && v != "0.00" {
				t.Fatalf("page %d: query metrics %q: %s is not measured, want 0.00", pages, *resp.QueryMetrics, k)
			}
		}
		if len(metrics) != 16 || metrics["outputDocumentCount"] != fmt.Sprint(len(resp.Items)) || metrics["totalExecutionTimeInMs"] == "" ||
			metrics["outputDocumentSize"] == "" || metrics["retrievedDocumentCount"] != metrics["outputDocumentCount"] {
			t.Fatalf("page %d: query metrics %q, want the measured time, count (%d) and size with the other members at 0", pages, *resp.QueryMetrics, len(resp.Items))
		}
		for _, it := range resp.Items {
			out = append(out, json.RawMessage(it))
		}
	}
	return out, pages, nil
}

func canonical(t *testing.T, docs []json.RawMessage) []any {
	t.Helper()
	out := []any{}
	for _, d := range docs {
		var v any
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatal(err)
		}
		if m, ok := v.(map[string]any); ok {
			for _, k := range []string{"_rid", "_self", "_etag", "_attachments", "_ts"} {
				delete(m, k)
			}
		}
		out = append(out, v)
	}
	return out
}

var semanticsDocs = []map[string]any{
	{"id": "1", "pk": "a", "n": 1, "s": "x", "tags": []any{"red", "blue"}, "o": map[string]any{"k": 1}},
	{"id": "2", "pk": "a", "n": 2.5, "s": "y", "tags": []any{"blue"}, "nul": nil},
	{"id": "3", "pk": "b", "n": "3", "s": "z", "tags": []any{}},
	{"id": "4", "pk": "b", "s": "Ω"},
	{"id": "5", "pk": "c", "n": true, "s": "é"},
}

// TestQuerySemantics: each case cites the reference section it checks.
func TestQuerySemantics(t *testing.T) {
	t.Parallel()
	env := newQueryEnv(t, semanticsDocs)
	pkA := azcosmos.NewPartitionKeyString("a")
	tests := []struct {
		name    string
		query   string
		pk      *azcosmos.PartitionKey
		params  []azcosmos.QueryParameter
		want    string // JSON array; order-sensitive
		ordered bool
	}{
		{"§6.2 missing property is undefined, not null", `SELECT VALUE c.id FROM c WHERE IS_NULL(c.nul)`, nil, nil, `["2"]`, false},
		{"§6.2 IS_DEFINED", `SELECT VALUE c.id FROM c WHERE NOT IS_DEFINED(c.n) `, nil, nil, `["4"]`, false},
		{"§6.3 comparison across types is undefined (filtered)", `SELECT VALUE c.id FROM c WHERE c.n > 0`, nil, nil, `["1","2"]`, false},
		{"§6.3 equality is type-strict", `SELECT VALUE c.id FROM c WHERE c.n = 3`, nil, nil, `[]`, false},
		{"§6.3 NOT of undefined stays undefined", `SELECT VALUE c.id FROM c WHERE NOT (c.n > 0)`, nil, nil, `[]`, false},
		{"§6.3 OR with true wins over undefined", `SELECT VALUE c.id FROM c WHERE c.n > 0 OR c.s = "z"`, nil, nil, `["1","2","3"]`, false},
		{"§6.3 arithmetic on non-numbers is undefined", `SELECT VALUE c.n * 2 FROM c`, nil, nil, `[2,5]`, false},
		{"§6.3 string concatenation", `SELECT VALUE c.s || "!" FROM c WHERE c.pk = "a"`, nil, nil, `["x!","y!"]`, false},
		{"§6.3 IN", `SELECT VALUE c.id FROM c WHERE c.s IN ("x", "z", 1)`, nil, nil, `["1","3"]`, false},
		{"§6.3 BETWEEN", `SELECT VALUE c.id FROM c WHERE c.n BETWEEN 1 AND 2`, nil, nil, `["1"]`, false},
		{"§6.3 LIKE", `SELECT VALUE c.id FROM c WHERE c.s LIKE "[x-y]%"`, nil, nil, `["1","2"]`, false},
		{"§6.3 ternary and coalesce", `SELECT VALUE (c.n ?? "none") FROM c WHERE c.pk = "b"`, nil, nil, `["3","none"]`, false},
		{"§6.5 projection drops undefined members", `SELECT c.id, c.n FROM c WHERE c.pk = "b"`, nil, nil, `[{"id":"3","n":"3"},{"id":"4"}]`, false},
		{"§6.5 implicit names", `SELECT c.o.k, 1 + 1, "lit" FROM c WHERE c.id = "1"`, nil, nil, `[{"k":1,"$1":2,"$2":"lit"}]`, false},
		{"§6.5 aliases and object/array constructors", `SELECT {"a": c.id, "m": c.missing} AS obj, [c.id, c.missing] AS arr FROM c WHERE c.id = "1"`, nil, nil, `[{"obj":{"a":"1"},"arr":["1",null]}]`, false},
		{"§6.2 SELECT VALUE undefined yields no row", `SELECT VALUE c.missing FROM c`, nil, nil, `[]`, false},
		{"§6.6 JOIN over arrays", `SELECT c.id, t AS tag FROM c JOIN t IN c.tags`, nil, nil, `[{"id":"1","tag":"red"},{"id":"1","tag":"blue"},{"id":"2","tag":"blue"}]`, false},
		{"§6.6 FROM x IN c.arr", `SELECT VALUE t FROM t IN c.tags`, nil, nil, `["red","blue","blue"]`, false},
		{"§6.6 FROM a path", `SELECT VALUE o FROM c.o o`, nil, nil, `[{"k":1}]`, false},
		{"§6.7 ORDER BY across types: null < bool < number < string", `SELECT VALUE c.id FROM c ORDER BY c.n`, &pkA, nil, `["1","2"]`, true},
		{"§6.7 ORDER BY DESC", `SELECT VALUE c.s FROM c ORDER BY c.s DESC`, &pkA, nil, `["y","x"]`, true},
		{"§6.7 TOP", `SELECT TOP 1 VALUE c.id FROM c ORDER BY c.id`, &pkA, nil, `["1"]`, true},
		{"§6.7 OFFSET LIMIT", `SELECT VALUE c.id FROM c ORDER BY c.id OFFSET 1 LIMIT 1`, &pkA, nil, `["2"]`, true},
		{"§6.8 COUNT skips undefined", `SELECT VALUE COUNT(c.n) FROM c`, &pkA, nil, `[2]`, false},
		{"§6.8 SUM and AVG", `SELECT VALUE {"sum": SUM(c.n), "avg": AVG(c.n), "min": MIN(c.n), "max": MAX(c.n)} FROM c`, &pkA, nil, `[{"sum":3.5,"avg":1.75,"min":1,"max":2.5}]`, false},
		{"§6.8 SUM over a non-number is undefined", `SELECT VALUE SUM(c.s) FROM c`, &pkA, nil, `[]`, false},
		{"§7.2 parameters", `SELECT VALUE c.id FROM c WHERE c.s = @s AND ARRAY_CONTAINS(@ids, c.id)`, nil, []azcosmos.QueryParameter{{Name: "@s", Value: "y"}, {Name: "@ids", Value: []string{"1", "2"}}}, `["2"]`, false},
		{"§7.2 an unsupplied parameter is undefined", `SELECT VALUE c.id FROM c WHERE c.s = @missing`, nil, nil, `[]`, false},
		{"§6.10 string functions", `SELECT VALUE [UPPER(c.s), LENGTH(c.s), CONTAINS(c.s, "X", true), STARTSWITH(c.id, "1")] FROM c WHERE c.id = "1"`, nil, nil, `[["X",1,true,true]]`, false},
		{"§6.10 type checks never undefined", `SELECT VALUE [IS_STRING(c.missing), IS_NUMBER(c.n), IS_PRIMITIVE(c.o)] FROM c WHERE c.id = "1"`, nil, nil, `[[false,true,false]]`, false},
		{"§6.10 ROUND halves away from zero", `SELECT VALUE [ROUND(2.5), ROUND(-2.5), FLOOR(-1.5), ABS(-3)]`, nil, nil, `[[3,-3,-2,3]]`, false},
		{"§6.1 SELECT without FROM", `SELECT VALUE 1 + 2`, nil, nil, `[3]`, false},
		{"system properties are queryable", `SELECT VALUE IS_NUMBER(c._ts) AND IS_STRING(c._etag) AND STARTSWITH(c._self, "dbs/") FROM c WHERE c.id = "1"`, nil, nil, `[true]`, false},
		{"§6.6 EXISTS subquery", `SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = "red")`, nil, nil, `["1"]`, false},
		{"§6.6 ARRAY subquery keeps order", `SELECT VALUE ARRAY(SELECT VALUE UPPER(t) FROM t IN c.tags) FROM c WHERE c.id = "1"`, nil, nil, `[["RED","BLUE"]]`, false},
		{"§6.6 scalar subquery with an aggregate", `SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c WHERE c.pk = "a"`, nil, nil, `[{"id":"1","n":2},{"id":"2","n":1}]`, false},
		{"§6.6 scalar subquery with no value is undefined", `SELECT c.id, (SELECT VALUE t FROM t IN c.tags WHERE t = "none") AS x FROM c WHERE c.id = "1"`, nil, nil, `[{"id":"1"}]`, false},
		{"§6.6 JOIN with a filter in the subquery's place", `SELECT VALUE c.id FROM c WHERE ARRAY_LENGTH(ARRAY(SELECT VALUE t FROM t IN c.tags WHERE t = "blue")) > 0`, nil, nil, `["1","2"]`, false},
		{"§6.6 JOIN a correlated subquery filters the joined values", `SELECT c.id, t AS tag FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t = "blue") t`, nil, nil, `[{"id":"1","tag":"blue"},{"id":"2","tag":"blue"}]`, false},
		{"§6.6 JOIN a subquery without FROM computes a value per item", `SELECT VALUE d FROM c JOIN (SELECT VALUE c.n * 2) d`, nil, nil, `[2,5]`, false},
		{"§6.6 JOIN subqueries multiply like array joins", `SELECT VALUE [c.id, t, u] FROM c JOIN (SELECT VALUE t FROM t IN c.tags) t JOIN (SELECT VALUE u FROM u IN c.tags WHERE u != t) u`, nil, nil, `[["1","red","blue"],["1","blue","red"]]`, false},
		{"§6.6 JOIN a subquery with an aggregate", `SELECT c.id, n FROM c JOIN (SELECT VALUE COUNT(1) FROM t IN c.tags) n WHERE n > 0`, nil, nil, `[{"id":"1","n":2},{"id":"2","n":1}]`, false},
		{"§6.6 JOIN a subquery with DISTINCT, ORDER BY and TOP", `SELECT VALUE x FROM c JOIN (SELECT DISTINCT TOP 1 VALUE t FROM t IN c.tags ORDER BY t DESC) x WHERE c.id = "1"`, nil, nil, `["red"]`, false},
		{"§6.6 FROM a subquery over the container", `SELECT VALUE s.id FROM (SELECT c.id, c.n FROM c WHERE c.pk = "a") s WHERE s.n > 1`, nil, nil, `["2"]`, false},
		{"§6.6 COUNT of DISTINCT values through a FROM subquery", `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags)`, &pkA, nil, `[2]`, false},
		{"§6.6 FROM subquery keeps its ORDER BY and TOP", `SELECT * FROM (SELECT TOP 2 VALUE c.id FROM c ORDER BY c.id DESC) x`, &pkA, nil, `["2","1"]`, true},
		{"§6.6 FROM subquery of whole documents keeps system properties", `SELECT VALUE IS_NUMBER(d._ts) AND d.id = "1" FROM (SELECT * FROM c WHERE c.id = "1") d`, nil, nil, `[true]`, false},
		{"§6.6 GROUP BY over a FROM subquery", `SELECT g.pk, COUNT(1) AS n FROM (SELECT c.pk FROM c) g GROUP BY g.pk`, &pkA, nil, `[{"pk":"a","n":2}]`, false},
		{"unicode compares by code point", `SELECT VALUE c.id FROM c WHERE c.s > "z"`, nil, nil, `["4","5"]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env.wantResults(t, tt.query, tt.pk, &azcosmos.QueryOptions{QueryParameters: tt.params}, tt.want, tt.ordered)
		})
	}
}

func sortAny(v []any) {
	key := func(x any) string { b, _ := json.Marshal(x); return string(b) }
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && key(v[j]) < key(v[j-1]); j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// TestQueryGatewayRules: what the gateway serves across partitions and what
// it refuses (reference §7.5, sdk-notes §6.2).
func TestQueryGatewayRules(t *testing.T) {
	t.Parallel()
	env := newQueryEnv(t, semanticsDocs)
	tests := []struct {
		name, query string
		status      int
		sub         string
		body        string
	}{
		{"filter cross-partition is served", `SELECT * FROM c WHERE c.n > 0`, 200, "", ""},
		{"ORDER BY cross-partition is refused with 1004", `SELECT * FROM c ORDER BY c.id`, 400, "1004", "cross partition query can not be directly served by the gateway"},
		{"TOP cross-partition is refused", `SELECT TOP 1 * FROM c`, 400, "1004", "cross partition query can not be directly served by the gateway"},
		{"VALUE aggregate cross-partition is refused with 1004", `SELECT VALUE COUNT(1) FROM c`, 400, "1004", "cross partition query can not be directly served by the gateway"},
		{"non-VALUE aggregate cross-partition", `SELECT COUNT(1) AS n FROM c`, 400, "", "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates"},
		{"a WHERE pinning the partition key makes it single-partition", `SELECT * FROM c WHERE c.pk = 'a' ORDER BY c.id`, 200, "", ""},
		{"a FROM subquery that needs a pipeline is refused with 1004", `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.s FROM c)`, 400, "1004", "cross partition query can not be directly served by the gateway"},
		{"a FROM subquery that streams is served", `SELECT VALUE s.id FROM (SELECT c.id FROM c WHERE c.n > 0) s`, 200, "", `"_count":2`},
		{"a FROM subquery pinning the partition key is single-partition", `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.s FROM c WHERE c.pk = "a")`, 200, "", `"Documents":[2]`},
		{"syntax error", `SELECT * FROM c WHERE`, 400, "", "SC1001"},
		{"trailing semicolon", `SELECT * FROM c;`, 400, "", "SC1010"},
	}
	raw := newRaw(t, env.e)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"query": tt.query, "parameters": []any{}})
			r := raw.do(http.MethodPost, "/dbs/q/colls/c/docs", body, "Content-Type", "application/query+json",
				"x-ms-documentdb-isquery", "True", "x-ms-documentdb-query-enablecrosspartition", "True")
			if r.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			if tt.sub != "" && r.Header.Get("x-ms-substatus") != tt.sub {
				t.Fatalf("substatus %q, want %s", r.Header.Get("x-ms-substatus"), tt.sub)
			}
			if !strings.Contains(string(r.Body), tt.body) {
				t.Fatalf("body %s lacks %q", r.Body, tt.body)
			}
			if tt.sub == "1004" {
				var e struct{ AdditionalErrorInfo string }
				_ = json.Unmarshal(r.Body, &e)
				if !json.Valid([]byte(e.AdditionalErrorInfo)) || !strings.Contains(e.AdditionalErrorInfo, "queryRanges") {
					t.Fatalf("1004 without a query plan in additionalErrorInfo: %s", r.Body)
				}
			}
		})
	}
	// Without enablecrosspartition and without a partition key: refused.
	body, _ := json.Marshal(map[string]any{"query": "SELECT * FROM c"})
	r := raw.do(http.MethodPost, "/dbs/q/colls/c/docs", body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True")
	if r.Status != 400 || !strings.Contains(string(r.Body), "Cross partition query is required but disabled") {
		t.Fatalf("cross-partition without the header: %d %s", r.Status, r.Body)
	}
	// Addressed to partition key range 0 (the SDK pipelines' per-range
	// request), an ORDER BY is served whole.
	body, _ = json.Marshal(map[string]any{"query": "SELECT VALUE c.id FROM c ORDER BY c.id"})
	r = raw.do(http.MethodPost, "/dbs/q/colls/c/docs", body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
		"x-ms-documentdb-partitionkeyrangeid", "0")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"Documents":["1","2","3","4","5"]`) {
		t.Fatalf("range-scoped ORDER BY: %d %s", r.Status, r.Body)
	}
}

// TestQueryPaging: every item exactly once across pages, for plain,
// ORDER BY and JOIN queries, also when items are written between pages; a
// full page without ORDER BY always carries a continuation (the gateway's
// trailing empty page), with ORDER BY only when more rows exist.
func TestQueryPaging(t *testing.T) {
	t.Parallel()
	var docs []map[string]any
	for i := 0; i < 20; i++ {
		docs = append(docs, map[string]any{"id": fmt.Sprintf("%02d", i), "pk": fmt.Sprintf("p%d", i%2), "n": 20 - i, "arr": []any{1, 2}})
	}
	env := newQueryEnv(t, docs)
	size := int32(5)
	opts := &azcosmos.QueryOptions{PageSizeHint: size}
	got, pages, err := env.run(t, "SELECT * FROM c", nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 || pages != 5 {
		t.Fatalf("cross-partition: %d items in %d pages, want 20 in 5 (4 full + trailing empty)", len(got), pages)
	}
	p0 := azcosmos.NewPartitionKeyString("p0")
	got, pages, err = env.run(t, "SELECT VALUE c.n FROM c ORDER BY c.n", &p0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if pages != 2 || len(got) != 10 || string(got[0]) != "2" || string(got[9]) != "20" {
		t.Fatalf("ORDER BY: %s in %d pages", got, pages)
	}
	got, _, err = env.run(t, "SELECT VALUE [c.id, x] FROM c JOIN x IN c.arr", nil, &azcosmos.QueryOptions{PageSizeHint: 7})
	if err != nil || len(got) != 40 {
		t.Fatalf("JOIN: %d results, err %v", len(got), err)
	}
	seen := map[string]bool{}
	for _, g := range got {
		if seen[string(g)] {
			t.Fatalf("JOIN result %s twice", g)
		}
		seen[string(g)] = true
	}
	// Subqueries in FROM and JOIN page too, every result once.
	for _, q := range []string{
		"SELECT VALUE s.id FROM (SELECT c.id FROM c) s",
		"SELECT VALUE [c.id, x] FROM c JOIN (SELECT VALUE x FROM x IN c.arr) x",
	} {
		got, _, err = env.run(t, q, nil, &azcosmos.QueryOptions{PageSizeHint: 3})
		seen := map[string]bool{}
		for _, g := range got {
			seen[string(g)] = true
		}
		if want := map[bool]int{true: 20, false: 40}[strings.HasPrefix(q, "SELECT VALUE s")]; err != nil || len(got) != want || len(seen) != want {
			t.Fatalf("%s: %d results (%d distinct), want %d; err %v", q, len(got), len(seen), want, err)
		}
	}
	// Writes between pages: new items appear at most once, none repeats.
	pager := env.c.NewQueryItemsPager("SELECT VALUE c.id FROM c ORDER BY c.id", p0, &azcosmos.QueryOptions{PageSizeHint: 3})
	ids := map[string]int{}
	for i := 0; pager.More(); i++ {
		resp, err := pager.NextPage(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range resp.Items {
			ids[string(it)]++
		}
		if i == 0 {
			b, _ := json.Marshal(map[string]any{"id": "zz", "pk": "p0"})
			if _, err := env.c.CreateItem(env.ctx, p0, b, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	for id, n := range ids {
		if n != 1 {
			t.Fatalf("%s returned %d times", id, n)
		}
	}
	if len(ids) != 11 {
		t.Fatalf("%d ids, want the 10 items plus the one created between pages", len(ids))
	}
}

// TestQueryExcludesExpiredItems: expired items never appear in query
// results, counts or aggregates (TTL issue).
func TestQueryExcludesExpiredItems(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t)
	c := env.container(t, "c", i32(10))
	for i, ttl := range []*int32{nil, i32(-1), i32(100)} {
		if _, err := c.CreateItem(env.ctx, pk, doc(fmt.Sprintf("d%d", i), ttl, "n", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	count := func() string {
		pager := c.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", pk, nil)
		resp, err := pager.NextPage(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(resp.Items[0])
	}
	if got := count(); got != "3" {
		t.Fatalf("count before expiry %s", got)
	}
	env.advance(t, 10)
	if got := count(); got != "2" {
		t.Fatalf("count at expiry of the default-ttl item: %s, want 2", got)
	}
	env.advance(t, 90)
	if got := count(); got != "1" {
		t.Fatalf("count after the ttl-100 item expired: %s, want 1", got)
	}
	pager := c.NewQueryItemsPager("SELECT VALUE c.id FROM c", pk, nil)
	resp, err := pager.NextPage(env.ctx)
	if err != nil || len(resp.Items) != 1 || string(resp.Items[0]) != `"d1"` {
		t.Fatalf("query after expiry: %v %s", err, resp.Items)
	}
	_ = time.Second
}

// TestQueryGroupByAndDistinct: GROUP BY with aggregates (undefined is a
// group of its own, its key left out) and DISTINCT on values and objects
// (reference §6.7, §6.8), single-partition and addressed to range 0.
func TestQueryGroupByAndDistinct(t *testing.T) {
	t.Parallel()
	var docs []map[string]any
	for i := 0; i < 12; i++ {
		d := map[string]any{"id": fmt.Sprintf("%02d", i), "pk": "g", "n": i}
		if i%4 != 3 {
			d["team"] = []string{"a", "b", "c"}[i%4]
		}
		docs = append(docs, d)
	}
	env := newQueryEnv(t, docs)
	g := azcosmos.NewPartitionKeyString("g")
	tests := []struct {
		name, query, want string
		ordered           bool
		pageSize          int32
	}{
		{"group by with count and sum", `SELECT c.team, COUNT(1) AS n, SUM(c.n) AS total FROM c GROUP BY c.team`,
			`[{"team":"a","n":3,"total":12},{"team":"b","n":3,"total":15},{"team":"c","n":3,"total":18},{"n":3,"total":21}]`, false, 0},
		{"group by VALUE", `SELECT VALUE c.team FROM c GROUP BY c.team`, `["a","b","c"]`, false, 0},
		{"group by pages by position", `SELECT VALUE COUNT(1) FROM c GROUP BY c.team`, `[3,3,3,3]`, false, 1},
		{"distinct values", `SELECT DISTINCT VALUE c.team FROM c`, `["a","b","c"]`, false, 0},
		{"distinct objects (missing members give {})", `SELECT DISTINCT c.team FROM c`, `[{},{"team":"a"},{"team":"b"},{"team":"c"}]`, false, 0},
		{"ordered distinct pages by value", `SELECT DISTINCT VALUE c.team FROM c ORDER BY c.team DESC`, `["c","b","a"]`, true, 1},
		{"distinct with TOP", `SELECT DISTINCT TOP 2 VALUE c.team FROM c ORDER BY c.team`, `["a","b"]`, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := env.run(t, tt.query, &g, &azcosmos.QueryOptions{PageSizeHint: tt.pageSize})
			if err != nil {
				t.Fatal(err)
			}
			var want []any
			_ = json.Unmarshal([]byte(tt.want), &want)
			gotV := canonical(t, got)
			if !tt.ordered {
				sortAny(gotV)
				sortAny(want)
			}
			if !reflect.DeepEqual(gotV, want) {
				b, _ := json.Marshal(gotV)
				t.Fatalf("%s\n got %s\nwant %s", tt.query, b, tt.want)
			}
		})
	}
}

// TestQueryCompositeIndexes: an ORDER BY on several paths needs a matching
// composite index (same paths; same or all-reversed directions), as on the
// service; with one it is served.
func TestQueryCompositeIndexes(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "ci"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("ci")
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			IndexingMode: azcosmos.IndexingModeConsistent, Automatic: true,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			CompositeIndexes: [][]azcosmos.CompositeIndex{{
				{Path: "/a", Order: azcosmos.CompositeIndexAscending},
				{Path: "/b", Order: azcosmos.CompositeIndexDescending},
			}},
		}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	p := azcosmos.NewPartitionKeyString("p")
	for i, ab := range [][2]int{{1, 1}, {1, 2}, {0, 5}, {2, 0}} {
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprint(i), "pk": "p", "a": ab[0], "b": ab[1]})
		if _, err := c.CreateItem(ctx, p, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	run := func(q string) ([]string, error) {
		resp, err := c.NewQueryItemsPager(q, p, nil).NextPage(ctx)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, it := range resp.Items {
			ids = append(ids, string(it))
		}
		return ids, nil
	}
	got, err := run(`SELECT VALUE c.id FROM c ORDER BY c.a ASC, c.b DESC`)
	if err != nil || strings.Join(got, ",") != `"2","1","0","3"` {
		t.Fatalf("served by the composite index: %v %v", got, err)
	}
	got, err = run(`SELECT VALUE c.id FROM c ORDER BY c.a DESC, c.b ASC`)
	if err != nil || strings.Join(got, ",") != `"3","0","1","2"` {
		t.Fatalf("the reversed composite index: %v %v", got, err)
	}
	for _, q := range []string{`SELECT * FROM c ORDER BY c.a ASC, c.b ASC`, `SELECT * FROM c ORDER BY c.b, c.a`} {
		_, err := run(q)
		if statusOf(err) != 400 || !strings.Contains(err.Error(), "corresponding composite index") {
			t.Fatalf("%s: %v, want 400 without a composite index", q, err)
		}
	}
}

// TestQueryPlans: plan requests get the gateway's plan (reference §7.4),
// and the rewritten queries an SDK pipeline then sends to range "0" return
// the shapes the pipelines expect (orderByItems/payload, [{"item": ...}]).
func TestQueryPlans(t *testing.T) {
	t.Parallel()
	env := newQueryEnv(t, semanticsDocs)
	raw := newRaw(t, env.e)
	plan := func(query string) map[string]any {
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
		r := raw.do(http.MethodPost, "/dbs/q/colls/c/docs", body, "Content-Type", "application/query+json",
			"x-ms-cosmos-is-query-plan-request", "True", "x-ms-cosmos-supported-query-features", "Aggregate, Distinct, GroupBy, MultipleOrderBy, NonValueAggregate, OffsetAndLimit, OrderBy, Top")
		if r.Status != 200 {
			t.Fatalf("plan of %s: %d %s", query, r.Status, r.Body)
		}
		var p map[string]any
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		return p["queryInfo"].(map[string]any)
	}
	rangeQuery := func(query string) []any {
		body, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
		r := raw.do(http.MethodPost, "/dbs/q/colls/c/docs", body, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
			"x-ms-documentdb-partitionkeyrangeid", "0")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", query, r.Status, r.Body)
		}
		var page struct{ Documents []any }
		_ = json.Unmarshal(r.Body, &page)
		return page.Documents
	}
	info := plan("SELECT c.id FROM c WHERE IS_DEFINED(c.n) ORDER BY c.s DESC")
	if fmt.Sprint(info["orderBy"]) != "[Descending]" || fmt.Sprint(info["orderByExpressions"]) != "[c.s]" {
		t.Fatalf("ORDER BY plan %v", info)
	}
	rewritten := strings.Replace(info["rewrittenQuery"].(string), "{documentdb-formattableorderbyquery-filter}", "true", 1)
	docs := rangeQuery(rewritten)
	if len(docs) != 4 {
		t.Fatalf("rewritten ORDER BY: %d results", len(docs))
	}
	first := docs[0].(map[string]any)
	if items, _ := first["orderByItems"].([]any); len(items) != 1 || first["_rid"] == nil || fmt.Sprint(first["payload"]) != "map[id:5]" {
		t.Fatalf("rewritten ORDER BY result %v", first)
	}
	info = plan(`SELECT VALUE AVG(c.n) FROM c WHERE c.pk = "a"`)
	if fmt.Sprint(info["aggregates"]) != "[Average]" || info["hasSelectValue"] != true {
		t.Fatalf("AVG plan %v", info)
	}
	docs = rangeQuery(info["rewrittenQuery"].(string))
	if b, _ := json.Marshal(docs); string(b) != `[[{"item":{"count":2,"sum":3.5}}]]` {
		t.Fatalf("rewritten AVG: %s", b)
	}
	info = plan("SELECT VALUE c.id FROM c OFFSET 1 LIMIT 2")
	if info["offset"] != float64(1) || info["limit"] != float64(2) || !strings.Contains(info["rewrittenQuery"].(string), "OFFSET 0 LIMIT 3") {
		t.Fatalf("OFFSET plan %v", info)
	}
	if info = plan("SELECT DISTINCT VALUE c.pk FROM c"); info["distinctType"] != "Unordered" {
		t.Fatalf("DISTINCT plan %v", info)
	}
	info = plan("SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c.pk")
	if fmt.Sprint(info["groupByExpressions"]) != "[c.pk]" || fmt.Sprint(info["groupByAliases"]) != "[pk n]" ||
		fmt.Sprint(info["groupByAliasToAggregateType"]) != "map[n:Count pk:<nil>]" || len(info["aggregates"].([]any)) != 0 {
		t.Fatalf("GROUP BY plan %v", info)
	}
	docs = rangeQuery(info["rewrittenQuery"].(string))
	if len(docs) != 3 {
		t.Fatalf("rewritten GROUP BY: %v", docs)
	}
	if g := docs[0].(map[string]any); g["groupByItems"] == nil || fmt.Sprint(g["payload"]) != "map[n:map[item:2] pk:a]" {
		t.Fatalf("rewritten GROUP BY result %v", g)
	}
}

// TestQueryKeyOrder: projected objects keep the statement's member order,
// and objects read from documents keep their stored order (reference
// §6.5), byte for byte.
func TestQueryKeyOrder(t *testing.T) {
	t.Parallel()
	env := newQueryEnv(t, nil)
	body := `{"id":"1","pk":"a","zeta":1,"alpha":{"bb":1,"a":[{"yy":1,"x":2.5}]}}`
	if _, err := env.c.CreateItem(env.ctx, azcosmos.NewPartitionKeyString("a"), []byte(body), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ query, want string }{
		{`SELECT VALUE {"zz": c.zeta, "a": 1, "m": c.missing} FROM c`, `{"zz":1,"a":1}`},
		{`SELECT c.alpha, {"qq": 1, "b": [{"dd": 1, "c": c.missing}]} AS k FROM c`, `{"alpha":{"bb":1,"a":[{"yy":1,"x":2.5}]},"k":{"qq":1,"b":[{"dd":1}]}}`},
		{`SELECT VALUE c.alpha FROM c`, `{"bb":1,"a":[{"yy":1,"x":2.5}]}`},
		{`SELECT VALUE [c.alpha.a[0], {"zz": 1, "a": 2}] FROM c`, `[{"yy":1,"x":2.5},{"zz":1,"a":2}]`},
	}
	for _, tt := range tests {
		got, _, err := env.run(t, tt.query, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if len(got) != 1 || string(got[0]) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.query, got, tt.want)
		}
	}
}

// TestQueryHierarchicalPrefix: on a container with a hierarchical
// partition key, a query may carry a prefix of the key (the service routes
// it to the partitions under that prefix); a full key reads one partition.
func TestQueryHierarchicalPrefix(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "h"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("h")
	def := azcosmos.PartitionKeyDefinition{Paths: []string{"/tenant", "/user"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: def}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	for _, d := range [][3]string{{"1", "x", "u1"}, {"2", "x", "u2"}, {"3", "xy", "u1"}, {"4", "y", "u1"}} {
		b, _ := json.Marshal(map[string]string{"id": d[0], "tenant": d[1], "user": d[2]})
		pk := azcosmos.NewPartitionKeyString(d[1]).AppendString(d[2])
		if _, err := c.CreateItem(ctx, pk, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		pk   azcosmos.PartitionKey
		want []string
	}{
		{"prefix", azcosmos.NewPartitionKeyString("x"), []string{"1", "2"}},
		{"full key", azcosmos.NewPartitionKeyString("x").AppendString("u1"), []string{"1"}},
		{"prefix matching nothing", azcosmos.NewPartitionKeyString("z"), nil},
	}
	for _, tt := range tests {
		pager := c.NewQueryItemsPager("SELECT VALUE c.id FROM c ORDER BY c.id", tt.pk, nil)
		var got []string
		for pager.More() {
			resp, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			for _, it := range resp.Items {
				var id string
				_ = json.Unmarshal(it, &id)
				got = append(got, id)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
	// More components than the definition: refused.
	pager := c.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString("x").AppendString("u1").AppendString("z"), nil)
	if _, err := pager.NextPage(ctx); err == nil || !strings.Contains(err.Error(), "more components") {
		t.Fatalf("three components on a two-level key: %v", err)
	}
}

// wantResults runs query through the SDK and compares its results with
// want (a JSON array); unless ordered, both sides are sorted first.
func (env *queryEnv) wantResults(t *testing.T, query string, pk *azcosmos.PartitionKey, opts *azcosmos.QueryOptions, want string, ordered bool) {
	t.Helper()
	got, _, err := env.run(t, query, pk, opts)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var wantV []any
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	gotV := canonical(t, got)
	if !ordered {
		sortAny(gotV)
		sortAny(wantV)
	}
	if !reflect.DeepEqual(gotV, wantV) {
		b, _ := json.Marshal(gotV)
		t.Fatalf("%s\n got %s\nwant %s", query, b, want)
	}
}
