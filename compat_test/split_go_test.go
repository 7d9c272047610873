package compat_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestGoSplitInFlight splits a range in the middle of azcosmos work on a
// container with two ranges: a ReadChangeFeed loop over the whole
// container (its composite continuation) and one over a feed range each
// deliver every change exactly once across the split (the SDK gets
// 410/1002 for the gone range, re-reads /pkranges and continues the
// parent's etag on the children), and a loop of creates with the same
// client stores every item (creates are routed by partition key, which
// never meets a split); paged queries read across a split (subtest
// "queries") give every item once.
func TestGoSplitInFlight(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(2))
	rec, endpoint := startWireRecorder(t, e.Endpoint)
	cl, err := azcosmos.NewClientFromConnectionString("AccountEndpoint="+endpoint+";AccountKey="+emulatortest.Key+";",
		&azcosmos.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db := mustDB(t, cl, "gsplit")
	for _, coll := range []string{"whole", "range", "creates"} {
		mustContainer(t, db, coll)
	}

	for _, tc := range []struct{ name, split string }{{"whole", "0"}, {"range", "1"}} {
		t.Run("changefeed "+tc.name, func(t *testing.T) {
			cc, _ := db.NewContainer(tc.name)
			w := &cfWriter{t: t, cc: cc, changes: map[string]bool{}, latest: map[string]string{}, all: map[string]bool{}}
			for i := 0; i < 30; i++ {
				w.upsert(fmt.Sprintf("i%02d", i), 0)
			}
			fr := azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}
			if tc.name == "range" {
				frs, err := cc.ReadFeedRanges(bg, nil)
				if err != nil || len(frs) != 2 {
					t.Fatalf("feed ranges %+v: %v", frs, err)
				}
				fr = frs[1]
			}
			opts := azcosmos.ChangeFeedOptions{FeedRange: &fr, MaxItemCount: 4}
			resp, err := cc.ReadChangeFeed(bg, &opts)
			if err != nil || resp.Count == 0 {
				t.Fatalf("first page: %d items, %v", resp.Count, err)
			}
			var got []string
			for _, it := range resp.Items {
				got = append(got, cfChange(t, it))
			}
			opts.Continuation = ptr(resp.ContinuationToken)
			kids := e.SplitRange(t, "gsplit", tc.name, tc.split, "")
			t.Logf("split %s into %s and %s", tc.split, kids[0].ID, kids[1].ID)
			more, _, cont := drainGo(t, cc, opts)
			got = append(got, more...)
			// writes after the split reach the same reader once
			for i := 30; i < 36; i++ {
				w.upsert(fmt.Sprintf("i%02d", i), 0)
			}
			opts.Continuation = cont
			more, _, _ = drainGo(t, cc, opts)
			got = append(got, more...)
			want := w.since()
			if tc.name == "range" {
				// the feed range's changes: what a fresh reader of it sees
				fresh, _, _ := drainGo(t, cc, azcosmos.ChangeFeedOptions{FeedRange: &fr})
				want = map[string]bool{}
				for _, c := range fresh {
					want[c] = true
				}
				if len(want) == 0 || len(want) == len(w.since()) {
					t.Fatalf("feed range %+v holds %d of %d items", fr, len(want), len(w.since()))
				}
			}
			wantOnce(t, "change feed across the split", got, want)
			t.Logf("%d changes read across the split", len(got))
		})
	}

	t.Run("creates", func(t *testing.T) {
		cc, _ := db.NewContainer("creates")
		for i := 0; i < 100; i++ {
			if i == 50 {
				e.SplitRange(t, "gsplit", "creates", "0", "")
			}
			id := fmt.Sprintf("c%03d", i)
			if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("p"+id), mustJSON(t, map[string]any{"id": id, "pk": "p" + id}), nil); err != nil {
				t.Fatalf("create %s: %v", id, err)
			}
		}
		pager := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(), nil)
		seen := map[string]int{}
		for pager.More() {
			page, err := pager.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				seen[strings.Trim(string(it), `"`)]++
			}
		}
		for i := 0; i < 100; i++ {
			if id := fmt.Sprintf("c%03d", i); seen[id] != 1 {
				t.Errorf("%s stored %d times", id, seen[id])
			}
		}
		if len(seen) != 100 {
			t.Errorf("%d items stored, want 100", len(seen))
		}
	})

	// queries: azcosmos v1.5.0 has no query pipeline, so it never names a
	// range; the gateway refuses the cross-partition ORDER BY, COUNT,
	// DISTINCT and OFFSET it cannot serve whole (400/1004, as the service
	// does, before and after a split alike), serves a plain query across
	// ranges, and a query with a partition key on that key's range: a
	// paged plain query and a paged single-partition ORDER BY read across
	// a split give every item once, in order for the latter.
	t.Run("queries", func(t *testing.T) {
		cc := mustContainer(t, db, "queries")
		for i := 0; i < 30; i++ {
			id := fmt.Sprintf("q%02d", i)
			pk := "p" + id
			if i%2 == 0 {
				pk = "even"
			}
			if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": id, "pk": pk, "n": i}), nil); err != nil {
				t.Fatal(err)
			}
		}
		pipelined := []string{"SELECT c.id FROM c ORDER BY c.n", "SELECT VALUE COUNT(1) FROM c", "SELECT DISTINCT VALUE c.pk FROM c",
			"SELECT c.id FROM c OFFSET 5 LIMIT 10"}
		refused := func(when string) {
			for _, q := range pipelined {
				_, err := cc.NewQueryItemsPager(q, azcosmos.NewPartitionKey(), nil).NextPage(bg)
				re, _ := sdkErr(t, err, http.StatusBadRequest)
				if sub := re.RawResponse.Header.Get("x-ms-substatus"); sub != "1004" {
					t.Errorf("%s the split, %s: substatus %q, want 1004", when, q, sub)
				}
			}
		}
		refused("before")
		opts := &azcosmos.QueryOptions{PageSizeHint: 4}
		plain := cc.NewQueryItemsPager("SELECT VALUE c.id FROM c", azcosmos.NewPartitionKey(), opts)
		even := cc.NewQueryItemsPager("SELECT VALUE c.n FROM c ORDER BY c.n", azcosmos.NewPartitionKeyString("even"), opts)
		var gotPlain, gotEven []string
		next := func(p *runtime.Pager[azcosmos.QueryItemsResponse], into *[]string) {
			page, err := p.NextPage(bg)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				*into = append(*into, strings.Trim(string(it), `"`))
			}
		}
		next(plain, &gotPlain)
		next(even, &gotEven)
		e.SplitRange(t, "gsplit", "queries", "0", "")
		e.SplitRange(t, "gsplit", "queries", "1", "")
		for plain.More() {
			next(plain, &gotPlain)
		}
		for even.More() {
			next(even, &gotEven)
		}
		want, wantEven := map[string]bool{}, ""
		for i := 0; i < 30; i++ {
			want[fmt.Sprintf("q%02d", i)] = true
			if i%2 == 0 {
				wantEven += fmt.Sprintf("%d,", i)
			}
		}
		wantOnce(t, "plain query across the split", gotPlain, want)
		if got := strings.Join(gotEven, ",") + ","; got != wantEven {
			t.Errorf("single-partition ORDER BY across the split: %s, want %s", got, wantEven)
		}
		refused("after")
	})

	// what azcosmos sent: the gone range once per change feed reader,
	// then a pkranges read
	gone := 0
	for _, xs := range byMark(rec.all()) {
		for _, x := range xs {
			if x.status == http.StatusGone {
				gone++
				if x.substatus != "1002" || x.kind != "changefeed" {
					t.Errorf("unexpected 410: %s", x)
				}
			}
		}
	}
	if gone != 2 {
		t.Errorf("%d answers 410, want 2 (one per change feed reader)", gone)
	}
}
