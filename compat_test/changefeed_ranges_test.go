package compat_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// cfChange is one change as a consumer sees it: "<id>@<_etag>" (write
// responses carry no _lsn).
func cfChange(t testing.TB, item []byte) string {
	t.Helper()
	var d struct {
		ID   string `json:"id"`
		ETag string `json:"_etag"`
	}
	if err := json.Unmarshal(item, &d); err != nil {
		t.Fatalf("change %s: %v", item, err)
	}
	return d.ID + "@" + d.ETag
}

// wantOnce fails unless got holds every change of want exactly once.
func wantOnce(t testing.TB, what string, got []string, want map[string]bool) {
	t.Helper()
	seen := map[string]int{}
	for _, c := range got {
		seen[c]++
	}
	var dup, missing, extra []string
	for c, n := range seen {
		if n > 1 {
			dup = append(dup, c)
		}
		if !want[c] {
			extra = append(extra, c)
		}
	}
	for c := range want {
		if seen[c] == 0 {
			missing = append(missing, c)
		}
	}
	if len(dup)+len(missing)+len(extra) > 0 {
		sort.Strings(dup)
		sort.Strings(missing)
		sort.Strings(extra)
		t.Errorf("%s: %d changes, want %d; duplicated %v, missing %v, unexpected %v", what, len(got), len(want), dup, missing, extra)
	}
}

// filter returns the changes of cs in keep.
func filter(cs []string, keep map[string]bool) []string {
	var out []string
	for _, c := range cs {
		if keep[c] {
			out = append(out, c)
		}
	}
	return out
}

// cfWriter writes items and remembers every change it made and the
// latest one of each item (what a latest-version change feed delivers).
type cfWriter struct {
	t       testing.TB
	cc      *azcosmos.ContainerClient
	changes map[string]bool
	latest  map[string]string
	all     map[string]bool
}

// since returns the latest change of every item written since the
// writer's changes were reset.
func (w *cfWriter) since() map[string]bool {
	m := map[string]bool{}
	for _, c := range w.latest {
		if w.changes[c] {
			m[c] = true
		}
	}
	return m
}

// upsert writes item id (partition key "p"+id) with value n and records
// the change it made.
func (w *cfWriter) upsert(id string, n int) {
	w.t.Helper()
	resp, err := w.cc.UpsertItem(bg, azcosmos.NewPartitionKeyString("p"+id), mustJSON(w.t, map[string]any{"id": id, "pk": "p" + id, "n": n}),
		&azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		w.t.Fatal(err)
	}
	c := cfChange(w.t, resp.Value)
	w.changes[c] = true
	w.all[c] = true
	w.latest[id] = c
}

// drainGo reads the change feed with opts until a call returns nothing,
// keeping the SDK's composite continuation, and returns the changes and
// the range id of each page.
func drainGo(t testing.TB, cc *azcosmos.ContainerClient, opts azcosmos.ChangeFeedOptions) (changes, pages []string, cont *string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		resp, err := cc.ReadChangeFeed(bg, &opts)
		if err != nil {
			t.Fatalf("ReadChangeFeed: %v", err)
		}
		if resp.ContinuationToken != "" {
			opts.Continuation = ptr(resp.ContinuationToken)
		}
		if resp.Count == 0 {
			return changes, pages, opts.Continuation
		}
		pages = append(pages, resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"))
		for _, it := range resp.Items {
			changes = append(changes, cfChange(t, it))
		}
	}
	t.Fatal("the change feed does not end")
	return nil, nil, nil
}

// TestGoChangeFeedAcrossRanges reads the change feed of containers with
// 1, 4 and 7 partition key ranges (WithMinPartitionRanges) and of one
// created at 21,000 RU/s through azcosmos: ReadFeedRanges gives one feed
// range per range; ReadChangeFeed per feed range and over the whole
// container (its composite continuation), from the beginning and then
// from the kept continuations after updates, returns every change exactly
// once, the whole-container reader visiting the ranges in turn; and a
// processor-style lease loop of two consumers, each owning half of the
// feed ranges and keeping a continuation per range, processes every change
// exactly once.
func TestGoChangeFeedAcrossRanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		min    int
		ru     int32
		ranges int
	}{
		{"ranges1", 1, 0, 1},
		{"ranges4", 4, 0, 4},
		{"ranges7", 7, 0, 7},
		{"ru21000", 0, 21000, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := emulatortest.Start(t, emulatortest.WithMinPartitionRanges(tc.min))
			db := mustDB(t, e.Client(t), "cfr")
			var opts *azcosmos.CreateContainerOptions
			if tc.ru > 0 {
				tp := azcosmos.NewManualThroughputProperties(tc.ru)
				opts = &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}
			}
			props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
			if _, err := db.CreateContainer(bg, props, opts); err != nil {
				t.Fatal(err)
			}
			cc, _ := db.NewContainer("c")
			frs, err := cc.ReadFeedRanges(bg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(frs) != tc.ranges {
				t.Fatalf("%d feed ranges, want %d", len(frs), tc.ranges)
			}
			w := &cfWriter{t: t, cc: cc, changes: map[string]bool{}, latest: map[string]string{}, all: map[string]bool{}}
			for i := 0; i < 60; i++ {
				w.upsert(fmt.Sprintf("i%02d", i), 0)
			}
			start := time.Now()

			// per feed range, from the beginning
			var perRange []string
			conts := make([]*string, len(frs))
			for i := range frs {
				ch, _, cont := drainGo(t, cc, azcosmos.ChangeFeedOptions{FeedRange: &frs[i], MaxItemCount: 7})
				perRange = append(perRange, ch...)
				conts[i] = cont
			}
			wantOnce(t, "per feed range", perRange, w.changes)

			// the whole container, from the beginning
			whole, pages, wholeCont := drainGo(t, cc, azcosmos.ChangeFeedOptions{FeedRange: &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}, MaxItemCount: 7})
			wantOnce(t, "whole container", whole, w.changes)
			// each call serves the next range in turn: while several
			// ranges have changes left, consecutive pages differ
			distinct := map[string]bool{}
			for _, p := range pages {
				distinct[p] = true
			}
			if tc.ranges > 1 && len(pages) > 1 && pages[0] == pages[1] {
				t.Errorf("whole container pages by range %v: the first two come from one range", pages)
			}
			if len(distinct) != tc.ranges {
				t.Errorf("whole container pages came from %d ranges (%v), want %d", len(distinct), pages, tc.ranges)
			}

			// updates, read from the kept continuations
			w.changes = map[string]bool{}
			for i := 0; i < 60; i += 3 {
				w.upsert(fmt.Sprintf("i%02d", i), 1)
			}
			w.upsert("new", 1)
			perRange = nil
			for i := range frs {
				ch, _, _ := drainGo(t, cc, azcosmos.ChangeFeedOptions{FeedRange: &frs[i], MaxItemCount: 7, Continuation: conts[i]})
				perRange = append(perRange, ch...)
			}
			wantOnce(t, "per feed range after updates", perRange, w.since())
			whole, _, _ = drainGo(t, cc, azcosmos.ChangeFeedOptions{MaxItemCount: 7, Continuation: wholeCont})
			wantOnce(t, "whole container after updates", whole, w.since())
			w.changes = map[string]bool{}

			// a lease loop: two consumers own half of the feed ranges each,
			// keep a continuation per range, and poll while writes go on;
			// polls see every write of this phase (each poll drains one
			// page per lease, and a write between polls is read by the
			// next one unless the same item changes again before it)
			type leaseState struct {
				fr   azcosmos.FeedRange
				cont *string
			}
			owners := [2][]*leaseState{}
			for i, fr := range frs {
				owners[i%2] = append(owners[i%2], &leaseState{fr: fr})
			}
			var processed []string
			poll := func() int {
				n := 0
				for _, leases := range owners {
					for _, l := range leases {
						opts := azcosmos.ChangeFeedOptions{FeedRange: &l.fr, MaxItemCount: 5, Continuation: l.cont}
						resp, err := cc.ReadChangeFeed(bg, &opts)
						if err != nil {
							t.Fatalf("lease %+v: %v", l.fr, err)
						}
						if resp.ContinuationToken != "" {
							l.cont = ptr(resp.ContinuationToken)
						}
						for _, it := range resp.Items {
							processed = append(processed, cfChange(t, it))
						}
						n += resp.Count
					}
				}
				return n
			}
			for round := 0; round < 5; round++ {
				for i := 0; i < 12; i++ {
					w.upsert(fmt.Sprintf("i%02d", (round*12+i)%60), 2+round)
				}
				poll()
			}
			for i := 0; i < 200 && poll() > 0; i++ {
			}
			// no change twice, none that was not made, the last of each
			// item delivered
			seen := map[string]bool{}
			for _, c := range processed {
				if seen[c] || !w.all[c] {
					t.Errorf("lease loop: %s processed twice or never written", c)
				}
				seen[c] = true
			}
			wantOnce(t, "lease loop (latest of each item)", filter(processed, w.since()), w.since())
			t.Logf("%d ranges: %d changes; whole-container pages by range %s; reads took %v",
				tc.ranges, len(w.changes), strings.Join(pages, ","), time.Since(start).Round(time.Millisecond))
		})
	}
}
