package main

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// controlClient sends signed raw HTTP requests to the emulator: its control
// endpoints (TTL sweeps, clock, stats), read feeds, which the Go SDK
// cannot page through with a partition key and a page size of our choice,
// and queries addressed to a partition key range, which the Go SDK never
// sends (it has no query pipeline).
// Requests are signed with the master key like the SDK's, the signed
// resource type and link following the generic rule of the path.
type controlClient struct {
	endpoint string
	key      []byte
	http     *http.Client
}

// newControlClient returns a client of the emulator at endpoint, with its
// own connections (HTTP/1.1 unless http1 is false and the emulator offers h2).
func newControlClient(endpoint string, http1 bool) (*controlClient, error) {
	key, err := base64.StdEncoding.DecodeString(emulatorKey)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // local emulator with a self-signed certificate
		ForceAttemptHTTP2:   !http1,
		MaxIdleConnsPerHost: 4,
	}
	if http1 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	// A sweep call deletes up to 1000 batches, which can take a while.
	return &controlClient{endpoint: strings.TrimSuffix(endpoint, "/"), key: key, http: &http.Client{Timeout: 10 * time.Minute, Transport: tr}}, nil
}

// close drops the client's idle connections.
func (c *controlClient) close() { c.http.CloseIdleConnections() }

// do sends a signed request for the escaped path with the extra headers and
// returns the response (its body read whole) or an error for a status other
// than 200.
func (c *controlClient) do(ctx context.Context, method, path string, headers map[string]string, body []byte) (http.Header, []byte, error) {
	return c.doExpect(ctx, http.StatusOK, method, path, headers, body)
}

// doExpect is do expecting the status want instead of 200.
func (c *controlClient) doExpect(ctx context.Context, want int, method, path string, headers map[string]string, body []byte) (http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+path, rd)
	if err != nil {
		return nil, nil, err
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	typ, link := wire.ResourceTypeAndLink(path)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("authorization", wire.MasterAuthorization(c.key, method, typ, link, date))
	if body != nil {
		req.Header.Set("content-type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != want {
		return nil, nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(b)))
	}
	return resp.Header, b, nil
}

// sweep runs one TTL sweep (POST /_emulator/ttl/sweep): up to 1000 batches
// of --ttl-sweep-batch rows, until a batch comes back short. It returns how
// many rows it deleted.
func (c *controlClient) sweep(ctx context.Context) (int, error) {
	_, b, err := c.do(ctx, http.MethodPost, "/_emulator/ttl/sweep", nil, []byte("{}"))
	if err != nil {
		return 0, err
	}
	var r struct {
		Deleted *int `json:"deleted"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Deleted == nil {
		return 0, fmt.Errorf("sweep: unexpected response %q", b)
	}
	return *r.Deleted, nil
}

// clockNow returns the emulator's current time (GET /_emulator/clock), which
// decides what has expired.
func (c *controlClient) clockNow(ctx context.Context) (int64, error) {
	_, b, err := c.do(ctx, http.MethodGet, "/_emulator/clock", nil, nil)
	if err != nil {
		return 0, err
	}
	var r struct {
		Now int64 `json:"now"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Now == 0 {
		return 0, fmt.Errorf("clock: unexpected response %q", b)
	}
	return r.Now, nil
}

// containerStats is one container's entry of GET /_emulator/stats.
type containerStats struct {
	Database   string `json:"database"`
	Container  string `json:"container"`
	StoredRows int64  `json:"storedRows"`
	LiveItems  int64  `json:"liveItems"`
}

// stats returns the stored rows and live items of container db/coll (GET
// /_emulator/stats, which counts every container).
func (c *controlClient) stats(ctx context.Context, db, coll string) (containerStats, error) {
	_, b, err := c.do(ctx, http.MethodGet, "/_emulator/stats", nil, nil)
	if err != nil {
		return containerStats{}, err
	}
	var r struct {
		Containers []containerStats `json:"containers"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return containerStats{}, fmt.Errorf("stats: %w", err)
	}
	for _, s := range r.Containers {
		if s.Database == db && s.Container == coll {
			return s, nil
		}
	}
	return containerStats{}, fmt.Errorf("stats: no entry for %s/%s in %s", db, coll, b)
}

// readFeed reads the whole read feed of container db/coll (GET
// /dbs/{db}/colls/{coll}/docs), of one logical partition when pk is not
// "" (a string partition key value), pageSize items a page, following the
// continuation token. It returns how many items and pages came back. The
// documents are not decoded: the count is the x-ms-item-count header.
func (c *controlClient) readFeed(ctx context.Context, db, coll, pk string, pageSize int) (items, pages int, err error) {
	path := "/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/docs"
	headers := map[string]string{"x-ms-max-item-count": strconv.Itoa(pageSize)}
	if pk != "" {
		k, _ := json.Marshal([]string{pk})
		headers["x-ms-documentdb-partitionkey"] = string(k)
	}
	for {
		h, _, err := c.do(ctx, http.MethodGet, path, headers, nil)
		if err != nil {
			return items, pages, err
		}
		pages++
		n, err := strconv.Atoi(h.Get("x-ms-item-count"))
		if err != nil {
			return items, pages, fmt.Errorf("read feed: bad x-ms-item-count %q", h.Get("x-ms-item-count"))
		}
		items += n
		cont := h.Get("x-ms-continuation")
		if cont == "" {
			return items, pages, nil
		}
		headers["x-ms-continuation"] = cont
	}
}

// queryPlan asks for the query plan of query on container db/coll, as the
// SDKs with a query pipeline do (POST .../docs with
// x-ms-cosmos-is-query-plan-request), and returns its rewritten query, the
// one they send to each partition key range ("" when the plan has none: the
// original query goes as it is).
func (c *controlClient) queryPlan(ctx context.Context, db, coll, query string) (string, error) {
	b, err := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
	if err != nil {
		return "", err
	}
	path := "/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/docs"
	headers := map[string]string{
		"content-type":                         "application/query+json",
		"x-ms-documentdb-isquery":              "true",
		"x-ms-cosmos-is-query-plan-request":    "True",
		"x-ms-cosmos-query-version":            "1.4",
		"x-ms-cosmos-supported-query-features": "Aggregate, CompositeAggregate, Distinct, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, GroupBy, DCount, NonValueAggregate, MultipleAggregates",
	}
	_, resp, err := c.do(ctx, http.MethodPost, path, headers, b)
	if err != nil {
		return "", err
	}
	var plan struct {
		QueryInfo struct {
			RewrittenQuery string `json:"rewrittenQuery"`
		} `json:"queryInfo"`
	}
	if err := json.Unmarshal(resp, &plan); err != nil {
		return "", fmt.Errorf("query plan: %w", err)
	}
	return plan.QueryInfo.RewrittenQuery, nil
}

// queryRange runs query (with params, name to value) on container db/coll
// addressed to partition key range rangeID, as the JS, .NET and Java SDKs
// send a query after reading its query plan: POST .../docs with the query
// headers and x-ms-documentdb-partitionkeyrangeid, following the
// continuation token. It returns the documents of every page and the number
// of pages.
func (c *controlClient) queryRange(ctx context.Context, db, coll, rangeID, query string, params map[string]any) (docs []json.RawMessage, pages int, err error) {
	type param struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	body := struct {
		Query      string  `json:"query"`
		Parameters []param `json:"parameters"`
	}{Query: query, Parameters: []param{}}
	for name, v := range params {
		body.Parameters = append(body.Parameters, param{name, v})
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, 0, err
	}
	path := "/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/docs"
	headers := map[string]string{
		"content-type":                               "application/query+json",
		"x-ms-documentdb-isquery":                    "true",
		"x-ms-documentdb-query-enablecrosspartition": "true",
		"x-ms-documentdb-partitionkeyrangeid":        rangeID,
	}
	for {
		h, resp, err := c.do(ctx, http.MethodPost, path, headers, b)
		if err != nil {
			return docs, pages, err
		}
		pages++
		var page struct {
			Documents []json.RawMessage `json:"Documents"`
		}
		if err := json.Unmarshal(resp, &page); err != nil {
			return docs, pages, fmt.Errorf("query: decoding page %d: %w", pages, err)
		}
		docs = append(docs, page.Documents...)
		cont := h.Get("x-ms-continuation")
		if cont == "" {
			return docs, pages, nil
		}
		headers["x-ms-continuation"] = cont
	}
}
