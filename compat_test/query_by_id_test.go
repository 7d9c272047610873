package compat_test

import (
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestQueryByIDThroughSDK: SELECT * FROM c WHERE c.id = @id (which the
// store answers from the primary key when the partition key is known)
// returns the item as it stands after a replace and a patch, nothing for
// another partition, an unknown id or a number, and every partition's item
// of that id across partitions.
func TestQueryByIDThroughSDK(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "qid")
	e := f.container(t, db, "q")
	pa, pb := azcosmos.NewPartitionKeyString("a"), azcosmos.NewPartitionKeyString("b")
	for _, it := range []struct {
		pk   azcosmos.PartitionKey
		body string
	}{{pa, `{"id":"x","pk":"a","v":1}`}, {pb, `{"id":"x","pk":"b","v":2}`}, {pa, `{"id":"y","pk":"a","v":3}`}} {
		if _, err := e.cc.CreateItem(bg, it.pk, []byte(it.body), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.cc.ReplaceItem(bg, pa, "x", []byte(`{"id":"x","pk":"a","v":10}`), nil); err != nil {
		t.Fatal(err)
	}
	patch := azcosmos.PatchOperations{}
	patch.AppendIncrement("/v", 5)
	if _, err := e.cc.PatchItem(bg, pa, "x", patch, nil); err != nil {
		t.Fatal(err)
	}
	query := func(pk azcosmos.PartitionKey, id any) []float64 {
		t.Helper()
		pager := e.cc.NewQueryItemsPager("SELECT * FROM c WHERE c.id = @id", pk,
			&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: id}}})
		var vs []float64
		for pager.More() {
			page, err := pager.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, raw := range page.Items {
				var d struct{ V float64 }
				if err := json.Unmarshal(raw, &d); err != nil {
					t.Fatal(err)
				}
				vs = append(vs, d.V)
			}
		}
		return vs
	}
	for _, tc := range []struct {
		name string
		pk   azcosmos.PartitionKey
		id   any
		want []float64
	}{
		{"replaced and patched", pa, "x", []float64{15}},
		{"other partition", pb, "x", []float64{2}},
		{"not in this partition", pb, "y", nil},
		{"unknown id", pa, "z", nil},
		{"number", pa, 1, nil},
		{"across partitions", azcosmos.NewPartitionKey(), "x", []float64{15, 2}},
	} {
		got := query(tc.pk, tc.id)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
