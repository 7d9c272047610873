package compat_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// requestRecorder records "METHOD path" of every request the SDK sends.
type requestRecorder struct {
	next *http.Client
	mu   sync.Mutex
	seen []string
}

func (c *requestRecorder) Do(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.seen = append(c.seen, req.Method+" "+req.URL.EscapedPath())
	c.mu.Unlock()
	return c.next.Do(req)
}

// take returns the requests recorded since the last call.
func (c *requestRecorder) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.seen
	c.seen = nil
	return s
}

// TestGoSDKRoundTrips: each call of a test suite's cycle through azcosmos
// (database, container, item CRUD, a single-partition query, delete) is ONE
// request on the wire once the client has read the account: a response
// that made the SDK re-read metadata or retry would double a suite's time
// and hide from every functional test.
func TestGoSDKRoundTrips(t *testing.T) {
	e := emulatortest.Start(t)
	ct := &requestRecorder{next: emulatortest.HTTPClient()}
	cred, err := azcosmos.NewKeyCredential(emulatortest.Key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(e.Endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: ct, Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	var db *azcosmos.DatabaseClient
	var c *azcosmos.ContainerClient
	steps := []struct {
		name string
		want []string // requests, in order
		do   func() error
	}{
		{"create database", []string{"POST /dbs"}, func() error {
			_, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "rt"}, nil)
			if err == nil {
				db, err = client.NewDatabase("rt")
			}
			return err
		}},
		{"create container", []string{"POST /dbs/rt/colls"}, func() error {
			_, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
			if err == nil {
				c, err = db.NewContainer("c")
			}
			return err
		}},
		{"create item", []string{"POST /dbs/rt/colls/c/docs"}, func() error {
			_, err := c.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p","n":1}`), nil)
			return err
		}},
		{"read item", []string{"GET /dbs/rt/colls/c/docs/a"}, func() error {
			_, err := c.ReadItem(ctx, pk, "a", nil)
			return err
		}},
		{"replace item", []string{"PUT /dbs/rt/colls/c/docs/a"}, func() error {
			_, err := c.ReplaceItem(ctx, pk, "a", []byte(`{"id":"a","pk":"p","n":2}`), nil)
			return err
		}},
		{"upsert item", []string{"POST /dbs/rt/colls/c/docs"}, func() error {
			_, err := c.UpsertItem(ctx, pk, []byte(`{"id":"b","pk":"p","n":3}`), nil)
			return err
		}},
		{"query one partition", []string{"POST /dbs/rt/colls/c/docs"}, func() error {
			pager := c.NewQueryItemsPager("SELECT * FROM c WHERE c.n > 1", pk, nil)
			n := 0
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					return err
				}
				n += len(page.Items)
			}
			if n != 2 {
				return fmt.Errorf("query returned %d items, want 2", n)
			}
			return nil
		}},
		{"delete item", []string{"DELETE /dbs/rt/colls/c/docs/b"}, func() error {
			_, err := c.DeleteItem(ctx, pk, "b", nil)
			return err
		}},
		{"delete database", []string{"DELETE /dbs/rt"}, func() error {
			_, err := db.Delete(ctx, nil)
			return err
		}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := ct.take()
		// The client reads the account (GET /) once, before its first
		// request; nothing else may come between.
		if len(got) > 0 && got[0] == "GET /" && s.name == steps[0].name {
			got = got[1:]
		}
		if strings.Join(got, ", ") != strings.Join(s.want, ", ") {
			t.Errorf("%s: requests %q, want %q", s.name, got, s.want)
		}
	}
}

// shapeRecorder records, per query request azcosmos sends, the headers
// that decide how the emulator pages it, and each answer's item count and
// continuation.
type shapeRecorder struct {
	next *http.Client
	mu   sync.Mutex
	seen []string
}

func (c *shapeRecorder) Do(req *http.Request) (*http.Response, error) {
	res, err := c.next.Do(req)
	if err != nil || req.Header.Get("x-ms-documentdb-query") == "" {
		return res, err
	}
	h := req.Header
	s := fmt.Sprintf("range=%q pk=%q cross=%q -> %d items=%s cont=%t", h.Get("x-ms-documentdb-partitionkeyrangeid"),
		h.Get("x-ms-documentdb-partitionkey"), h.Get("x-ms-documentdb-query-enablecrosspartition"),
		res.StatusCode, res.Header.Get("x-ms-item-count"), res.Header.Get("x-ms-continuation") != "")
	c.mu.Lock()
	c.seen = append(c.seen, s)
	c.mu.Unlock()
	return res, nil
}

func (c *shapeRecorder) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.seen
	c.seen = nil
	return s
}

// TestGoSDKQueryRoundTrips: the requests azcosmos sends for queries of 20
// items in pages of 5, and the pages it gets. Its cross-partition query
// (no partition key, no range id: the gateway serves it) keeps the
// gateway's trailing empty page, which the SDK's own TestCrossPartitionQuery
// expects (4 full pages and an empty fifth); scoped to one partition, by
// header or by a WHERE clause that pins the key, the page that holds the
// last row carries no continuation. (Query pipelines such as @azure/cosmos's
// address range "0" instead and end on the last row: TestJSQueryPaging.)
func TestGoSDKQueryRoundTrips(t *testing.T) {
	e := emulatortest.Start(t)
	rec := &shapeRecorder{next: emulatortest.HTTPClient()}
	cred, err := azcosmos.NewKeyCredential(emulatortest.Key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(e.Endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: rec, Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "rt"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("rt")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	for i := 0; i < 20; i++ {
		pk := fmt.Sprintf("p%d", i%2)
		if _, err := c.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), []byte(fmt.Sprintf(`{"id":"%02d","pk":%q}`, i, pk)), nil); err != nil {
			t.Fatal(err)
		}
	}
	// (azcosmos sends enablecrosspartition on every query)
	const cross, one = `range="" pk="" cross="true" `, `range="" pk="[\"p0\"]" cross="true" `
	const full, last, empty = `-> 200 items=5 cont=true`, `-> 200 items=5 cont=false`, `-> 200 items=0 cont=false`
	tests := []struct {
		name, query string
		pk          azcosmos.PartitionKey
		items       int
		want        []string
	}{
		{"cross-partition", "SELECT * FROM c", azcosmos.NewPartitionKey(), 20,
			[]string{cross + full, cross + full, cross + full, cross + full, cross + empty}},
		{"one partition", "SELECT * FROM c", azcosmos.NewPartitionKeyString("p0"), 10,
			[]string{one + full, one + last}},
		{"pinned by WHERE", "SELECT * FROM c WHERE c.pk = 'p0'", azcosmos.NewPartitionKey(), 10,
			[]string{cross + full, cross + last}},
	}
	rec.take()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pager := c.NewQueryItemsPager(tt.query, tt.pk, &azcosmos.QueryOptions{PageSizeHint: 5})
			n, pages := 0, 0
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				n += len(page.Items)
				pages++
			}
			got := rec.take()
			t.Logf("%d items in %d pages, %d requests", n, pages, len(got))
			if n != tt.items || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("%d items, requests:\n  %s\nwant %d items, requests:\n  %s", n, strings.Join(got, "\n  "), tt.items, strings.Join(tt.want, "\n  "))
			}
		})
	}
}
