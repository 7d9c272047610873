package cosmoscontainer_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/cosmos-emulator/cosmos-emulator/cosmoscontainer"
)

// repoRoot is the build context of the repository's Dockerfile.
const repoRoot = ".."

// dockerDecision says what a test needing Docker does given the engine's
// health check result: run; skip (no engine, not required); or fail (no
// engine although CI=true and COSMOS_DOCKER_TESTS=1 require one).
func dockerDecision(engineErr error, ci, required string) (skip, fail bool) {
	if engineErr == nil {
		return false, false
	}
	if ci == "true" && required == "1" {
		return false, true
	}
	return true, false
}

func TestDockerDecision(t *testing.T) {
	down := errors.New("cannot connect to the Docker daemon")
	tests := []struct {
		name         string
		err          error
		ci, required string
		skip, fail   bool
	}{
		{"engine up", nil, "", "", false, false},
		{"engine up in CI", nil, "true", "1", false, false},
		{"no engine locally", down, "", "", true, false},
		{"no engine in CI, not required", down, "true", "", true, false},
		{"no engine, required outside CI", down, "", "1", true, false},
		{"no engine, required in CI", down, "true", "1", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			skip, fail := dockerDecision(tc.err, tc.ci, tc.required)
			if skip != tc.skip || fail != tc.fail {
				t.Fatalf("dockerDecision = skip %v, fail %v; want %v, %v", skip, fail, tc.skip, tc.fail)
			}
		})
	}
}

// requireDocker skips the test without a Docker engine, or fails it when
// CI requires one (dockerDecision).
func requireDocker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := testcontainers.NewDockerProvider()
	if err == nil {
		err = p.Health(ctx)
		p.Close()
	}
	skip, fail := dockerDecision(err, os.Getenv("CI"), os.Getenv("COSMOS_DOCKER_TESTS"))
	if fail {
		t.Fatalf("CI=true and COSMOS_DOCKER_TESTS=1 but no Docker engine answers: %v", err)
	}
	if skip {
		t.Skipf("no Docker engine: %v", err)
	}
}

// buildArgs parses COSMOS_DOCKER_BUILD_ARGS: NAME=VALUE pairs separated by
// white space (values such as GOPROXY hold commas).
func buildArgs(t *testing.T) map[string]string {
	t.Helper()
	args := map[string]string{}
	for _, kv := range strings.Fields(os.Getenv("COSMOS_DOCKER_BUILD_ARGS")) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("COSMOS_DOCKER_BUILD_ARGS: %q is not NAME=VALUE", kv)
		}
		args[k] = v
	}
	return args
}

// run starts the image under test (COSMOS_EMULATOR_IMAGE, else one built
// from the repository's Dockerfile) and terminates it after the test.
func run(t *testing.T, opts ...testcontainers.ContainerCustomizer) *cosmoscontainer.Container {
	t.Helper()
	requireDocker(t)
	img := os.Getenv("COSMOS_EMULATOR_IMAGE")
	if img == "" {
		opts = append([]testcontainers.ContainerCustomizer{cosmoscontainer.WithDockerfile(repoRoot, buildArgs(t))}, opts...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := cosmoscontainer.Run(ctx, img, opts...)
	testcontainers.CleanupContainer(t, c.Docker())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// policyNoRetry makes SDK clients fail at once.
var policyNoRetry = policy.RetryOptions{MaxRetries: -1}

// client returns an SDK client of c that does not retry, so failures show.
func client(t *testing.T, c *cosmoscontainer.Container) *azcosmos.Client {
	t.Helper()
	cl, err := c.NewClient(&azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policyNoRetry}})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// crud creates a database, a container and an item through the SDK and
// reads the item back.
func crud(t *testing.T, cl *azcosmos.Client, ttl *int32) *azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("db")
	props := azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: ttl}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	pk := azcosmos.NewPartitionKeyString("a")
	if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"1","pk":"a","v":42}`), nil); err != nil {
		t.Fatal(err)
	}
	r, err := cc.ReadItem(ctx, pk, "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ V int }
	if err := json.Unmarshal(r.Value, &doc); err != nil || doc.V != 42 {
		t.Fatalf("read %s (%v), want v 42", r.Value, err)
	}
	return cc
}

func TestRunHTTP(t *testing.T) {
	c := run(t)
	ctx := context.Background()

	t.Run("endpoint and connection string", func(t *testing.T) {
		if !strings.HasPrefix(c.Endpoint(), "http://") || strings.HasSuffix(c.Endpoint(), "/") {
			t.Errorf("Endpoint() = %q, want http://host:port (the image serves http by default)", c.Endpoint())
		}
		if c.Key() != cosmoscontainer.Key {
			t.Errorf("Key() = %q, want the well-known key", c.Key())
		}
		if want := "AccountEndpoint=" + c.Endpoint() + ";AccountKey=" + cosmoscontainer.Key + ";"; c.ConnectionString() != want {
			t.Errorf("ConnectionString() = %q, want %q", c.ConnectionString(), want)
		}
		if c.CertificatePEM() != nil {
			t.Error("CertificatePEM() is set over http")
		}
	})

	t.Run("GET / advertises the mapped port", func(t *testing.T) {
		resp, err := c.HTTPClient().Get(c.Endpoint() + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var acct struct {
			ID       string `json:"id"`
			Writable []struct {
				Endpoint string `json:"databaseAccountEndpoint"`
			} `json:"writableLocations"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&acct); err != nil {
			t.Fatal(err)
		}
		if len(acct.Writable) != 1 || acct.Writable[0].Endpoint != c.Endpoint()+"/" {
			t.Errorf("writableLocations = %+v, want %s/ (the host and mapped port dialled)", acct.Writable, c.Endpoint())
		}
	})

	t.Run("SDK", func(t *testing.T) {
		crud(t, client(t, c), nil)
	})

	t.Run("control calls", func(t *testing.T) {
		ttl := int32(10)
		cl := client(t, c)
		db, _ := cl.NewDatabase("ttl")
		if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "ttl"}, nil); err != nil {
			t.Fatal(err)
		}
		props := azcosmos.ContainerProperties{ID: "t", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: &ttl}
		if _, err := db.CreateContainer(ctx, props, nil); err != nil {
			t.Fatal(err)
		}
		cc, _ := db.NewContainer("t")
		pk := azcosmos.NewPartitionKeyString("a")
		if _, err := cc.CreateItem(ctx, pk, []byte(`{"id":"x","pk":"a"}`), nil); err != nil {
			t.Fatal(err)
		}
		before, err := c.GetClock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after, err := c.AdvanceClock(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if got := after.Offset - before.Offset; got != time.Hour {
			t.Errorf("clock offset moved by %v, want 1h", got)
		}
		if after.Now.Sub(before.Now) < time.Hour {
			t.Errorf("clock now moved from %v to %v, want at least 1h", before.Now, after.Now)
		}
		_, err = cc.ReadItem(ctx, pk, "x", nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusNotFound {
			t.Fatalf("reading an expired item: %v, want 404", err)
		}
		if _, err := c.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := c.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, cs := range st.Containers {
			if cs.Database == "ttl" && cs.Container == "t" {
				found = true
				if cs.StoredRows != 0 || cs.LiveItems != 0 {
					t.Errorf("after the sweep: %+v, want no stored rows and no live items", cs)
				}
			}
		}
		if !found {
			t.Errorf("Stats has no entry for ttl/t: %+v", st.Containers)
		}
		if st.Sweeper.Deleted < 1 {
			t.Errorf("sweeper stats %+v: want at least the expired item deleted", st.Sweeper)
		}
		if st.Clock.Offset != after.Offset {
			t.Errorf("Stats clock offset %v, want %v", st.Clock.Offset, after.Offset)
		}
	})

	t.Run("bad clock moves are refused", func(t *testing.T) {
		for _, d := range []time.Duration{-time.Second, 0, 1500 * time.Millisecond} {
			if _, err := c.AdvanceClock(ctx, d); err == nil || !strings.Contains(err.Error(), "whole seconds") {
				t.Errorf("AdvanceClock(%v) = %v, want an error about whole seconds", d, err)
			}
		}
	})
}

// TestControlRefused checks that a control call the emulator refuses is a
// *ControlError with the status and the Cosmos message: here the container
// was given another key behind the module's back.
func TestControlRefused(t *testing.T) {
	c := run(t, testcontainers.WithEnv(map[string]string{"COSMOS_EMULATOR_KEY": "b3RoZXIga2V5"}))
	_, err := c.Stats(context.Background())
	var ce *cosmoscontainer.ControlError
	if !errors.As(err, &ce) || ce.StatusCode != http.StatusUnauthorized || ce.Message == "" {
		t.Fatalf("Stats with the wrong key: %v, want a *ControlError 401 with a message", err)
	}
	if !strings.Contains(err.Error(), "401") {
		t.Errorf("Error() = %q, want the status", err)
	}
}

func TestRunHTTPSWithKey(t *testing.T) {
	const key = "dGhpcyBpcyBhbm90aGVyIGtleSBmb3IgdGhlIGVtdWxhdG9yIGluIGEgY29udGFpbmVy"
	c := run(t, cosmoscontainer.WithProtocol("https"), cosmoscontainer.WithKey(key))
	ctx := context.Background()
	if !strings.HasPrefix(c.Endpoint(), "https://") {
		t.Fatalf("Endpoint() = %q, want https", c.Endpoint())
	}
	if c.Key() != key || !strings.Contains(c.ConnectionString(), "AccountKey="+key+";") {
		t.Errorf("Key() = %q, ConnectionString() = %q; want the key given", c.Key(), c.ConnectionString())
	}
	if !strings.Contains(string(c.CertificatePEM()), "BEGIN CERTIFICATE") {
		t.Fatalf("CertificatePEM() = %q", c.CertificatePEM())
	}

	t.Run("SDK verifies the certificate", func(t *testing.T) {
		crud(t, client(t, c), nil)
	})

	t.Run("a client without the certificate is refused", func(t *testing.T) {
		_, err := http.Get(c.Endpoint() + "/_emulator/health")
		if err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("GET with the system roots: %v, want a certificate error", err)
		}
	})

	t.Run("the well-known key is refused", func(t *testing.T) {
		cred, _ := azcosmos.NewKeyCredential(cosmoscontainer.Key)
		cl, err := azcosmos.NewClientWithKey(c.Endpoint()+"/", cred, &azcosmos.ClientOptions{
			ClientOptions: azcore.ClientOptions{Transport: c.HTTPClient(), Retry: policyNoRetry},
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "nope"}, nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != http.StatusUnauthorized {
			t.Fatalf("CreateDatabase with the well-known key: %v, want 401", err)
		}
	})

	t.Run("control calls use the key", func(t *testing.T) {
		if _, err := c.Stats(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRunStartFailure checks that a container that exits during start-up
// fails Run at once with the container's own explanation, instead of
// waiting for the health check to time out.
func TestRunStartFailure(t *testing.T) {
	requireDocker(t)
	img := os.Getenv("COSMOS_EMULATOR_IMAGE")
	if img == "" {
		t.Skip("COSMOS_EMULATOR_IMAGE is not set (this test does not build the image)")
	}
	ctx := context.Background()
	start := time.Now()
	c, err := cosmoscontainer.Run(ctx, img, testcontainers.WithCmdArgs("--consistency", "Sloppy"))
	testcontainers.CleanupContainer(t, c.Docker())
	if err == nil {
		t.Fatal("Run succeeded with an invalid flag value")
	}
	if !strings.Contains(err.Error(), "stopped") || !strings.Contains(err.Error(), "Sloppy") {
		t.Fatalf("error %q: want it to say the container stopped and show its log", err)
	}
	t.Logf("failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// TestRunFromDockerfile builds the image through Run (WithDockerfile) from
// the repository's Dockerfile, with the base images of
// COSMOS_DOCKER_BUILD_ARGS, and uses it.
func TestRunFromDockerfile(t *testing.T) {
	requireDocker(t)
	c := run(t, cosmoscontainer.WithDockerfile(repoRoot, buildArgs(t)))
	crud(t, client(t, c), nil)
}

// TestOptionsRejectBadInput checks that invalid options fail Run before
// anything is started (no Docker needed).
func TestOptionsRejectBadInput(t *testing.T) {
	tests := []struct {
		name string
		opt  cosmoscontainer.Option
		want string
	}{
		{"unknown protocol", cosmoscontainer.WithProtocol("ftp"), "accepted values are http, https"},
		{"key not base64", cosmoscontainer.WithKey("not base64!"), "base64"},
		{"empty key", cosmoscontainer.WithKey(""), "base64"},
		{"zero timeout", cosmoscontainer.WithStartupTimeout(0), "positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cosmoscontainer.Run(context.Background(), "cosmos-emulator:does-not-matter", tc.opt)
			if c != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, %v; want no container and an error containing %q", c, err, tc.want)
			}
		})
	}
	if _, err := new(cosmoscontainer.Container).AdvanceClock(context.Background(), 0); err == nil {
		t.Error("AdvanceClock(0) succeeded")
	}
}

// microsoftImage returns the image under test for the tests that start it
// the way the tools made for Microsoft's emulator do (no image build here).
func microsoftImage(t *testing.T) string {
	t.Helper()
	requireDocker(t)
	img := os.Getenv("COSMOS_EMULATOR_IMAGE")
	if img == "" {
		t.Skip("COSMOS_EMULATOR_IMAGE is not set (these tests do not build the image)")
	}
	return img
}

// sdkRoundTrip creates a database through the Go SDK at endpoint.
func sdkRoundTrip(t *testing.T, endpoint string, transport *http.Client) {
	t.Helper()
	cred, _ := azcosmos.NewKeyCredential(cosmoscontainer.Key)
	cl, err := azcosmos.NewClientWithKey(endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: transport, Retry: policyNoRetry}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "ms"}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestMicrosoftGoModuleWay starts the image as testcontainers-go's
// modules/azure/cosmosdb starts Microsoft's: port 8081, the arguments
// --enable-explorer false (two tokens), a wait for the log line Started and
// the listening port, an http:// endpoint.
func TestMicrosoftGoModuleWay(t *testing.T) {
	img := microsoftImage(t)
	ctx := context.Background()
	c, err := testcontainers.Run(ctx, img,
		testcontainers.WithExposedPorts("8081/tcp"),
		testcontainers.WithCmdArgs("--enable-explorer", "false"),
		testcontainers.WithWaitStrategy(wait.ForAll(wait.ForLog("Started"), wait.ForListeningPort("8081/tcp")).WithDeadline(2*time.Minute)),
	)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := c.PortEndpoint(ctx, "8081/tcp", "http")
	if err != nil {
		t.Fatal(err)
	}
	sdkRoundTrip(t, endpoint, http.DefaultClient)
	resp, err := http.Get(endpoint + "/_explorer/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("explorer with --enable-explorer false: status %d, want 404", resp.StatusCode)
	}
}

// TestMicrosoftNodeModuleWay starts the image as the testcontainers Node
// module starts Microsoft's: container port N (a free port), PORT=N,
// PROTOCOL=http, ENABLE_EXPLORER=false, ENABLE_TELEMETRY=false, and a wait
// for "Now listening on: ". (The module also binds host port N; any host
// port works here, as GET / advertises the port dialled, so the test lets
// Docker pick one: container port N answering shows PORT was applied.)
func TestMicrosoftNodeModuleWay(t *testing.T) {
	img := microsoftImage(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ctx := context.Background()
	c, err := testcontainers.Run(ctx, img,
		testcontainers.WithExposedPorts(port+"/tcp"),
		testcontainers.WithEnv(map[string]string{"PORT": port, "PROTOCOL": "http", "ENABLE_EXPLORER": "false", "ENABLE_TELEMETRY": "false"}),
		testcontainers.WithWaitStrategy(wait.ForLog("Now listening on: ").WithStartupTimeout(2*time.Minute)),
	)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := c.PortEndpoint(ctx, port+"/tcp", "http")
	if err != nil {
		t.Fatal(err)
	}
	sdkRoundTrip(t, endpoint, http.DefaultClient)
}

// TestMicrosoftJavaModuleWay starts the image as the testcontainers Java
// module does with PROTOCOL=https (its endpoint is always https): a wait for
// a log line ending in Started CR LF, then the certificate from
// /_explorer/emulator.pem (fetched without verification, as the module's
// buildNewKeyStore does) is the one served.
func TestMicrosoftJavaModuleWay(t *testing.T) {
	img := microsoftImage(t)
	ctx := context.Background()
	c, err := testcontainers.Run(ctx, img,
		testcontainers.WithExposedPorts("8081/tcp"),
		testcontainers.WithEnv(map[string]string{"PROTOCOL": "https"}),
		testcontainers.WithWaitStrategy(wait.ForLog(`(?m)Started\r$`).AsRegexp().WithStartupTimeout(2*time.Minute)),
	)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := c.PortEndpoint(ctx, "8081/tcp", "https")
	if err != nil {
		t.Fatal(err)
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // as the Java module fetches the PEM
	resp, err := insecure.Get(endpoint + "/_explorer/emulator.pem")
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pool := x509.NewCertPool()
	if resp.StatusCode != http.StatusOK || !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("GET /_explorer/emulator.pem: %d %q", resp.StatusCode, pemBytes)
	}
	verified := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	sdkRoundTrip(t, endpoint, verified)
}

// TestMicrosoftPythonModuleWay starts the image as testcontainers-python
// starts Microsoft's classic emulator, with PROTOCOL=https as its users
// add (microsoft-emulator-interface.md §3.5): the classic variables
// (AZURE_COSMOS_EMULATOR_PARTITION_COUNT=None ...) do not stop it, a line
// ending in Started appears, /_explorer/index.html answers 2xx, and the
// certificate copied from the classic in-container path is the one served.
func TestMicrosoftPythonModuleWay(t *testing.T) {
	img := microsoftImage(t)
	ctx := context.Background()
	c, err := testcontainers.Run(ctx, img,
		testcontainers.WithExposedPorts("8081/tcp"),
		testcontainers.WithEnv(map[string]string{"PROTOCOL": "https",
			"AZURE_COSMOS_EMULATOR_PARTITION_COUNT": "None", "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE": "False",
			"AZURE_COSMOS_EMULATOR_KEY": cosmoscontainer.Key, "AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE": "127.0.0.1"}),
		testcontainers.WithWaitStrategy(wait.ForLog(`(?m)Started\s*$`).AsRegexp().WithStartupTimeout(2*time.Minute)),
	)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := c.PortEndpoint(ctx, "8081/tcp", "https")
	if err != nil {
		t.Fatal(err)
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // as the Python module probes
	resp, err := insecure.Get(endpoint + "/_explorer/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("GET /_explorer/index.html: %d, want 2xx", resp.StatusCode)
	}
	rc, err := c.CopyFileFromContainer(ctx, "/tmp/cosmos/appdata/.system/profiles/Client/AppData/Local/CosmosDBEmulator/emulator.pem")
	if err != nil {
		t.Fatal(err)
	}
	copied, _ := io.ReadAll(rc)
	rc.Close()
	resp, err = insecure.Get(endpoint + "/_explorer/emulator.pem")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(copied) == 0 || string(copied) != string(served) {
		t.Fatalf("classic-path certificate %q differs from the served %q", copied, served)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(copied) {
		t.Fatalf("classic-path certificate is not PEM: %q", copied)
	}
	sdkRoundTrip(t, endpoint, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}})
}
