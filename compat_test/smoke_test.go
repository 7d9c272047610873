package compat_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

func TestSmoke(t *testing.T) {
	ctx := context.Background()
	e := emulatortest.Start(t)
	c := e.Client(t)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db1"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db1")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c1", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	cont, _ := db.NewContainer("c1")
	pk := azcosmos.NewPartitionKeyString("a")
	item, _ := json.Marshal(map[string]any{"id": "1", "pk": "a", "n": 1})
	r, err := cont.CreateItem(ctx, pk, item, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("create: %d etag=%s session=%s", r.RawResponse.StatusCode, r.ETag, *r.SessionToken)
	rr, err := cont.ReadItem(ctx, pk, "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read: %s", rr.Value)
}
