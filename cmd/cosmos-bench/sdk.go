package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// emulatorKey is the emulator's well-known master key (its default --key).
const emulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// sdkBench runs point operations through the official Go SDK against a
// database and container it creates for the run.
type sdkBench struct {
	endpoint  string
	http      *http.Client
	db        *azcosmos.DatabaseClient
	container *azcosmos.ContainerClient
	proto     atomic.Value // string: the protocol of the last health response
}

// httpTimeKey is the context key under which an operation passes a
// *time.Duration for timingTransport to add its time to.
type httpTimeKey struct{}

// timingTransport is the SDK's transport: it sends requests with an
// http.Client and adds the time from sending a request to having read its
// whole response body to the *time.Duration in the request's context, which
// separates the HTTP round trip (network, TLS and the emulator's work) from
// the SDK's own client-side work.
type timingTransport struct{ c *http.Client }

// Do implements azcore's policy.Transporter.
func (t timingTransport) Do(req *http.Request) (*http.Response, error) {
	t0 := time.Now()
	resp, err := t.c.Do(req)
	if err == nil {
		var body []byte
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	if p, ok := req.Context().Value(httpTimeKey{}).(*time.Duration); ok {
		*p += time.Since(t0)
	}
	if n, ok := req.Context().Value(httpCountKey{}).(*int); ok {
		*n++
	}
	return resp, err
}

// httpCountKey is the context key under which an operation passes an *int
// that timingTransport increments for every request it sends: the requests
// on the wire of the operation.
type httpCountKey struct{}

// counted calls f with a context that counts the requests it sends, and
// returns how long f took and that count.
func counted(ctx context.Context, f func(ctx context.Context) error) (time.Duration, int, error) {
	var n int
	t0 := time.Now()
	err := f(context.WithValue(ctx, httpCountKey{}, &n))
	return time.Since(t0), n, err
}

// timed calls f with a context that collects its HTTP time, and returns that
// time.
func timed(ctx context.Context, f func(ctx context.Context) error) (time.Duration, error) {
	var d time.Duration
	err := f(context.WithValue(ctx, httpTimeKey{}, &d))
	return d, err
}

// newSDKClient returns an SDK client of the emulator at endpoint, and the
// http.Client under it. clients sizes the connection pool; http1 turns
// HTTP/2 off. The SDK does not retry, so errors show up instead of latency.
func newSDKClient(endpoint string, clients int, http1 bool) (*azcosmos.Client, *http.Client, error) {
	cred, err := azcosmos.NewKeyCredential(emulatorKey)
	if err != nil {
		return nil, nil, err
	}
	// Trust the emulator's self-signed certificate, as emulatortest does.
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // local emulator with a self-signed certificate
		ForceAttemptHTTP2:   !http1,
		MaxIdleConnsPerHost: clients + 1,
	}
	if http1 {
		// A non-nil empty map keeps the transport from negotiating h2.
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	httpClient := &http.Client{Timeout: time.Minute, Transport: tr}
	client, err := azcosmos.NewClientWithKey(endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{
			Transport: timingTransport{httpClient},
			// Fail rather than retry, so errors show up instead of latency.
			Retry: policy.RetryOptions{MaxRetries: -1},
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("SDK client: %w", err)
	}
	return client, httpClient, nil
}

// newDatabaseID returns a fresh database id for a run.
func newDatabaseID() string {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return "cosmos-bench-" + hex.EncodeToString(suffix)
}

// newSDKBench connects to the emulator at endpoint and creates a database
// with a container partitioned on /pk. clients sizes the connection pool;
// http1 turns HTTP/2 off.
func newSDKBench(ctx context.Context, endpoint string, clients int, http1 bool) (*sdkBench, error) {
	client, httpClient, err := newSDKClient(endpoint, clients, http1)
	if err != nil {
		return nil, err
	}
	dbID := newDatabaseID()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
		return nil, fmt.Errorf("SDK: creating database %s: %w", dbID, err)
	}
	b := &sdkBench{endpoint: endpoint, http: httpClient}
	if b.db, err = client.NewDatabase(dbID); err != nil {
		return nil, err
	}
	props := azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := b.db.CreateContainer(ctx, props, nil); err != nil {
		return nil, errors.Join(fmt.Errorf("SDK: creating container: %w", err), b.close(ctx))
	}
	if b.container, err = b.db.NewContainer("items"); err != nil {
		return nil, errors.Join(err, b.close(ctx))
	}
	return b, nil
}

// close deletes the run's database (with its container and items).
func (b *sdkBench) close(ctx context.Context) error {
	if _, err := b.db.Delete(ctx, nil); err != nil {
		return fmt.Errorf("SDK: deleting the benchmark database: %w", err)
	}
	return nil
}

// create creates item i. The SDK's default for writes is Prefer:
// return=minimal, so no body comes back.
func (b *sdkBench) create(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		return timed(ctx, func(ctx context.Context) error {
			_, err := b.container.CreateItem(ctx, azcosmos.NewPartitionKeyString(it.pk), it.body, nil)
			return err
		})
	}
}

// read reads item i.
func (b *sdkBench) read(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		return timed(ctx, func(ctx context.Context) error {
			resp, err := b.container.ReadItem(ctx, azcosmos.NewPartitionKeyString(it.pk), it.id, nil)
			if err == nil && len(resp.Value) == 0 {
				err = errors.New("empty body")
			}
			return err
		})
	}
}

// query runs SELECT * FROM c WHERE c.id = @id with item i's partition key
// set: a single-partition query returning one item, the query a test suite
// most often sends where a point read would do. Its p50 against the read's
// p50 in the same run is the query path's own overhead.
func (b *sdkBench) query(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		return timed(ctx, func(ctx context.Context) error {
			pager := b.container.NewQueryItemsPager("SELECT * FROM c WHERE c.id = @id", azcosmos.NewPartitionKeyString(it.pk),
				&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@id", Value: it.id}}})
			n := 0
			for pager.More() {
				page, err := pager.NextPage(ctx)
				if err != nil {
					return err
				}
				n += len(page.Items)
			}
			if n != 1 {
				return fmt.Errorf("query by id returned %d items", n)
			}
			return nil
		})
	}
}

// replace replaces item i with its replacement body.
func (b *sdkBench) replace(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		return timed(ctx, func(ctx context.Context) error {
			_, err := b.container.ReplaceItem(ctx, azcosmos.NewPartitionKeyString(it.pk), it.id, it.replacement, nil)
			return err
		})
	}
}

// protocol returns the HTTP version the health requests used ("HTTP/2.0" or
// "HTTP/1.1"; the SDK's requests share their transport), or "" before any.
func (b *sdkBench) protocol() string {
	p, _ := b.proto.Load().(string)
	return p
}

// health sends GET /_emulator/health with the SDK's http.Client, bypassing
// the SDK: no signature, no routing to a resource, no SQL but a PostgreSQL
// ping (the health check's). Its latency is the floor of any request:
// loopback, TLS, HTTP and the emulator's HTTP stack, plus one ping.
func (b *sdkBench) health() opFunc {
	url := strings.TrimSuffix(b.endpoint, "/") + "/_emulator/health"
	return func(ctx context.Context, _ int) (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		resp, err := b.http.Do(req)
		if err != nil {
			return 0, err
		}
		b.proto.Store(resp.Proto)
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("health: %s", resp.Status)
		}
		return 0, err
	}
}
