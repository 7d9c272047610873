package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestItemTTLValidation checks the item ttl rules (reference §5.4): -1 or
// 1..2147483647, anything else 400 "The input ttl '<v>' is invalid...",
// validated whether or not the container has TTL on (the emulator's
// documented choice).
func TestItemTTLValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "ttldb")
	off := f.container(t, db, "off")
	onTTL := int32(-1)
	if _, err := db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "on", DefaultTimeToLive: &onTTL,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	onCC, _ := db.NewContainer("on")
	on := &itemEnv{db: "ttldb", coll: "on", cc: onCC}

	invalid := []struct{ value, shown string }{
		{`0`, `0`},
		{`null`, `null`},
		{`-2`, `-2`},
		{`-10`, `-10`},
		{`2147483648`, `2147483648`},
		{`1.5`, `1.5`},
		{`"10"`, `10`},
		{`true`, `true`},
		{`[1]`, `[1]`},
	}
	for _, e := range []*itemEnv{off, on} {
		e := e
		t.Run(e.coll, func(t *testing.T) {
			t.Parallel()
			raw := f.rawFor(t)
			for i, tc := range invalid {
				id := fmt.Sprintf("bad%d", i)
				body := []byte(`{"id":"` + id + `","pk":"a","ttl":` + tc.value + `}`)
				for _, op := range []struct {
					name, method, path string
					hdr                []string
				}{
					{"create", http.MethodPost, e.docs(), nil},
					{"upsert", http.MethodPost, e.docs(), []string{"x-ms-documentdb-is-upsert", "True"}},
				} {
					resp := raw.do(op.method, op.path, body, append([]string{pkHeader, `["a"]`}, op.hdr...)...)
					msg := wantError(t, resp, http.StatusBadRequest, "BadRequest")
					if !strings.HasPrefix(msg, "The input ttl '") {
						t.Errorf("%s ttl %s: message %q", op.name, tc.value, msg)
					}
					if !strings.HasPrefix(msg, "The input ttl '"+tc.shown+"' is invalid") {
						t.Errorf("%s ttl %s: message %q does not quote the value as '%s'", op.name, tc.value, msg, tc.shown)
					}
				}
				wantError(t, raw.do(http.MethodGet, e.doc(id), nil, pkHeader, `["a"]`), http.StatusNotFound, "NotFound")
				// SDK users can send any bytes
				_, err := e.cc.CreateItem(bg, azcosmos.NewPartitionKeyString("a"), body, nil)
				msg := sdkErrCode(t, err, http.StatusBadRequest, "BadRequest")
				if !strings.HasPrefix(msg, "The input ttl '") {
					t.Errorf("SDK ttl %s: message %q", tc.value, msg)
				}
			}
			// valid values, and replace/patch validate too
			for i, v := range []string{`-1`, `10`, `1`, `2147483647`} {
				id := fmt.Sprintf("good%d", i)
				resp := raw.do(http.MethodPost, e.docs(), []byte(`{"id":"`+id+`","pk":"a","ttl":`+v+`}`), pkHeader, `["a"]`)
				wantStatus(t, resp, http.StatusCreated)
				if got := object(t, resp.Body)["ttl"]; got != json.Number(v) {
					t.Errorf("ttl %s returned as %v", v, got)
				}
			}
			resp := raw.do(http.MethodPut, e.doc("good0"), []byte(`{"id":"good0","pk":"a","ttl":0}`), pkHeader, `["a"]`)
			if msg := wantError(t, resp, http.StatusBadRequest, "BadRequest"); !strings.HasPrefix(msg, "The input ttl '0'") {
				t.Errorf("replace: message %q", msg)
			}
			resp = raw.do(http.MethodPatch, e.doc("good0"), []byte(`{"operations":[{"op":"set","path":"/ttl","value":null}]}`), pkHeader, `["a"]`)
			if msg := wantError(t, resp, http.StatusBadRequest, "BadRequest"); !strings.HasPrefix(msg, "The input ttl 'null'") {
				t.Errorf("patch: message %q", msg)
			}
			resp = raw.do(http.MethodGet, e.doc("good0"), nil, pkHeader, `["a"]`)
			wantStatus(t, resp, http.StatusOK)
			if object(t, resp.Body)["ttl"] != json.Number("-1") {
				t.Errorf("refused writes changed the item: %s", resp.Body)
			}
			// removing ttl is how to inherit the default
			resp = raw.do(http.MethodPatch, e.doc("good0"), []byte(`{"operations":[{"op":"remove","path":"/ttl"}]}`), pkHeader, `["a"]`)
			wantStatus(t, resp, http.StatusOK)
			if _, ok := object(t, resp.Body)["ttl"]; ok {
				t.Errorf("ttl still there: %s", resp.Body)
			}
		})
	}
}
