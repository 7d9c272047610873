package compat_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestSinglePartitionFilterThroughSDK: a single-partition range filter
// (served by the partition-first path index it makes, with no predicate on
// the document: see pgstore/sqlgen/index.go) matches only numbers in
// range, in its partition, and follows replaces and deletes made after the
// index exists; the same filter with ORDER BY, and across partitions (the
// global path index), agree.
func TestSinglePartitionFilterThroughSDK(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := mustDB(t, f.c, "qfilter")
	e := f.container(t, db, "q")
	pa, pb := azcosmos.NewPartitionKeyString("a"), azcosmos.NewPartitionKeyString("b")
	for _, it := range []struct {
		pk   azcosmos.PartitionKey
		body string
	}{
		{pa, `{"id":"x1","pk":"a","n":95}`},
		{pa, `{"id":"x2","pk":"a","n":"95"}`},
		{pa, `{"id":"x3","pk":"a","n":true}`},
		{pa, `{"id":"x4","pk":"a","n":null}`},
		{pa, `{"id":"x5","pk":"a"}`},
		{pa, `{"id":"x6","pk":"a","n":90}`},
		{pa, `{"id":"x7","pk":"a","n":50}`},
		{pa, `{"id":"x8","pk":"a","n":[95]}`},
		{pb, `{"id":"y1","pk":"b","n":99}`},
	} {
		if _, err := e.cc.CreateItem(bg, it.pk, []byte(it.body), nil); err != nil {
			t.Fatal(err)
		}
	}
	query := func(text string, pk azcosmos.PartitionKey) []string {
		t.Helper()
		pager := e.cc.NewQueryItemsPager(text, pk, &azcosmos.QueryOptions{
			PageSizeHint:    2,
			QueryParameters: []azcosmos.QueryParameter{{Name: "@pk", Value: "a"}, {Name: "@x", Value: 90}},
		})
		var ids []string
		for pager.More() {
			page, err := pager.NextPage(bg)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			for _, raw := range page.Items {
				var id string
				if err := json.Unmarshal(raw, &id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
		}
		return ids
	}
	const filter = `SELECT VALUE c.id FROM c WHERE c.pk = @pk AND c.n >= @x`
	check := func(when string, single, ordered, cross []string) {
		t.Helper()
		if got := query(filter, pa); !slices.Equal(got, single) {
			t.Errorf("%s: in the partition %v, want %v", when, got, single)
		}
		if got := query(`SELECT VALUE c.id FROM c WHERE c.n >= @x ORDER BY c.n DESC`, pa); !slices.Equal(got, ordered) {
			t.Errorf("%s: ordered %v, want %v", when, got, ordered)
		}
		if got := query(`SELECT VALUE c.id FROM c WHERE c.pk = "b" AND c.n >= @x`, pa); len(got) != 0 {
			t.Errorf("%s: another partition's key matched %v", when, got)
		}
		got := query(`SELECT VALUE c.id FROM c WHERE c.n >= @x`, azcosmos.NewPartitionKey())
		slices.Sort(got)
		if !slices.Equal(got, cross) {
			t.Errorf("%s: across partitions %v, want %v", when, got, cross)
		}
	}
	check("created", []string{"x1", "x6"}, []string{"x1", "x6"}, []string{"x1", "x6", "y1"})
	if _, err := e.cc.ReplaceItem(bg, pa, "x7", []byte(`{"id":"x7","pk":"a","n":91}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cc.ReplaceItem(bg, pa, "x1", []byte(`{"id":"x1","pk":"a","n":"91"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cc.DeleteItem(bg, pa, "x6", nil); err != nil {
		t.Fatal(err)
	}
	check("replaced and deleted", []string{"x7"}, []string{"x7"}, []string{"x7", "y1"})
}
