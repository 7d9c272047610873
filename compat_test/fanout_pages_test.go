package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// The pages of a plain cross-partition query that the gateway fans out
// itself (no plan, no range id). The service walks the partition key
// ranges in EPK order, a page never spans two ranges, and a range answers
// a continuation with every full page (it does not look ahead); an empty
// answer from a drained range hands over to the next range within the same
// request. Two pinned scenarios need exactly that rule:
//   - the Go SDK's TestCrossPartitionQuery (one range, 20 items, page size
//     5) expects four full pages and a trailing empty one;
//   - @azure/cosmos's crossPartition.spec (25,100 RU/s: five ranges, 20
//     items "sample document0..19" under /id, maxItemCount 2) fails when its
//     async iterator yields a page after the one holding the last item.
//
// With the five ranges the 20 ids fall 9, 3, 6, 1 and 1 to a range (hash
// V1, the service's default when the definition names no version; EPK
// order), so the pages are 2 2 2 2 1 | 2 1 | 2 2 2 | 1 | 1: range 2's last
// page is full and carries a continuation, whose request finds range 2
// drained and goes on to range 3 within the same request.
const fanOutFivePages = "2 2 2 2 1 2 1 2 2 2 1 1"

// sampleDocumentIDs are the ids of the scenario, sorted.
func sampleDocumentIDs() string {
	var ids []string
	for i := 0; i < 20; i++ {
		ids = append(ids, fmt.Sprintf("sample document%d", i))
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

// TestFanOutPagesJS runs compat_test/js/fanout_pages.mjs on a container of
// 25,100 RU/s (five ranges) and of 400 RU/s (one range).
func TestFanOutPagesJS(t *testing.T) {
	t.Parallel()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	tests := []struct {
		name       string
		throughput int
		ranges     string
		async      string // the async iterator's page sizes
		after      string // pages after the one holding the last item
		next       string // fetchNext sizes / hasMoreResults
	}{
		{"five ranges", 25100, "5", fanOutFivePages, "0",
			"2/true 2/true 2/true 2/true 1/true 2/true 1/true 2/true 2/true 2/true 1/true 1/false"},
		// one range: every page is full, the last one too, so the
		// gateway's trailing empty page follows (the Go SDK's rule)
		{"one range", 400, "1", "2 2 2 2 2 2 2 2 2 2 0", "1",
			"2/true 2/true 2/true 2/true 2/true 2/true 2/true 2/true 2/true 2/true 0/false"},
	}
	for i, tt := range tests {
		out, _ := runJS(t, node, dir, "fanout_pages.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint,
			fmt.Sprintf("COSMOS_DB=fanout%d", i), fmt.Sprintf("THROUGHPUT=%d", tt.throughput))
		lines := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			k, v, _ := strings.Cut(l, " ")
			lines[k] = v
		}
		for _, c := range []struct{ key, want string }{
			{"RANGES", tt.ranges}, {"ASYNC", tt.async}, {"AFTER", tt.after}, {"NEXT", tt.next}, {"IDS", sampleDocumentIDs()},
		} {
			if got := lines[c.key]; got != c.want {
				t.Errorf("%s: %s %q, want %q", tt.name, c.key, got, c.want)
			}
		}
	}
}

// TestFanOutPagesGo reads the same scenario through azcosmos (a cross-
// partition query without a partition key, which the gateway serves), with
// page sizes 2 and 5, on five ranges and on one.
func TestFanOutPagesGo(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "fo"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("fo")
	tests := []struct {
		container  string
		throughput int32
		pageSize   int32
		pages      string
	}{
		{"five", 25100, 2, fanOutFivePages},
		// 9, 3, 6, 1, 1 by fives: 5 4 | 3 | 5 1 | 1 | 1
		{"five", 25100, 5, "5 4 3 5 1 1 1"},
		{"one", 400, 2, "2 2 2 2 2 2 2 2 2 2 0"},
		{"one", 400, 5, "5 5 5 5 0"},
	}
	made := map[string]bool{}
	for _, tt := range tests {
		if !made[tt.container] {
			made[tt.container] = true
			tp := azcosmos.NewManualThroughputProperties(tt.throughput)
			if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: tt.container,
				PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}}}, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
				t.Fatal(err)
			}
			c, _ := db.NewContainer(tt.container)
			for i := 0; i < 20; i++ {
				id := fmt.Sprintf("sample document%d", i)
				b, _ := json.Marshal(map[string]any{"id": id, "spam": fmt.Sprint("eggs", i), "cnt": i})
				if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(id), b, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		c, _ := db.NewContainer(tt.container)
		pager := c.NewQueryItemsPager("SELECT * FROM root r", azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: tt.pageSize})
		var sizes, ids []string
		for i := 0; pager.More(); i++ {
			if i == 100 {
				t.Fatalf("%s/%d: the query does not end", tt.container, tt.pageSize)
			}
			resp, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("%s/%d: %v", tt.container, tt.pageSize, err)
			}
			sizes = append(sizes, fmt.Sprint(len(resp.Items)))
			for _, it := range resp.Items {
				var d struct{ ID string }
				_ = json.Unmarshal(it, &d)
				ids = append(ids, d.ID)
			}
		}
		sort.Strings(ids)
		if got := strings.Join(sizes, " "); got != tt.pages {
			t.Errorf("%s ranges, page size %d: pages %q, want %q", tt.container, tt.pageSize, got, tt.pages)
		}
		if got := strings.Join(ids, ","); got != sampleDocumentIDs() {
			t.Errorf("%s ranges, page size %d: ids %s", tt.container, tt.pageSize, got)
		}
	}
	// A query without FROM reads no partition: one result, not one per
	// range.
	one, _ := db.NewContainer("five")
	if got := queryAll(t, one, "SELECT VALUE 1", azcosmos.NewPartitionKey(), nil); len(got) != 1 {
		t.Errorf("SELECT VALUE 1 across five ranges: %v, want one result", got)
	}
	// A split between two pages: the continuation names the EPK span it
	// was reading, which the split range's children tile, so the query
	// goes on over them (and over a split range it has not reached yet)
	// with every item once.
	c, _ := db.NewContainer("five")
	pager := c.NewQueryItemsPager("SELECT VALUE r.id FROM root r", azcosmos.NewPartitionKey(), &azcosmos.QueryOptions{PageSizeHint: 2})
	var ids []string
	for i := 0; pager.More(); i++ {
		if i == 100 {
			t.Fatal("split: the query does not end")
		}
		if i == 3 {
			e.SplitRange(t, "fo", "five", "0", "") // the range being read
			e.SplitRange(t, "fo", "five", "3", "") // one not reached yet
		}
		resp, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("split: page %d: %v", i, err)
		}
		for _, it := range resp.Items {
			var id string
			_ = json.Unmarshal(it, &id)
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if got := strings.Join(ids, ","); got != sampleDocumentIDs() {
		t.Errorf("split between pages: ids %s, want each of the 20 once", got)
	}
}
