package compat_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestGoReadManyAcrossRanges reads 40 items with azcosmos ReadManyItems on
// containers with 4 ranges. On a V2 container every item comes back. On a
// V1 container azcosmos v1.5.0 computes a V1 EPK the service does not
// ("000…" + a 32-bit hash), groups every item into the first range and
// queries only that range by id, so the items of the other ranges are
// missing: the SDK's bug, the same on Azure (the README says so).
func TestGoReadManyAcrossRanges(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithMinPartitionRanges(4))
	db := mustDB(t, e.Client(t), "readmany")
	for _, tc := range []struct {
		name    string
		version int
		all     bool
	}{{"v2", 2, true}, {"v1", 1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			props := azcosmos.ContainerProperties{ID: tc.name, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: tc.version}}
			if _, err := db.CreateContainer(bg, props, nil); err != nil {
				t.Fatal(err)
			}
			cc, _ := db.NewContainer(tc.name)
			var ids []azcosmos.ItemIdentity
			inRange := map[string]int{}
			for i := 0; i < 40; i++ {
				id := fmt.Sprintf("i%02d", i)
				resp, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("p"+id), mustJSON(t, map[string]any{"id": id, "pk": "p" + id}), nil)
				if err != nil {
					t.Fatal(err)
				}
				inRange[resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid")]++
				ids = append(ids, azcosmos.ItemIdentity{ID: id, PartitionKey: azcosmos.NewPartitionKeyString("p" + id)})
			}
			resp, err := cc.ReadManyItems(bg, ids, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range resp.Items {
				var d struct{ ID string }
				if err := json.Unmarshal(it, &d); err != nil {
					t.Fatal(err)
				}
				got = append(got, d.ID)
			}
			sort.Strings(got)
			t.Logf("%s: items per range %v; ReadManyItems returned %d of 40", tc.name, inRange, len(got))
			if tc.all && len(got) != 40 {
				t.Errorf("ReadManyItems returned %d of 40: %v", len(got), got)
			}
			if !tc.all && len(got) != inRange["0"] {
				t.Errorf("ReadManyItems on V1 returned %d items, want the %d of range 0 (azcosmos v1.5.0's V1 EPK)", len(got), inRange["0"])
			}
		})
	}
}
