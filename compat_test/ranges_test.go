package compat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// pkRange is a range of GET .../pkranges.
type pkRange struct {
	ID                 string   `json:"id"`
	MinInclusive       string   `json:"minInclusive"`
	MaxExclusive       string   `json:"maxExclusive"`
	Parents            []string `json:"parents"`
	Status             string   `json:"status"`
	RIDPrefix          *int     `json:"ridPrefix"`
	ThroughputFraction float64  `json:"throughputFraction"`
	LSN                *int64   `json:"lsn"`
	RID                string   `json:"_rid"`
}

// readRanges reads GET .../pkranges with extra headers hdr and returns the
// response and its ranges (nil for a 304).
func readRanges(t testing.TB, raw *rawClient, db, coll string, hdr ...string) (rawResp, []pkRange) {
	t.Helper()
	resp := raw.do(http.MethodGet, "/dbs/"+db+"/colls/"+coll+"/pkranges", nil, hdr...)
	if resp.Status == http.StatusNotModified {
		return resp, nil
	}
	wantStatus(t, resp, http.StatusOK)
	var env struct {
		PartitionKeyRanges []pkRange
		Count              int `json:"_count"`
	}
	if err := json.Unmarshal(resp.Body, &env); err != nil {
		t.Fatalf("pkranges body %s: %v", resp.Body, err)
	}
	if env.Count != len(env.PartitionKeyRanges) {
		t.Fatalf("_count %d for %d ranges", env.Count, len(env.PartitionKeyRanges))
	}
	return resp, env.PartitionKeyRanges
}

// wantTiling fails unless rs tile ["", "FF") in order, all live, with
// every field the SDKs read.
func wantTiling(t testing.TB, rs []pkRange) {
	t.Helper()
	if len(rs) == 0 || rs[0].MinInclusive != "" || rs[len(rs)-1].MaxExclusive != "FF" {
		t.Fatalf("ranges do not cover [\"\", \"FF\"): %+v", rs)
	}
	rids := map[string]bool{}
	for i, r := range rs {
		if i > 0 && r.MinInclusive != rs[i-1].MaxExclusive {
			t.Fatalf("range %s starts at %q, previous ends at %q", r.ID, r.MinInclusive, rs[i-1].MaxExclusive)
		}
		if r.Status != "online" || r.Parents == nil || r.RIDPrefix == nil || r.LSN == nil || r.RID == "" || rids[r.RID] {
			t.Fatalf("range %+v: missing or repeated fields", r)
		}
		if r.ThroughputFraction != 1/float64(len(rs)) {
			t.Fatalf("range %s throughputFraction %v, want 1/%d", r.ID, r.ThroughputFraction, len(rs))
		}
		rids[r.RID] = true
	}
}

func rangeIDs(rs []pkRange) string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return strings.Join(ids, ",")
}

// TestPartitionKeyRangesAtCreation checks the service's sizing rule
// through the SDK and /pkranges: manual throughput above 10,000 RU/s gets
// ceil(RU/6,000) ranges, autoscale ceil(max/10,000), the rest one (a
// shared-throughput database's containers too), and ReadFeedRanges gives
// one feed range per range, in order. With WithMinPartitionRanges(4) a
// 400 RU/s container gets 4, and a /name container at 21,000 RU/s holds
// exactly one of sample1..sample4 in its first range (checked on the item
// responses' range ids).
func TestPartitionKeyRangesAtCreation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	raw := f.rawFor(t)
	db := mustDB(t, f.c, "rangesdb")
	for _, tc := range []struct {
		name string
		tp   azcosmos.ThroughputProperties
		want int
	}{
		{"m21000", azcosmos.NewManualThroughputProperties(21000), 4},
		{"m18000", azcosmos.NewManualThroughputProperties(18000), 3},
		{"m11000", azcosmos.NewManualThroughputProperties(11000), 2},
		{"m10000", azcosmos.NewManualThroughputProperties(10000), 1},
		{"m400", azcosmos.NewManualThroughputProperties(400), 1},
		{"a20000", azcosmos.NewAutoscaleThroughputProperties(20000), 2},
		{"a4000", azcosmos.NewAutoscaleThroughputProperties(4000), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := tc.tp
			props := azcosmos.ContainerProperties{ID: tc.name, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/name"}}}
			if _, err := db.CreateContainer(bg, props, &azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
				t.Fatal(err)
			}
			_, rs := readRanges(t, f.rawFor(t), "rangesdb", tc.name)
			if len(rs) != tc.want {
				t.Fatalf("%d ranges, want %d: %+v", len(rs), tc.want, rs)
			}
			wantTiling(t, rs)
			cc, _ := db.NewContainer(tc.name)
			frs, err := cc.ReadFeedRanges(bg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(frs) != len(rs) {
				t.Fatalf("%d feed ranges for %d ranges", len(frs), len(rs))
			}
			for i, fr := range frs {
				if fr.MinInclusive != rs[i].MinInclusive || fr.MaxExclusive != rs[i].MaxExclusive {
					t.Fatalf("feed range %d = %+v, range %+v", i, fr, rs[i])
				}
			}
		})
	}

	// sample1..sample4 on /name at 21,000 RU/s: one name in the first range
	cc, _ := db.NewContainer("m21000")
	inFirst := 0
	for _, name := range []string{"sample1", "sample2", "sample3", "sample4"} {
		resp, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(name), mustJSON(t, map[string]any{"id": name, "name": name}), nil)
		if err != nil {
			t.Fatal(err)
		}
		id := resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid")
		if tok := resp.RawResponse.Header.Get("x-ms-session-token"); !strings.HasPrefix(tok, id+":-1#") {
			t.Errorf("%s: session token %q for range %q", name, tok, id)
		}
		if id == "0" {
			inFirst++
		}
		t.Logf("%s in range %s", name, id)
	}
	if inFirst != 1 {
		t.Errorf("%d names in the first range, want 1", inFirst)
	}

	// a shared-throughput database's containers have one range
	tp := azcosmos.NewManualThroughputProperties(50000)
	if _, err := f.c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "shareddb"}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	sdb, _ := f.c.NewDatabase("shareddb")
	mustContainer(t, sdb, "c")
	if _, rs := readRanges(t, raw, "shareddb", "c"); len(rs) != 1 {
		t.Errorf("shared-throughput container: %d ranges, want 1", len(rs))
	}

	// --min-partition-ranges 4: every new container has at least 4
	e := emulatortest.Start(t, emulatortest.WithMinPartitionRanges(4))
	mdb := mustDB(t, e.Client(t), "mindb")
	mustContainer(t, mdb, "c")
	mraw := newRaw(t, e)
	_, rs := readRanges(t, mraw, "mindb", "c")
	if len(rs) != 4 {
		t.Fatalf("with min 4: %d ranges", len(rs))
	}
	wantTiling(t, rs)
}

// TestPartitionKeyRangeSplit splits ranges through the control endpoint
// and checks what clients see: the children in /pkranges (plain and
// incremental: 200 at the old etag, 304 at the new), 410/1002 for the
// split id on queries, read feeds and both change feeds (and for unknown
// ids), range ids resolving in both header forms, a parent's change feed
// etag accepted on a child, per-range response headers and session tokens,
// session tokens of other ranges accepted, ReadFeedRanges following the
// split, and an offer replace to 21,000 RU/s splitting up to 4 ranges
// (and not merging back at 400).
func TestPartitionKeyRangeSplit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	raw := f.rawFor(t)
	db := mustDB(t, f.c, "splitdb")
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2}}
	if _, err := db.CreateContainer(bg, props, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	cr, err := cc.Read(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	collRID := cr.ContainerProperties.ResourceID
	// V2 EPKs: "redmond" 22E342F3... (upper half), "aa" 05033626... (lower half)
	for _, pk := range []string{"redmond", "aa"} {
		if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": pk, "pk": pk}), nil); err != nil {
			t.Fatal(err)
		}
	}
	incr := []string{"A-IM", "Incremental Feed", "x-ms-max-item-count", "-1"}
	before, rs := readRanges(t, raw, "splitdb", "c", incr...)
	oldETag := before.Header.Get("etag")
	if rangeIDs(rs) != "0" {
		t.Fatalf("before the split: %+v", rs)
	}
	cf := raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "A-IM", "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid", "0")
	wantStatus(t, cf, http.StatusOK)
	parentETag := cf.Header.Get("etag")
	// a query page of range "0" with a continuation (a keyset position in
	// the result order, not bound to the range)
	pageQuery := mustJSON(t, map[string]any{"query": "SELECT * FROM c ORDER BY c.id"})
	pageHdr := []string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True",
		"x-ms-documentdb-query-enablecrosspartition", "True", "x-ms-max-item-count", "1"}
	qp := raw.do(http.MethodPost, docsPath("splitdb", "c"), pageQuery, append(pageHdr, "x-ms-documentdb-partitionkeyrangeid", "0")...)
	wantStatus(t, qp, http.StatusOK)
	parentQueryToken := qp.Header.Get("x-ms-continuation")
	if parentQueryToken == "" {
		t.Fatal("no continuation after the first of two results")
	}

	// split "0" at its middle
	split := raw.do(http.MethodPost, "/_emulator/dbs/splitdb/colls/c/pkranges/0/split", []byte(`{}`))
	wantStatus(t, split, http.StatusOK)
	var kids struct{ PartitionKeyRanges []pkRange }
	if err := json.Unmarshal(split.Body, &kids); err != nil {
		t.Fatal(err)
	}
	const mid = "20000000000000000000000000000000"
	if k := kids.PartitionKeyRanges; len(k) != 2 || k[0].ID != "1" || k[1].ID != "2" || k[0].MaxExclusive != mid || k[1].MinInclusive != mid ||
		strings.Join(k[0].Parents, ",") != "0" || strings.Join(k[1].Parents, ",") != "0" {
		t.Fatalf("split answer %s", split.Body)
	}

	t.Run("pkranges", func(t *testing.T) {
		for _, hdr := range [][]string{nil, incr} {
			resp, rs := readRanges(t, f.rawFor(t), "splitdb", "c", hdr...)
			wantTiling(t, rs)
			if rangeIDs(rs) != "1,2" || strings.Join(rs[0].Parents, ",") != "0" {
				t.Fatalf("after the split: %+v", rs)
			}
			newETag := resp.Header.Get("etag")
			if newETag == oldETag {
				t.Fatalf("etag unchanged by the split: %s", newETag)
			}
			resp, rs = readRanges(t, f.rawFor(t), "splitdb", "c", append(hdr, "If-None-Match", oldETag)...)
			if resp.Status != http.StatusOK || rangeIDs(rs) != "1,2" || resp.Header.Get("etag") != newETag {
				t.Fatalf("at the old etag: %d %+v", resp.Status, rs)
			}
			resp, _ = readRanges(t, f.rawFor(t), "splitdb", "c", append(hdr, "If-None-Match", newETag)...)
			wantStatus(t, resp, http.StatusNotModified)
		}
	})

	t.Run("gone ids", func(t *testing.T) {
		raw := f.rawFor(t)
		query := mustJSON(t, map[string]any{"query": "SELECT * FROM c"})
		queryHdr := []string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", "x-ms-documentdb-query-enablecrosspartition", "True"}
		for _, id := range []string{"0", "99", collRID + ",0", "AAAAAA==,1"} {
			reqs := map[string]rawResp{
				"query":       raw.do(http.MethodPost, docsPath("splitdb", "c"), query, append(queryHdr, "x-ms-documentdb-partitionkeyrangeid", id)...),
				"read feed":   raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "x-ms-documentdb-partitionkeyrangeid", id),
				"change feed": raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "A-IM", "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid", id),
				"all versions": raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "A-IM", "Full-Fidelity Feed", "If-None-Match", "*",
					"x-ms-documentdb-partitionkeyrangeid", id),
			}
			if id == "99" || id == "AAAAAA==,1" { // unknown, not split: @azure/cosmos too
				reqs["query from @azure/cosmos"] = raw.do(http.MethodPost, docsPath("splitdb", "c"), query, append(queryHdr, "x-ms-documentdb-partitionkeyrangeid", id, "User-Agent", jsAgent)...)
			}
			for name, resp := range reqs {
				if resp.Status != http.StatusGone || resp.Header.Get("x-ms-substatus") != "1002" {
					t.Errorf("%s on range %q: %d substatus %q %s", name, id, resp.Status, resp.Header.Get("x-ms-substatus"), resp.Body)
				}
			}
		}
		// a query of @azure/cosmos naming the split range reads its former
		// interval (here the whole container), the parent's continuation
		// included: its pipelined queries cannot recover from the 410
		// (ResolveRangeScopeAcrossSplits)
		for _, id := range []string{"0", collRID + ",0"} {
			resp := raw.do(http.MethodPost, docsPath("splitdb", "c"), pageQuery, append(pageHdr, "x-ms-documentdb-partitionkeyrangeid", id,
				"x-ms-continuation", parentQueryToken, "User-Agent", jsAgent)...)
			wantStatus(t, resp, http.StatusOK)
			if got := string(resp.Body); !strings.Contains(got, `"id":"redmond"`) || strings.Contains(got, `"id":"aa"`) {
				t.Errorf("query continuation on split range %q: %s, want the second item (redmond) only", id, got)
			}
			if got := resp.Header.Get("x-ms-documentdb-partitionkeyrangeid"); got != "0" {
				t.Errorf("query on split range %q: range id header %q", id, got)
			}
		}
		// a client repeating a request naming the split range gets the
		// same answer every time: @azure/cosmos's query its page, the
		// change feed 410/1002 (no state is kept per client, so nothing
		// accumulates)
		firstQ := raw.do(http.MethodPost, docsPath("splitdb", "c"), query, append(queryHdr, "x-ms-documentdb-partitionkeyrangeid", "0", "User-Agent", jsAgent)...)
		firstCF := raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "A-IM", "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid", "0")
		wantStatus(t, firstQ, http.StatusOK)
		if n := fmt.Sprint(object(t, firstQ.Body)["_count"]); n != "2" {
			t.Fatalf("query on split range 0: %s items, want 2: %s", n, firstQ.Body)
		}
		wantStatus(t, firstCF, http.StatusGone)
		for i := 0; i < 200; i++ {
			q := raw.do(http.MethodPost, docsPath("splitdb", "c"), query, append(queryHdr, "x-ms-documentdb-partitionkeyrangeid", "0", "User-Agent", jsAgent)...)
			cf := raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "A-IM", "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid", "0")
			if q.Status != firstQ.Status || !bytes.Equal(q.Body, firstQ.Body) || cf.Status != firstCF.Status ||
				cf.Header.Get("x-ms-substatus") != "1002" || !bytes.Equal(cf.Body, firstCF.Body) {
				t.Fatalf("repeat %d: query %d %s, change feed %d/%s %s; first: %d %s, %d %s", i, q.Status, q.Body, cf.Status,
					cf.Header.Get("x-ms-substatus"), cf.Body, firstQ.Status, firstQ.Body, firstCF.Status, firstCF.Body)
			}
		}
		// the children serve, in both header forms, and name themselves
		for _, id := range []string{"1", collRID + ",2"} {
			want := id[strings.LastIndexByte(id, ',')+1:]
			for name, resp := range map[string]rawResp{
				"query":     raw.do(http.MethodPost, docsPath("splitdb", "c"), query, append(queryHdr, "x-ms-documentdb-partitionkeyrangeid", id)...),
				"read feed": raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "x-ms-documentdb-partitionkeyrangeid", id),
				// a parent's etag continues on a child: one LSN sequence per container
				"change feed": raw.do(http.MethodGet, docsPath("splitdb", "c"), nil, "A-IM", "Incremental Feed", "If-None-Match", parentETag,
					"x-ms-documentdb-partitionkeyrangeid", id),
				// and a parent's query continuation continues on each child
				"query continuation": raw.do(http.MethodPost, docsPath("splitdb", "c"), pageQuery,
					append(pageHdr, "x-ms-documentdb-partitionkeyrangeid", id, "x-ms-continuation", parentQueryToken)...),
			} {
				if resp.Status != http.StatusOK && resp.Status != http.StatusNotModified {
					t.Errorf("%s on range %q: %d %s", name, id, resp.Status, resp.Body)
					continue
				}
				if got := resp.Header.Get("x-ms-documentdb-partitionkeyrangeid"); got != want {
					t.Errorf("%s on range %q: range id header %q", name, id, got)
				}
				if tok := resp.Header.Get("x-ms-session-token"); !strings.HasPrefix(tok, want+":-1#") {
					t.Errorf("%s on range %q: session token %q", name, id, tok)
				}
			}
		}
	})

	t.Run("point operations", func(t *testing.T) {
		for _, tc := range []struct{ pk, want string }{{"redmond", "2"}, {"aa", "1"}} {
			// a session token naming a split range and another one is accepted
			resp, err := cc.ReadItem(bg, azcosmos.NewPartitionKeyString(tc.pk), tc.pk, &azcosmos.ItemOptions{SessionToken: ptr("0:-1#1,1:-1#2,2:-1#3")})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.RawResponse.Header.Get("x-ms-documentdb-partitionkeyrangeid"); got != tc.want {
				t.Errorf("%s: range id %q, want %q", tc.pk, got, tc.want)
			}
			if tok := resp.RawResponse.Header.Get("x-ms-session-token"); !strings.HasPrefix(tok, tc.want+":-1#") {
				t.Errorf("%s: session token %q", tc.pk, tok)
			}
		}
		frs, err := cc.ReadFeedRanges(bg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(frs) != 2 || frs[0].MaxExclusive != mid || frs[1].MinInclusive != mid {
			t.Fatalf("feed ranges after the split: %+v", frs)
		}
	})

	t.Run("split again", func(t *testing.T) {
		raw := f.rawFor(t)
		for _, tc := range []struct {
			path, body string
			status     int
		}{
			{"/_emulator/dbs/splitdb/colls/c/pkranges/0/split", `{}`, http.StatusGone},                 // split already
			{"/_emulator/dbs/splitdb/colls/c/pkranges/1/split", `{"epk":"30"}`, http.StatusBadRequest}, // outside [, 20..)
			{"/_emulator/dbs/splitdb/colls/c/pkranges/1/split", `{"epk":"xyz"}`, http.StatusBadRequest},
			{"/_emulator/dbs/splitdb/colls/c/pkranges/1/split", `{"epk":""}`, http.StatusOK}, // the middle: 10..
			{"/_emulator/dbs/splitdb/colls/c/pkranges/2/split", `{"epk":"28"}`, http.StatusOK},
		} {
			if resp := raw.do(http.MethodPost, tc.path, []byte(tc.body)); resp.Status != tc.status {
				t.Errorf("POST %s %s: %d %s, want %d", tc.path, tc.body, resp.Status, resp.Body, tc.status)
			}
		}
		_, rs := readRanges(t, raw, "splitdb", "c")
		wantTiling(t, rs)
		if rangeIDs(rs) != "3,4,5,6" || strings.Join(rs[0].Parents, ",") != "1,0" || rs[3].MinInclusive != "28" {
			t.Fatalf("after the second splits: %+v", rs)
		}
		// unsigned or resource-token requests cannot split
		r := raw.req(http.MethodPost, "/_emulator/dbs/splitdb/colls/c/pkranges/3/split", []byte(`{}`))
		r.Header.Del("Authorization")
		if resp := raw.send(r); resp.Status != http.StatusUnauthorized {
			t.Errorf("unsigned split: %d", resp.Status)
		}
		// the Go helper
		kids := f.e.SplitRange(t, "splitdb", "c", "3", "")
		if len(kids) != 2 || kids[0].ID != "7" || kids[1].ID != "8" {
			t.Fatalf("SplitRange = %+v", kids)
		}
	})

	t.Run("offer replace", func(t *testing.T) {
		raw := f.rawFor(t)
		oc := mustContainer(t, db, "grow")
		if _, rs := readRanges(t, raw, "splitdb", "grow"); len(rs) != 1 {
			t.Fatalf("%d ranges at 400 RU/s", len(rs))
		}
		if _, err := oc.ReplaceThroughput(bg, azcosmos.NewManualThroughputProperties(21000), nil); err != nil {
			t.Fatal(err)
		}
		_, rs := readRanges(t, raw, "splitdb", "grow")
		wantTiling(t, rs)
		if len(rs) != 4 || rs[1].MinInclusive != "05C1D0" || rs[2].MinInclusive != "05C1E0" || rs[3].MinInclusive != "05C1E8" {
			t.Fatalf("after 21,000 RU/s: %+v", rs)
		}
		if _, err := oc.ReplaceThroughput(bg, azcosmos.NewManualThroughputProperties(400), nil); err != nil {
			t.Fatal(err)
		}
		if _, rs := readRanges(t, raw, "splitdb", "grow"); len(rs) != 4 {
			t.Fatalf("after going back to 400 RU/s: %d ranges, want 4 (no merge)", len(rs))
		}
	})
}

func ptr[T any](v T) *T { return &v }

// jsAgent is the User-Agent of @azure/cosmos 4.10.1 under Node.js
// (dist/esm/common/platform.js getUserAgent).
const jsAgent = "Node.js/22.12.0 (linux; x64) azure-cosmos-js/4.10.1"
