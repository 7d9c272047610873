package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// batchHeaders are the headers of a transactional batch (reference §8.3).
var batchHeaders = []string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True", pkHeader, `["a"]`}

// bulkHeaders are the headers the JS SDK's bulk sends.
var bulkHeaders = []string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "False",
	"x-ms-cosmos-batch-continue-on-error", "True", "x-ms-documentdb-partitionkeyrangeid", "0"}

// batchStatuses returns the statusCode of every result of a raw batch
// response.
func batchStatuses(t *testing.T, body []byte) []int {
	t.Helper()
	var res []struct {
		StatusCode int `json:"statusCode"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatalf("batch body: %v: %s", err, body)
	}
	out := make([]int, len(res))
	for i, r := range res {
		out[i] = r.StatusCode
	}
	return out
}

// ids returns the ids of every item of the container, in creation order.
func (e *itemEnv) ids(t *testing.T) []string {
	t.Helper()
	var out []string
	pager := e.cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKeyString("a"), nil)
	for pager.More() {
		p, err := pager.NextPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			var s string
			if err := json.Unmarshal(it, &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	return out
}

func TestTransactionalBatch(t *testing.T) {
	t.Parallel()
	// a frozen clock: TTL expiry inside a batch is tested by moving it
	em := emulatortest.Start(t, emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0)))
	f := &fixture{e: em, c: em.Client(t), raw: newRaw(t, em)}
	db := mustDB(t, f.c, "batchdb")
	pk := azcosmos.NewPartitionKeyString("a")
	doc := func(id string, v int) []byte { return []byte(fmt.Sprintf(`{"id":%q,"pk":"a","v":%d}`, id, v)) }

	t.Run("operations in order see each other and commit together", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "order")
		b := e.cc.NewTransactionalBatch(pk)
		b.CreateItem(doc("x", 1), nil)
		b.ReadItem("x", nil)
		b.ReplaceItem("x", doc("x", 2), nil)
		p := azcosmos.PatchOperations{}
		p.AppendIncrement("/v", 10)
		b.PatchItem("x", p, nil)
		b.UpsertItem(doc("y", 1), nil)
		b.UpsertItem(doc("y", 2), nil)
		b.CreateItem(doc("z", 1), nil)
		b.DeleteItem("z", nil)
		res, err := e.cc.ExecuteTransactionalBatch(bg, b, &azcosmos.TransactionalBatchOptions{EnableContentResponseOnWrite: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Success || res.RawResponse.StatusCode != http.StatusOK {
			t.Fatalf("success %v status %d", res.Success, res.RawResponse.StatusCode)
		}
		want := []int32{201, 200, 200, 200, 201, 200, 201, 204}
		wantV := []string{"1", "1", "2", "12", "1", "2", "1", ""}
		if len(res.OperationResults) != len(want) {
			t.Fatalf("%d results", len(res.OperationResults))
		}
		for i, r := range res.OperationResults {
			if r.StatusCode != want[i] || r.RequestCharge <= 0 {
				t.Errorf("op %d: status %d charge %v, want %d", i, r.StatusCode, r.RequestCharge, want[i])
			}
			if wantV[i] == "" {
				if r.ResourceBody != nil {
					t.Errorf("op %d: body %s", i, r.ResourceBody)
				}
				continue
			}
			if r.ETag == "" || object(t, r.ResourceBody)["v"] != json.Number(wantV[i]) {
				t.Errorf("op %d: etag %q body %s, want v %s", i, r.ETag, r.ResourceBody, wantV[i])
			}
		}
		if got := strings.Join(e.ids(t), ","); got != "x,y" {
			t.Errorf("items %s, want x,y", got)
		}
		rr, err := e.cc.ReadItem(bg, pk, "x", nil)
		if err != nil || object(t, rr.Value)["v"] != json.Number("12") || rr.ETag != res.OperationResults[3].ETag {
			t.Errorf("x after batch: %v %s etag %q", err, rr.Value, rr.ETag)
		}
	})

	t.Run("a failing operation rolls back the batch", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "fail")
		r, err := e.cc.CreateItem(bg, pk, doc("old", 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		oldETag := r.ETag
		stale := azcore.ETag(`"00000000-0000-0000-0000-000000000000"`)
		cond := azcosmos.PatchOperations{}
		cond.SetCondition("from c where c.v = 99")
		cond.AppendSet("/v", 5)
		badPatch := azcosmos.PatchOperations{}
		badPatch.AppendRemove("/missing")
		cases := []struct {
			name   string
			add    func(b *azcosmos.TransactionalBatch)
			status int32
		}{
			{"create existing", func(b *azcosmos.TransactionalBatch) { b.CreateItem(doc("old", 2), nil) }, 409},
			{"replace missing", func(b *azcosmos.TransactionalBatch) { b.ReplaceItem("nope", doc("nope", 1), nil) }, 404},
			{"read missing", func(b *azcosmos.TransactionalBatch) { b.ReadItem("nope", nil) }, 404},
			{"delete missing", func(b *azcosmos.TransactionalBatch) { b.DeleteItem("nope", nil) }, 404},
			{"delete stale etag", func(b *azcosmos.TransactionalBatch) {
				b.DeleteItem("old", &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
			}, 412},
			{"replace stale etag", func(b *azcosmos.TransactionalBatch) {
				b.ReplaceItem("old", doc("old", 3), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
			}, 412},
			{"upsert stale etag", func(b *azcosmos.TransactionalBatch) {
				b.UpsertItem(doc("old", 3), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &stale})
			}, 412},
			{"patch condition false", func(b *azcosmos.TransactionalBatch) { b.PatchItem("old", cond, nil) }, 412},
			{"patch remove of a missing path", func(b *azcosmos.TransactionalBatch) { b.PatchItem("old", badPatch, nil) }, 400},
			{"foreign partition key", func(b *azcosmos.TransactionalBatch) {
				b.CreateItem([]byte(`{"id":"f","pk":"b"}`), nil)
			}, 400},
			{"invalid id", func(b *azcosmos.TransactionalBatch) { b.CreateItem([]byte(`{"id":5,"pk":"a"}`), nil) }, 400},
		}
		for _, tc := range cases {
			b := e.cc.NewTransactionalBatch(pk)
			b.CreateItem(doc("new", 1), nil)
			b.ReplaceItem("old", doc("old", 7), nil)
			tc.add(&b)
			b.CreateItem(doc("after", 1), nil)
			res, err := e.cc.ExecuteTransactionalBatch(bg, b, nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if res.Success || res.RawResponse.StatusCode != http.StatusMultiStatus {
				t.Fatalf("%s: success %v status %d", tc.name, res.Success, res.RawResponse.StatusCode)
			}
			got := make([]int32, len(res.OperationResults))
			for i, r := range res.OperationResults {
				got[i] = r.StatusCode
			}
			if want := []int32{424, 424, tc.status, 424}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: statuses %v, want %v", tc.name, got, want)
			}
			if ids := strings.Join(e.ids(t), ","); ids != "old" {
				t.Errorf("%s: items %s after the failed batch", tc.name, ids)
			}
			rr, err := e.cc.ReadItem(bg, pk, "old", nil)
			if err != nil || rr.ETag != oldETag {
				t.Errorf("%s: old was changed: %v %s", tc.name, err, rr.Value)
			}
		}
	})

	t.Run("the foreign partition key carries its sub-status", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "foreign")
		resp := e.raw.do(http.MethodPost, e.docs(), []byte(`[{"operationType":"Create","resourceBody":{"id":"f","pk":"b"}}]`), batchHeaders...)
		wantStatus(t, resp, http.StatusMultiStatus)
		var res []map[string]any
		if err := json.Unmarshal(resp.Body, &res); err != nil || len(res) != 1 {
			t.Fatalf("body %s", resp.Body)
		}
		if res[0]["statusCode"] != float64(400) || res[0]["subStatusCode"] != float64(1001) {
			t.Errorf("result %v, want 400/1001", res[0])
		}
	})

	t.Run("requests refused as a whole write nothing", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "refused")
		create := `{"operationType":"Create","resourceBody":{"id":"c","pk":"a"}}`
		var many []string
		for i := 0; i <= 100; i++ {
			many = append(many, fmt.Sprintf(`{"operationType":"Create","resourceBody":{"id":"m%d","pk":"a"}}`, i))
		}
		cases := []struct{ name, body, msg string }{
			{"not an array", `{"operationType":"Create"}`, "must be a JSON array"},
			{"empty", `[]`, "no operations"},
			{"101 operations", "[" + strings.Join(many, ",") + "]", "Batch request has more operations than what is supported."},
			{"unknown type", "[" + create + `,{"operationType":"Merge","id":"c"}]`, "'Merge' is not supported"},
			{"invalid patch", "[" + create + `,{"operationType":"Patch","id":"c","resourceBody":{"operations":[{"op":"explode","path":"/v"}]}}]`, ""},
			{"patch of the id", "[" + create + `,{"operationType":"Patch","id":"c","resourceBody":{"operations":[{"op":"set"}]}}]`, ""},
			{"replace without id", "[" + create + `,{"operationType":"Replace","resourceBody":{"id":"c","pk":"a"}}]`, "needs an id"},
			{"create without body", `[{"operationType":"Create"}]`, "needs a resourceBody"},
			{"operation not an object", "[" + create + `,3]`, "must be a JSON object"},
			{"malformed JSON", `[{"operationType":`, ""},
		}
		for _, tc := range cases {
			resp := e.raw.do(http.MethodPost, e.docs(), []byte(tc.body), batchHeaders...)
			msg := wantError(t, resp, http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("%s: message %q, want %q", tc.name, msg, tc.msg)
			}
		}
		// a transactional batch without the partition key header
		resp := e.raw.do(http.MethodPost, e.docs(), []byte("["+create+"]"), batchHeaders[:4]...)
		wantError(t, resp, http.StatusBadRequest, "BadRequest")
		wantSubStatus(t, resp, 1001)
		if ids := e.ids(t); len(ids) != 0 {
			t.Errorf("items %v written by refused batches", ids)
		}
		// 100 operations are accepted
		resp = e.raw.do(http.MethodPost, e.docs(), []byte("["+strings.Join(many[:100], ",")+"]"), batchHeaders...)
		wantStatus(t, resp, http.StatusOK)
		var want []string
		for i := 0; i < 100; i++ {
			want = append(want, fmt.Sprintf("m%d", i))
		}
		if got := strings.Join(e.ids(t), ","); got != strings.Join(want, ",") {
			t.Errorf("items after a batch of 100 creates, in creation order: %s", got)
		}
	})

	t.Run("item ttl is validated and applies inside a batch", func(t *testing.T) {
		t.Parallel()
		ttl := int32(-1)
		if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "ttl", DefaultTimeToLive: &ttl,
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			t.Fatal(err)
		}
		cc, _ := db.NewContainer("ttl")
		b := cc.NewTransactionalBatch(pk)
		b.CreateItem([]byte(`{"id":"k","pk":"a","ttl":3600}`), nil)
		b.CreateItem([]byte(`{"id":"bad","pk":"a","ttl":0}`), nil)
		res, err := cc.ExecuteTransactionalBatch(bg, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Success || res.OperationResults[0].StatusCode != 424 || res.OperationResults[1].StatusCode != 400 {
			t.Errorf("invalid ttl: success %v results %+v", res.Success, res.OperationResults)
		}
		b = cc.NewTransactionalBatch(pk)
		b.CreateItem([]byte(`{"id":"k","pk":"a","ttl":10}`), nil)
		if res, err = cc.ExecuteTransactionalBatch(bg, b, nil); err != nil || !res.Success {
			t.Fatalf("create with ttl: %v %+v", err, res.OperationResults)
		}
		if err := f.e.Clock().Advance(11 * time.Second); err != nil {
			t.Fatal(err)
		}
		b = cc.NewTransactionalBatch(pk)
		b.ReadItem("k", nil)
		if res, err = cc.ExecuteTransactionalBatch(bg, b, nil); err != nil || res.OperationResults[0].StatusCode != 404 {
			t.Errorf("read of an expired item in a batch: %v %+v", err, res.OperationResults)
		}
		b = cc.NewTransactionalBatch(pk)
		b.CreateItem([]byte(`{"id":"k","pk":"a"}`), nil)
		b.CreateItem([]byte(`{"id":"k2","pk":"a"}`), nil)
		if res, err = cc.ExecuteTransactionalBatch(bg, b, nil); err != nil || !res.Success {
			t.Errorf("re-create of an expired id in a batch: %v %+v", err, res.OperationResults)
		}
		b = cc.NewTransactionalBatch(pk)
		b.CreateItem([]byte(`{"id":"k3","pk":"a"}`), nil)
		b.CreateItem([]byte(`{"id":"k","pk":"a"}`), nil)
		if res, err = cc.ExecuteTransactionalBatch(bg, b, nil); err != nil || res.OperationResults[1].StatusCode != 409 {
			t.Errorf("create of a live id in a batch: %v %+v", err, res.OperationResults)
		}
	})

	t.Run("bulk: each operation stands alone", func(t *testing.T) {
		t.Parallel()
		e := f.container(t, db, "bulk")
		body := `[{"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"x","pk":"a"}},
			{"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"x","pk":"a"}},
			{"operationType":"Create","partitionKey":"[\"b\"]","resourceBody":{"id":"y","pk":"b"}},
			{"operationType":"Read","partitionKey":"[\"a\"]","id":"nope"},
			{"operationType":"Upsert","partitionKey":"[\"a\"]","resourceBody":{"id":"z","pk":"a"}}]`
		resp := e.raw.do(http.MethodPost, e.docs(), []byte(body), bulkHeaders...)
		wantStatus(t, resp, http.StatusMultiStatus)
		if got := fmt.Sprint(batchStatuses(t, resp.Body)); got != "[201 409 201 404 201]" {
			t.Errorf("statuses %s", got)
		}
		if got := strings.Join(e.ids(t), ","); got != "x,z" {
			t.Errorf("items in a: %s", got)
		}
		if _, err := e.cc.ReadItem(bg, azcosmos.NewPartitionKeyString("b"), "y", nil); err != nil {
			t.Errorf("y in b: %v", err)
		}
		// without continue-on-error the operations after a failure are not run
		stop := append([]string{}, bulkHeaders...)
		stop[5] = "False"
		resp = e.raw.do(http.MethodPost, e.docs(), []byte(`[{"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"s1","pk":"a"}},
			{"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"x","pk":"a"}},
			{"operationType":"Create","partitionKey":"[\"a\"]","resourceBody":{"id":"s2","pk":"a"}}]`), stop...)
		wantStatus(t, resp, http.StatusMultiStatus)
		if got := fmt.Sprint(batchStatuses(t, resp.Body)); got != "[201 409 424]" {
			t.Errorf("stop on error: statuses %s", got)
		}
		if got := strings.Join(e.ids(t), ","); got != "x,z,s1" {
			t.Errorf("items in a after stop on error: %s", got)
		}
	})

	// A transactional batch addressed by a prefix of a hierarchical key is
	// 400 with the service's batch wording: the Python SDK's
	// test_transactional_batch.py test_batch_subpartition asserts that text;
	// the full key is served.
	t.Run("a prefix of a hierarchical key is refused", func(t *testing.T) {
		t.Parallel()
		wantStatus(t, f.raw.do(http.MethodPost, "/dbs/batchdb/colls",
			[]byte(`{"id":"hier","partitionKey":{"paths":["/s","/c"],"kind":"MultiHash","version":2}}`)), http.StatusCreated)
		docs := docsPath("batchdb", "hier")
		body := []byte(`[{"operationType":"Create","resourceBody":{"id":"x","s":"WA","c":"Redmond"}}]`)
		batch := []string{"x-ms-cosmos-is-batch-request", "True", "x-ms-cosmos-batch-atomic", "True"}
		msg := wantError(t, f.raw.do(http.MethodPost, docs, body, append(batch, pkHeader, `["WA"]`)...), http.StatusBadRequest, "BadRequest")
		if !strings.Contains(msg, "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.") {
			t.Errorf("prefix key: message %q", msg)
		}
		wantStatus(t, f.raw.do(http.MethodPost, docs, body, append(batch, pkHeader, `["WA","Redmond"]`)...), http.StatusOK)
	})
}

// TestDeleteAllItemsForPartitionKey drives POST .../operations/
// partitionkeydelete as the JS SDK's deleteAllItemsForPartitionKey sends
// it: signed as the container (type colls, the container's link).
func TestDeleteAllItemsForPartitionKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "pkdel")
	e := f.container(t, db, "c")
	// 2,500 items in partition a (more than one delete step), 10 in b
	for n := 0; n < 26; n++ {
		var ops []string
		for i := 0; i < 100 && n*100+i < 2510; i++ {
			k := n*100 + i
			pk := "a"
			if k >= 2500 {
				pk = "b"
			}
			ops = append(ops, fmt.Sprintf(`{"operationType":"Create","partitionKey":"[\"%s\"]","resourceBody":{"id":"i%d","pk":%q}}`, pk, k, pk))
		}
		wantStatus(t, e.raw.do(http.MethodPost, e.docs(), []byte("["+strings.Join(ops, ",")+"]"), bulkHeaders...), http.StatusOK)
	}
	send := func(coll, typ, link string, hdr ...string) rawResp {
		path := "/dbs/pkdel/colls/" + coll + "/operations/partitionkeydelete"
		r := e.raw.req(http.MethodPost, path, nil)
		date := r.Header.Get("x-ms-date")
		r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(masterKey(t), http.MethodPost, typ, link, date)))
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return e.raw.send(r)
	}
	wantError(t, send("c", "operations", "dbs/pkdel/colls/c/operations/partitionkeydelete", pkHeader, `["a"]`), http.StatusUnauthorized, "Unauthorized")
	wantSubStatus(t, send("c", "colls", "dbs/pkdel/colls/c"), 1001) // no partition key
	wantStatus(t, send("c", "colls", "dbs/pkdel/colls/c", pkHeader, `["a"]`), http.StatusOK)
	count := func(pk string) int {
		var n int
		pager := e.cc.NewQueryItemsPager("SELECT VALUE COUNT(1) FROM c", azcosmos.NewPartitionKeyString(pk), nil)
		for pager.More() {
			p, err := pager.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Items {
				var c int
				if err := json.Unmarshal(it, &c); err != nil {
					t.Fatal(err)
				}
				n += c
			}
		}
		return n
	}
	// the delete runs in the background: wait for it (a liveness bound,
	// not a speed expectation)
	for deadline := time.Now().Add(60 * time.Second); count("a") != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("partition a still holds %d items", count("a"))
		}
	}
	if n := count("b"); n != 10 {
		t.Errorf("partition b holds %d items, want 10", n)
	}
	wantError(t, send("nope", "colls", "dbs/pkdel/colls/nope", pkHeader, `["a"]`), http.StatusNotFound, "NotFound")
}
