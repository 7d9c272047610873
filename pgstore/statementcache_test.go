package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// cacheBody is the container of TestQueryCachesFollowReplace: a computed
// property and a composite index, TTL on.
const cacheBody = `{"id":"qc","partitionKey":{"paths":["/pk"],"kind":"Hash"},"defaultTtl":-1,
"indexingPolicy":{"includedPaths":[{"path":"/*"}],"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]]},
"computedProperties":[{"name":"cp","query":"SELECT VALUE LOWER(c.name) FROM c"}]}`

// TestQueryCachesFollowReplace: a query sent again is served from the
// statement cache and its plan from the plan cache, with the same
// results; replacing the container's computed properties or indexing
// policy changes both at once (the cached entries belong to the old
// definition); the expiry time of a cached statement is the request's, so
// an item that expires between two identical queries is gone from the
// second; and a query reading the current time is translated each time.
func TestQueryCachesFollowReplace(t *testing.T) {
	s := openStore(t)
	waitForCache(t, s)
	clock := emulator.NewClock(nil)
	svc := emulator.New(s, clock)
	ctx := context.Background()
	if _, err := svc.CreateDatabase(ctx, []byte(`{"id":"db"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateContainer(ctx, "db", []byte(cacheBody), nil); err != nil {
		t.Fatal(err)
	}
	settleMetadata(t, s)
	pk := emulator.PartitionKey{"p"}
	for i := range 6 {
		ttl := ""
		if i == 5 {
			ttl = `,"ttl":60` // expires a minute from now
		}
		body := fmt.Sprintf(`{"id":"i%d","pk":"p","name":"Name%d","a":%d,"b":%d%s}`, i, i%2, i%3, i, ttl)
		if _, err := svc.CreateItem(ctx, emulator.ItemRequest{Database: "db", Container: "qc", PartitionKey: pk, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	query := func(text string, params ...emulator.QueryParameter) ([]string, error) {
		t.Helper()
		res, err := svc.QueryItems(ctx, emulator.QueryRequest{Database: "db", Container: "qc", PartitionKey: pk,
			Query: emulator.Query{Text: text, Parameters: params}, Page: emulator.PageRequest{MaxItems: 100}})
		var out []string
		for _, d := range res.Docs {
			out = append(out, string(d))
		}
		return out, err
	}
	hits := func() uint64 {
		h, _ := s.statements.Stats()
		return h
	}
	plan := func(text string) []byte {
		t.Helper()
		p, err := svc.QueryPlan(ctx, "db", "qc", emulator.Query{Text: text}, "")
		if err != nil {
			t.Fatalf("plan of %s: %v", text, err)
		}
		return p
	}
	byCP := "SELECT VALUE c.id FROM c WHERE c.cp = @v ORDER BY c.a, c.b DESC"
	lower := emulator.QueryParameter{Name: "@v", Value: json.RawMessage(`"name1"`)}
	want := []string{`"i3"`, `"i1"`, `"i5"`}

	tests := []struct {
		name string
		// replace, when set, is the container body to replace with
		// first
		replace   string
		text      string
		params    []emulator.QueryParameter
		advance   time.Duration
		want      []string
		wantErr   bool
		wantHit   bool
		planHas   string // a text the plan of text holds
		planSame  bool   // the plan is the cached one of the step before
		planQuery string
	}{
		{name: "first", text: byCP, params: []emulator.QueryParameter{lower}, want: want, planHas: "LOWER", planQuery: "SELECT VALUE c.cp FROM c ORDER BY c.a, c.b DESC"},
		{name: "again: cached", text: byCP, params: []emulator.QueryParameter{lower}, want: want, wantHit: true, planHas: "LOWER", planSame: true, planQuery: "SELECT VALUE c.cp FROM c ORDER BY c.a, c.b DESC"},
		{name: "expired since: the request's time", text: byCP, params: []emulator.QueryParameter{lower}, advance: 2 * time.Minute, want: []string{`"i3"`, `"i1"`}, wantHit: true},
		{name: "computed property replaced", replace: strings.Replace(cacheBody, "LOWER", "UPPER", 1), text: byCP, params: []emulator.QueryParameter{lower},
			want: nil, planHas: "UPPER", planQuery: "SELECT VALUE c.cp FROM c ORDER BY c.a, c.b DESC"},
		{name: "the new computed property", text: byCP, params: []emulator.QueryParameter{{Name: "@v", Value: json.RawMessage(`"NAME1"`)}}, want: []string{`"i3"`, `"i1"`}},
		{name: "composite index removed", replace: strings.Replace(strings.Replace(cacheBody, "LOWER", "UPPER", 1), `,"compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]]`, "", 1),
			text: byCP, params: []emulator.QueryParameter{{Name: "@v", Value: json.RawMessage(`"NAME1"`)}}, wantErr: true},
	}
	var lastPlan []byte
	for _, tt := range tests {
		if tt.replace != "" {
			if _, err := svc.ReplaceContainer(ctx, "db", "qc", []byte(tt.replace), ""); err != nil {
				t.Fatalf("%s: replace: %v", tt.name, err)
			}
			settleMetadata(t, s)
		}
		if tt.advance != 0 {
			if err := clock.Advance(tt.advance); err != nil {
				t.Fatal(err)
			}
		}
		before := hits()
		got, err := query(tt.text, tt.params...)
		if tt.wantErr {
			if !emulator.IsKind(err, emulator.KindBadRequest) {
				t.Errorf("%s: %v, want 400", tt.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		if hit := hits() > before; hit != tt.wantHit {
			t.Errorf("%s: served from the statement cache %v, want %v", tt.name, hit, tt.wantHit)
		}
		if tt.planQuery != "" {
			p := plan(tt.planQuery)
			if !strings.Contains(string(p), tt.planHas) {
				t.Errorf("%s: plan %s, want it to hold %s", tt.name, p, tt.planHas)
			}
			if same := lastPlan != nil && &p[0] == &lastPlan[0]; same != tt.planSame {
				t.Errorf("%s: the cached plan served %v, want %v", tt.name, same, tt.planSame)
			}
			lastPlan = p
		}
	}

	// the current time: never served from the cache
	now := "SELECT VALUE GetCurrentTimestamp() FROM c WHERE c.id = 'i0'"
	first, err := query(now)
	if err != nil {
		t.Fatal(err)
	}
	if err := clock.Advance(time.Hour); err != nil {
		t.Fatal(err)
	}
	before := hits()
	second, err := query(now)
	if err != nil {
		t.Fatal(err)
	}
	if hits() != before || slices.Equal(first, second) {
		t.Errorf("GetCurrentTimestamp an hour apart: %v then %v (cache hits %d -> %d), want a new time, translated again", first, second, before, hits())
	}
}
