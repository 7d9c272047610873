package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// startTCPProxy forwards every TCP connection on a new loopback port to
// target (host:port), byte for byte, as a container engine's published
// port does (docker run -p N:8081): the client dials the proxy's port, TLS
// and HTTP pass through untouched. It returns the proxy's host:port.
func startTCPProxy(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			wg.Add(2)
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				_, _ = io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
			}
			go pipe(out, in)
			go pipe(in, out)
		}
	}()
	return ln.Addr().String()
}

// hostOf returns the host:port of an endpoint URL.
func hostOf(t *testing.T, endpoint string) string {
	t.Helper()
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// countingTransport records the host:port of every request an SDK sends.
type countingTransport struct {
	mu    sync.Mutex
	hosts []string
	next  http.RoundTripper
}

func (c *countingTransport) Do(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.hosts = append(c.hosts, r.Method+" "+r.URL.Host+r.URL.EscapedPath())
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

func (c *countingTransport) log() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.hosts...)
}

// TestMappedPort: behind a published port (a TCP proxy on another port, as
// docker -p or the testcontainers modules map 8081 to a random host port),
// GET / advertises, in writableLocations and readableLocations, the
// endpoint the client dialled (scheme served, Host sent), not the
// emulator's listen address; so the Go SDK (https) and the JS SDK (http)
// keep every request on the mapped port, one request per call. Were the
// listen address advertised, the SDKs would follow it around the proxy
// and the counts below would miss those requests.
func TestMappedPort(t *testing.T) {
	t.Parallel()
	t.Run("GET / over https and http", func(t *testing.T) {
		for _, proto := range []string{"https", "http"} {
			e := emulatortest.Start(t, emulatortest.WithProtocol(proto))
			mapped := startTCPProxy(t, hostOf(t, e.Endpoint))
			resp, err := emulatortest.HTTPClient().Get(proto + "://" + mapped + "/") //nolint:noctx
			if err != nil {
				t.Fatal(err)
			}
			var acct map[string]any
			err = json.NewDecoder(resp.Body).Decode(&acct)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s GET / through %s: %d %v", proto, mapped, resp.StatusCode, err)
			}
			want := proto + "://" + mapped + "/"
			for _, k := range []string{"writableLocations", "readableLocations"} {
				locs, _ := acct[k].([]any)
				if len(locs) != 1 || locs[0].(map[string]any)["databaseAccountEndpoint"] != want {
					t.Errorf("%s %s = %v, want one location at %s (listening on %s)", proto, k, acct[k], want, e.Endpoint)
				}
			}
		}
	})

	t.Run("Go SDK", func(t *testing.T) {
		e := emulatortest.Start(t)
		mapped := startTCPProxy(t, hostOf(t, e.Endpoint))
		ct := &countingTransport{next: emulatortest.HTTPClient().Transport}
		cred, _ := azcosmos.NewKeyCredential(emulatortest.Key)
		client, err := azcosmos.NewClientWithKey("https://"+mapped+"/", cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
			Transport: ct, Retry: policy.RetryOptions{MaxRetries: -1}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "mapped"}, nil); err != nil {
			t.Fatal(err)
		}
		db, _ := client.NewDatabase("mapped")
		if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
			PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
			t.Fatal(err)
		}
		c, _ := db.NewContainer("c")
		pk := azcosmos.NewPartitionKeyString("p")
		if _, err := c.CreateItem(ctx, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadItem(ctx, pk, "a", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteItem(ctx, pk, "a", nil); err != nil {
			t.Fatal(err)
		}
		_, err = c.ReadItem(ctx, pk, "a", nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusNotFound {
			t.Fatalf("read after delete: %v, want 404", err)
		}
		want := []string{
			"GET " + mapped + "/", // the client's account read
			"POST " + mapped + "/dbs",
			"POST " + mapped + "/dbs/mapped/colls",
			"POST " + mapped + "/dbs/mapped/colls/c/docs",
			"GET " + mapped + "/dbs/mapped/colls/c/docs/a",
			"DELETE " + mapped + "/dbs/mapped/colls/c/docs/a",
			"GET " + mapped + "/dbs/mapped/colls/c/docs/a",
		}
		if got := ct.log(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("the Go SDK sent\n  %q\nwant\n  %q", got, want)
		}
	})

	t.Run("JS SDK", func(t *testing.T) {
		node, dir := jsSDK(t)
		e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
		// node -> published port (TCP) -> counting proxy (keeps the Host
		// the client sent) -> emulator.
		proxy, counted := startCountingProxy(t, e.Endpoint)
		mapped := startTCPProxy(t, hostOf(t, counted))
		checkJSRoundTrips(t, node, dir, "http://"+mapped+"/", proxy)
	})
}
