package compat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// goRangesQuery is one query of TestGoQueriesAcrossRanges.
type goRangesQuery struct {
	name, query string
	pk          string // partition key value sent ("" = none: cross-partition)
	// ordered: compare results in order (else as a sorted multiset: the
	// order across ranges of a cross-partition query is unspecified)
	ordered bool
	// want: the results, when pinned here (JSON, space-separated)
	want string
}

// goRangesAnswer runs q through azcosmos with pages of 3 and returns its
// results (JSON, system properties dropped, sorted unless q.ordered) or
// "ERR <status> <substatus>" for an error.
func goRangesAnswer(t *testing.T, cc *azcosmos.ContainerClient, q goRangesQuery) string {
	t.Helper()
	pk := azcosmos.NewPartitionKey()
	if q.pk != "" {
		pk = azcosmos.NewPartitionKeyString(q.pk)
	}
	pager := cc.NewQueryItemsPager(q.query, pk, &azcosmos.QueryOptions{PageSizeHint: 3})
	var out []string
	for pages := 0; pager.More(); pages++ {
		if pages == 100 {
			t.Fatalf("%s: the query does not end", q.name)
		}
		resp, err := pager.NextPage(bg)
		if err != nil {
			var re *azcore.ResponseError
			if errors.As(err, &re) {
				sub := ""
				if re.RawResponse != nil {
					sub = re.RawResponse.Header.Get("x-ms-substatus")
				}
				return fmt.Sprintf("ERR %d %s", re.StatusCode, sub)
			}
			t.Fatalf("%s: %v", q.name, err)
		}
		for _, it := range resp.Items {
			var v any
			if err := json.Unmarshal(it, &v); err != nil {
				t.Fatal(err)
			}
			if m, ok := v.(map[string]any); ok {
				for k := range m {
					if strings.HasPrefix(k, "_") {
						delete(m, k)
					}
				}
			}
			b, _ := json.Marshal(v)
			out = append(out, string(b))
		}
	}
	if !q.ordered {
		sort.Strings(out)
	}
	return strings.Join(out, " ")
}

// TestGoQueriesAcrossRanges: the Go SDK has no query pipeline, so its
// queries are either scoped by a partition key (served by the range that
// holds it) or sent cross-partition without a range id (the gateway's
// shape, served whole), and 400/1004 for the shapes the gateway cannot
// serve. With 1, 4 and 7 ranges (48 items over 24 partition keys, pages
// of 3) every query gives the same answer: the same results, in order for
// ORDER BY within a partition, and the same refusals.
func TestGoQueriesAcrossRanges(t *testing.T) {
	tests := []goRangesQuery{
		{name: "pk-select", query: "SELECT c.id FROM c", pk: "p5", want: `{"id":"i05"} {"id":"i29"}`},
		{name: "pk-orderby", query: "SELECT VALUE c.n FROM c ORDER BY c.n DESC", pk: "p7", ordered: true, want: "25 1"},
		{name: "pk-top", query: "SELECT TOP 1 VALUE c.id FROM c ORDER BY c.n", pk: "p7", ordered: true, want: `"i07"`},
		{name: "pk-offset", query: "SELECT VALUE c.id FROM c ORDER BY c.id OFFSET 1 LIMIT 5", pk: "p3", ordered: true, want: `"i27"`},
		{name: "pk-distinct", query: "SELECT DISTINCT VALUE c.g FROM c", pk: "p0"},
		{name: "pk-count", query: "SELECT VALUE COUNT(1) FROM c", pk: "p9", want: "2"},
		{name: "pk-nonvalue-agg", query: "SELECT COUNT(1) AS n, SUM(c.n) AS s FROM c", pk: "p9", want: `{"n":2,"s":54}`},
		{name: "pk-groupby", query: "SELECT c.h, COUNT(1) AS k FROM c GROUP BY c.h", pk: "p2"},
		{name: "pinned-orderby", query: "SELECT VALUE c.id FROM c WHERE c.pk = 'p11' ORDER BY c.n", ordered: true, want: `"i35" "i11"`},
		{name: "cross-select", query: "SELECT c.id, c.pk, c.n FROM c"},
		{name: "cross-filter", query: "SELECT VALUE c.id FROM c WHERE c.n >= 40 AND c.g IN (1, 2)"},
		{name: "cross-join", query: "SELECT c.id, t AS tag FROM c JOIN t IN c.tags WHERE t = 'b'"},
		{name: "cross-like", query: "SELECT VALUE c.id FROM c WHERE c.s LIKE 's1%'"},
		{name: "cross-subquery", query: "SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS nt FROM c WHERE c.g = 3"},
		{name: "cross-orderby", query: "SELECT * FROM c ORDER BY c.n", want: "ERR 400 1004"},
		{name: "cross-top", query: "SELECT TOP 5 * FROM c", want: "ERR 400 1004"},
		{name: "cross-count", query: "SELECT VALUE COUNT(1) FROM c", want: "ERR 400 1004"},
		{name: "cross-distinct", query: "SELECT DISTINCT VALUE c.g FROM c", want: "ERR 400 1004"},
		{name: "cross-offset", query: "SELECT * FROM c OFFSET 1 LIMIT 2", want: "ERR 400 1004"},
		{name: "cross-nonvalue-agg", query: "SELECT COUNT(1) AS n FROM c", want: "ERR 400 0"},
		{name: "cross-groupby", query: "SELECT c.g, COUNT(1) AS k FROM c GROUP BY c.g", want: "ERR 400 0"},
		{name: "cross-value-object-agg", query: "SELECT VALUE {n: COUNT(1)} FROM c", want: "ERR 400 0"},
	}
	answers := map[int]map[string]string{}
	for _, n := range []int{1, 4, 7} {
		e := emulatortest.Start(t, emulatortest.WithMinPartitionRanges(n))
		db := mustDB(t, e.Client(t), "gq")
		cc := mustContainer(t, db, "c")
		if _, rs := readRanges(t, newRaw(t, e), "gq", "c"); len(rs) != n {
			t.Fatalf("%d ranges asked, %d listed", n, len(rs))
		}
		for i := 0; i < 48; i++ {
			nv := (i * 7) % 48
			doc := map[string]any{"id": fmt.Sprintf("i%02d", i), "pk": fmt.Sprintf("p%d", i%24), "n": nv, "g": nv%5 + 1,
				"s": fmt.Sprintf("s%d", (i*11)%13), "tags": []string{"a", "b", "c"}[:i%4]}
			if i%8 != 0 {
				doc["h"] = []string{"x", "y", "z"}[i%3]
			}
			b, _ := json.Marshal(doc)
			if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(doc["pk"].(string)), b, nil); err != nil {
				t.Fatal(err)
			}
		}
		answers[n] = map[string]string{}
		for _, q := range tests {
			answers[n][q.name] = goRangesAnswer(t, cc, q)
		}
	}
	for _, q := range tests {
		t.Run(q.name, func(t *testing.T) {
			one := answers[1][q.name]
			if one == "" || (q.want != "" && one != q.want) {
				t.Errorf("one range: %q, want %q", one, q.want)
			}
			for _, n := range []int{4, 7} {
				if got := answers[n][q.name]; got != one {
					t.Errorf("%d ranges:\n got %s\nwant %s", n, got, one)
				}
			}
		})
	}
}
