package compat_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// sdkFeedPage reads one change feed page through azcosmos and returns the
// ids, the page's composite continuation and its count.
func sdkFeedPage(t *testing.T, cc *azcosmos.ContainerClient, o azcosmos.ChangeFeedOptions) ([]string, string) {
	t.Helper()
	if o.FeedRange == nil && o.Continuation == nil {
		o.FeedRange = &azcosmos.FeedRange{MinInclusive: "", MaxExclusive: "FF"}
	}
	resp, err := cc.ReadChangeFeed(bg, &o)
	if err != nil {
		t.Fatalf("ReadChangeFeed: %v", err)
	}
	var ids []string
	for _, b := range resp.Items {
		var d struct {
			ID  string `json:"id"`
			LSN *int64 `json:"_lsn"`
		}
		if err := json.Unmarshal(b, &d); err != nil || d.LSN == nil {
			t.Fatalf("change feed document %s: %v (want an id and _lsn)", b, err)
		}
		ids = append(ids, d.ID)
	}
	if resp.Count != len(ids) {
		t.Errorf("Count = %d, want %d", resp.Count, len(ids))
	}
	if resp.ContinuationToken == "" {
		t.Fatal("no continuation token")
	}
	return ids, resp.ContinuationToken
}

func wantIDs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("change feed ids = %v, want %v", got, want)
	}
}

// TestChangeFeedGoSDK drives azcosmos's change feed API: from the
// beginning in pages, from a continuation, from a time, one logical
// partition; deletes and expired items absent (movable clock); a token of
// another container refused.
func TestChangeFeedGoSDK(t *testing.T) {
	env := newCFEnv(t)
	cc := env.container(t, "g", i32(-1))
	other := env.container(t, "other", nil)
	for i, id := range []string{"a", "b", "c", "d"} {
		cfPut(t, cc, id, []string{"p1", "p2"}[i%2], nil)
	}
	cfPut(t, cc, "a", "p1", map[string]any{"v": 2})
	if _, err := cc.DeleteItem(bg, azcosmos.NewPartitionKeyString("p2"), "b", nil); err != nil {
		t.Fatal(err)
	}
	cfPut(t, cc, "x", "p2", map[string]any{"ttl": 3})

	ids, tok := sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{MaxItemCount: 2})
	wantIDs(t, ids, "c", "d")
	var ct struct {
		Version      int    `json:"version"`
		ResourceID   string `json:"resourceId"`
		Continuation []struct {
			MinInclusive, MaxExclusive, ContinuationToken string
		} `json:"continuation"`
	}
	if err := json.Unmarshal([]byte(tok), &ct); err != nil || ct.Version != 1 || len(ct.Continuation) != 1 || ct.Continuation[0].ContinuationToken == "" {
		t.Fatalf("continuation token %s: %v", tok, err)
	}
	ids, tok = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{MaxItemCount: 2, Continuation: &tok})
	wantIDs(t, ids, "a", "x")
	ids, tok2 := sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{MaxItemCount: 2, Continuation: &tok})
	wantIDs(t, ids) // caught up: 304
	// x expires: a new read from the beginning no longer has it, and
	// nothing new appears after the continuation.
	if err := env.e.Clock().Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	ids, _ = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{})
	wantIDs(t, ids, "c", "d", "a")
	ids, _ = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{Continuation: &tok2})
	wantIDs(t, ids)
	// A change after the continuation.
	cfPut(t, cc, "d", "p2", map[string]any{"v": 2})
	ids, _ = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{Continuation: &tok2})
	wantIDs(t, ids, "d")

	// From a time: only what changed at or after it.
	if err := env.e.Clock().Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	cfPut(t, cc, "e", "p1", nil)
	since := env.e.Clock().Now()
	ids, _ = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{StartFrom: &since})
	wantIDs(t, ids, "e")

	// One logical partition.
	p1 := azcosmos.NewPartitionKeyString("p1")
	ids, _ = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{PartitionKey: &p1})
	wantIDs(t, ids, "c", "a", "e")

	// The feed ranges of the container: one, the whole space.
	frs, err := cc.ReadFeedRanges(bg, nil)
	if err != nil || len(frs) != 1 || frs[0].MinInclusive != "" || frs[0].MaxExclusive != "FF" {
		t.Fatalf("feed ranges = %+v, %v", frs, err)
	}
	ids, _ = sdkFeedPage(t, cc, azcosmos.ChangeFeedOptions{FeedRange: &frs[0]})
	wantIDs(t, ids, "c", "a", "d", "e")

	// Another container's token is refused.
	if _, err := other.ReadChangeFeed(bg, &azcosmos.ChangeFeedOptions{Continuation: &tok}); err == nil {
		t.Fatal("a continuation of another container was accepted")
	}
}
