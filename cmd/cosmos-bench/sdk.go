package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// emulatorKey is the emulator's well-known master key (its default --key).
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// httpCount is the context key of an *int that countingTransport
// increments for each request sent with that context.
type httpCount struct{}

// countingTransport is the SDK's transport: it sends requests with an
// http.Client and counts them in the context's httpCount.
type countingTransport struct{ c *http.Client }

// Do implements azcore's policy.Transporter.
func (t countingTransport) Do(req *http.Request) (*http.Response, error) {
	if n, ok := req.Context().Value(httpCount{}).(*int); ok {
		*n++
	}
	return t.c.Do(req)
}

// counted calls f with a context that counts the requests it sends, and
// returns how long f took and that count.
func counted(ctx context.Context, f func(ctx context.Context) error) (time.Duration, int, error) {
	var n int
	t0 := time.Now()
	err := f(context.WithValue(ctx, httpCount{}, &n))
	return time.Since(t0), n, err
}

// newSDKClient returns an SDK client of the emulator at endpoint (its
// self-signed certificate trusted), and the http.Client under it. The SDK
// does not retry, so errors show up instead of latency.
func newSDKClient(endpoint string) (*azcosmos.Client, *http.Client, error) {
	cred, err := azcosmos.NewKeyCredential(emulatorKey)
	if err != nil {
		return nil, nil, err
	}
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 2}} //nolint:gosec // local emulator, self-signed
	client, err := azcosmos.NewClientWithKey(endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: countingTransport{hc}, Retry: policy.RetryOptions{MaxRetries: -1}},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("SDK client: %w", err)
	}
	return client, hc, nil
}

// newDatabaseID returns a fresh database id for a run.
func newDatabaseID() string {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return "cosmos-bench-" + hex.EncodeToString(suffix)
}

// sdkBench runs point operations through the official Go SDK on a
// container "items" partitioned on /pk.
type sdkBench struct {
	endpoint  string
	http      *http.Client
	db        *azcosmos.DatabaseClient
	container *azcosmos.ContainerClient
}

// op returns an opFunc that runs f on item i.
func (b *sdkBench) op(items *itemSet, f func(ctx context.Context, it *item, pk azcosmos.PartitionKey) error) opFunc {
	return func(ctx context.Context, i int) error {
		it := items.get(i)
		return f(ctx, it, azcosmos.NewPartitionKeyString(it.pk))
	}
}

// create creates item i (the SDK's default for writes is Prefer:
// return=minimal, so no body comes back).
func (b *sdkBench) create(items *itemSet) opFunc {
	return b.op(items, func(ctx context.Context, it *item, pk azcosmos.PartitionKey) error {
		_, err := b.container.CreateItem(ctx, pk, it.body, nil)
		return err
	})
}

// read reads item i.
func (b *sdkBench) read(items *itemSet) opFunc {
	return b.op(items, func(ctx context.Context, it *item, pk azcosmos.PartitionKey) error {
		resp, err := b.container.ReadItem(ctx, pk, it.id, nil)
		if err == nil && len(resp.Value) == 0 {
			err = errors.New("empty body")
		}
		return err
	})
}

// query runs SELECT * FROM c WHERE c.id = @id with item i's partition key:
// a single-partition query returning one item, the query a test suite
// most often sends where a point read would do.
func (b *sdkBench) query(items *itemSet) opFunc {
	return b.op(items, func(ctx context.Context, it *item, pk azcosmos.PartitionKey) error {
		docs, _, err := sdkQuery(ctx, b.container, "SELECT * FROM c WHERE c.id = @id", pk, []azcosmos.QueryParameter{{Name: "@id", Value: it.id}})
		if err == nil && len(docs) != 1 {
			err = fmt.Errorf("query by id returned %d items", len(docs))
		}
		return err
	})
}

// replace replaces item i with its replacement body.
func (b *sdkBench) replace(items *itemSet) opFunc {
	return b.op(items, func(ctx context.Context, it *item, pk azcosmos.PartitionKey) error {
		_, err := b.container.ReplaceItem(ctx, pk, it.id, it.replacement, nil)
		return err
	})
}

// health sends GET /_emulator/health with the SDK's http.Client, bypassing
// the SDK: no signature, no routing to a resource, no SQL but a PostgreSQL
// ping at most. Its latency is the floor of any request: loopback, TLS,
// HTTP and the emulator's HTTP stack.
func (b *sdkBench) health() opFunc {
	url := strings.TrimSuffix(b.endpoint, "/") + "/_emulator/health"
	return func(ctx context.Context, _ int) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := b.http.Do(req)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("health: %s", resp.Status)
		}
		return err
	}
}
