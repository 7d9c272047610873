package compat_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// avadChange is one element of the all-versions-and-deletes feed.
type avadChange struct {
	Current  map[string]any `json:"current"`
	Previous map[string]any `json:"previous"`
	Metadata struct {
		OperationType     string         `json:"operationType"`
		LSN               int64          `json:"lsn"`
		CRTS              int64          `json:"crts"`
		PreviousImageLSN  int64          `json:"previousImageLSN"`
		TimeToLiveExpired bool           `json:"timeToLiveExpired"`
		ID                string         `json:"id"`
		PartitionKey      map[string]any `json:"partitionKey"`
	} `json:"metadata"`
}

// avadFeed reads the all-versions-and-deletes feed of db/coll from
// ifNoneMatch until a 304, page by page; it returns the changes, the page
// sizes and the final etag.
func avadFeed(t *testing.T, raw *rawClient, db, coll, ifNoneMatch string, pageSize int, hdr ...string) ([]avadChange, []int, string) {
	t.Helper()
	var all []avadChange
	var pages []int
	etag := ifNoneMatch
	for i := 0; ; i++ {
		if i > 50 {
			t.Fatal("the feed does not end")
		}
		h := append([]string{"A-IM", "Full-Fidelity Feed", "x-ms-cosmos-changefeed-wire-format-version", "2021-09-15",
			"x-ms-documentdb-partitionkeyrangeid", "0", "If-None-Match", etag, "x-ms-max-item-count", strconv.Itoa(pageSize)}, hdr...)
		resp := raw.do(http.MethodGet, docsPath(db, coll), nil, h...)
		next := resp.Header.Get("etag")
		if next == "" {
			t.Fatalf("no etag header (status %d)", resp.Status)
		}
		if resp.Status == http.StatusNotModified {
			if len(resp.Body) != 0 {
				t.Errorf("304 with a body: %s", resp.Body)
			}
			// (A read of an EPK sub-range moves past the entries it skipped.)
			if next != etag && etag != "*" && !slices.Contains(hdr, "x-ms-start-epk") {
				t.Errorf("304 moved the etag from %s to %s", etag, next)
			}
			return all, pages, next
		}
		wantStatus(t, resp, http.StatusOK)
		var env struct {
			Documents []avadChange
			Count     int `json:"_count"`
		}
		if err := json.Unmarshal(resp.Body, &env); err != nil {
			t.Fatalf("feed body %s: %v", resp.Body, err)
		}
		if env.Count != len(env.Documents) || len(env.Documents) == 0 || len(env.Documents) > pageSize {
			t.Fatalf("page of %d documents (_count %d, asked %d)", len(env.Documents), env.Count, pageSize)
		}
		all = append(all, env.Documents...)
		pages = append(pages, len(env.Documents))
		etag = next
	}
}

// TestAllVersionsAndDeletesFeed drives the A-IM: Full-Fidelity Feed over
// raw HTTP: from now, every create, replace, upsert, patch and delete in
// order with its metadata, paged, scoped to a logical partition; a TTL
// expiry appears as a delete with timeToLiveExpired once the sweeper purges
// the item, never before the item has expired (frozen clock).
func TestAllVersionsAndDeletesFeed(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(t0), emulatortest.WithoutBackgroundSweeper())
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"},"defaultTtl":-1}`)), http.StatusCreated)

	// From now: nothing yet.
	got, _, start := avadFeed(t, raw, "db", "c", "*", 3)
	if len(got) != 0 {
		t.Fatalf("from now on an empty container: %+v", got)
	}
	p, q := []string{pkHeader, `["p"]`}, []string{pkHeader, `["q"]`}
	write := func(method, path, body string, status int, hdr ...string) {
		t.Helper()
		wantStatus(t, raw.do(method, path, []byte(body), hdr...), status)
	}
	docs, a, b := docsPath("db", "c"), docPath("db", "c", "a"), docPath("db", "c", "b")
	write(http.MethodPost, docs, `{"id":"a","pk":"p","n":1}`, http.StatusCreated, p...)
	write(http.MethodPut, a, `{"id":"a","pk":"p","n":2}`, http.StatusOK, p...)
	write(http.MethodPost, docs, `{"id":"a","pk":"p","n":3}`, http.StatusOK, append(p, "x-ms-documentdb-is-upsert", "True")...)
	write(http.MethodPost, docs, `{"id":"b","pk":"q"}`, http.StatusCreated, append(q, "x-ms-documentdb-is-upsert", "True")...)
	write(http.MethodPatch, a, `{"operations":[{"op":"incr","path":"/n","value":1}]}`, http.StatusOK, p...)
	write(http.MethodDelete, b, ``, http.StatusNoContent, q...)
	write(http.MethodPost, docs, `{"id":"t","pk":"p","ttl":10}`, http.StatusCreated, p...)
	// A failed write (conflict) is not a change.
	write(http.MethodPost, docs, `{"id":"t","pk":"p"}`, http.StatusConflict, p...)

	got, pages, end := avadFeed(t, raw, "db", "c", start, 3)
	type row struct {
		op, id string
		n      any
		ttlExp bool
	}
	want := []row{{"create", "a", 1.0, false}, {"replace", "a", 2.0, false}, {"replace", "a", 3.0, false}, {"create", "b", nil, false},
		{"replace", "a", 4.0, false}, {"delete", "b", nil, false}, {"create", "t", nil, false}}
	if len(got) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(got), len(want), got)
	}
	if !slices.Equal(pages, []int{3, 3, 1}) {
		t.Errorf("pages %v, want [3 3 1]", pages)
	}
	lastLSN := map[string]int64{}
	var prevLSN int64
	for i, ch := range got {
		m := ch.Metadata
		id := m.ID
		if len(ch.Current) > 0 {
			id, _ = ch.Current["id"].(string)
		}
		r := row{m.OperationType, id, nil, m.TimeToLiveExpired}
		if len(ch.Current) > 0 {
			r.n = ch.Current["n"]
			for _, k := range []string{"_rid", "_self", "_etag", "_ts"} {
				if ch.Current[k] == nil {
					t.Errorf("change %d: current without %s: %v", i, k, ch.Current)
				}
			}
			if ch.Current["_ts"] != float64(t0.Unix()) {
				t.Errorf("change %d: _ts %v", i, ch.Current["_ts"])
			}
		}
		if r != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, r, want[i])
		}
		if ch.Previous != nil {
			t.Errorf("change %d: previous is populated: %v", i, ch.Previous)
		}
		if m.LSN <= prevLSN {
			t.Errorf("change %d: lsn %d after %d", i, m.LSN, prevLSN)
		}
		prevLSN = m.LSN
		if m.PreviousImageLSN != lastLSN[id] {
			t.Errorf("change %d (%s %s): previousImageLSN %d, want %d", i, m.OperationType, id, m.PreviousImageLSN, lastLSN[id])
		}
		lastLSN[id] = m.LSN
		if m.OperationType == "delete" {
			// "current" is present and empty (the service's shape, which
			// the Python SDK's test_query_change_feed_all_versions_and_deletes
			// requires), the id and partition key are in the metadata
			if ch.Current == nil || len(ch.Current) != 0 || m.ID != "b" || len(m.PartitionKey) != 1 || m.PartitionKey["pk"] != "q" {
				t.Errorf("delete change: %+v", ch)
			}
		} else if m.CRTS != t0.Unix() {
			t.Errorf("change %d: crts %d, want %d", i, m.CRTS, t0.Unix())
		}
	}

	// One logical partition: only its changes.
	got, _, _ = avadFeed(t, raw, "db", "c", start, 100, p...)
	var ids []string
	for _, ch := range got {
		ids = append(ids, ch.Metadata.OperationType+" "+ch.Current["id"].(string))
	}
	if want := []string{"create a", "replace a", "replace a", "replace a", "create t"}; !slices.Equal(ids, want) {
		t.Errorf("partition p: %v, want %v", ids, want)
	}

	// TTL: t expires at t0+10. A sweep before then purges nothing and the
	// feed stays caught up; after it, the purge is a delete with
	// timeToLiveExpired.
	if err := e.Clock().Advance(9 * time.Second); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Sweep(t.Context()); err != nil || n != 0 {
		t.Fatalf("sweep before expiry: %d, %v", n, err)
	}
	if got, _, _ := avadFeed(t, raw, "db", "c", end, 10); len(got) != 0 {
		t.Fatalf("changes before the item expired: %+v", got)
	}
	if err := e.Clock().Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := avadFeed(t, raw, "db", "c", end, 10); len(got) != 0 {
		t.Fatalf("an expired item shows as deleted before the sweep: %+v", got)
	}
	if n, err := e.Sweep(t.Context()); err != nil || n != 1 {
		t.Fatalf("sweep after expiry: %d, %v", n, err)
	}
	got, _, _ = avadFeed(t, raw, "db", "c", end, 10)
	if len(got) != 1 {
		t.Fatalf("after the sweep: %+v", got)
	}
	m := got[0].Metadata
	if m.OperationType != "delete" || !m.TimeToLiveExpired || m.ID != "t" || m.PartitionKey["pk"] != "p" || m.CRTS != t0.Unix()+10 ||
		m.PreviousImageLSN != lastLSN["t"] || got[0].Current == nil || len(got[0].Current) != 0 {
		t.Errorf("expiry change: %+v", got[0])
	}
}

// TestAllVersionsAndDeletesFeedEPKRange: the EPK range headers (which the
// SDKs send for a feed range narrower than the container and for a
// hierarchical key prefix) select the entries of the partitions whose
// effective partition key is in range, by the service's hash (V1 vectors:
// "redmond" 05C1EFE3…, "partitionKey" 05C1E1B3…, "" 05C1CF33…, "aa"
// 05C1C7B7…), deletes included; a read that skips entries continues past
// them.
func TestAllVersionsAndDeletesFeedEPKRange(t *testing.T) {
	f := newFixture(t)
	raw := f.raw
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	_, _, start := avadFeed(t, raw, "db", "c", "*", 10)
	pkh := func(pk string) []string { return []string{pkHeader, `["` + pk + `"]`} }
	for _, pk := range []string{"redmond", "aa", "partitionKey", ""} {
		wantStatus(t, raw.do(http.MethodPost, docsPath("db", "c"), []byte(`{"id":"i-`+pk+`","pk":"`+pk+`"}`), pkh(pk)...), http.StatusCreated)
	}
	wantStatus(t, raw.do(http.MethodPut, docPath("db", "c", "i-aa"), []byte(`{"id":"i-aa","pk":"aa","n":2}`), pkh("aa")...), http.StatusOK)
	wantStatus(t, raw.do(http.MethodDelete, docPath("db", "c", "i-redmond"), nil, pkh("redmond")...), http.StatusNoContent)
	epk := func(start, end string) []string {
		return []string{"x-ms-read-key-type", "EffectivePartitionKeyRange", "x-ms-start-epk", start, "x-ms-end-epk", end}
	}
	summary := func(chs []avadChange) []string {
		var out []string
		for _, ch := range chs {
			id := ch.Metadata.ID
			if len(ch.Current) > 0 {
				id = ch.Current["id"].(string)
			}
			out = append(out, ch.Metadata.OperationType+" "+id)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		start, end string
		want       []string
	}{
		{"upper half of 05C1", "05C1D0", "05C1F0", []string{"create i-redmond", "create i-partitionKey", "delete i-redmond"}},
		{"lower part", "", "05C1D0", []string{"create i-aa", "create i-", "replace i-aa"}},
		{"narrow, lower case", "05c1c7b7270fe008626200", "05c1cf33970ff80800", []string{"create i-aa", "replace i-aa"}},
		{"whole range", "", "FF", []string{"create i-redmond", "create i-aa", "create i-partitionKey", "create i-", "replace i-aa", "delete i-redmond"}},
		{"empty part", "06", "FF", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := f.rawFor(t)
			for _, size := range []int{1, 10} {
				got, _, end := avadFeed(t, raw, "db", "c", start, size, epk(tc.start, tc.end)...)
				if g := summary(got); !slices.Equal(g, tc.want) {
					t.Errorf("page size %d: %q, want %q", size, g, tc.want)
				}
				// Caught up: the etag is past every entry read.
				if _, _, all := avadFeed(t, raw, "db", "c", start, 10); end != all {
					t.Errorf("page size %d: caught up at %s, the whole feed at %s", size, end, all)
				}
			}
		})
	}
	// An empty or malformed range is a 400.
	for _, h := range [][]string{epk("80", "10"), epk("zz", "FF"), {"x-ms-read-key-type", "ResourceId", "x-ms-start-epk", "", "x-ms-end-epk", "FF"}} {
		resp := raw.do(http.MethodGet, docsPath("db", "c"), nil, append([]string{"A-IM", "Full-Fidelity Feed", "If-None-Match", start}, h...)...)
		wantStatus(t, resp, http.StatusBadRequest)
	}
}

// TestAllVersionsAndDeletesFeedDeleteLSN: a delete's metadata.lsn is the
// LSN its response reported (lsn header, session token), as for creates
// and replaces.
func TestAllVersionsAndDeletesFeedDeleteLSN(t *testing.T) {
	f := newFixture(t)
	raw := f.raw
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	_, _, start := avadFeed(t, raw, "db", "c", "*", 10)
	p := []string{pkHeader, `["p"]`}
	var lsns []string
	for _, w := range []struct {
		method, path, body string
		status             int
	}{
		{http.MethodPost, docsPath("db", "c"), `{"id":"a","pk":"p"}`, http.StatusCreated},
		{http.MethodDelete, docPath("db", "c", "a"), ``, http.StatusNoContent},
		{http.MethodPost, docsPath("db", "c"), `{"id":"b","pk":"p"}`, http.StatusCreated},
		{http.MethodPost, docsPath("db", "c"), `{"id":"a","pk":"p"}`, http.StatusCreated},
		{http.MethodDelete, docPath("db", "c", "b"), ``, http.StatusNoContent},
		{http.MethodDelete, docPath("db", "c", "a"), ``, http.StatusNoContent},
	} {
		resp := raw.do(w.method, w.path, []byte(w.body), p...)
		wantStatus(t, resp, w.status)
		if tok := resp.Header.Get("x-ms-session-token"); tok != "0:-1#"+resp.Header.Get("lsn") {
			t.Fatalf("session token %q, lsn %q", tok, resp.Header.Get("lsn"))
		}
		lsns = append(lsns, resp.Header.Get("lsn"))
	}
	got, _, _ := avadFeed(t, raw, "db", "c", start, 10)
	var feed []string
	for _, ch := range got {
		feed = append(feed, strconv.FormatInt(ch.Metadata.LSN, 10))
	}
	if !slices.Equal(feed, lsns) {
		t.Errorf("feed LSNs %v, the responses' %v", feed, lsns)
	}
}

// TestAllVersionsAndDeletesFeedBadInput: malformed continuations, a
// continuation of another container, unknown A-IM values and ranges that
// do not exist are errors in the service's shape.
func TestAllVersionsAndDeletesFeedBadInput(t *testing.T) {
	f := newFixture(t)
	wantStatus(t, f.raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, f.raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	avad := []string{"A-IM", "Full-Fidelity Feed", "x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"}
	// A continuation of another container, with changes, so that its
	// position exists in c's numbering too.
	wantStatus(t, f.raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"other","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	wantStatus(t, f.raw.do(http.MethodPost, docsPath("db", "c"), []byte(`{"id":"a","pk":"p"}`), pkHeader, `["p"]`), http.StatusCreated)
	_, _, cStart := avadFeed(t, f.raw, "db", "c", "*", 10)
	_, _, otherStart := avadFeed(t, f.raw, "db", "other", "*", 10)
	wantStatus(t, f.raw.do(http.MethodPost, docsPath("db", "other"), []byte(`{"id":"a","pk":"p"}`), pkHeader, `["p"]`), http.StatusCreated)
	_, _, otherEnd := avadFeed(t, f.raw, "db", "other", otherStart, 10)
	if got, _, _ := avadFeed(t, f.raw, "db", "c", cStart, 10); len(got) != 0 {
		t.Fatalf("c's own continuation: %+v", got)
	}
	for _, tc := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"continuation not a number", append(avad, "If-None-Match", `"abc"`), http.StatusBadRequest},
		{"negative continuation", append(avad, "If-None-Match", `"-1"`), http.StatusBadRequest},
		{"continuation of another container", append(avad, "If-None-Match", otherEnd), http.StatusBadRequest},
		{"continuation without its container", append(avad, "If-None-Match", `"1"`), http.StatusBadRequest},
		{"negative position", append(avad, "If-None-Match", strings.Replace(cStart, ":", ":-", 1)), http.StatusBadRequest},
		{"unknown A-IM", []string{"A-IM", "Full Feed"}, http.StatusBadRequest},
		{"range that does not exist", append(avad, "If-None-Match", "*", "x-ms-documentdb-partitionkeyrangeid", "7"), http.StatusGone},
		{"bad partition key", append(avad, "If-None-Match", "*", pkHeader, `["p"`), http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.rawFor(t).do(http.MethodGet, docsPath("db", "c"), nil, tc.hdr...)
			wantStatus(t, resp, tc.status)
			code, msg := errorBody(t, resp.Body)
			if code == "" || msg == "" || bytes.Contains(resp.Body, []byte("panic")) {
				t.Errorf("error body %s", resp.Body)
			}
		})
	}
}

// TestAllVersionsAndDeletesFeedRetention: the sweep trims history older
// than the container's changeFeedPolicy.retentionDuration (minutes); the
// rest stays readable.
func TestAllVersionsAndDeletesFeedRetention(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(t0), emulatortest.WithoutBackgroundSweeper())
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"},"changeFeedPolicy":{"retentionDuration":2}}`)), http.StatusCreated)
	_, _, start := avadFeed(t, raw, "db", "c", "*", 10)
	p := []string{pkHeader, `["p"]`}
	wantStatus(t, raw.do(http.MethodPost, docsPath("db", "c"), []byte(`{"id":"a","pk":"p"}`), p...), http.StatusCreated)
	if err := e.Clock().Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, raw.do(http.MethodPost, docsPath("db", "c"), []byte(`{"id":"b","pk":"p"}`), p...), http.StatusCreated)
	ids := func() []string {
		got, _, _ := avadFeed(t, raw, "db", "c", start, 10)
		var ids []string
		for _, ch := range got {
			ids = append(ids, ch.Current["id"].(string))
		}
		return ids
	}
	// Two minutes after a's write it is still within the window.
	if err := e.Clock().Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("within retention: %v", got)
	}
	// Past it, a's entry is trimmed and b's stays.
	if err := e.Clock().Advance(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("after retention: %v", got)
	}
}

// TestChangeFeedPolicyValidation: a container's changeFeedPolicy must be
// an object with a whole, non-negative retentionDuration in minutes; bad
// values are a 400 on create and on replace, and nothing changes.
func TestChangeFeedPolicyValidation(t *testing.T) {
	f := newFixture(t)
	wantStatus(t, f.raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, f.raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"ok","partitionKey":{"paths":["/pk"],"kind":"Hash"},"changeFeedPolicy":{"retentionDuration":10}}`)), http.StatusCreated)
	for _, policy := range []string{`"x"`, `{"retentionDuration":-1}`, `{"retentionDuration":1.5}`, `{"retentionDuration":"10"}`, `{"retentionDuration":2147483648}`} {
		t.Run(policy, func(t *testing.T) {
			raw := f.rawFor(t)
			resp := raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"bad","partitionKey":{"paths":["/pk"],"kind":"Hash"},"changeFeedPolicy":`+policy+`}`))
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
			resp = raw.do(http.MethodPut, "/dbs/db/colls/ok", []byte(`{"id":"ok","partitionKey":{"paths":["/pk"],"kind":"Hash"},"changeFeedPolicy":`+policy+`}`))
			wantError(t, resp, http.StatusBadRequest, "BadRequest")
		})
	}
	resp := f.raw.do(http.MethodGet, "/dbs/db/colls/ok", nil)
	wantStatus(t, resp, http.StatusOK)
	if !bytes.Contains(resp.Body, []byte(`"changeFeedPolicy":{"retentionDuration":10}`)) {
		t.Errorf("the policy changed: %s", resp.Body)
	}
	wantStatus(t, f.raw.do(http.MethodGet, "/dbs/db/colls/bad", nil), http.StatusNotFound)
}

// TestAllVersionsAndDeletesFeedFromBeginning: the all-versions-and-deletes
// feed cannot start from the beginning. A read with neither If-None-Match
// nor If-Modified-Since (what the SDKs send for ChangeFeedStartFrom.
// Beginning() in that mode), over the whole container, one logical
// partition, an effective partition key range or range "0", answers the
// service's 400 "You must read the change feed from within the retention
// period." (the JS SDK's own tests expect it); from now, from a
// continuation and from a point in time go on working.
func TestAllVersionsAndDeletesFeedFromBeginning(t *testing.T) {
	f := newFixture(t)
	raw := f.raw
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"db"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/db/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	_, _, start := avadFeed(t, raw, "db", "c", "*", 10)
	wantStatus(t, raw.do(http.MethodPost, docsPath("db", "c"), []byte(`{"id":"a","pk":"p"}`), pkHeader, `["p"]`), http.StatusCreated)
	avad := []string{"A-IM", "Full-Fidelity Feed", "x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"}
	since := []string{"If-Modified-Since", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}
	for _, tc := range []struct {
		name    string
		hdr     []string
		status  int
		changes int // on a 200
	}{
		{"from the beginning", nil, http.StatusBadRequest, 0},
		{"from the beginning of range 0", []string{"x-ms-documentdb-partitionkeyrangeid", "0"}, http.StatusBadRequest, 0},
		{"from the beginning of a partition", []string{pkHeader, `["p"]`}, http.StatusBadRequest, 0},
		{"from the beginning of a feed range", []string{"x-ms-read-key-type", "EffectivePartitionKeyRange", "x-ms-start-epk", "", "x-ms-end-epk", "FF"}, http.StatusBadRequest, 0},
		{"empty If-None-Match", []string{"If-None-Match", ""}, http.StatusBadRequest, 0},
		{"from now", []string{"If-None-Match", "*"}, http.StatusNotModified, 0},
		{"from a continuation", []string{"If-None-Match", start}, http.StatusOK, 1},
		{"from a continuation of a partition", []string{"If-None-Match", start, pkHeader, `["p"]`}, http.StatusOK, 1},
		{"from a point in time", since, http.StatusOK, 1},
		{"from a point in time of a partition", append([]string{pkHeader, `["p"]`}, since...), http.StatusOK, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.rawFor(t).do(http.MethodGet, docsPath("db", "c"), nil, append(append([]string{}, avad...), tc.hdr...)...)
			wantStatus(t, resp, tc.status)
			switch tc.status {
			case http.StatusBadRequest:
				code, msg := errorBody(t, resp.Body)
				if code != "BadRequest" || msg != "You must read the change feed from within the retention period." {
					t.Errorf("error %s", resp.Body)
				}
			case http.StatusOK:
				var env struct{ Documents []avadChange }
				if err := json.Unmarshal(resp.Body, &env); err != nil || len(env.Documents) != tc.changes {
					t.Errorf("%d changes (%v), want %d: %s", len(env.Documents), err, tc.changes, resp.Body)
				}
			}
		})
	}
}
