package compat_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestRestart stops an emulator and starts another on the same database:
// databases, containers (with their definitions), items and offers are all
// still there.
func TestRestart(t *testing.T) {
	t.Parallel()
	e1 := emulatortest.Start(t)
	c1 := e1.Client(t)
	tp := azcosmos.NewManualThroughputProperties(700)
	if _, err := c1.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "keep"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	db1, _ := c1.NewDatabase("keep")
	ttl := int32(3600)
	auto := azcosmos.NewAutoscaleThroughputProperties(6000)
	props := azcosmos.ContainerProperties{ID: "c", DefaultTimeToLive: &ttl,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		UniqueKeyPolicy:        &azcosmos.UniqueKeyPolicy{UniqueKeys: []azcosmos.UniqueKey{{Paths: []string{"/u"}}}},
	}
	if _, err := db1.CreateContainer(bg, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &auto}); err != nil {
		t.Fatal(err)
	}
	cc1, _ := db1.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("p")
	bodies := map[string][]byte{}
	for _, id := range []string{"a", "b", "c"} {
		// each its own /u: the unique key is enforced (a missing value is null)
		r, err := cc1.CreateItem(bg, pk, []byte(`{"id":"`+id+`","pk":"p","u":"`+id+`","big":9007199254740993,"z":1,"a":2}`), &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
		if err != nil {
			t.Fatal(err)
		}
		bodies[id] = r.Value
	}
	before, err := cc1.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	e1.Stop(t)

	e2 := emulatortest.StartOn(t, e1.PG)
	if e2.Endpoint == "" {
		t.Fatal("no endpoint")
	}
	c2 := e2.Client(t)
	db2, _ := c2.NewDatabase("keep")
	if _, err := db2.Read(bg, nil); err != nil {
		t.Fatalf("database lost: %v", err)
	}
	cc2, _ := db2.NewContainer("c")
	after, err := cc2.Read(bg, nil)
	if err != nil {
		t.Fatalf("container lost: %v", err)
	}
	b, a := before.ContainerProperties, after.ContainerProperties
	if a.ResourceID != b.ResourceID || *a.ETag != *b.ETag || !reflect.DeepEqual(a.PartitionKeyDefinition, b.PartitionKeyDefinition) ||
		a.DefaultTimeToLive == nil || *a.DefaultTimeToLive != 3600 || !reflect.DeepEqual(a.UniqueKeyPolicy, b.UniqueKeyPolicy) {
		t.Errorf("container changed:\nbefore %+v\nafter  %+v", b, a)
	}
	for id, want := range bodies {
		r, err := cc2.ReadItem(bg, pk, id, nil)
		if err != nil {
			t.Fatalf("item %s lost: %v", id, err)
		}
		if string(r.Value) != string(want) {
			t.Errorf("item %s:\nbefore %s\nafter  %s", id, want, r.Value)
		}
	}
	dtp, err := db2.ReadThroughput(bg, nil)
	if err != nil {
		t.Fatalf("database offer lost: %v", err)
	}
	if v, _ := dtp.ThroughputProperties.ManualThroughput(); v != 700 {
		t.Errorf("database throughput = %d, want 700", v)
	}
	ctp, err := cc2.ReadThroughput(bg, nil)
	if err != nil {
		t.Fatalf("container offer lost: %v", err)
	}
	if v, _ := ctp.ThroughputProperties.AutoscaleMaxThroughput(); v != 6000 {
		t.Errorf("container autoscale max = %d, want 6000", v)
	}
	// the restarted emulator keeps working: new ids do not collide
	r, err := cc2.CreateItem(bg, pk, []byte(`{"id":"d","pk":"p"}`), &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	newRID := object(t, r.Value)["_rid"]
	for id, body := range bodies {
		if object(t, body)["_rid"] == newRID {
			t.Errorf("new item reuses the RID of %s", id)
		}
	}
	_, err = cc2.CreateItem(bg, pk, []byte(`{"id":"a","pk":"p"}`), nil)
	sdkErrCode(t, err, http.StatusConflict, "Conflict")
	// the unique key still holds after the restart
	_, err = cc2.CreateItem(bg, pk, []byte(`{"id":"e","pk":"p","u":"b"}`), nil)
	sdkErrCode(t, err, http.StatusConflict, "Conflict")
	cc3 := mustContainer(t, db2, "c3")
	r3, err := cc3.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r3.ContainerProperties.ResourceID == a.ResourceID {
		t.Errorf("new container reuses a RID")
	}
}
