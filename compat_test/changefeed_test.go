package compat_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// cfEnv is one emulator with a frozen clock, a database and a raw client.
type cfEnv struct {
	e   *emulatortest.Emulator
	db  *azcosmos.DatabaseClient
	raw *rawClient
}

var cfT0 = time.Unix(1_800_000_000, 0)

func newCFEnv(t *testing.T) *cfEnv {
	t.Helper()
	e := emulatortest.Start(t, emulatortest.WithFrozenClock(cfT0), emulatortest.WithoutBackgroundSweeper())
	c := e.Client(t)
	return &cfEnv{e: e, db: mustDB(t, c, "cf"), raw: newRaw(t, e)}
}

func (env *cfEnv) container(t *testing.T, id string, ttl *int32) *azcosmos.ContainerClient {
	t.Helper()
	props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: ttl}
	if _, err := env.db.CreateContainer(bg, props, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := env.db.NewContainer(id)
	return cc
}

func cfPut(t *testing.T, cc *azcosmos.ContainerClient, id, pk string, extra map[string]any) {
	t.Helper()
	doc := map[string]any{"id": id, "pk": pk}
	for k, v := range extra {
		doc[k] = v
	}
	if _, err := cc.UpsertItem(bg, azcosmos.NewPartitionKeyString(pk), mustJSON(t, doc), nil); err != nil {
		t.Fatal(err)
	}
}

// cfPage is one raw change feed response.
type cfPage struct {
	status int
	etag   string
	ids    []string
	lsns   []int64
}

// feed sends one change feed GET with the given headers (name, value pairs).
func (env *cfEnv) feed(t *testing.T, coll string, hdr ...string) cfPage {
	t.Helper()
	resp := env.raw.do(http.MethodGet, docsPath("cf", coll), nil, append([]string{"A-IM", "Incremental Feed"}, hdr...)...)
	p := cfPage{status: resp.Status, etag: resp.Header.Get("etag")}
	switch resp.Status {
	case http.StatusNotModified:
		if len(resp.Body) != 0 {
			t.Errorf("304 with a body: %s", resp.Body)
		}
	case http.StatusOK:
		var env struct {
			Documents []struct {
				ID  string `json:"id"`
				LSN *int64 `json:"_lsn"`
			}
			Count int `json:"_count"`
		}
		if err := json.Unmarshal(resp.Body, &env); err != nil {
			t.Fatalf("change feed body: %v: %s", err, resp.Body)
		}
		for _, d := range env.Documents {
			if d.LSN == nil {
				t.Errorf("document %s has no _lsn", d.ID)
				continue
			}
			p.ids = append(p.ids, d.ID)
			p.lsns = append(p.lsns, *d.LSN)
		}
		if env.Count != len(env.Documents) {
			t.Errorf("_count = %d, want %d", env.Count, len(env.Documents))
		}
	default:
		t.Fatalf("change feed: status %d: %s", resp.Status, resp.Body)
	}
	if p.etag == "" {
		t.Errorf("change feed response without etag")
	}
	return p
}

func wantPage(t *testing.T, p cfPage, status int, ids ...string) {
	t.Helper()
	if p.status != status || !slices.Equal(p.ids, ids) {
		t.Fatalf("change feed page = %d %v, want %d %v", p.status, p.ids, status, ids)
	}
	for i := 1; i < len(p.lsns); i++ {
		if p.lsns[i] <= p.lsns[i-1] {
			t.Errorf("_lsn not increasing: %v", p.lsns)
		}
	}
	// The etag is an LSN at or past the last document's (past it when the
	// scan reached the end: later rows were deleted, expired or filtered).
	if len(p.lsns) > 0 {
		e, err := strconv.ParseInt(strings.Trim(p.etag, `"`), 10, 64)
		if err != nil || e < p.lsns[len(p.lsns)-1] || !strings.HasPrefix(p.etag, `"`) {
			t.Errorf("etag = %s, want a quoted LSN >= the last document's _lsn %d", p.etag, p.lsns[len(p.lsns)-1])
		}
	}
}

// TestChangeFeedLatestVersion: every start point, page bounds, 304 when
// caught up, each item once in its latest version in LSN order, deletes
// absent.
func TestChangeFeedLatestVersion(t *testing.T) {
	env := newCFEnv(t)
	cc := env.container(t, "c", nil)
	// Empty container: 304 from the beginning.
	empty := env.feed(t, "c")
	wantPage(t, empty, http.StatusNotModified)

	cfPut(t, cc, "a", "p1", nil)
	cfPut(t, cc, "b", "p2", nil)
	cfPut(t, cc, "c", "p1", nil)
	cfPut(t, cc, "a", "p1", map[string]any{"v": 2}) // a moves after c
	if _, err := cc.DeleteItem(bg, azcosmos.NewPartitionKeyString("p2"), "b", nil); err != nil {
		t.Fatal(err)
	}
	cfPut(t, cc, "d", "p2", nil)

	p1 := env.feed(t, "c", "x-ms-max-item-count", "2", "x-ms-documentdb-partitionkeyrangeid", "0")
	wantPage(t, p1, http.StatusOK, "c", "a")
	p2 := env.feed(t, "c", "x-ms-max-item-count", "2", "If-None-Match", p1.etag)
	wantPage(t, p2, http.StatusOK, "d")
	p3 := env.feed(t, "c", "x-ms-max-item-count", "2", "If-None-Match", p2.etag)
	wantPage(t, p3, http.StatusNotModified)
	if p3.etag != p2.etag {
		t.Errorf("304 etag = %s, want %s", p3.etag, p2.etag)
	}

	// From now: nothing, then only what follows.
	now := env.feed(t, "c", "If-None-Match", "*")
	wantPage(t, now, http.StatusNotModified)
	cfPut(t, cc, "c", "p1", map[string]any{"v": 3})
	wantPage(t, env.feed(t, "c", "If-None-Match", now.etag), http.StatusOK, "c")
	wantPage(t, env.feed(t, "c", "If-None-Match", p2.etag), http.StatusOK, "c")

	// From a point in time (compared with _ts; the Go SDK writes "UTC").
	if err := env.e.Clock().Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	cfPut(t, cc, "e", "p2", nil)
	since := cfT0.Add(10 * time.Second).UTC()
	wantPage(t, env.feed(t, "c", "If-Modified-Since", since.Format(http.TimeFormat)), http.StatusOK, "e")
	wantPage(t, env.feed(t, "c", "If-Modified-Since", since.Format(time.RFC1123)), http.StatusOK, "e")
	wantPage(t, env.feed(t, "c", "If-Modified-Since", since.Add(time.Second).Format(http.TimeFormat)), http.StatusNotModified)
	wantPage(t, env.feed(t, "c", "If-Modified-Since", cfT0.Format(http.TimeFormat)), http.StatusOK, "a", "d", "c", "e")

	// One logical partition.
	wantPage(t, env.feed(t, "c", pkHeader, `["p2"]`), http.StatusOK, "d", "e")
	wantPage(t, env.feed(t, "c", pkHeader, `["p1"]`, "x-ms-documentdb-partitionkeyrangeid", "0"), http.StatusOK, "a", "c")
	wantPage(t, env.feed(t, "c", pkHeader, `["nobody"]`), http.StatusNotModified)
}

// TestChangeFeedEPKRange: the EPK range headers select items by the
// service's hash (V1 vectors from the SDKs' unit tests: "redmond"
// 05C1EFE3…, "partitionKey" 05C1E1B3…, "" 05C1CF33…, "aa" 05C1C7B7…).
func TestChangeFeedEPKRange(t *testing.T) {
	env := newCFEnv(t)
	cc := env.container(t, "c", nil)
	for _, pk := range []string{"redmond", "aa", "partitionKey", ""} {
		cfPut(t, cc, "i-"+pk, pk, nil)
	}
	epk := func(start, end string) []string {
		return []string{"x-ms-documentdb-partitionkeyrangeid", "0", "x-ms-read-key-type", "EffectivePartitionKeyRange", "x-ms-start-epk", start, "x-ms-end-epk", end}
	}
	wantPage(t, env.feed(t, "c", epk("05C1D0", "05C1F0")...), http.StatusOK, "i-redmond", "i-partitionKey")
	wantPage(t, env.feed(t, "c", epk("", "05C1D0")...), http.StatusOK, "i-aa", "i-")
	wantPage(t, env.feed(t, "c", epk("05C1C7B7270FE008626200", "05C1CF33970FF80800")...), http.StatusOK, "i-aa")
	wantPage(t, env.feed(t, "c", epk("", "FF")...), http.StatusOK, "i-redmond", "i-aa", "i-partitionKey", "i-")
	wantPage(t, env.feed(t, "c", epk("06", "FF")...), http.StatusNotModified)
	// Paged within the sub-range.
	p := env.feed(t, "c", append(epk("05C1D0", "05C1F0"), "x-ms-max-item-count", "1")...)
	wantPage(t, p, http.StatusOK, "i-redmond")
	wantPage(t, env.feed(t, "c", append(epk("05C1D0", "05C1F0"), "x-ms-max-item-count", "1", "If-None-Match", p.etag)...), http.StatusOK, "i-partitionKey")
}

// TestChangeFeedExpiredItemsAbsent: an expired item leaves the feed as
// soon as it expires (before any sweep), on the movable clock.
func TestChangeFeedExpiredItemsAbsent(t *testing.T) {
	env := newCFEnv(t)
	cc := env.container(t, "t", i32(-1))
	cfPut(t, cc, "short", "p", map[string]any{"ttl": 5})
	cfPut(t, cc, "long", "p", nil)
	wantPage(t, env.feed(t, "t"), http.StatusOK, "short", "long")
	if err := env.e.Clock().Advance(4 * time.Second); err != nil {
		t.Fatal(err)
	}
	wantPage(t, env.feed(t, "t"), http.StatusOK, "short", "long")
	if err := env.e.Clock().Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	wantPage(t, env.feed(t, "t"), http.StatusOK, "long")
	wantPage(t, env.feed(t, "t", pkHeader, `["p"]`), http.StatusOK, "long")
}

// TestChangeFeedBadInput: unknown modes, malformed or foreign
// continuations, bad dates and ranges are 400 (a gone range is 410/1002).
func TestChangeFeedBadInput(t *testing.T) {
	env := newCFEnv(t)
	cc := env.container(t, "c", nil)
	cfPut(t, cc, "a", "p", nil)
	for _, tc := range []struct {
		name   string
		hdr    []string
		status int
	}{
		{"unknown A-IM", []string{"A-IM", "Bogus Feed"}, http.StatusBadRequest},
		{"non-numeric continuation", []string{"If-None-Match", `"abc"`}, http.StatusBadRequest},
		{"composite token as etag", []string{"If-None-Match", `{"version":1}`}, http.StatusBadRequest},
		{"negative continuation", []string{"If-None-Match", `"-1"`}, http.StatusBadRequest},
		{"continuation never issued", []string{"If-None-Match", `"99999999999"`}, http.StatusBadRequest},
		{"bad date", []string{"If-Modified-Since", "yesterday"}, http.StatusBadRequest},
		{"bad page size", []string{"x-ms-max-item-count", "-5"}, http.StatusBadRequest},
		{"bad read key type", []string{"x-ms-read-key-type", "ResourceId", "x-ms-start-epk", "", "x-ms-end-epk", "FF"}, http.StatusBadRequest},
		{"non-hex epk", []string{"x-ms-start-epk", "zz", "x-ms-end-epk", "FF"}, http.StatusBadRequest},
		{"empty epk range", []string{"x-ms-start-epk", "80", "x-ms-end-epk", "10"}, http.StatusBadRequest},
		{"bad partition key", []string{pkHeader, `[1,`}, http.StatusBadRequest},
		{"gone range", []string{"x-ms-documentdb-partitionkeyrangeid", "1"}, http.StatusGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := append([]string{"A-IM", "Incremental Feed"}, tc.hdr...)
			resp := newRaw(t, env.e).do(http.MethodGet, docsPath("cf", "c"), nil, hdr...)
			code := "BadRequest"
			if tc.status == http.StatusGone {
				code = "Gone"
				wantSubStatus(t, resp, 1002)
			}
			wantError(t, resp, tc.status, code)
		})
	}
	// The A-IM value is case-insensitive.
	wantPage(t, env.feed(t, "c", "A-IM", "incremental feed"), http.StatusOK, "a")
}

// TestChangeFeedHierarchicalKeys: a prefix of a hierarchical key reads
// the partitions under it, by header or by its EPK range (the MultiHash
// EPK of ["tenant1"] is 0DAE0B8467B011E957BC0B8B0DEB5ACA, partitioning.md
// §7.2, and a prefix addresses [EPK, EPK+"FF")).
func TestChangeFeedHierarchicalKeys(t *testing.T) {
	env := newCFEnv(t)
	props := azcosmos.ContainerProperties{ID: "h", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/a", "/b"}, Kind: azcosmos.PartitionKeyKindMultiHash, Version: 2}}
	if _, err := env.db.CreateContainer(bg, props, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := env.db.NewContainer("h")
	for _, it := range [][3]string{{"1", "tenant1", "u1"}, {"2", "tenant2", "u1"}, {"3", "tenant1", "u2"}} {
		pk := azcosmos.NewPartitionKeyString(it[1]).AppendString(it[2])
		if _, err := cc.CreateItem(bg, pk, mustJSON(t, map[string]any{"id": it[0], "a": it[1], "b": it[2]}), nil); err != nil {
			t.Fatal(err)
		}
	}
	wantPage(t, env.feed(t, "h", pkHeader, `["tenant1"]`), http.StatusOK, "1", "3")
	wantPage(t, env.feed(t, "h", pkHeader, `["tenant1","u2"]`), http.StatusOK, "3")
	const t1 = "0DAE0B8467B011E957BC0B8B0DEB5ACA"
	wantPage(t, env.feed(t, "h", "x-ms-documentdb-partitionkeyrangeid", "0", "x-ms-read-key-type", "EffectivePartitionKeyRange",
		"x-ms-start-epk", t1, "x-ms-end-epk", t1+"FF"), http.StatusOK, "1", "3")
}
