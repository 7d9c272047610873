package compat_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// lease is a change feed processor lease: one EPK range of the monitored
// container, its owner and its checkpoint (the change feed etag).
type lease struct {
	ID           string `json:"id"`
	MinInclusive string `json:"minInclusive"`
	MaxExclusive string `json:"maxExclusive"`
	Owner        string `json:"owner"`
	Continuation string `json:"continuation"`
	etag         azcore.ETag
}

// cfProcessor is a processor-style consumer: it leases EPK ranges in the
// lease container with If-Match and reads their change feed (EPK range
// headers, as the .NET, Java and JS processors send them) from the lease's
// checkpoint, checkpointing after each delivered page.
type cfProcessor struct {
	name   string
	leases *azcosmos.ContainerClient
	env    *cfEnv
	coll   string
	owned  map[string]*lease
	// deliver receives every event: "<id>@<_etag>".
	deliver func(consumer, event string)
}

func (p *cfProcessor) readLease(id string) (*lease, error) {
	r, err := p.leases.ReadItem(bg, azcosmos.NewPartitionKeyString(id), id, nil)
	if err != nil {
		return nil, err
	}
	var l lease
	if err := json.Unmarshal(r.Value, &l); err != nil {
		return nil, err
	}
	l.etag = r.ETag
	return &l, nil
}

// writeLease replaces l if nobody changed it since it was read (412
// otherwise) and refreshes its etag.
func (p *cfProcessor) writeLease(l *lease) error {
	b, _ := json.Marshal(l)
	r, err := p.leases.ReplaceItem(bg, azcosmos.NewPartitionKeyString(l.ID), l.ID, b, &azcosmos.ItemOptions{IfMatchEtag: &l.etag})
	if err != nil {
		return err
	}
	l.etag = r.ETag
	return nil
}

// acquire takes the free leases among ids (or re-adopts its own after a
// restart); it returns how many it holds.
func (p *cfProcessor) acquire(ids []string) (int, error) {
	for _, id := range ids {
		l, err := p.readLease(id)
		if err != nil {
			return 0, err
		}
		switch l.Owner {
		case p.name:
		case "":
			l.Owner = p.name
			if err := p.writeLease(l); err != nil {
				if statusOf(err) == http.StatusPreconditionFailed {
					continue // another consumer took it first
				}
				return 0, err
			}
		default:
			continue
		}
		p.owned[id] = l
	}
	return len(p.owned), nil
}

// poll drains the owned leases' change feeds once, page by page.
func (p *cfProcessor) poll(t *testing.T) {
	t.Helper()
	ids := make([]string, 0, len(p.owned))
	for id := range p.owned {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		l := p.owned[id]
		for {
			hdr := []string{"x-ms-documentdb-partitionkeyrangeid", "0", "x-ms-read-key-type", "EffectivePartitionKeyRange",
				"x-ms-start-epk", l.MinInclusive, "x-ms-end-epk", l.MaxExclusive, "x-ms-max-item-count", "3"}
			if l.Continuation != "" {
				hdr = append(hdr, "If-None-Match", l.Continuation)
			}
			resp := p.env.raw.do(http.MethodGet, docsPath("cf", p.coll), nil, append([]string{"A-IM", "Incremental Feed"}, hdr...)...)
			if resp.Status == http.StatusNotModified {
				break
			}
			wantStatus(t, resp, http.StatusOK)
			var body struct {
				Documents []struct {
					ID   string `json:"id"`
					ETag string `json:"_etag"`
				}
			}
			if err := json.Unmarshal(resp.Body, &body); err != nil {
				t.Fatal(err)
			}
			for _, d := range body.Documents {
				p.deliver(p.name, d.ID+"@"+d.ETag)
			}
			l.Continuation = resp.Header.Get("etag")
			if err := p.writeLease(l); err != nil {
				t.Fatalf("%s: checkpoint %s: %v", p.name, id, err)
			}
		}
	}
}

// release gives the owned leases back (a graceful stop).
func (p *cfProcessor) release(t *testing.T) {
	t.Helper()
	for id, l := range p.owned {
		l.Owner = ""
		if err := p.writeLease(l); err != nil {
			t.Fatalf("%s: release %s: %v", p.name, id, err)
		}
	}
	p.owned = map[string]*lease{}
}

// TestChangeFeedProcessor: two consumers share a lease container; each
// lease (an EPK range) is acquired by exactly one of them even when they
// race; every change is delivered exactly once across a consumer crash and
// restart (it resumes from its checkpoints) and a hand-over of leases to
// the other consumer.
func TestChangeFeedProcessor(t *testing.T) {
	env := newCFEnv(t)
	monitored := env.container(t, "m", nil)
	if _, err := env.db.CreateContainer(bg, azcosmos.ContainerProperties{ID: "leases", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}}}, nil); err != nil {
		t.Fatal(err)
	}
	leases, _ := env.db.NewContainer("leases")
	// V1 EPKs start with 05C1 for nearly every key: the bounds split the
	// keys p0..p49 into four ranges of 11-14 items each, so every lease has
	// changes to deliver whoever holds it.
	bounds := []string{"", "05C1C9", "05C1E1", "05C1E9", "FF"}
	var ids []string
	for i := 0; i+1 < len(bounds); i++ {
		l := lease{ID: fmt.Sprintf("lease-%d", i), MinInclusive: bounds[i], MaxExclusive: bounds[i+1]}
		b, _ := json.Marshal(l)
		if _, err := leases.CreateItem(bg, azcosmos.NewPartitionKeyString(l.ID), b, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}

	var mu sync.Mutex
	delivered := map[string][]string{} // event -> consumers
	written := map[string]bool{}
	deliver := func(consumer, event string) {
		mu.Lock()
		defer mu.Unlock()
		delivered[event] = append(delivered[event], consumer)
	}
	write := func(id string, v int) {
		t.Helper()
		r, err := monitored.UpsertItem(bg, azcosmos.NewPartitionKeyString("p"+id), mustJSON(t, map[string]any{"id": id, "pk": "p" + id, "v": v}), nil)
		if err != nil {
			t.Fatal(err)
		}
		written[id+"@"+string(r.ETag)] = true
	}
	newConsumer := func(name string) *cfProcessor {
		return &cfProcessor{name: name, leases: leases, env: env, coll: "m", owned: map[string]*lease{}, deliver: deliver}
	}

	for i := 0; i < 30; i++ {
		write(fmt.Sprint(i), 1)
	}
	a, b := newConsumer("A"), newConsumer("B")
	// Both race for every lease.
	var wg sync.WaitGroup
	counts := make([]int, 2)
	errs := make([]error, 2)
	for i, p := range []*cfProcessor{a, b} {
		wg.Add(1)
		go func(i int, p *cfProcessor) {
			defer wg.Done()
			counts[i], errs[i] = p.acquire(ids)
		}(i, p)
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if counts[0]+counts[1] != len(ids) {
		t.Fatalf("A holds %d leases and B %d, want %d in all", counts[0], counts[1], len(ids))
	}
	for _, id := range ids {
		_, inA := a.owned[id]
		_, inB := b.owned[id]
		if inA == inB {
			t.Fatalf("lease %s: held by A %v, by B %v; want exactly one", id, inA, inB)
		}
	}
	// An even split for the rest of the test, whatever the race gave: the
	// consumer holding more hands leases over until each holds two.
	for len(a.owned) != len(b.owned) {
		from, to := a, b
		if len(b.owned) > len(a.owned) {
			from, to = b, a
		}
		var id string
		for id = range from.owned {
			break
		}
		l := from.owned[id]
		l.Owner = ""
		if err := from.writeLease(l); err != nil {
			t.Fatal(err)
		}
		delete(from.owned, id)
		if _, err := to.acquire([]string{id}); err != nil {
			t.Fatal(err)
		}
	}
	a.poll(t)
	b.poll(t)

	// More changes: new items and new versions of old ones.
	for i := 0; i < 30; i += 3 {
		write(fmt.Sprint(i), 2)
	}
	for i := 30; i < 45; i++ {
		write(fmt.Sprint(i), 1)
	}
	// B crashes (keeps its leases, nothing in flight) and restarts under
	// the same name: it re-adopts its leases and resumes from their
	// checkpoints.
	held := len(b.owned)
	b = newConsumer("B")
	if n, err := b.acquire(ids); err != nil || n != held {
		t.Fatalf("restarted B holds %d leases (%v), want %d", n, err, held)
	}
	a.poll(t)
	b.poll(t)

	// B stops for good and releases its leases; A takes them over and
	// continues from B's checkpoints.
	for i := 45; i < 50; i++ {
		write(fmt.Sprint(i), 1)
	}
	write("1", 2)
	b.release(t)
	if n, err := a.acquire(ids); err != nil || n != len(ids) {
		t.Fatalf("A holds %d leases (%v) after B released, want %d", n, err, len(ids))
	}
	a.poll(t)

	// Every version written once to the feed (each item was changed at
	// most once between two polls) was delivered exactly once.
	for ev := range written {
		if got := delivered[ev]; len(got) != 1 {
			t.Errorf("event %s delivered to %v, want exactly once", ev, got)
		}
	}
	for ev, who := range delivered {
		if !written[ev] {
			t.Errorf("event %s delivered to %v was never written", ev, who)
		}
	}
	if len(written) != 61 {
		t.Fatalf("%d versions written, want 61", len(written))
	}
	// Each consumer saw events (the split was real).
	seen := map[string]int{}
	for _, who := range delivered {
		seen[who[0]]++
	}
	if seen["A"] == 0 || seen["B"] == 0 {
		t.Errorf("deliveries by consumer: %v, want both", seen)
	}
}
