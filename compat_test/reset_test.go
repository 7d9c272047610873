package compat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// feedCount returns the _count of a raw feed answer (GET /dbs, /offers,
// .../users ...), failing on any other status than 200.
func feedCount(t *testing.T, r rawResp) int {
	t.Helper()
	wantStatus(t, r, http.StatusOK)
	var f struct {
		Count *int `json:"_count"`
	}
	if err := json.Unmarshal(r.Body, &f); err != nil || f.Count == nil {
		t.Fatalf("feed without _count: %s (%v)", r.Body, err)
	}
	return *f.Count
}

// wantNoIdleTx fails the test when a PostgreSQL session of the emulator
// stays idle inside a transaction. The emulator's background workers (the
// dropping of the tables a reset retired, the refill of spare tables) run
// short transactions that are idle between their statements for a moment,
// so a session must stay so for 30 s (a bound only against a hang) to
// count as left behind.
func wantNoIdleTx(t *testing.T, e *emulatortest.Emulator) {
	t.Helper()
	t0 := time.Now()
	for {
		n := e.IdleInTransaction(t)
		if n == 0 {
			t.Logf("no session idle in a transaction after %v", time.Since(t0).Round(time.Millisecond))
			return
		}
		if time.Since(t0) > 30*time.Second {
			t.Errorf("%d PostgreSQL sessions left idle in a transaction", n)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReset fills an emulator with databases (one with shared
// throughput), containers, items, a stored procedure, a user with a
// permission and a change feed, resets it through POST /_emulator/reset
// (emulatortest.Reset) and checks that nothing is left: no database, no
// offer; clients holding the old containers get 404; a database and
// container created again with the same ids are empty: no items, no
// query result, no scripts, no users, an empty change feed from the
// beginning, and the throughput they are created with.
func TestReset(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	c := e.Client(t)
	raw := newRaw(t, e)
	tp := azcosmos.NewManualThroughputProperties(1000)
	if _, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "r1"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	r1, _ := c.NewDatabase("r1")
	old := mustContainer(t, r1, "c")
	mustContainer(t, r1, "c2")
	mustContainer(t, mustDB(t, c, "r2"), "c")
	pk := azcosmos.NewPartitionKeyString("p")
	for i := 0; i < 20; i++ {
		if _, err := old.CreateItem(bg, pk, []byte(fmt.Sprintf(`{"id":"%d","pk":"p"}`, i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	wantStatus(t, raw.do(http.MethodPost, scriptsPath("r1", "c", "sprocs"), []byte(`{"id":"sp","body":"function () {}"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/r1/users", []byte(`{"id":"u"}`)), http.StatusCreated)
	if n := feedCount(t, raw.do(http.MethodGet, "/dbs", nil)); n != 2 {
		t.Fatalf("%d databases before the reset", n)
	}

	t0 := time.Now()
	e.Reset(t)
	t.Logf("reset of 2 databases, 3 containers, 20 items: %v", time.Since(t0))

	if n := feedCount(t, raw.do(http.MethodGet, "/dbs", nil)); n != 0 {
		t.Errorf("%d databases after the reset, want none", n)
	}
	if n := feedCount(t, raw.do(http.MethodGet, "/offers", nil)); n != 0 {
		t.Errorf("%d offers after the reset, want none", n)
	}
	_, err := old.ReadItem(bg, pk, "1", nil)
	sdkErr(t, err, http.StatusNotFound)
	_, err = old.CreateItem(bg, pk, []byte(`{"id":"new","pk":"p"}`), nil)
	sdkErr(t, err, http.StatusNotFound)

	// the same ids again: new, empty resources
	r1 = mustDB(t, c, "r1")
	again := mustContainer(t, r1, "c")
	_, err = again.ReadItem(bg, pk, "1", nil)
	sdkErr(t, err, http.StatusNotFound)
	if ids := queryIDs(t, again, azcosmos.NewPartitionKey(), "SELECT c.id FROM c"); len(ids) != 0 {
		t.Errorf("query of the re-created container: %v, want nothing", ids)
	}
	if n := feedCount(t, raw.do(http.MethodGet, scriptsPath("r1", "c", "sprocs"), nil)); n != 0 {
		t.Errorf("%d stored procedures in the re-created container", n)
	}
	if n := feedCount(t, raw.do(http.MethodGet, "/dbs/r1/users", nil)); n != 0 {
		t.Errorf("%d users in the re-created database", n)
	}
	if _, err := again.CreateItem(bg, pk, []byte(`{"id":"fresh","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	ids, _ := sdkFeedPage(t, again, azcosmos.ChangeFeedOptions{})
	wantIDs(t, ids, "fresh")
	// the database has no shared throughput now: the container has the
	// service's default of its own
	ctp, err := again.ReadThroughput(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := ctp.ThroughputProperties.ManualThroughput(); !ok || m != 400 {
		t.Errorf("re-created container's throughput = %d (%v), want its own 400", m, ok)
	}
	if n := feedCount(t, raw.do(http.MethodGet, "/offers", nil)); n != 1 {
		t.Errorf("%d offers, want the re-created container's only", n)
	}
	// a reset of an empty emulator is fine too
	e.Reset(t)
	e.Reset(t)
	if n := feedCount(t, raw.do(http.MethodGet, "/dbs", nil)); n != 0 {
		t.Errorf("%d databases after two more resets", n)
	}
	wantNoIdleTx(t, e)
}

// TestResetUnderLoad resets an emulator five times while clients create,
// read, upsert and query items in four containers (re-creating their
// database and container when a reset removed them). Every failure a
// client meets must be a clean Cosmos error: 404 (what a reset removed),
// 409 (two clients re-creating the same container) or 410; never a 5xx
// or a broken connection. After the load, one more reset leaves nothing.
func TestResetUnderLoad(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	c := e.Client(t)
	var stop atomic.Bool
	var ok, cleanErrs atomic.Int64
	var mu sync.Mutex
	var bad []string
	record := func(what string, err error) {
		if err == nil {
			ok.Add(1)
			return
		}
		var re *azcore.ResponseError
		if errors.As(err, &re) && (re.StatusCode == 404 || re.StatusCode == 409 || re.StatusCode == 410) {
			body, _ := runtime.Payload(re.RawResponse)
			var b struct{ Code, Message string }
			if json.Unmarshal(body, &b) == nil && b.Code != "" && b.Message != "" {
				cleanErrs.Add(1)
				return
			}
		}
		mu.Lock()
		bad = append(bad, fmt.Sprintf("%s: %v", what, err))
		mu.Unlock()
	}
	ensure := func(coll string) *azcosmos.ContainerClient {
		_, err := c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "load"}, nil)
		if err != nil {
			record("create database", err)
		}
		db, _ := c.NewDatabase("load")
		_, err = db.CreateContainer(bg, azcosmos.ContainerProperties{ID: coll, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
		if err != nil {
			record("create container", err)
		}
		cc, _ := db.NewContainer(coll)
		return cc
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			coll := fmt.Sprintf("c%d", w)
			cc := ensure(coll)
			pk := azcosmos.NewPartitionKeyString("p")
			for i := 0; !stop.Load(); i++ {
				id := fmt.Sprintf("%d", i%50)
				body := []byte(fmt.Sprintf(`{"id":%q,"pk":"p","n":%d}`, id, i))
				var err error
				switch i % 4 {
				case 0:
					_, err = cc.CreateItem(bg, pk, body, nil)
					if re := (*azcore.ResponseError)(nil); errors.As(err, &re) && re.StatusCode == 409 {
						err = nil // the item exists from before
					}
				case 1:
					_, err = cc.UpsertItem(bg, pk, body, nil)
				case 2:
					_, err = cc.ReadItem(bg, pk, id, nil)
				case 3:
					p := cc.NewQueryItemsPager("SELECT * FROM c WHERE c.n >= 0", pk, nil)
					for p.More() && err == nil {
						_, err = p.NextPage(bg)
					}
				}
				record("item operation", err)
				var re *azcore.ResponseError
				if errors.As(err, &re) && re.StatusCode == 404 {
					cc = ensure(coll) // a reset removed it
				}
			}
		}(w)
	}
	time.Sleep(300 * time.Millisecond) // let the clients create their containers
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		e.Reset(t)
		t.Logf("reset %d under load: %v", i+1, time.Since(t0))
		time.Sleep(150 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d operations succeeded, %d ended in a clean 404/409/410", ok.Load(), cleanErrs.Load())
	for _, b := range bad {
		t.Error(b)
	}
	if cleanErrs.Load() == 0 {
		t.Error("no client met a reset: the test proves nothing")
	}
	e.Reset(t)
	raw := newRaw(t, e)
	if n := feedCount(t, raw.do(http.MethodGet, "/dbs", nil)); n != 0 {
		t.Errorf("%d databases after the last reset", n)
	}
	cc := mustContainer(t, mustDB(t, c, "load"), "c0")
	if ids := queryIDs(t, cc, azcosmos.NewPartitionKeyString("p"), "SELECT c.id FROM c"); len(ids) != 0 {
		t.Errorf("re-created container holds %v", ids)
	}
	wantNoIdleTx(t, e)
}
