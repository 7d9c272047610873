package compat_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// cpContainer creates container id in database db over raw REST (azcosmos
// has no computedProperties member) from the JSON of its computed
// properties and, when not empty, its indexing policy; it returns the
// container as the create answered it and an SDK client for it.
func cpContainer(t *testing.T, raw *rawClient, c *azcosmos.Client, db, id, cps, policy string) (map[string]json.RawMessage, *azcosmos.ContainerClient) {
	t.Helper()
	body := `{"id":"` + id + `","partitionKey":{"paths":["/pk"],"kind":"Hash"},"computedProperties":` + cps
	if policy != "" {
		body += `,"indexingPolicy":` + policy
	}
	resp := raw.do(http.MethodPost, "/dbs/"+db+"/colls", []byte(body+"}"))
	wantStatus(t, resp, http.StatusCreated)
	cc, err := c.NewContainer(db, id)
	if err != nil {
		t.Fatal(err)
	}
	return rawMembers(t, resp.Body), cc
}

// cpCreate writes items through the SDK.
func cpCreate(t *testing.T, cc *azcosmos.ContainerClient, items ...string) {
	t.Helper()
	for _, it := range items {
		var m map[string]any
		if err := json.Unmarshal([]byte(it), &m); err != nil {
			t.Fatal(err)
		}
		if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(m["pk"].(string)), []byte(it), nil); err != nil {
			t.Fatalf("create %s: %v", it, err)
		}
	}
}

// cpResults runs query through azcosmos in partition pk and returns its
// results as one JSON array, system properties (_rid, _ts...) dropped from
// objects; sorted puts the results in JSON text order.
func cpResults(t *testing.T, cc *azcosmos.ContainerClient, query, pk string, sorted bool) string {
	t.Helper()
	start := time.Now()
	pager := cc.NewQueryItemsPager(query, azcosmos.NewPartitionKeyString(pk), nil)
	var out []string
	for pager.More() {
		page, err := pager.NextPage(bg)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for _, it := range page.Items {
			var v any
			if err := json.Unmarshal(it, &v); err != nil {
				t.Fatal(err)
			}
			dropSystem(v)
			b, _ := json.Marshal(v)
			out = append(out, string(b))
		}
	}
	t.Logf("%s: %v", query, time.Since(start).Round(time.Microsecond))
	if sorted {
		sort.Strings(out)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// dropSystem deletes the system properties (_rid, _ts...) of the objects
// of v, at every depth.
func dropSystem(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasPrefix(k, "_") {
				delete(x, k)
			} else {
				dropSystem(e)
			}
		}
	case []any:
		for _, e := range x {
			dropSystem(e)
		}
	}
}

// TestComputedPropertiesDocExamples runs every example of the service's
// computed-properties page (reference "search and computed properties"
// B5) through azcosmos, with its documented result. The sample item's _ts
// is the page's (the emulator's clock is frozen at 2023-05-03T06:12:27Z,
// _ts 1683094347), so cp_monthUpdated is 5. ORDER BY on a computed
// property is served with or without an index for it (the service needs
// one); here it has one, as on the page.
func TestComputedPropertiesDocExamples(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(time.Unix(1683094347, 0)))
	c := e.Client(t)
	mustDB(t, c, "cpdoc")
	cps := `[
		{"name":"cp_lowerName","query":"SELECT VALUE LOWER(c.name) FROM c"},
		{"name":"cp_20PercentDiscount","query":"SELECT VALUE (c.price * 0.2) FROM c"},
		{"name":"cp_primaryCategory","query":"SELECT VALUE SUBSTRING(c.categoryName, 0, INDEX_OF(c.categoryName, ',')) FROM c"},
		{"name":"cp_monthUpdated","query":"SELECT VALUE DateTimePart('m', TimestampToDateTime(c._ts*1000)) FROM c"},
		{"name":"cp_splitSku","query":"SELECT VALUE StringSplit(p.sku, \"-\") FROM products p"},
		{"name":"cp_power","query":"SELECT VALUE POWER(c.val, 2) FROM c"}]`
	_, cc := cpContainer(t, newRaw(t, e), c, "cpdoc", "products", cps,
		`{"includedPaths":[{"path":"/*"},{"path":"/cp_monthUpdated/?"}],"compositeIndexes":[[{"path":"/cp_lowerName"},{"path":"/price"}]]}`)
	cpCreate(t, cc,
		`{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","pk":"p","categoryName":"Bikes, Touring Bikes","sku":"BK-T79U-50","name":"Touring-1000 Blue, 50","price":2384.07}`,
		`{"id":"cap","pk":"p","categoryName":"Clothing, Caps","sku":"CA-1098","name":"AWC Logo Cap","price":200}`,
		`{"id":"v5","pk":"pw","val":5}`, `{"id":"vm5","pk":"pw","val":-5}`, `{"id":"v3","pk":"pw","val":3}`)

	const sample = `{"categoryName":"Bikes, Touring Bikes","id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","name":"Touring-1000 Blue, 50","pk":"p","price":2384.07,"sku":"BK-T79U-50"}`
	const capItem = `{"categoryName":"Clothing, Caps","id":"cap","name":"AWC Logo Cap","pk":"p","price":200,"sku":"CA-1098"}`
	tests := []struct {
		name, query, pk string
		sorted          bool
		want            string
	}{
		{"cp_lowerName", `SELECT c.cp_lowerName FROM c`, "p", true,
			`[{"cp_lowerName":"awc logo cap"},{"cp_lowerName":"touring-1000 blue, 50"}]`},
		{"cp_lowerName bracket", `SELECT VALUE c["cp_lowerName"] FROM c WHERE c.id = 'cap'`, "p", false, `["awc logo cap"]`},
		{"cp_20PercentDiscount", `SELECT c.price - c.cp_20PercentDiscount AS discountedPrice, c.name FROM c WHERE c.cp_20PercentDiscount < 50.00`, "p", false,
			`[{"discountedPrice":160,"name":"AWC Logo Cap"}]`},
		{"cp_primaryCategory", `SELECT COUNT(1), c.cp_primaryCategory FROM c GROUP BY c.cp_primaryCategory`, "p", true,
			`[{"$1":1,"cp_primaryCategory":"Bikes"},{"$1":1,"cp_primaryCategory":"Clothing"}]`},
		{"cp_monthUpdated value", `SELECT VALUE c.cp_monthUpdated FROM c`, "p", false, `[5,5]`},
		{"cp_monthUpdated order by", `SELECT * FROM c ORDER BY c.cp_monthUpdated`, "p", true, `[` + sample + `,` + capItem + `]`},
		{"cp_splitSku", `SELECT c.cp_splitSku FROM c WHERE c.id = 'aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb'`, "p", false,
			`[{"cp_splitSku":["BK","T79U","50"]}]`},
		{"cp_power", `SELECT * FROM c WHERE c.cp_power = 25`, "pw", true,
			`[{"id":"v5","pk":"pw","val":5},{"id":"vm5","pk":"pw","val":-5}]`},
		{"cp_splitSku iterated", `SELECT VALUE s FROM s IN c.cp_splitSku`, "p", false, `["BK","T79U","50","CA","1098"]`},
		{"cp_splitSku as the source", `SELECT VALUE ARRAY_LENGTH(x) FROM c.cp_splitSku x`, "p", false, `[3,2]`},
		{"cp_splitSku joined", `SELECT VALUE s FROM c JOIN s IN c.cp_splitSku WHERE c.id = 'cap'`, "p", false, `["CA","1098"]`},
		{"composite index", `SELECT VALUE c.id FROM c ORDER BY c.cp_lowerName DESC, c.price DESC`, "p", false,
			`["aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","cap"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpResults(t, cc, tt.query, tt.pk, tt.sorted); got != tt.want {
				t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
			}
		})
	}
}

// TestComputedPropertiesNeverInItems: a computed property is computed for
// the queries that name it and is never part of an item: SELECT *,
// SELECT VALUE c, SELECT c, point reads, the read feed and the change feed
// return the stored item. A computed property named like a persisted one
// ("title") wins in queries that name it and leaves the stored one in whole
// items (B1). Bracket access and subqueries on the root see it; an alias
// of the same name that is not the root (a JOIN, a subquery's FROM)
// does not.
func TestComputedPropertiesNeverInItems(t *testing.T) {
	e := emulatortest.Start(t)
	c := e.Client(t)
	raw := newRaw(t, e)
	mustDB(t, c, "cpitems")
	_, cc := cpContainer(t, raw, c, "cpitems", "c", `[
		{"name":"title","query":"SELECT VALUE UPPER(c.name) FROM c"},
		{"name":"cp_len","query":"SELECT VALUE LENGTH(c.name) FROM c"}]`, "")
	cpCreate(t, cc, `{"id":"a","pk":"p","name":"alpha","title":"persisted","kids":[{"cp_len":"kid's own"}]}`,
		`{"id":"b","pk":"p","title":"no name"}`)
	const stored = `{"id":"a","kids":[{"cp_len":"kid's own"}],"name":"alpha","pk":"p","title":"persisted"}`
	const storedB = `{"id":"b","pk":"p","title":"no name"}`

	tests := []struct{ name, query, want string }{
		{"computed wins in projections", `SELECT c.title, c.cp_len FROM c`, `[{"cp_len":5,"title":"ALPHA"},{}]`},
		{"computed wins in WHERE", `SELECT VALUE c.id FROM c WHERE c.title = 'ALPHA'`, `["a"]`},
		{"bracket access", `SELECT VALUE c["cp_len"] FROM c`, `[5]`},
		{"undefined is not defined", `SELECT VALUE c.id FROM c WHERE NOT IS_DEFINED(c.cp_len)`, `["b"]`},
		{"select star", `SELECT * FROM c`, `[` + stored + `,` + storedB + `]`},
		{"select value c", `SELECT VALUE c FROM c`, `[` + stored + `,` + storedB + `]`},
		{"select c", `SELECT c FROM c WHERE c.id = 'a'`, `[{"c":` + stored + `}]`},
		{"subquery on the root", `SELECT VALUE ARRAY(SELECT VALUE c.cp_len FROM k IN c.kids) FROM c WHERE c.id = 'a'`, `[[5]]`},
		{"join alias is not the root", `SELECT VALUE k.cp_len FROM c JOIN k IN c.kids`, `["kid's own"]`},
		{"subquery alias shadows the root", `SELECT VALUE ARRAY(SELECT VALUE c.cp_len FROM c IN c.kids) FROM c WHERE c.id = 'a'`, `[["kid's own"]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpResults(t, cc, tt.query, "p", true); got != tt.want {
				t.Errorf("%s\n got %s\nwant %s", tt.query, got, tt.want)
			}
		})
	}

	plain := func(t *testing.T, b []byte) string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for k := range m {
			if strings.HasPrefix(k, "_") {
				delete(m, k)
			}
		}
		out, _ := json.Marshal(m)
		return string(out)
	}
	t.Run("point read", func(t *testing.T) {
		r, err := cc.ReadItem(bg, azcosmos.NewPartitionKeyString("p"), "a", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := plain(t, r.Value); got != stored {
			t.Errorf("point read %s, want %s", got, stored)
		}
	})
	for _, feed := range []struct{ name, aim string }{{"read feed", ""}, {"change feed", "Incremental Feed"}} {
		t.Run(feed.name, func(t *testing.T) {
			var hdr []string
			if feed.aim != "" {
				hdr = []string{"A-IM", feed.aim}
			}
			resp := raw.do(http.MethodGet, docsPath("cpitems", "c"), nil, hdr...)
			wantStatus(t, resp, http.StatusOK)
			var env struct{ Documents []json.RawMessage }
			if err := json.Unmarshal(resp.Body, &env); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range env.Documents {
				got = append(got, plain(t, d))
			}
			sort.Strings(got)
			if strings.Join(got, ",") != stored+","+storedB {
				t.Errorf("%s %v, want %s and %s", feed.name, got, stored, storedB)
			}
		})
	}
}

// TestComputedPropertiesDefinition: container create and replace refuse
// definitions the service refuses (400 BadRequest, a message that says
// why) and echo accepted ones; a replace that changes them takes effect
// for the very next query; a refused replace changes nothing.
func TestComputedPropertiesDefinition(t *testing.T) {
	e := emulatortest.Start(t)
	c := e.Client(t)
	raw := newRaw(t, e)
	mustDB(t, c, "cpdef")

	refusals := []struct{ name, cps, msg string }{
		{"reserved name", `[{"name":"_ts","query":"SELECT VALUE c.a FROM c"}]`, "reserved system property name"},
		{"not SELECT VALUE", `[{"name":"x","query":"SELECT c.a FROM c"}]`, "SELECT VALUE"},
		{"WHERE", `[{"name":"x","query":"SELECT VALUE c.a FROM c WHERE c.b = 1"}]`, "WHERE is not allowed"},
		{"syntax", `[{"name":"x","query":"SELECT VALUE FROM c"}]`, "invalid query"},
		{"another computed property", `[{"name":"x","query":"SELECT VALUE 1 FROM c"},{"name":"y","query":"SELECT VALUE c.x FROM c"}]`, "references the computed property 'x'"},
	}
	for _, tt := range refusals {
		t.Run("create refuses "+tt.name, func(t *testing.T) {
			body := `{"id":"bad","partitionKey":{"paths":["/pk"]},"computedProperties":` + tt.cps + `}`
			msg := wantError(t, raw.do(http.MethodPost, "/dbs/cpdef/colls", []byte(body)), http.StatusBadRequest, "BadRequest")
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("message %q does not contain %q", msg, tt.msg)
			}
		})
	}

	const lower = `{"name":"cp","query":"SELECT VALUE LOWER(c.name) FROM c"}`
	const upper = `{"name":"cp","query":"SELECT VALUE UPPER(c.name) FROM c"}`
	created, cc := cpContainer(t, raw, c, "cpdef", "c", `[`+lower+`]`, "")
	if got := compactJSON(t, created["computedProperties"]); got != `[`+lower+`]` {
		t.Errorf("create echoed %s", got)
	}
	cpCreate(t, cc, `{"id":"a","pk":"p","name":"MiXed"}`)
	query := `SELECT VALUE c.cp FROM c WHERE STARTSWITH(c.cp, 'm')`
	if got := cpResults(t, cc, query, "p", false); got != `["mixed"]` {
		t.Fatalf("before replace %s", got)
	}
	replace := func(cps string) rawResp {
		body := `{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"},"computedProperties":` + cps + `}`
		return raw.do(http.MethodPut, "/dbs/cpdef/colls/c", []byte(body))
	}
	resp := replace(`[` + upper + `]`)
	wantStatus(t, resp, http.StatusOK)
	if got := compactJSON(t, rawMembers(t, resp.Body)["computedProperties"]); got != `[`+upper+`]` {
		t.Errorf("replace echoed %s", got)
	}
	if got := cpResults(t, cc, `SELECT VALUE c.cp FROM c`, "p", false); got != `["MIXED"]` {
		t.Errorf("right after replace %s, want [\"MIXED\"]", got)
	}
	wantError(t, replace(`[{"name":"cp","query":"SELECT VALUE RAND() FROM c"}]`), http.StatusBadRequest, "BadRequest")
	read := raw.do(http.MethodGet, "/dbs/cpdef/colls/c", nil)
	wantStatus(t, read, http.StatusOK)
	if got := compactJSON(t, rawMembers(t, read.Body)["computedProperties"]); got != `[`+upper+`]` {
		t.Errorf("after a refused replace, read %s", got)
	}
	wantStatus(t, replace(`[]`), http.StatusOK)
	if got := cpResults(t, cc, `SELECT c.cp FROM c`, "p", false); got != `[{}]` {
		t.Errorf("after replace to [] %s, want [{}]", got)
	}
}
