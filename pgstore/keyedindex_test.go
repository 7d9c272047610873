package pgstore

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestExactFilterSemantics: the query shapes whose WHERE is now only index
// conjuncts (the Cosmos predicate left out, the partition key and id terms
// left to the columns) keep the Cosmos results: a number range matches no
// string, boolean, null, array, object or undefined value, each type's
// equality and range stay within the type, BETWEEN, ORDER BY with the
// filter, pages of one result, a partition key term naming another
// partition or another type, number, null and undefined partition keys,
// two different ids, an undefined parameter, and the same filters across
// partitions. Each query runs twice: the first makes the path index, the
// second uses it.
func TestExactFilterSemantics(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	docs := []struct{ pk, body string }{
		{`["p1"]`, `{"id":"a","pk":"p1","n":95}`},
		{`["p1"]`, `{"id":"b","pk":"p1","n":90}`},
		{`["p1"]`, `{"id":"c","pk":"p1","n":89}`},
		{`["p1"]`, `{"id":"d","pk":"p1","n":"95"}`},
		{`["p1"]`, `{"id":"e","pk":"p1","n":true}`},
		{`["p1"]`, `{"id":"f","pk":"p1","n":null}`},
		{`["p1"]`, `{"id":"g","pk":"p1"}`},
		{`["p1"]`, `{"id":"h","pk":"p1","n":100.5}`},
		{`["p1"]`, `{"id":"i","pk":"p1","n":{"x":95}}`},
		{`["p1"]`, `{"id":"j","pk":"p1","n":[95]}`},
		{`["p2"]`, `{"id":"k","pk":"p2","n":99}`},
		{`["p2"]`, `{"id":"l","pk":"p2","n":"99"}`},
		{`[1]`, `{"id":"m","pk":1,"n":91}`},
		{`[{}]`, `{"id":"u","n":92}`},
		{`[null]`, `{"id":"v","pk":null,"n":93}`},
		{`["1"]`, `{"id":"w","pk":"1","n":94}`},
	}
	for _, d := range docs {
		var v struct{ ID string }
		if err := json.Unmarshal([]byte(d.body), &v); err != nil {
			t.Fatal(err)
		}
		key := emulator.ItemKey{Container: c, PK: d.pk, ID: v.ID}
		if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: key, Body: []byte(d.body), TS: 1, ETag: `"e"`}); err != nil {
			t.Fatal(err)
		}
	}
	pk := func(s string) *string { return &s }
	p1 := pk(`["p1"]`)
	tests := []struct {
		query  string
		pk     *string
		params map[string]json.RawMessage
		want   []string
	}{
		{`SELECT VALUE c.id FROM c WHERE c.pk = @pk AND c.n >= 90`, p1, map[string]json.RawMessage{"@pk": json.RawMessage(`"p1"`)}, []string{"a", "b", "h"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= 90`, p1, nil, []string{"a", "b", "h"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= @x`, p1, map[string]json.RawMessage{"@x": json.RawMessage(`90`)}, []string{"a", "b", "h"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= @nope`, p1, nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.n < 90`, p1, nil, []string{"c"}},
		{`SELECT VALUE c.id FROM c WHERE c.n = 95`, p1, nil, []string{"a"}},
		{`SELECT VALUE c.id FROM c WHERE c.n = "95"`, p1, nil, []string{"d"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= "9"`, p1, nil, []string{"d"}},
		{`SELECT VALUE c.id FROM c WHERE c.n = true`, p1, nil, []string{"e"}},
		{`SELECT VALUE c.id FROM c WHERE c.n > false`, p1, nil, []string{"e"}},
		{`SELECT VALUE c.id FROM c WHERE c.n = null`, p1, nil, []string{"f"}},
		{`SELECT VALUE c.id FROM c WHERE c.n <= null`, p1, nil, []string{"f"}},
		{`SELECT VALUE c.id FROM c WHERE c.n BETWEEN 89 AND 95`, p1, nil, []string{"a", "b", "c"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= 0 ORDER BY c.n`, p1, nil, []string{"c", "b", "a", "h"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= 90 ORDER BY c.n DESC`, p1, nil, []string{"h", "a", "b"}},
		{`SELECT * FROM c WHERE c.pk = "p2" AND c.n >= 90`, p1, nil, nil},
		{`SELECT * FROM c WHERE c.pk = "p1" AND c.pk = "p2"`, p1, nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.id = "a" AND c.n >= 90`, p1, nil, []string{"a"}},
		{`SELECT VALUE c.id FROM c WHERE c.id = "c" AND c.n >= 90`, p1, nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.id = "a" AND c.id = "b"`, p1, nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.pk = 1 AND c.n >= 90`, pk(`[1]`), nil, []string{"m"}},
		{`SELECT VALUE c.id FROM c WHERE c.pk = 1.0 AND c.n >= 90`, pk(`[1]`), nil, []string{"m"}},
		{`SELECT VALUE c.id FROM c WHERE c.pk = "1" AND c.n >= 90`, pk(`[1]`), nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.pk = 1 AND c.n >= 90`, pk(`["1"]`), nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.pk = null AND c.n >= 90`, pk(`[null]`), nil, []string{"v"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= 90`, pk(`[{}]`), nil, []string{"u"}},
		{`SELECT VALUE c.id FROM c WHERE c.pk = null AND c.n >= 90`, pk(`[{}]`), nil, nil},
		{`SELECT VALUE c.id FROM c WHERE c.n >= 90`, nil, nil, []string{"a", "b", "h", "k", "m", "u", "v", "w"}},
		{`SELECT VALUE c.id FROM c WHERE c.pk = "p1" AND c.n >= 90`, nil, nil, []string{"a", "b", "h"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= "9"`, nil, nil, []string{"d", "l"}},
		{`SELECT VALUE c.id FROM c WHERE c.n >= 90 ORDER BY c.n DESC`, nil, nil, []string{"h", "k", "a", "w", "v", "u", "m", "b"}},
	}
	for _, tt := range tests {
		for _, size := range []int{100, 1} {
			got, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: tt.query, PK: tt.pk, Params: tt.params, Page: emulator.PageRequest{MaxItems: size}})
			var ids []string
			for _, d := range got {
				var id string
				if err := json.Unmarshal([]byte(d), &id); err != nil {
					var doc struct{ ID string }
					if err := json.Unmarshal([]byte(d), &doc); err != nil {
						t.Fatalf("result %s", d)
					}
					id = doc.ID
				}
				ids = append(ids, id)
			}
			if !slices.Equal(ids, tt.want) {
				pkText := "across partitions"
				if tt.pk != nil {
					pkText = *tt.pk
				}
				t.Errorf("%s (%s, pages of %d): %v, want %v", tt.query, pkText, size, ids, tt.want)
			}
		}
	}
}
