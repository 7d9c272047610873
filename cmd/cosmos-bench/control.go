package main

import (
	"bytes"
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

// controlClient sends signed raw HTTP requests, as the SDK signs them, for
// what the Go SDK does not send: control endpoints, paged read feeds,
// query plans, queries to a partition key range, stored procedures, bulk.
type controlClient struct {
	endpoint string
	key      []byte
	http     *http.Client
}

// newControlClient returns a client of the emulator at endpoint, with its
// own connections.
func newControlClient(endpoint string) *controlClient {
	key, _ := base64.StdEncoding.DecodeString(emulatorKey)                                                // a constant
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 4} //nolint:gosec // local emulator, self-signed
	// A sweep call deletes up to 1000 batches, which can take a while.
	return &controlClient{endpoint: strings.TrimSuffix(endpoint, "/"), key: key, http: &http.Client{Timeout: 10 * time.Minute, Transport: tr}}
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
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+path, bytes.NewReader(body))
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
	if err == nil && resp.StatusCode != want {
		err = fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(b)))
	}
	return resp.Header, b, err
}

// call sends a signed request and decodes its JSON answer into out.
func (c *controlClient) call(ctx context.Context, method, path string, body []byte, out any) error {
	_, b, err := c.do(ctx, method, path, nil, body)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w (%.200s)", method, path, err, b)
	}
	return nil
}

// sweep runs one TTL sweep (POST /_emulator/ttl/sweep): up to 1000 batches
// of --ttl-sweep-batch rows, until a batch comes back short. It returns how
// many rows it deleted.
func (c *controlClient) sweep(ctx context.Context) (int, error) {
	var r struct{ Deleted int }
	err := c.call(ctx, http.MethodPost, "/_emulator/ttl/sweep", []byte("{}"), &r)
	return r.Deleted, err
}

// clockNow returns the emulator's current time (GET /_emulator/clock), which
// decides what has expired.
func (c *controlClient) clockNow(ctx context.Context) (int64, error) {
	var r struct{ Now int64 }
	err := c.call(ctx, http.MethodGet, "/_emulator/clock", nil, &r)
	return r.Now, err
}

// containerStats is one container's entry of GET /_emulator/stats.
type containerStats struct {
	Database, Container   string
	StoredRows, LiveItems int64
}

// stats returns the stored rows and live items of container db/coll (GET
// /_emulator/stats, which counts every container).
func (c *controlClient) stats(ctx context.Context, db, coll string) (containerStats, error) {
	var r struct{ Containers []containerStats }
	if err := c.call(ctx, http.MethodGet, "/_emulator/stats", nil, &r); err != nil {
		return containerStats{}, err
	}
	for _, s := range r.Containers {
		if s.Database == db && s.Container == coll {
			return s, nil
		}
	}
	return containerStats{}, fmt.Errorf("stats: no entry for %s/%s", db, coll)
}

// docsPath is the path of container db/coll's items.
func docsPath(db, coll string) string {
	return "/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/docs"
}

// pages sends the request until its answer has no continuation token,
// passing each answer to page.
func (c *controlClient) pages(ctx context.Context, method, path string, headers map[string]string, body []byte, page func(http.Header, []byte) error) error {
	for {
		h, b, err := c.do(ctx, method, path, headers, body)
		if err == nil {
			err = page(h, b)
		}
		if err != nil || h.Get("x-ms-continuation") == "" {
			return err
		}
		headers["x-ms-continuation"] = h.Get("x-ms-continuation")
	}
}

// readFeed reads the whole read feed of container db/coll (GET .../docs),
// of one logical partition when pk is not "" (a string partition key
// value), pageSize items a page. It returns how many items came back (the
// x-ms-item-count headers: the documents are not decoded).
func (c *controlClient) readFeed(ctx context.Context, db, coll, pk string, pageSize int) (items int, err error) {
	headers := map[string]string{"x-ms-max-item-count": strconv.Itoa(pageSize)}
	if pk != "" {
		k, _ := json.Marshal([]string{pk})
		headers["x-ms-documentdb-partitionkey"] = string(k)
	}
	err = c.pages(ctx, http.MethodGet, docsPath(db, coll), headers, nil, func(h http.Header, _ []byte) error {
		n, err := strconv.Atoi(h.Get("x-ms-item-count"))
		items += n
		return err
	})
	return items, err
}

// queryPlan asks for the query plan of query on container db/coll, as the
// SDKs with a query pipeline do, and returns its rewritten query, the one
// they send to each partition key range ("" when the plan has none).
func (c *controlClient) queryPlan(ctx context.Context, db, coll, query string) (string, error) {
	b, _ := json.Marshal(map[string]any{"query": query, "parameters": []any{}})
	_, resp, err := c.do(ctx, http.MethodPost, docsPath(db, coll), map[string]string{
		"content-type": "application/query+json", "x-ms-documentdb-isquery": "true",
		"x-ms-cosmos-is-query-plan-request": "True", "x-ms-cosmos-query-version": "1.4",
		"x-ms-cosmos-supported-query-features": "Aggregate, CompositeAggregate, Distinct, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, GroupBy, DCount, NonValueAggregate, MultipleAggregates",
	}, b)
	var plan struct {
		QueryInfo struct{ RewrittenQuery string }
	}
	if err == nil {
		err = json.Unmarshal(resp, &plan)
	}
	return plan.QueryInfo.RewrittenQuery, err
}

// queryRange runs query (with params, name to value) on container db/coll
// addressed to partition key range rangeID, as the SDKs with a query
// pipeline send a query after reading its plan, following the continuation
// token. It returns the documents of every page.
func (c *controlClient) queryRange(ctx context.Context, db, coll, rangeID, query string, params map[string]any) (docs []json.RawMessage, err error) {
	ps := []map[string]any{}
	for name, v := range params {
		ps = append(ps, map[string]any{"name": name, "value": v})
	}
	b, _ := json.Marshal(map[string]any{"query": query, "parameters": ps})
	headers := map[string]string{"content-type": "application/query+json", "x-ms-documentdb-isquery": "true",
		"x-ms-documentdb-query-enablecrosspartition": "true", "x-ms-documentdb-partitionkeyrangeid": rangeID}
	err = c.pages(ctx, http.MethodPost, docsPath(db, coll), headers, b, func(_ http.Header, body []byte) error {
		var page struct{ Documents []json.RawMessage }
		err := json.Unmarshal(body, &page)
		docs = append(docs, page.Documents...)
		return err
	})
	return docs, err
}
