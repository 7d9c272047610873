package compat_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// TestEPKRangeQueryAndReadFeed: the EPK sub-range headers that .NET, Java
// and JS send with a partition key range id (x-ms-read-key-type
// EffectivePartitionKeyRange, x-ms-start-epk, x-ms-end-epk) confine a
// query (of several shapes) and the read feed to the items whose
// effective partition key lies in [start, end), across pages; the whole
// range returns everything, a range holding no item nothing, and an empty
// range is 400. The keys' V1 EPKs are the SDKs' unit-test vectors:
// "redmond" 05C1EFE3…, "partitionKey" 05C1E1B3…, "" 05C1CF33…, "aa"
// 05C1C7B7….
func TestEPKRangeQueryAndReadFeed(t *testing.T) {
	env := newCFEnv(t)
	cc := env.container(t, "c", nil)
	for _, pk := range []string{"redmond", "aa", "partitionKey", ""} {
		for _, n := range []string{"1", "2"} {
			cfPut(t, cc, pk+"-"+n, pk, map[string]any{"n": n})
		}
	}
	epk := func(start, end string) []string {
		return []string{"x-ms-documentdb-partitionkeyrangeid", "0", "x-ms-read-key-type", "EffectivePartitionKeyRange",
			"x-ms-start-epk", start, "x-ms-end-epk", end}
	}
	// drain reads every page of a query (query != "") or of the read feed
	// and returns the ids (or values) in order.
	drain := func(t *testing.T, query string, hdr []string) (int, []string) {
		t.Helper()
		var out []string
		cont := ""
		for pages := 0; pages < 50; pages++ {
			h := append(slices.Clone(hdr), "x-ms-max-item-count", "3")
			if cont != "" {
				h = append(h, "x-ms-continuation", cont)
			}
			var resp rawResp
			if query != "" {
				body, _ := json.Marshal(map[string]any{"query": query})
				resp = env.raw.do(http.MethodPost, docsPath("cf", "c"), body, append(h, "Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True")...)
			} else {
				resp = env.raw.do(http.MethodGet, docsPath("cf", "c"), nil, h...)
			}
			if resp.Status != http.StatusOK {
				return resp.Status, nil
			}
			var page struct{ Documents []json.RawMessage }
			if err := json.Unmarshal(resp.Body, &page); err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Documents {
				var doc struct{ ID string }
				if json.Unmarshal(d, &doc) == nil && doc.ID != "" {
					out = append(out, doc.ID)
				} else {
					out = append(out, string(d))
				}
			}
			if cont = resp.Header.Get("x-ms-continuation"); cont == "" {
				return resp.Status, out
			}
		}
		t.Fatal("more than 50 pages")
		return 0, nil
	}
	all := []string{"redmond-1", "redmond-2", "aa-1", "aa-2", "partitionKey-1", "partitionKey-2", "-1", "-2"}
	for _, tc := range []struct {
		name       string
		start, end string
		want       []string // in creation order
	}{
		{"two keys", "05C1D0", "05C1F0", []string{"redmond-1", "redmond-2", "partitionKey-1", "partitionKey-2"}},
		{"from the start", "", "05C1D0", []string{"aa-1", "aa-2", "-1", "-2"}},
		{"one key exactly", "05C1C7B7270FE008626200", "05C1CF33970FF80800", []string{"aa-1", "aa-2"}},
		{"lower-case bounds", "05c1d0", "05c1f0", []string{"redmond-1", "redmond-2", "partitionKey-1", "partitionKey-2"}},
		{"whole range", "", "FF", all},
		{"no item in range", "06", "FF", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sorted := slices.Sorted(slices.Values(tc.want))
			for _, q := range []struct{ name, text string }{
				{"read feed", ""},
				{"SELECT *", "SELECT * FROM c"},
				{"ORDER BY", "SELECT * FROM c ORDER BY c.id"},
				{"COUNT", "SELECT VALUE COUNT(1) FROM c"},
				{"DISTINCT", "SELECT DISTINCT VALUE c.pk FROM c"},
			} {
				status, got := drain(t, q.text, epk(tc.start, tc.end))
				if status != http.StatusOK {
					t.Fatalf("%s: status %d", q.name, status)
				}
				want := tc.want
				switch q.name {
				case "ORDER BY":
					want = sorted
				case "COUNT":
					want = []string{string(rune('0' + len(tc.want)))}
				case "DISTINCT":
					want = nil
					for _, id := range tc.want {
						if pk := `"` + id[:len(id)-2] + `"`; !slices.Contains(want, pk) {
							want = append(want, pk)
						}
					}
					slices.Sort(want)
					slices.Sort(got)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %v, want %v", q.name, got, want)
				}
			}
		})
	}
	t.Run("empty range", func(t *testing.T) {
		for _, q := range []string{"", "SELECT * FROM c"} {
			if status, _ := drain(t, q, epk("80", "10")); status != http.StatusBadRequest {
				t.Errorf("query %q over [80, 10): status %d, want 400", q, status)
			}
		}
	})
}
