package pgstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// definitionBody is a container body with every policy the definition
// holds: the query path consults each of them.
const definitionBody = `{"id":"defs","partitionKey":{"paths":["/pk"],"kind":"Hash"},
"indexingPolicy":{"indexingMode":"consistent","includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/skip/*"}],
 "compositeIndexes":[[{"path":"/a","order":"ascending"},{"path":"/b","order":"descending"}]],
 "fullTextIndexes":[{"path":"/text"}],"vectorIndexes":[{"path":"/v","type":"flat"}]},
"computedProperties":[{"name":"cp","query":"SELECT VALUE LOWER(c.name) FROM c"}],
"fullTextPolicy":{"defaultLanguage":"en-US","fullTextPaths":[{"path":"/text","language":"en-US"}]},
"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"euclidean","dimensions":2}]},
"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/u"]}]},
"changeFeedPolicy":{"retentionDuration":30}}`

// waitForCache waits until s's metadata listener is connected, so that
// container lookups are cached.
func waitForCache(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.cache.mu.Lock()
		on := s.cache.enabled
		s.cache.mu.Unlock()
		if on {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the metadata listener never connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settleMetadata waits until s's listener has handled the notifications
// of every metadata change committed so far (each clears the container
// cache when it arrives), so that the next lookup caches for good: it
// sends a notification of its own and waits for it (notifications arrive
// in commit order).
func settleMetadata(t *testing.T, s *Store) {
	t.Helper()
	marker := fmt.Sprintf("settle-%d", time.Now().UnixNano())
	if _, err := s.pool.Exec(context.Background(), "SELECT pg_notify($1, $2)", metadataChannel, marker); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.cache.mu.Lock()
		seen := s.cache.lastPayload == marker
		s.cache.mu.Unlock()
		if seen {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the metadata listener never handled its notification")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// queryAll runs q (partition pk, or across partitions when pk is nil)
// page by page, pageSize results a page, and returns the results and the
// number of pages.
func queryAll(t *testing.T, svc *emulator.Service, q string, pk emulator.PartitionKey, pageSize int) ([]string, int) {
	t.Helper()
	var out []string
	cont, pages := "", 0
	for {
		res, err := svc.QueryItems(context.Background(), emulator.QueryRequest{Database: "db", Container: "defs",
			Query: emulator.Query{Text: q}, PartitionKey: pk, EnableCrossPartition: true,
			Page: emulator.PageRequest{MaxItems: pageSize, Continuation: cont}})
		if err != nil {
			t.Fatalf("%s: page %d: %v", q, pages+1, err)
		}
		pages++
		for _, d := range res.Docs {
			out = append(out, string(d))
		}
		if cont = res.Continuation; cont == "" {
			return out, pages
		}
		if pages > 100 {
			t.Fatalf("%s: no end after 100 pages", q)
		}
	}
}

// TestContainerDefinitionParsedOnce: once a container is loaded, query
// pages (first and continued, in one partition and across partitions, on
// computed properties, composite indexes and full-text paths), query plans
// and point operations parse no container definition: the definition is
// cached with the container. A replace parses the new one, and the next
// query sees the new computed property and the new composite index at
// once (the replaced definition is not served from the cache).
func TestContainerDefinitionParsedOnce(t *testing.T) {
	s := openStore(t)
	waitForCache(t, s)
	svc := emulator.New(s, emulator.NewClock(nil))
	ctx := context.Background()
	if _, err := svc.CreateDatabase(ctx, []byte(`{"id":"db"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateContainer(ctx, "db", []byte(definitionBody), nil); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		body := fmt.Sprintf(`{"id":"i%02d","pk":"p%d","name":"Name%02d","a":%d,"b":%d,"u":%d,"text":"the quick fox %d","v":[%d,1]}`, i, i%3, i, i%5, i, i, i, i)
		if _, err := svc.CreateItem(ctx, emulator.ItemRequest{Database: "db", Container: "defs", PartitionKey: emulator.PartitionKey{fmt.Sprintf("p%d", i%3)}, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	settleMetadata(t, s)
	if _, err := svc.GetContainer(ctx, "db", "defs"); err != nil { // loaded (cached)
		t.Fatal(err)
	}
	before := emulator.ContainerDefinitionParses()

	queries := []struct {
		text     string
		pk       emulator.PartitionKey
		want     int // results
		minPages int
	}{
		{"SELECT c.id, c.cp FROM c WHERE c.cp >= 'name'", emulator.PartitionKey{"p0"}, 10, 5},
		{"SELECT c.id FROM c WHERE c.cp >= 'name'", nil, 30, 3},
		{"SELECT c.id FROM c ORDER BY c.a, c.b DESC", emulator.PartitionKey{"p1"}, 10, 5},
		{"SELECT c.id FROM c WHERE FullTextContains(c.text, 'quick')", emulator.PartitionKey{"p2"}, 10, 5},
		{"SELECT c.id FROM c WHERE c.a > 1", emulator.PartitionKey{"p0"}, 6, 3},
	}
	for _, q := range queries {
		got, pages := queryAll(t, svc, q.text, q.pk, 2)
		if len(got) != q.want || pages < q.minPages {
			t.Errorf("%s: %d results in %d pages, want %d in at least %d", q.text, len(got), pages, q.want, q.minPages)
		}
	}
	for _, q := range []string{"SELECT c.id FROM c ORDER BY c.a, c.b DESC", "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, [1, 1])", "SELECT VALUE COUNT(1) FROM c WHERE c.cp = 'name01'"} {
		if _, err := svc.QueryPlan(ctx, "db", "defs", emulator.Query{Text: q}, ""); err != nil {
			t.Fatalf("plan %s: %v", q, err)
		}
	}
	pk := emulator.PartitionKey{"p0"}
	if _, err := svc.ReadItem(ctx, emulator.ItemRequest{Database: "db", Container: "defs", PartitionKey: pk, ID: "i00"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ReplaceItem(ctx, emulator.ItemRequest{Database: "db", Container: "defs", PartitionKey: pk, ID: "i00", Body: []byte(`{"id":"i00","pk":"p0","name":"Name00","a":0,"b":0,"u":100}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateItem(ctx, emulator.ItemRequest{Database: "db", Container: "defs", PartitionKey: pk, Body: []byte(`{"id":"dup","pk":"p0","u":100}`)}); !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatalf("a duplicate unique key: %v, want a conflict", err)
	}
	if got := emulator.ContainerDefinitionParses() - before; got != 0 {
		t.Fatalf("%d container definitions parsed on the request path after the container was loaded, want 0", got)
	}

	// a replace: the computed property upper-cases, the composite index
	// is gone (an ORDER BY on two paths needs one: 400)
	replaced := []byte(`{"id":"defs","partitionKey":{"paths":["/pk"],"kind":"Hash"},
"indexingPolicy":{"indexingMode":"consistent","includedPaths":[{"path":"/*"}],"vectorIndexes":[{"path":"/v","type":"flat"}]},
"vectorEmbeddingPolicy":{"vectorEmbeddings":[{"path":"/v","dataType":"float32","distanceFunction":"euclidean","dimensions":2}]},
"computedProperties":[{"name":"cp","query":"SELECT VALUE UPPER(c.name) FROM c"}],
"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/u"]}]}}`)
	if _, err := svc.ReplaceContainer(ctx, "db", "defs", replaced, ""); err != nil {
		t.Fatal(err)
	}
	settleMetadata(t, s)
	got, _ := queryAll(t, svc, "SELECT VALUE c.cp FROM c WHERE c.id = 'i01'", emulator.PartitionKey{"p1"}, 10)
	if want := []string{`"NAME01"`}; !slices.Equal(got, want) {
		t.Errorf("the computed property after the replace: %v, want %v", got, want)
	}
	_, err := svc.QueryItems(ctx, emulator.QueryRequest{Database: "db", Container: "defs",
		Query: emulator.Query{Text: "SELECT c.id FROM c ORDER BY c.a, c.b DESC"}, PartitionKey: emulator.PartitionKey{"p1"}})
	if !emulator.IsKind(err, emulator.KindBadRequest) {
		t.Errorf("ORDER BY on two paths without the composite index after the replace: %v, want 400", err)
	}
	// the new definition is cached in its turn
	before = emulator.ContainerDefinitionParses()
	if got, pages := queryAll(t, svc, "SELECT VALUE c.cp FROM c", emulator.PartitionKey{"p2"}, 2); len(got) != 10 || pages < 5 {
		t.Errorf("after the replace: %d results in %d pages", len(got), pages)
	}
	if got := emulator.ContainerDefinitionParses() - before; got != 0 {
		t.Fatalf("%d container definitions parsed on the request path after the replace, want 0", got)
	}
}
