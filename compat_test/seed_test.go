package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// seedFile is an init data file: a database with shared throughput and a
// container with its definition (partition key, TTL, unique keys,
// indexing policy), items and one script of each kind; a second database
// with an autoscale container partitioned on two paths.
const seedFile = `{"databases": [
 {"id": "shop", "throughput": 800, "containers": [
  {"id": "orders", "partitionKey": {"paths": ["/customer"], "kind": "Hash"}, "defaultTtl": 3600,
   "uniqueKeyPolicy": {"uniqueKeys": [{"paths": ["/number"]}]},
   "indexingPolicy": {"indexingMode": "consistent", "includedPaths": [{"path": "/*"}], "excludedPaths": [{"path": "/notes/?"}]},
   "items": [
    {"id": "o1", "customer": "ann", "number": 1, "total": 10},
    {"id": "o2", "customer": "ann", "number": 2, "total": 25},
    {"id": "o3", "customer": "bob", "number": 3, "total": 7, "ttl": -1}
   ],
   "storedProcedures": [{"id": "count", "body": "function () { var r = getContext().getResponse(); getContext().getCollection().queryDocuments(getContext().getCollection().getSelfLink(), 'SELECT VALUE COUNT(1) FROM c', {}, function (e, d) { if (e) throw e; r.setBody(d[0]); }); }"}],
   "triggers": [{"id": "stamp", "triggerType": "Pre", "triggerOperation": "Create", "body": "function () { var req = getContext().getRequest(); var d = req.getBody(); d.stamped = true; req.setBody(d); }"}],
   "userDefinedFunctions": [{"id": "double", "body": "function (x) { return x * 2; }"}]
  }]},
 {"id": "geo", "containers": [
  {"id": "places", "partitionKey": {"paths": ["/country", "/city"], "kind": "MultiHash", "version": 2}, "autoscaleMaxThroughput": 4000,
   "items": [{"id": "p1", "country": "fr", "city": "paris"}, {"id": "p2", "country": "fr", "city": "lyon"}, {"id": "p3", "country": "it"}]}
 ]}
]}`

// writeSeed writes content to a file in a temporary directory.
func writeSeed(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// queryIDs runs query on cc within partition pk and returns the ids.
func queryIDs(t *testing.T, cc *azcosmos.ContainerClient, pk azcosmos.PartitionKey, query string) []string {
	t.Helper()
	var ids []string
	p := cc.NewQueryItemsPager(query, pk, nil)
	for p.More() {
		page, err := p.NextPage(bg)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for _, b := range page.Items {
			var d struct{ ID string }
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, d.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestInitData starts an emulator with an init data file and checks
// through the SDK that everything in it is there as the REST API would
// have created it: the databases and containers with their definitions
// and throughput, the items under the partition keys read from them, and
// the scripts, which run.
func TestInitData(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	e := emulatortest.Start(t, emulatortest.WithInitData(writeSeed(t, seedFile)))
	t.Logf("started with the init data in %v", time.Since(t0))
	c := e.Client(t)
	shop, _ := c.NewDatabase("shop")
	if tp, err := shop.ReadThroughput(bg, nil); err != nil {
		t.Errorf("shop throughput: %v", err)
	} else if m, ok := tp.ThroughputProperties.ManualThroughput(); !ok || m != 800 {
		t.Errorf("shop throughput = %d (manual %v), want 800", m, ok)
	}
	orders, _ := shop.NewContainer("orders")
	props, err := orders.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := props.ContainerProperties
	if !slices.Equal(p.PartitionKeyDefinition.Paths, []string{"/customer"}) || p.DefaultTimeToLive == nil || *p.DefaultTimeToLive != 3600 ||
		p.UniqueKeyPolicy == nil || len(p.UniqueKeyPolicy.UniqueKeys) != 1 || !slices.Equal(p.UniqueKeyPolicy.UniqueKeys[0].Paths, []string{"/number"}) ||
		p.IndexingPolicy == nil || len(p.IndexingPolicy.ExcludedPaths) == 0 || p.IndexingPolicy.ExcludedPaths[0].Path != "/notes/?" {
		t.Errorf("orders definition: %+v", p)
	}
	ann := azcosmos.NewPartitionKeyString("ann")
	if got := queryIDs(t, orders, ann, "SELECT c.id FROM c"); !slices.Equal(got, []string{"o1", "o2"}) {
		t.Errorf("ann's orders = %v", got)
	}
	r, err := orders.ReadItem(bg, azcosmos.NewPartitionKeyString("bob"), "o3", nil)
	if err != nil || !strings.Contains(string(r.Value), `"ttl":-1`) {
		t.Errorf("o3: %v %s", err, r.Value)
	}
	// the UDF runs in a query
	qp := orders.NewQueryItemsPager("SELECT VALUE udf.double(c.total) FROM c WHERE c.id = 'o2'", ann, nil)
	page, err := qp.NextPage(bg)
	if err != nil || len(page.Items) != 1 || string(page.Items[0]) != "50" {
		t.Errorf("udf.double: %v %q", err, page.Items)
	}
	// the unique key /number holds for the seeded items: ann's order 1 exists
	if _, err := orders.CreateItem(bg, ann, []byte(`{"id":"o5","customer":"ann","number":1}`), nil); statusOf(err) != http.StatusConflict {
		t.Errorf("create with ann's existing number 1: %v, want 409", err)
	}
	// the trigger runs on a create that names it
	if _, err := orders.CreateItem(bg, ann, []byte(`{"id":"o4","customer":"ann","number":4}`), &azcosmos.ItemOptions{PreTriggers: []string{"stamp"}}); err != nil {
		t.Fatal(err)
	}
	if r, err := orders.ReadItem(bg, ann, "o4", nil); err != nil || !strings.Contains(string(r.Value), `"stamped":true`) {
		t.Errorf("o4 after the pre-trigger: %v %s", err, r.Value)
	}
	// the stored procedure runs
	raw := newRaw(t, e)
	res := raw.do(http.MethodPost, scriptsPath("shop", "orders", "sprocs")+"/count", []byte(`[]`), pkHeader, `["ann"]`)
	if res.Status != http.StatusOK || string(res.Body) != "3" {
		t.Errorf("sproc count: %d %s, want 3 (o1, o2, o4)", res.Status, res.Body)
	}

	geo, _ := c.NewDatabase("geo")
	places, _ := geo.NewContainer("places")
	if tp, err := places.ReadThroughput(bg, nil); err != nil {
		t.Errorf("places throughput: %v", err)
	} else if m, ok := tp.ThroughputProperties.AutoscaleMaxThroughput(); !ok || m != 4000 {
		t.Errorf("places autoscale max = %d (%v), want 4000", m, ok)
	}
	paris := azcosmos.NewPartitionKeyString("fr").AppendString("paris")
	if _, err := places.ReadItem(bg, paris, "p1", nil); err != nil {
		t.Errorf("p1 under [fr, paris]: %v", err)
	}
	if got := queryIDs(t, places, azcosmos.NewPartitionKeyString("fr").AppendString("lyon"), "SELECT c.id FROM c"); !slices.Equal(got, []string{"p2"}) {
		t.Errorf("[fr, lyon] = %v", got)
	}
	// p3 lacks /city: its key's second component is undefined
	res = raw.do(http.MethodGet, docPath("geo", "places", "p3"), nil, pkHeader, `["it",{}]`)
	if res.Status != http.StatusOK {
		t.Errorf("p3 under [it, undefined]: %d %s", res.Status, res.Body)
	}
}

// TestInitDataRestart starts an emulator with an init data file, changes
// an item, adds one and replaces a stored procedure, then starts another
// emulator over the same data with the same file: the changes stay (what
// exists is left alone) and nothing is duplicated or refused.
func TestInitDataRestart(t *testing.T) {
	t.Parallel()
	file := writeSeed(t, seedFile)
	e1 := emulatortest.Start(t, emulatortest.WithInitData(file))
	orders, _ := e1.Client(t).NewContainer("shop", "orders")
	ann := azcosmos.NewPartitionKeyString("ann")
	if _, err := orders.ReplaceItem(bg, ann, "o1", []byte(`{"id":"o1","customer":"ann","number":1,"total":99}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := orders.CreateItem(bg, ann, []byte(`{"id":"o5","customer":"ann","number":5}`), nil); err != nil {
		t.Fatal(err)
	}
	raw1 := newRaw(t, e1)
	wantStatus(t, raw1.do(http.MethodPut, scriptsPath("shop", "orders", "sprocs")+"/count", []byte(`{"id":"count","body":"function () { getContext().getResponse().setBody('mine'); }"}`)), http.StatusOK)
	e1.Stop(t)

	t0 := time.Now()
	e2 := emulatortest.StartOn(t, e1.PG, emulatortest.WithInitData(file))
	t.Logf("restarted with the same init data in %v", time.Since(t0))
	orders2, _ := e2.Client(t).NewContainer("shop", "orders")
	r, err := orders2.ReadItem(bg, ann, "o1", nil)
	if err != nil || !strings.Contains(string(r.Value), `"total":99`) {
		t.Errorf("o1 after the restart: %v %s, want the client's change (total 99)", err, r.Value)
	}
	if got := queryIDs(t, orders2, ann, "SELECT c.id FROM c"); !slices.Equal(got, []string{"o1", "o2", "o5"}) {
		t.Errorf("ann's orders after the restart = %v, want o1 o2 o5", got)
	}
	res := newRaw(t, e2).do(http.MethodPost, scriptsPath("shop", "orders", "sprocs")+"/count", []byte(`[]`), pkHeader, `["ann"]`)
	if res.Status != http.StatusOK || string(res.Body) != `"mine"` {
		t.Errorf("sproc after the restart: %d %s, want the replaced one's answer", res.Status, res.Body)
	}
}

// TestInitDataTenThousandItems loads 10,000 items into two containers and
// logs the time; they are all readable by query.
func TestInitDataTenThousandItems(t *testing.T) {
	t.Parallel()
	const n = 10000
	var b strings.Builder
	b.WriteString(`{"databases":[{"id":"big","containers":[`)
	for k, coll := range []string{"a", "b"} {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%q,"partitionKey":{"paths":["/pk"]},"items":[`, coll)
		for i := 0; i < n/2; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":"%d","pk":"p%d","n":%d,"text":"some text to give the item a little body"}`, i, i%50, i)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}]}`)
	file := writeSeed(t, b.String())
	t0 := time.Now()
	e0 := emulatortest.Start(t, emulatortest.WithInitData(writeSeed(t, `{"databases":[{"id":"big","containers":[{"id":"a","partitionKey":{"paths":["/pk"]}},{"id":"b","partitionKey":{"paths":["/pk"]}}]}]}`)))
	t.Logf("start with the two containers and no items: %v", time.Since(t0))
	e0.Stop(t)
	t0 = time.Now()
	e := emulatortest.Start(t, emulatortest.WithInitData(file))
	t.Logf("start with %d items (%d KiB) of init data: %v", n, b.Len()>>10, time.Since(t0))
	db, _ := e.Client(t).NewDatabase("big")
	for _, coll := range []string{"a", "b"} {
		cc, _ := db.NewContainer(coll)
		if got := queryIDs(t, cc, azcosmos.NewPartitionKey(), "SELECT c.id FROM c"); len(got) != n/2 {
			t.Errorf("%s holds %d items, want %d", coll, len(got), n/2)
		}
	}
}
