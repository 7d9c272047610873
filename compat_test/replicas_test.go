package compat_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestReplicasNeverServeStaleItems: two emulator processes on one database
// (a supported setup: replicas behind one name) answer every read with the
// latest acknowledged write, whichever replica took it. Each round writes
// through one replica and, at once, reads through the other by point read
// and by query; a replica that served items from a cache of its own would
// fail here. Item reads go to PostgreSQL on every request
// (one prepared statement), so there is nothing to invalidate.
func TestReplicasNeverServeStaleItems(t *testing.T) {
	a := emulatortest.Start(t)
	b := emulatortest.StartOn(t, a.PG)
	replicas := []*azcosmos.ContainerClient{
		mustContainer(t, mustDB(t, a.Client(t), "db"), "c"),
	}
	cb, err := b.Client(t).NewContainer("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	replicas = append(replicas, cb)
	pk := azcosmos.NewPartitionKeyString("p")
	readV := func(c *azcosmos.ContainerClient) (point, query int, found bool) {
		t.Helper()
		r, err := c.ReadItem(bg, pk, "x", nil)
		if err != nil {
			sdkErr(t, err, 404)
			return -1, -1, false
		}
		var doc struct{ V int }
		if err := json.Unmarshal(r.Value, &doc); err != nil {
			t.Fatal(err)
		}
		pager := c.NewQueryItemsPager("SELECT VALUE c.v FROM c WHERE c.id = 'x'", pk, nil)
		query = -1
		for pager.More() {
			page, err := pager.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				if err := json.Unmarshal(it, &query); err != nil {
					t.Fatal(err)
				}
			}
		}
		return doc.V, query, true
	}
	tests := []struct {
		name string
		op   string // upsert, replace, patch, delete
	}{
		{"create", "upsert"}, {"replace", "replace"}, {"patch", "patch"}, {"upsert again", "upsert"},
		{"delete", "delete"}, {"recreate", "upsert"}, {"replace after recreate", "replace"},
	}
	for round := range 3 {
		for i, tt := range tests {
			v := round*100 + i
			w, r := replicas[(round+i)%2], replicas[(round+i+1)%2]
			body := []byte(fmt.Sprintf(`{"id":"x","pk":"p","v":%d}`, v))
			var err error
			switch tt.op {
			case "upsert":
				_, err = w.UpsertItem(bg, pk, body, nil)
			case "replace":
				_, err = w.ReplaceItem(bg, pk, "x", body, nil)
			case "patch":
				p := azcosmos.PatchOperations{}
				p.AppendSet("/v", v)
				_, err = w.PatchItem(bg, pk, "x", p, nil)
			case "delete":
				_, err = w.DeleteItem(bg, pk, "x", nil)
			}
			if err != nil {
				t.Fatalf("round %d %s: %v", round, tt.name, err)
			}
			point, query, found := readV(r)
			if tt.op == "delete" {
				if found {
					t.Errorf("round %d %s: the other replica still reads v=%d (query %d)", round, tt.name, point, query)
				}
				continue
			}
			if !found || point != v || query != v {
				t.Errorf("round %d %s: the other replica reads v=%d by point read and %d by query (found %v), want %d", round, tt.name, point, query, found, v)
			}
		}
	}
}
