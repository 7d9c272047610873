package compat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// userPart returns the user properties of a rendered document as compact
// JSON (the document up to the first system property).
func userPart(t testing.TB, doc []byte) string {
	t.Helper()
	i := bytes.Index(doc, []byte(`,"_rid":`))
	if i < 0 {
		t.Fatalf("no _rid in %s", doc)
	}
	return string(doc[:i]) + "}"
}

func TestPatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "pdb")
	pk := azcosmos.NewPartitionKeyString("a")
	const seed = `{"id":"d","pk":"a","name":"n","count":1,"price":1.5,"tags":["x","y"],"nested":{"a":{"b":1},"arr":[1,2,3]},"gone":true}`

	// fresh creates a container holding the seed document.
	fresh := func(t *testing.T, name string) *itemEnv {
		e := f.container(t, db, name)
		wantStatus(t, e.raw.do(http.MethodPost, e.docs(), []byte(seed), pkHeader, `["a"]`), http.StatusCreated)
		return e
	}
	rawPatch := func(e *itemEnv, ops string, hdr ...string) rawResp {
		return e.raw.do(http.MethodPatch, e.doc("d"), []byte(`{"operations":`+ops+`}`), append([]string{pkHeader, `["a"]`}, hdr...)...)
	}
	read := func(t *testing.T, e *itemEnv) rawResp {
		resp := e.raw.do(http.MethodGet, e.doc("d"), nil, pkHeader, `["a"]`)
		wantStatus(t, resp, http.StatusOK)
		return resp
	}

	t.Run("sdk operations", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "sdkops")
		var ops azcosmos.PatchOperations
		ops.AppendAdd("/color", "red")
		ops.AppendSet("/count", 10)
		ops.AppendReplace("/name", "m")
		ops.AppendRemove("/gone")
		ops.AppendIncrement("/count", 5)
		ops.AppendIncrement("/fresh", -3)
		ops.AppendSet("/nested/a/b", map[string]any{"deep": true})
		ops.AppendAdd("/tags/1", "ins")
		ops.AppendAdd("/tags/-", "end")
		ops.AppendReplace("/nested/arr/0", 100)
		r, err := e.cc.PatchItem(bg, pk, "d", ops, contentOn)
		if err != nil {
			t.Fatal(err)
		}
		if r.RawResponse.StatusCode != http.StatusOK {
			t.Errorf("patch status %d", r.RawResponse.StatusCode)
		}
		want := `{"id":"d","pk":"a","name":"m","count":15,"price":1.5,"tags":["x","ins","y","end"],"nested":{"a":{"b":{"deep":true}},"arr":[100,2,3]},"color":"red","fresh":-3}`
		if got := userPart(t, r.Value); got != want {
			t.Errorf("patched\n got %s\nwant %s", got, want)
		}
		if got := userPart(t, read(t, e).Body); got != want {
			t.Errorf("stored\n got %s\nwant %s", got, want)
		}
	})

	t.Run("raw operations", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "rawops")
		cases := []struct{ ops, want string }{
			{`[{"op":"incr","path":"/price","value":0.25}]`, `"price":1.75`},
			{`[{"op":"incr","path":"/count","value":2.5}]`, `"count":3.5`},
			{`[{"op":"incr","path":"/count","value":-4}]`, `"count":-0.5`},
			{`[{"op":"move","from":"/name","path":"/renamed"}]`, `"renamed":"n"`},
			{`[{"op":"move","from":"/nested/a","path":"/top"}]`, `"top":{"b":1}`},
			{`[{"op":"set","path":"/tags/2","value":"z"}]`, `"tags":["x","y","z"]`},
			{`[{"op":"set","path":"/tags/0","value":"w"}]`, `"tags":["w","y","z"]`},
			{`[{"op":"remove","path":"/tags/1"}]`, `"tags":["w","z"]`},
			{`[{"op":"add","path":"/tags/0","value":"v"}]`, `"tags":["v","w","z"]`},
			{`[{"op":"add","path":"/nested/new","value":{"k":[1]}}]`, `"new":{"k":[1]}`},
			{`[{"op":"add","path":"/a~1b","value":1},{"op":"add","path":"/c~0d","value":2}]`, `"a/b":1,"c~d":2`},
			{`[{"op":"set","path":"/nul","value":null}]`, `"nul":null`},
		}
		for _, tc := range cases {
			resp := rawPatch(e, tc.ops)
			wantStatus(t, resp, http.StatusOK)
			if !strings.Contains(string(resp.Body), tc.want) {
				t.Errorf("%s: got %s, want it to contain %s", tc.ops, resp.Body, tc.want)
			}
		}
		body := userPart(t, read(t, e).Body)
		if strings.Contains(body, `"name"`) || strings.Contains(body, `"a":{"b":1}`) {
			t.Errorf("move left the source behind: %s", body)
		}
		// the bare array form is accepted too
		resp := e.raw.do(http.MethodPatch, e.doc("d"), []byte(`[{"op":"set","path":"/bare","value":1}]`), pkHeader, `["a"]`)
		wantStatus(t, resp, http.StatusOK)
		// and the json-patch content type
		resp = e.raw.do(http.MethodPatch, e.doc("d"), []byte(`{"operations":[{"op":"set","path":"/ct","value":1}]}`), pkHeader, `["a"]`, "Content-Type", "application/json_patch+json")
		wantStatus(t, resp, http.StatusOK)
	})

	t.Run("atomic failure", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "atomic")
		before := read(t, e)
		failing := []string{
			`[{"op":"set","path":"/a","value":1},{"op":"remove","path":"/nope"},{"op":"set","path":"/b","value":2}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"replace","path":"/nope","value":1},{"op":"set","path":"/b","value":2}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"incr","path":"/name","value":1}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"add","path":"/tags/9","value":1}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"remove","path":"/tags/2"}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"set","path":"/missing/deep","value":1}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"move","from":"/nope","path":"/x"}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"move","from":"/nested","path":"/nested/inside"}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"incr","path":"/count","value":"1"}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"explode","path":"/count","value":1}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"set","path":"","value":1}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"set","path":"no-slash","value":1}]`,
			`[{"op":"set","path":"/a","value":1},{"op":"set","path":"/v"}]`,
			`[]`,
			`{}`,
		}
		for _, ops := range failing {
			resp := rawPatch(e, ops)
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
		}
		for _, body := range []string{`{"operations":`, `"x"`, `{"nothing":[]}`} {
			wantError(t, e.raw.do(http.MethodPatch, e.doc("d"), []byte(body), pkHeader, `["a"]`), http.StatusBadRequest, "BadRequest")
		}
		after := read(t, e)
		if !bytes.Equal(before.Body, after.Body) {
			t.Errorf("failed patches changed the document:\nbefore %s\nafter  %s", before.Body, after.Body)
		}

		// via the SDK: remove of a missing path
		var ops azcosmos.PatchOperations
		ops.AppendSet("/a", 1)
		ops.AppendRemove("/nope")
		_, err := e.cc.PatchItem(bg, pk, "d", ops, nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		if after2 := read(t, e); !bytes.Equal(before.Body, after2.Body) {
			t.Errorf("SDK failed patch changed the document")
		}
	})

	t.Run("operation count", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "opcount")
		var ten, eleven azcosmos.PatchOperations
		for i := 0; i < 10; i++ {
			ten.AppendSet(fmt.Sprintf("/p%d", i), i)
			eleven.AppendSet(fmt.Sprintf("/q%d", i), i)
		}
		eleven.AppendSet("/q10", 10)
		_, err := e.cc.PatchItem(bg, pk, "d", eleven, nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		if strings.Contains(string(read(t, e).Body), `"q0"`) {
			t.Errorf("11-operation patch was applied")
		}
		if _, err := e.cc.PatchItem(bg, pk, "d", ten, nil); err != nil {
			t.Fatalf("10 operations: %v", err)
		}
		if !strings.Contains(string(read(t, e).Body), `"p9":9`) {
			t.Errorf("10-operation patch not applied")
		}
	})

	t.Run("missing item, etags, system properties", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "etag")
		var ops azcosmos.PatchOperations
		ops.AppendSet("/v", 1)
		_, err := e.cc.PatchItem(bg, pk, "nope", ops, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")
		_, err = e.cc.PatchItem(bg, azcosmos.NewPartitionKeyString("b"), "d", ops, nil)
		sdkErrCode(t, err, http.StatusNotFound, "NotFound")

		before := object(t, read(t, e).Body)
		stale := azcore.ETag("\"00000000-0000-0100-0000-000000000000\"")
		_, err = e.cc.PatchItem(bg, pk, "d", ops, &azcosmos.ItemOptions{IfMatchEtag: &stale})
		msg := sdkErrCode(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
		if !strings.Contains(msg, "pre-condition") {
			t.Errorf("412 message %q", msg)
		}
		time.Sleep(1100 * time.Millisecond) // let _ts move on
		cur := azcore.ETag(before["_etag"].(string))
		r, err := e.cc.PatchItem(bg, pk, "d", ops, &azcosmos.ItemOptions{IfMatchEtag: &cur, EnableContentResponseOnWrite: true})
		if err != nil {
			t.Fatalf("patch with the current etag: %v", err)
		}
		after := object(t, r.Value)
		if after["_etag"] == before["_etag"] || string(r.ETag) != after["_etag"] {
			t.Errorf("etag not refreshed: %v -> %v (header %s)", before["_etag"], after["_etag"], r.ETag)
		}
		if after["_ts"] == before["_ts"] {
			t.Errorf("_ts not refreshed: %v", after["_ts"])
		}
		if after["_rid"] != before["_rid"] {
			t.Errorf("_rid changed: %v -> %v", before["_rid"], after["_rid"])
		}
		// the old etag is stale now
		_, err = e.cc.PatchItem(bg, pk, "d", ops, &azcosmos.ItemOptions{IfMatchEtag: &cur})
		sdkErrCode(t, err, http.StatusPreconditionFailed, "PreconditionFailed")
		// system properties cannot be patched into the document
		resp := rawPatch(e, `[{"op":"set","path":"/_etag","value":"\"x\""}]`)
		if resp.Status == http.StatusOK {
			if m := object(t, resp.Body); m["_etag"] == `"x"` || strings.Count(string(resp.Body), `"_etag"`) != 1 {
				t.Errorf("patched a system property: %s", resp.Body)
			}
		} else {
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
		}
	})

	t.Run("id and partition key are immutable", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "immutable")
		before := read(t, e)
		for _, ops := range []string{
			`[{"op":"set","path":"/id","value":"other"}]`,
			`[{"op":"replace","path":"/id","value":"other"}]`,
			`[{"op":"remove","path":"/id"}]`,
			`[{"op":"set","path":"/pk","value":"b"}]`,
			`[{"op":"replace","path":"/pk","value":"b"}]`,
			`[{"op":"remove","path":"/pk"}]`,
			`[{"op":"move","from":"/pk","path":"/old"}]`,
			`[{"op":"set","path":"/ok","value":1},{"op":"set","path":"/pk","value":null}]`,
		} {
			wantError(t, rawPatch(e, ops), http.StatusBadRequest, "BadRequest")
		}
		var ops azcosmos.PatchOperations
		ops.AppendReplace("/pk", "b")
		_, err := e.cc.PatchItem(bg, pk, "d", ops, nil)
		sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
		if after := read(t, e); !bytes.Equal(before.Body, after.Body) {
			t.Errorf("refused patches changed the document")
		}
		wantError(t, e.raw.do(http.MethodGet, e.doc("other"), nil, pkHeader, `["a"]`), http.StatusNotFound, "NotFound")
		wantError(t, e.raw.do(http.MethodGet, e.doc("d"), nil, pkHeader, `["b"]`), http.StatusNotFound, "NotFound")
		// the missing-header and bad-ttl rules apply to patch too
		resp := e.raw.do(http.MethodPatch, e.doc("d"), []byte(`{"operations":[{"op":"set","path":"/v","value":1}]}`))
		wantError(t, resp, http.StatusBadRequest, "BadRequest")
		wantSubStatus(t, resp, 1001)
		msg := wantError(t, rawPatch(e, `[{"op":"set","path":"/ttl","value":0}]`), http.StatusBadRequest, "BadRequest")
		if !strings.HasPrefix(msg, "The input ttl '") {
			t.Errorf("ttl message %q", msg)
		}
	})

	t.Run("value types", func(t *testing.T) {
		t.Parallel()
		e := fresh(t, "values")
		var ops azcosmos.PatchOperations
		ops.AppendSet("/zero", 0)
		ops.AppendSet("/false", false)
		ops.AppendSet("/empty", "")
		ops.AppendSet("/list", []any{1, "two", nil})
		ops.AppendSet("/big", json.Number("9007199254740993"))
		r, err := e.cc.PatchItem(bg, pk, "d", ops, contentOn)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"zero":0`, `"false":false`, `"empty":""`, `"list":[1,"two",null]`, `"big":9007199254740993`} {
			if !bytes.Contains(r.Value, []byte(want)) {
				t.Errorf("patched doc lacks %s: %s", want, r.Value)
			}
		}
	})
}

// TestConditionalPatch: a patch with a condition ("from c where ...")
// applies only when the condition holds for the current document; else
// 412 and the document is unchanged (reference §8.4).
func TestConditionalPatch(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "cp"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("cp")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := c.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"p","taskNum":3,"n":0}`), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		condition string
		status    int
		wantN     float64
	}{
		{"from c where c.taskNum = 3", 200, 1},
		{"FROM c WHERE c.taskNum > 3", 412, 1},
		{"from c where c.missing = 1", 412, 1},
		{"from c where c.n = 1 AND IS_NUMBER(c.taskNum)", 200, 2},
		{"from c where", 400, 2},
		{"where c.n = 1", 400, 2},
	}
	for _, tt := range tests {
		ops := azcosmos.PatchOperations{}
		ops.SetCondition(tt.condition)
		ops.AppendIncrement("/n", 1)
		_, err := c.PatchItem(ctx, pk, "1", ops, nil)
		if got := statusOf(err); got != tt.status {
			t.Fatalf("%q: status %d, want %d (%v)", tt.condition, got, tt.status, err)
		}
		r, err := c.ReadItem(ctx, pk, "1", nil)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ N float64 }
		_ = json.Unmarshal(r.Value, &doc)
		if doc.N != tt.wantN {
			t.Fatalf("%q: n = %v, want %v", tt.condition, doc.N, tt.wantN)
		}
	}
}
