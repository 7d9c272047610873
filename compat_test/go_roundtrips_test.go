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

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
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
