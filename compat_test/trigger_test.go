package compat_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// createTrigger creates a trigger in sdb/c over raw REST (the Go SDK has
// no script API).
func createTrigger(t *testing.T, raw *rawClient, id, typ, op, body string) {
	t.Helper()
	def := map[string]string{"id": id, "body": body, "triggerType": typ, "triggerOperation": op}
	wantStatus(t, raw.do(http.MethodPost, scriptsPath("sdb", "c", "triggers"), mustJSON(t, def)), http.StatusCreated)
}

// TestTriggersThroughGoSDK: azcosmos's ItemOptions.PreTriggers and
// PostTriggers name triggers on creates, upserts, replaces and deletes;
// the operation must match (Update matches a replace, only Upsert or All
// an upsert); a post-trigger's throw rolls the write back; a pre-trigger
// of a delete sees the document; triggers run only when named.
func TestTriggersThroughGoSDK(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cc := mustContainer(t, mustDB(t, f.c, "sdb"), "c", "/pk")
	pk := azcosmos.NewPartitionKeyString("p")
	stamp := `function () { var d = getContext().getRequest().getBody(); d.stamped = getContext().getRequest().getOperationType(); getContext().getRequest().setBody(d); }`
	createTrigger(t, f.raw, "stampAll", "Pre", "All", stamp)
	createTrigger(t, f.raw, "stampUpsert", "Pre", "Upsert", stamp)
	createTrigger(t, f.raw, "stampCreate", "Pre", "Create", stamp)
	createTrigger(t, f.raw, "stampUpdate", "Pre", "Update", stamp)
	createTrigger(t, f.raw, "refuse", "Post", "All", `function () { throw new Error(403, "refused " + getContext().getResponse().getBody().id); }`)
	createTrigger(t, f.raw, "audit", "Pre", "Delete", `function () {
		var d = getContext().getRequest().getBody();
		__.createDocument(__.getSelfLink(), {id: "deleted-" + d.id, pk: d.pk, n: d.n}, function (err) { if (err) throw err; });
	}`)
	createTrigger(t, f.raw, "movePK", "Pre", "All", `function () { var d = getContext().getRequest().getBody(); d.pk = "elsewhere"; getContext().getRequest().setBody(d); }`)
	createTrigger(t, f.raw, "reply", "Post", "All", `function () { var b = getContext().getResponse().getBody(); b.seenByPost = true; getContext().getResponse().setBody(b); }`)

	read := func(id string) map[string]any {
		t.Helper()
		r, err := cc.ReadItem(ctx, pk, id, nil)
		if err != nil {
			t.Fatalf("read %s: %v", id, err)
		}
		var m map[string]any
		_ = json.Unmarshal(r.Value, &m)
		return m
	}
	// create, upsert, replace with matching pre-triggers
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","n":1}`), &azcosmos.ItemOptions{PreTriggers: []string{"stampAll"}}); err != nil {
		t.Fatal(err)
	}
	if got := read("a")["stamped"]; got != "Create" {
		t.Fatalf("create stamped %v", got)
	}
	if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"a","pk":"p","n":2}`), &azcosmos.ItemOptions{PreTriggers: []string{"stampUpsert"}}); err != nil {
		t.Fatal(err)
	}
	if got := read("a")["stamped"]; got != "Upsert" {
		t.Fatalf("upsert stamped %v", got)
	}
	if _, err := cc.ReplaceItem(ctx, pk, "a", []byte(`{"id":"a","pk":"p","n":3}`), &azcosmos.ItemOptions{PreTriggers: []string{"stampUpdate"}}); err != nil {
		t.Fatal(err)
	}
	if got := read("a")["stamped"]; got != "Replace" {
		t.Fatalf("replace stamped %v", got)
	}
	// mismatched operations: 400 with the service's message, nothing written
	_, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"a","pk":"p","n":4}`), &azcosmos.ItemOptions{PreTriggers: []string{"stampCreate"}})
	_, body := sdkErr(t, err, http.StatusBadRequest)
	if !strings.Contains(string(body), "Trigger 'stampCreate' was defined with operation type 'Create', and therefore is invalid for 'Upsert'.") {
		t.Fatalf("mismatch body %s", body)
	}
	if read("a")["n"] != float64(3) {
		t.Fatal("a mismatched trigger wrote")
	}
	// a throwing post-trigger rolls the write back
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"b","pk":"p"}`), &azcosmos.ItemOptions{PostTriggers: []string{"refuse"}})
	re, body := sdkErr(t, err, http.StatusBadRequest)
	if !strings.Contains(string(body), "Exception = Error: refused b") || re.RawResponse.Header.Get("x-ms-substatus") != "403" {
		t.Fatalf("post-trigger failure %s (substatus %s)", body, re.RawResponse.Header.Get("x-ms-substatus"))
	}
	if _, err := cc.ReadItem(ctx, pk, "b", nil); err == nil {
		t.Fatal("b was committed although its post-trigger threw")
	}
	// a post-trigger may change the response, not the stored document
	r, err := cc.CreateItem(ctx, pk, []byte(`{"id":"c","pk":"p"}`), &azcosmos.ItemOptions{PostTriggers: []string{"reply"}, EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Value), `"seenByPost":true`) || read("c")["seenByPost"] != nil {
		t.Fatalf("post-trigger response %s", r.Value)
	}
	// a pre-trigger cannot move the document to another partition
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"d","pk":"p"}`), &azcosmos.ItemOptions{PreTriggers: []string{"movePK"}})
	sdkErr(t, err, http.StatusBadRequest)
	// a delete pre-trigger sees the document and writes with the delete
	if _, err := cc.DeleteItem(ctx, pk, "a", &azcosmos.ItemOptions{PreTriggers: []string{"audit"}}); err != nil {
		t.Fatal(err)
	}
	if got := read("deleted-a")["n"]; got != float64(3) {
		t.Fatalf("audit copy n = %v", got)
	}
	// a missing trigger, two pre-triggers, a post-trigger named as pre
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"e","pk":"p"}`), &azcosmos.ItemOptions{PreTriggers: []string{"nope"}})
	sdkErr(t, err, http.StatusNotFound)
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"e","pk":"p"}`), &azcosmos.ItemOptions{PreTriggers: []string{"stampAll", "stampCreate"}})
	sdkErr(t, err, http.StatusBadRequest)
	_, err = cc.CreateItem(ctx, pk, []byte(`{"id":"e","pk":"p"}`), &azcosmos.ItemOptions{PreTriggers: []string{"refuse"}})
	sdkErr(t, err, http.StatusBadRequest)
	// not named, not run
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"e","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if m := read("e"); m["stamped"] != nil {
		t.Fatalf("an unnamed trigger ran: %v", m)
	}
}
