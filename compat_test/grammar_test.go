package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// grammarItems are the items of the grammar scenarios (partition key
// /id): names, LIKE patterns, prefixes and escapes to read per row, tags
// to iterate; items 5 and 6 hold a number where a string goes.
var grammarItems = []string{
	`{"id":"1","name":"apple","pattern":"a%","prefix":"ap","esc":"!","tags":["red","green"]}`,
	`{"id":"2","name":"50% off","pattern":"50!%%","prefix":"50","esc":"!","tags":["sale"]}`,
	`{"id":"3","name":"Apple","pattern":"[A-C]pple","prefix":"Ap","tags":[]}`,
	`{"id":"4","name":"banana","pattern":"b_n%","prefix":"ba","tags":["yellow","green","yellow"]}`,
	`{"id":"5","name":42,"pattern":"4%","prefix":4}`,
	`{"id":"6","name":"cherry","pattern":7,"prefix":"ch","tags":"notarray"}`,
}

// grammarQuery is a query of the grammar scenarios and its exact results
// (a JSON array): in that order when ordered, else as a multiset (the
// ranges of a container answer in their own order).
type grammarQuery struct {
	Name       string         `json:"name"`
	Query      string         `json:"query"`
	Parameters []grammarParam `json:"parameters,omitempty"`
	want       string         // JSON array
	ordered    bool           // ORDER BY: results in want's order
}

type grammarParam struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// maxNestedSubqueries is the deepest nesting of scalar subqueries that
// the parser accepts: its syntax nesting bound (256) allows 127, and the
// 128th is a syntax error (pgstore/sqlgen's TestDeepSubqueries pins both;
// compat tests may import only the SDK and emulatortest).
const maxNestedSubqueries = 127

func nestedScalarQuery(n int) string {
	return "SELECT VALUE " + strings.Repeat("(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n) + " FROM c WHERE c.id = '1'"
}

// grammarQueries are the scenarios: LIKE with a pattern (and escape) read
// per row or computed (% and _ wildcards, sets, ESCAPE, case-sensitive,
// undefined for non-strings), SELECT * in scalar, EXISTS and ARRAY
// subqueries, subqueries in the FROM of subqueries, and nesting to the
// parser's bound.
func grammarQueries(t *testing.T) []grammarQuery {
	max := maxNestedSubqueries
	existsN := func(n int) string {
		return "SELECT VALUE " + strings.Repeat("EXISTS(SELECT VALUE ", n) + "c.id" + strings.Repeat(")", n) + " FROM c WHERE c.id = '4'"
	}
	fromN := func(n int) string {
		q := "(SELECT VALUE t FROM t IN c.tags)"
		for i := 1; i < n; i++ {
			q = fmt.Sprintf("(SELECT VALUE x%d FROM %s x%d)", i, q, i)
		}
		return "SELECT VALUE (SELECT VALUE COUNT(1) FROM " + q + " y) FROM c"
	}
	return []grammarQuery{
		{Name: "likerow", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern`, want: `["1","3","4"]`},
		{Name: "likerowescape", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern ESCAPE '!'`, want: `["1","2","3","4"]`},
		{Name: "likerowescaperow", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE c.pattern ESCAPE c.esc`, want: `["1","2"]`},
		{Name: "likeconcat", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE CONCAT(c.prefix, '%')`, want: `["1","2","3","4","6"]`},
		{Name: "likeconcatescape", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE CONCAT(c.prefix, '!%%') ESCAPE '!'`, want: `["2"]`},
		{Name: "likecase", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE LOWER(c.prefix) || '%'`, want: `["1","2","4","6"]`},
		{Name: "notlike", Query: `SELECT VALUE c.id FROM c WHERE c.name NOT LIKE c.pattern`, want: `["2"]`},
		{Name: "likeprojected", Query: `SELECT c.id, c.name LIKE c.pattern AS m FROM c`,
			want: `[{"id":"1","m":true},{"id":"2","m":false},{"id":"3","m":true},{"id":"4","m":true},{"id":"5"},{"id":"6"}]`},
		{Name: "likeparameter", Query: `SELECT VALUE c.id FROM c WHERE c.name LIKE @p`,
			Parameters: []grammarParam{{"@p", json.RawMessage(`5`)}}, want: `[]`},
		{Name: "likeorderby", Query: `SELECT c.id, ARRAY(SELECT * FROM t IN c.tags ORDER BY t) AS s FROM c WHERE c.name LIKE c.pattern ORDER BY c.id DESC`,
			want: `[{"id":"4","s":["green","yellow","yellow"]},{"id":"3","s":[]},{"id":"1","s":["green","red"]}]`, ordered: true},
		{Name: "starscalar", Query: `SELECT VALUE (SELECT * FROM t IN c.tags) FROM c`, want: `["red","sale","yellow"]`},
		{Name: "starexists", Query: `SELECT VALUE EXISTS(SELECT * FROM t IN c.tags WHERE t = 'green') FROM c`, want: `[true,false,false,true,false,false]`},
		{Name: "starexistswhere", Query: `SELECT VALUE c.id FROM c WHERE EXISTS(SELECT * FROM t IN c.tags WHERE t LIKE '%ee%')`, want: `["1","4"]`},
		{Name: "stararray", Query: `SELECT VALUE ARRAY(SELECT * FROM t IN c.tags) FROM c`, want: `[["red","green"],["sale"],[],["yellow","green","yellow"],[],[]]`},
		{Name: "stararraydistinct", Query: `SELECT c.id, ARRAY(SELECT DISTINCT * FROM t IN c.tags) AS d FROM c WHERE c.id = '4'`, want: `[{"id":"4","d":["yellow","green"]}]`},
		{Name: "fromsubquery", Query: `SELECT VALUE (SELECT VALUE COUNT(1) FROM (SELECT VALUE t FROM t IN c.tags) x) FROM c`, want: `[2,1,0,3,0,0]`},
		{Name: "fromsubqueryprojected", Query: `SELECT c.id, (SELECT VALUE SUM(x.l) FROM (SELECT LENGTH(t) AS l FROM t IN c.tags) x) AS n FROM c WHERE c.id IN ('1', '4')`,
			want: `[{"id":"1","n":8},{"id":"4","n":17}]`},
		{Name: "fromsubquerystar", Query: `SELECT VALUE ARRAY(SELECT * FROM (SELECT VALUE t FROM t IN c.tags WHERE t != 'green') x) FROM c WHERE c.id = '4'`,
			want: `[["yellow","yellow"]]`},
		{Name: "fromsubqueryorderby", Query: `SELECT VALUE c.id FROM c WHERE (SELECT VALUE COUNT(1) FROM (SELECT VALUE t FROM t IN c.tags) x) > 0 ORDER BY c.id DESC`,
			want: `["4","2","1"]`, ordered: true},
		{Name: "joinsubquery", Query: `SELECT VALUE ARRAY(SELECT VALUE [t, u] FROM t IN c.tags JOIN (SELECT VALUE LENGTH(t)) u) FROM c WHERE c.id = '1'`,
			want: `[[["red",3],["green",5]]]`},
		{Name: "nested9", Query: nestedScalarQuery(9), want: `["1"]`},
		{Name: fmt.Sprintf("nested%d", max), Query: nestedScalarQuery(max), want: `["1"]`},
		{Name: "exists40", Query: existsN(40), want: `[true]`},
		{Name: "from12", Query: fromN(12), want: `[2,1,0,3,0,0]`},
	}
}

// sameResults compares results (JSON arrays) in order, or as multisets.
func sameResults(got, want string, ordered bool) bool {
	var g, w []json.RawMessage
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	norm := func(xs []json.RawMessage) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			var v any
			_ = json.Unmarshal(x, &v)
			b, _ := json.Marshal(v) // object keys sorted
			out[i] = string(b)
		}
		if !ordered {
			sort.Strings(out)
		}
		return out
	}
	return reflect.DeepEqual(norm(g), norm(w))
}

// TestGrammarJS runs compat_test/js/grammar.mjs (@azure/cosmos 4.10.1,
// maxItemCount 2, fetchAll and a fetchNext loop) on a container with one
// partition key range (400 RU/s) and one with five (25,100 RU/s).
func TestGrammarJS(t *testing.T) {
	t.Parallel()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	queries := grammarQueries(t)
	qs, _ := json.Marshal(queries)
	items := "[" + strings.Join(grammarItems, ",") + "]"
	start := time.Now()
	out, stderr := runJS(t, node, dir, "grammar.mjs", 200*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=grammar",
		"CONTAINERS=one:400,five:25100", "ITEMS="+items, "QUERIES="+string(qs))
	t.Logf("grammar.mjs ran in %v", time.Since(start).Round(time.Millisecond))
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.SplitN(l, " ", 3); len(f) == 3 {
			lines[f[0]+" "+f[1]] = f[2]
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no output; stderr:\n%s", stderr)
	}
	for c, n := range map[string]string{"one": "1", "five": "5"} {
		if got := lines["RANGES "+c]; got != n {
			t.Errorf("container %s: %s ranges, want %s", c, got, n)
		}
	}
	for _, q := range queries {
		for _, c := range []string{"one", "five"} {
			label := c + "/" + q.Name
			if e := lines["ERR "+label]; e != "" {
				t.Errorf("%s: %s: refused: %s", label, q.Query, e)
				continue
			}
			for _, how := range []string{"ALL", "NEXT"} {
				if got := lines[how+" "+label]; !sameResults(got, q.want, q.ordered) {
					t.Errorf("%s (%s): %s\n got %s\nwant %s", label, how, q.Query, got, q.want)
				}
			}
		}
	}
}

// TestGrammarGo runs the same scenarios through azcosmos (page size 2,
// cross-partition) on containers of 400 RU/s (one partition key range) and
// 25,100 RU/s (five, as TestGrammarJS checks), except those with ORDER BY:
// azcosmos has no query pipeline, and the gateway answers a cross-
// partition ORDER BY with its 400/1004.
func TestGrammarGo(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "grammar"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("grammar")
	queries := grammarQueries(t)
	for _, tc := range []struct {
		container  string
		throughput int32
	}{{"one", 400}, {"five", 25100}} {
		tp := azcosmos.NewManualThroughputProperties(tc.throughput)
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: tc.container,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
			t.Fatal(err)
		}
		c, _ := db.NewContainer(tc.container)
		for _, it := range grammarItems {
			var doc struct{ ID string }
			_ = json.Unmarshal([]byte(it), &doc)
			if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(doc.ID), []byte(it), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, q := range queries {
			if q.ordered {
				continue
			}
			var params []azcosmos.QueryParameter
			for _, p := range q.Parameters {
				var v any
				_ = json.Unmarshal(p.Value, &v)
				params = append(params, azcosmos.QueryParameter{Name: p.Name, Value: v})
			}
			pager := c.NewQueryItemsPager(q.Query, azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 2, QueryParameters: params})
			var got []json.RawMessage
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Errorf("%s/%s: %s: %v", tc.container, q.Name, q.Query, err)
					break
				}
				for _, it := range page.Items {
					got = append(got, json.RawMessage(it))
				}
			}
			g, _ := json.Marshal(got)
			if got == nil {
				g = []byte("[]")
			}
			if !sameResults(string(g), q.want, false) {
				t.Errorf("%s/%s: %s\n got %s\nwant %s", tc.container, q.Name, q.Query, g, q.want)
			}
		}
	}
}
