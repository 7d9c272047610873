package compat_test

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// longText returns n incompressible characters (PostgreSQL compresses
// long index entries: a repeated character would fit in one).
func longText(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)[:n]
}

// TestLongValueOnQueriedPath: once queries on /v (across partitions and
// in one) have made its path indexes, every write path of the Go SDK and
// of raw REST stores documents whose /v is a 3,200-character string or a
// large object (201/200, never 500), the documents read back intact, and
// queries on /v (equality, range, ORDER BY; in the partition and across
// partitions) return the exact results, the long-valued documents
// included. "stored first" writes the long values before the queries: the
// queries succeed though their index cannot be made.
func TestLongValueOnQueriedPath(t *testing.T) {
	f := newFixture(t)
	db := mustDB(t, f.c, "sdb")
	str := longText(t, 3200)
	obj := map[string]any{"a": longText(t, 1500), "b": longText(t, 1500), "n": 1.5}
	pk := azcosmos.NewPartitionKeyString("p")
	doc := func(id string, v any) map[string]any { return map[string]any{"id": id, "pk": "p", "v": v} }
	makeIndexes := func(t *testing.T, cc *azcosmos.ContainerClient) {
		queryAll(t, cc, `SELECT * FROM c WHERE c.v = "x"`, azcosmos.NewPartitionKey(), nil)
		queryAll(t, cc, `SELECT * FROM c WHERE c.v = "x"`, pk, nil)
	}
	// each write stores documents "s" (v: str) and "o" (v: obj)
	writes := []struct {
		name  string
		write func(t *testing.T, cc *azcosmos.ContainerClient, coll string)
	}{
		{"create", func(t *testing.T, cc *azcosmos.ContainerClient, _ string) {
			for _, d := range []map[string]any{doc("s", str), doc("o", obj)} {
				r, err := cc.CreateItem(bg, pk, mustJSON(t, d), nil)
				if err != nil || r.RawResponse.StatusCode != http.StatusCreated {
					t.Fatalf("create %v: %v", d["id"], err)
				}
			}
		}},
		{"upsert", func(t *testing.T, cc *azcosmos.ContainerClient, _ string) {
			if _, err := cc.CreateItem(bg, pk, mustJSON(t, doc("o", "x")), nil); err != nil {
				t.Fatal(err)
			}
			for d, status := range map[string]int{"s": http.StatusCreated, "o": http.StatusOK} {
				v := any(str)
				if d == "o" {
					v = obj
				}
				r, err := cc.UpsertItem(bg, pk, mustJSON(t, doc(d, v)), nil)
				if err != nil || r.RawResponse.StatusCode != status {
					t.Fatalf("upsert %s: %v", d, err)
				}
			}
		}},
		{"replace", func(t *testing.T, cc *azcosmos.ContainerClient, _ string) {
			for _, d := range []map[string]any{doc("s", str), doc("o", obj)} {
				if _, err := cc.CreateItem(bg, pk, mustJSON(t, doc(d["id"].(string), "x")), nil); err != nil {
					t.Fatal(err)
				}
				if _, err := cc.ReplaceItem(bg, pk, d["id"].(string), mustJSON(t, d), nil); err != nil {
					t.Fatalf("replace %v: %v", d["id"], err)
				}
			}
		}},
		{"patch", func(t *testing.T, cc *azcosmos.ContainerClient, _ string) {
			for id, v := range map[string]any{"s": str, "o": obj} {
				if _, err := cc.CreateItem(bg, pk, mustJSON(t, doc(id, "x")), nil); err != nil {
					t.Fatal(err)
				}
				ops := azcosmos.PatchOperations{}
				ops.AppendSet("/v", v)
				if _, err := cc.PatchItem(bg, pk, id, ops, nil); err != nil {
					t.Fatalf("patch %s: %v", id, err)
				}
			}
		}},
		{"transactional batch", func(t *testing.T, cc *azcosmos.ContainerClient, _ string) {
			b := cc.NewTransactionalBatch(pk)
			b.CreateItem(mustJSON(t, doc("s", str)), nil)
			b.UpsertItem(mustJSON(t, doc("o", obj)), nil)
			res, err := cc.ExecuteTransactionalBatch(bg, b, nil)
			if err != nil || !res.Success {
				t.Fatalf("batch: %v %+v", err, res)
			}
		}},
		{"bulk", func(t *testing.T, _ *azcosmos.ContainerClient, coll string) {
			body := mustJSON(t, []map[string]any{
				{"operationType": "Create", "partitionKey": `["p"]`, "resourceBody": doc("s", str)},
				{"operationType": "Create", "partitionKey": `["p"]`, "resourceBody": doc("o", obj)},
			})
			r := f.rawFor(t).do(http.MethodPost, docsPath("sdb", coll), body, bulkHeaders...)
			if r.Status != http.StatusOK && r.Status != http.StatusMultiStatus {
				t.Fatalf("bulk: status %d: %.300s", r.Status, r.Body)
			}
			if got := fmt.Sprint(batchStatuses(t, r.Body)); got != "[201 201]" {
				t.Fatalf("bulk statuses %s: %.300s", got, r.Body)
			}
		}},
		{"stored procedure", func(t *testing.T, _ *azcosmos.ContainerClient, coll string) {
			raw := f.rawFor(t)
			sprocs := scriptsPath("sdb", coll, "sprocs")
			wantStatus(t, raw.do(http.MethodPost, sprocs, mustJSON(t, map[string]string{"id": "put", "body": `function (docs) {
				var c = getContext().getCollection();
				docs.forEach(function (d) {
					if (!c.createDocument(c.getSelfLink(), d, function (err) { if (err) throw err; })) throw new Error("not accepted");
				});
				getContext().getResponse().setBody("ok");
			}`})), http.StatusCreated)
			r := raw.do(http.MethodPost, sprocs+"/put", mustJSON(t, []any{[]any{doc("s", str), doc("o", obj)}}), pkHeader, `["p"]`)
			wantStatus(t, r, http.StatusOK)
		}},
		{"stored first", func(t *testing.T, cc *azcosmos.ContainerClient, _ string) {
			for _, d := range []map[string]any{doc("s", str), doc("o", obj)} {
				if _, err := cc.CreateItem(bg, pk, mustJSON(t, d), nil); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for i, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			coll := fmt.Sprint("c", i)
			cc := mustContainer(t, db, coll, "/pk")
			// documents around the long ones, in this partition and another
			for _, d := range []map[string]any{doc("a", "a"), doc("z", "zz"), {"id": "q", "pk": "q", "v": "b"}} {
				if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(d["pk"].(string)), mustJSON(t, d), nil); err != nil {
					t.Fatal(err)
				}
			}
			if w.name == "stored first" {
				w.write(t, cc, coll)
				makeIndexes(t, cc)
			} else {
				makeIndexes(t, cc)
				w.write(t, cc, coll)
			}
			for id, v := range map[string]any{"s": str, "o": obj} {
				r, err := cc.ReadItem(bg, pk, id, nil)
				if err != nil {
					t.Fatalf("read %s: %v", id, err)
				}
				if got, want := string(mustJSON(t, object(t, r.Value)["v"])), string(mustJSON(t, v)); got != want {
					t.Errorf("%s: stored v %.80s, want %.80s", id, got, want)
				}
			}
			params := func(v any) *azcosmos.QueryOptions {
				return &azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@v", Value: v}}}
			}
			// the string values, in partition p and across partitions,
			// in value order: the expected results of range and ORDER BY
			inP := map[string]string{"a": "a", "z": "zz", "s": str}
			all := map[string]string{"a": "a", "z": "zz", "s": str, "q": "b"}
			strings := func(m map[string]string, min string) []string {
				var ids []string
				for id, v := range m {
					if v >= min {
						ids = append(ids, id)
					}
				}
				slices.SortFunc(ids, func(x, y string) int { return cmp.Compare(m[x], m[y]) })
				return ids
			}
			tests := []struct {
				query      string
				opts       *azcosmos.QueryOptions
				inP, cross []string
			}{
				{`SELECT VALUE c.id FROM c WHERE c.v = @v`, params(str), []string{"s"}, []string{"s"}},
				{`SELECT VALUE c.id FROM c WHERE c.v = @v`, params(obj), []string{"o"}, []string{"o"}},
				{`SELECT VALUE c.id FROM c WHERE c.v >= @v`, params(str[:1]), strings(inP, str[:1]), strings(all, str[:1])},
				{`SELECT VALUE c.id FROM c WHERE IS_STRING(c.v) ORDER BY c.v`, nil, strings(inP, ""), strings(all, "")},
			}
			for _, tt := range tests {
				for _, scope := range []struct {
					pk    azcosmos.PartitionKey
					cross bool
					want  []string
				}{{pk, false, tt.inP}, {azcosmos.NewPartitionKey(), true, tt.cross}} {
					var got []string
					for _, v := range crossQuery(t, f.rawFor(t), cc, coll, tt.query, scope.pk, scope.cross, tt.opts) {
						got = append(got, v.(string))
					}
					if tt.opts != nil { // no ORDER BY: any order
						slices.Sort(got)
						scope.want = slices.Sorted(slices.Values(scope.want))
					}
					if !slices.Equal(got, scope.want) {
						t.Errorf("%s (across partitions %v): %v, want %v", tt.query, scope.cross, got, scope.want)
					}
				}
			}
		})
	}
}

// crossQuery runs a query through the Go SDK, except an ORDER BY across
// partitions, which azcosmos v1.5.0 cannot run (it needs the query plan):
// that one goes over raw REST to the container's one partition key range,
// as the SDKs that run it do.
func crossQuery(t *testing.T, raw *rawClient, cc *azcosmos.ContainerClient, coll, query string, pk azcosmos.PartitionKey, cross bool, opts *azcosmos.QueryOptions) []any {
	t.Helper()
	if !cross || !strings.Contains(query, "ORDER BY") {
		return queryAll(t, cc, query, pk, opts)
	}
	r := raw.do(http.MethodPost, docsPath("sdb", coll), mustJSON(t, map[string]any{"query": query, "parameters": []any{}}),
		"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", "x-ms-documentdb-partitionkeyrangeid", "0")
	wantStatus(t, r, http.StatusOK)
	var page struct{ Documents []any }
	if err := json.Unmarshal(r.Body, &page); err != nil {
		t.Fatal(err)
	}
	return page.Documents
}
