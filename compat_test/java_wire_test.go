package compat_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Regression tests for what the Java SDK (azure-cosmos, gateway mode;
// compat_test/java) found, at the wire level.

// TestQueryMetricsOnlyWhenAskedWithEveryMember: x-ms-documentdb-query-metrics
// comes only with x-ms-documentdb-populatequerymetrics: true, as from the
// service, and then carries every member the Java SDK reads without a null
// check (QueryMetrics.createFromDelimitedStringAndClientSideMetrics): a
// partial header sent on every query page made each Java query fail with a
// NullPointerException.
func TestQueryMetricsOnlyWhenAskedWithEveryMember(t *testing.T) {
	f := newFixture(t)
	wantStatus(t, f.raw.do("POST", "/dbs", []byte(`{"id":"qm"}`)), http.StatusCreated)
	wantStatus(t, f.raw.do("POST", "/dbs/qm/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)), http.StatusCreated)
	wantStatus(t, f.raw.do("POST", docsPath("qm", "c"), []byte(`{"id":"1","pk":"a"}`), pkHeader, `["a"]`), http.StatusCreated)
	query := []byte(`{"query":"SELECT * FROM c"}`)
	hdr := []string{"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", pkHeader, `["a"]`}
	for _, tt := range []struct {
		name     string
		populate string
		want     bool
	}{
		{"not asked", "", false},
		{"asked false", "false", false},
		{"asked", "true", true},
		{"asked True", "True", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := hdr
			if tt.populate != "" {
				h = append(append([]string{}, hdr...), "x-ms-documentdb-populatequerymetrics", tt.populate)
			}
			r := f.rawFor(t).do("POST", docsPath("qm", "c"), query, h...)
			wantStatus(t, r, http.StatusOK)
			v := r.Header.Get("x-ms-documentdb-query-metrics")
			if !tt.want {
				if v != "" {
					t.Fatalf("query metrics %q sent unasked", v)
				}
				return
			}
			got := map[string]float64{}
			for _, kv := range strings.Split(v, ";") {
				k, val, ok := strings.Cut(kv, "=")
				n, err := strconv.ParseFloat(val, 64)
				if !ok || err != nil {
					t.Fatalf("malformed member %q in %q", kv, v)
				}
				got[k] = n
			}
			for _, k := range []string{"totalExecutionTimeInMs", "queryCompileTimeInMs", "queryLogicalPlanBuildTimeInMs",
				"queryPhysicalPlanBuildTimeInMs", "queryOptimizationTimeInMs", "VMExecutionTimeInMs", "indexLookupTimeInMs",
				"documentLoadTimeInMs", "systemFunctionExecuteTimeInMs", "userFunctionExecuteTimeInMs", "retrievedDocumentCount",
				"retrievedDocumentSize", "outputDocumentCount", "outputDocumentSize", "writeOutputTimeInMs", "indexUtilizationRatio"} {
				if _, ok := got[k]; !ok {
					t.Errorf("query metrics %q lack %s", v, k)
				}
			}
			if got["outputDocumentCount"] != 1 || got["retrievedDocumentCount"] < 1 {
				t.Errorf("query metrics %q: want 1 output document", v)
			}
		})
	}
}

// TestRIDAddressedContainerSignedByLowerCasedRID: the Java SDK replaces a
// container through its _self link (/dbs/{dbRid}/colls/{collRid}) and signs
// the lower-cased container RID alone (BaseAuthorizationTokenProvider
// lower-cases every link that is not name based); that was a 401.
func TestRIDAddressedContainerSignedByLowerCasedRID(t *testing.T) {
	f := newFixture(t)
	wantStatus(t, f.raw.do("POST", "/dbs", []byte(`{"id":"rid"}`)), http.StatusCreated)
	r := f.raw.do("POST", "/dbs/rid/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`))
	wantStatus(t, r, http.StatusCreated)
	coll := object(t, r.Body)
	self, _ := coll["_self"].(string)
	collRID, _ := coll["_rid"].(string)
	if b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(collRID, "-", "/")); err != nil || len(b) != 8 || !strings.HasPrefix(self, "dbs/") {
		t.Fatalf("container _rid %q, _self %q", collRID, self)
	}
	path := "/" + strings.TrimSuffix(self, "/")
	body := []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2},"defaultTtl":60}`)
	date := rfc1123(time.Now())
	sign := func(link string) string {
		return url.QueryEscape("type=master&ver=1.0&sig=" + signature(masterKey(t), "PUT", "colls", link, date))
	}
	for _, tt := range []struct {
		name, link string
		status     int
	}{
		{"lower-cased RID", strings.ToLower(collRID), http.StatusOK},
		{"RID as is", collRID, http.StatusUnauthorized},
		{"database RID", strings.ToLower(strings.Split(self, "/")[1]), http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := f.rawFor(t).req("PUT", path, body)
			req.Header.Set("x-ms-date", date)
			req.Header.Set("Authorization", sign(tt.link))
			wantStatus(t, f.rawFor(t).send(req), tt.status)
		})
	}
}

// TestChangeFeedSessionTokenIsLatestLSN: a change feed page's session
// token names the latest LSN, not the page's: the Java change feed
// processor's estimator computes a lease's lag as that LSN minus the first
// unread document's _lsn, plus one, and reported 1 for 7 unread writes.
func TestChangeFeedSessionTokenIsLatestLSN(t *testing.T) {
	f := newFixture(t)
	wantStatus(t, f.raw.do("POST", "/dbs", []byte(`{"id":"cfs"}`)), http.StatusCreated)
	wantStatus(t, f.raw.do("POST", "/dbs/cfs/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)), http.StatusCreated)
	var last string
	for i := range 7 {
		r := f.raw.do("POST", docsPath("cfs", "c"), []byte(`{"id":"`+strconv.Itoa(i)+`","pk":"a"}`), pkHeader, `["a"]`)
		wantStatus(t, r, http.StatusCreated)
		last = r.Header.Get("x-ms-session-token")
	}
	lsnOf := func(token string) int64 {
		_, s, _ := strings.Cut(token, "#")
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("session token %q", token)
		}
		return n
	}
	for _, tt := range []struct{ name, rangeHdr string }{{"range 0", "0"}, {"whole container", ""}} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := []string{"A-IM", "Incremental feed", "x-ms-max-item-count", "1"}
			if tt.rangeHdr != "" {
				hdr = append(hdr, "x-ms-documentdb-partitionkeyrangeid", tt.rangeHdr)
			}
			r := f.rawFor(t).do("GET", docsPath("cfs", "c"), nil, hdr...)
			wantStatus(t, r, http.StatusOK)
			var page struct {
				Documents []struct {
					LSN int64 `json:"_lsn"`
				}
			}
			if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Documents) != 1 {
				t.Fatalf("page %s: %v", r.Body, err)
			}
			token := r.Header.Get("x-ms-session-token")
			if got, want := lsnOf(token), lsnOf(last); got != want {
				t.Fatalf("session token %q after the last write's %q: the page's LSN, not the latest", token, last)
			}
			if lag := lsnOf(token) - page.Documents[0].LSN + 1; lag != 7 {
				t.Fatalf("estimated lag %d, want 7", lag)
			}
		})
	}
}

// TestChangeFeedLatestVersionWireFormatEntries: with
// x-ms-cosmos-changefeed-wire-format-version: 2021-09-15 the latest-version
// feed answers each change as {"current": document, "metadata": {"lsn",
// "crts"}}, the form the Java SDK's change feed processor for latest
// versions (handleLatestVersionChanges) reads; without the header, bare
// documents. The processor got bare documents and never handed on a change.
func TestChangeFeedLatestVersionWireFormatEntries(t *testing.T) {
	f := newFixture(t)
	wantStatus(t, f.raw.do("POST", "/dbs", []byte(`{"id":"cfw"}`)), http.StatusCreated)
	wantStatus(t, f.raw.do("POST", "/dbs/cfw/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}`)), http.StatusCreated)
	wantStatus(t, f.raw.do("POST", docsPath("cfw", "c"), []byte(`{"id":"1","pk":"a","v":1}`), pkHeader, `["a"]`), http.StatusCreated)
	for _, tt := range []struct {
		name, version string
		entries       bool
	}{
		{"no wire format", "", false},
		{"2021-09-15", "2021-09-15", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := []string{"A-IM", "Incremental feed", "x-ms-documentdb-partitionkeyrangeid", "0"}
			if tt.version != "" {
				hdr = append(hdr, "x-ms-cosmos-changefeed-wire-format-version", tt.version)
			}
			r := f.rawFor(t).do("GET", docsPath("cfw", "c"), nil, hdr...)
			wantStatus(t, r, http.StatusOK)
			var page struct {
				Documents []map[string]json.RawMessage
			}
			if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Documents) != 1 {
				t.Fatalf("page %s: %v", r.Body, err)
			}
			d := page.Documents[0]
			if !tt.entries {
				if string(d["id"]) != `"1"` || d["current"] != nil {
					t.Fatalf("want the bare document, got %s", r.Body)
				}
				return
			}
			var cur struct {
				ID  string `json:"id"`
				V   int    `json:"v"`
				LSN int64  `json:"_lsn"`
			}
			var meta struct {
				LSN  int64 `json:"lsn"`
				CRTS int64 `json:"crts"`
			}
			if json.Unmarshal(d["current"], &cur) != nil || json.Unmarshal(d["metadata"], &meta) != nil {
				t.Fatalf("want {current, metadata}, got %s", r.Body)
			}
			if cur.ID != "1" || cur.V != 1 || meta.LSN != cur.LSN || meta.LSN == 0 || meta.CRTS < time.Now().Add(-time.Hour).Unix() {
				t.Fatalf("entry %s", r.Body)
			}
		})
	}
}
