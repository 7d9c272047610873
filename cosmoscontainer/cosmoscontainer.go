// Package cosmoscontainer is a testcontainers-go module for this emulator's
// Docker image: Run starts a container (PostgreSQL runs inside it), waits
// until it serves, and returns a Container that hands out the endpoint, the
// key, a connection string, an azcosmos client that trusts the container's
// certificate, and the signed control calls (emulator clock, TTL sweep,
// stats) that emulatortest offers in-process.
//
//	ctr, err := cosmoscontainer.Run(ctx, "cosmos-emulator:local")
//	testcontainers.CleanupContainer(t, ctr.Docker()) // also when err != nil
//	client, err := ctr.NewClient(nil)
//
// The image is the repository's Dockerfile, built by the caller (docker
// build -t cosmos-emulator:local .) or by Run itself (WithDockerfile). It
// serves plain HTTP unless WithProtocol("https") (or Microsoft's
// PROTOCOL=https through testcontainers.WithEnv), like Microsoft's image;
// GET / advertises the host and port the client dialled, so the SDKs work
// through the mapped port without rewriting requests. Run waits on the main
// port's GET /_emulator/health, which answers once PostgreSQL does, whatever
// the protocol; the image also prints Microsoft's "Started" line and serves
// /ready on port 8080 for the tools that wait on those. A container that
// mounts nothing runs at process durability (writes wait for no disk
// flush; its data is removed with it), one with a volume at the image's
// full durability (WithDurability).
//
// Tests of this package start containers for real when a Docker engine
// answers and skip otherwise; with CI=true and COSMOS_DOCKER_TESTS=1 a
// missing engine fails them. COSMOS_EMULATOR_IMAGE names the image to test;
// without it the tests build one from the repository's Dockerfile, with the
// build arguments in COSMOS_DOCKER_BUILD_ARGS (NAME=VALUE ..., separated by
// white space).
//
// Layout: the module sits at the top of the module tree, beside the
// in-process helper emulatortest and apart from the layers it talks to
// (it uses wire's and ttl's types, as a client of the control plane), so
// that the domain package emulator imports no outer layer and no test
// helper. The former path emulator/cosmoscontainer forwards here for one
// release.
package cosmoscontainer

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/ttl"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// Port is the container port the emulator listens on.
const Port = "8081/tcp"

// Key is the emulator's well-known master key, the default of Run.
const Key = wire.WellKnownKey

// HealthPath is the health endpoint Run waits on: 200 once the emulator
// serves and PostgreSQL answers.
const HealthPath = "/_emulator/health"

// DefaultStartupTimeout bounds the wait for the emulator to become healthy
// (a first start creates the PostgreSQL cluster).
const DefaultStartupTimeout = 2 * time.Minute

// Container is a running emulator container. Its methods other than those
// of the embedded DockerContainer are safe for concurrent use. Its
// Endpoint method shadows DockerContainer's, so *Container is not a
// testcontainers.Container itself: pass Docker() to testcontainers'
// helpers (TerminateContainer, CleanupContainer).
type Container struct {
	*testcontainers.DockerContainer
	endpoint string // scheme://host:port, no trailing slash
	key      string
	certPEM  []byte       // the served certificate (https only)
	client   *http.Client // trusts certPEM
}

// settings are what the Options configure.
type settings struct {
	key        string
	protocol   string
	durability string
	minRanges  int
	build      *testcontainers.FromDockerfile
	timeout    time.Duration
}

// Option configures Run. It is a testcontainers.ContainerCustomizer, so
// Options and testcontainers' own customizers (WithEnv, WithCmdArgs, ...)
// mix in one argument list; the latter are applied after the Options.
type Option func(*settings) error

// Customize implements testcontainers.ContainerCustomizer; Run applies
// Options itself, so this does nothing.
func (Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

// WithProtocol makes the emulator serve "http" (the image's default) or
// "https" (a self-signed certificate that Container.NewClient and
// HTTPClient trust). Any other value makes Run fail before starting
// anything.
func WithProtocol(protocol string) Option {
	return func(s *settings) error {
		if protocol != "http" && protocol != "https" {
			return fmt.Errorf("cosmoscontainer: protocol %q: accepted values are http, https", protocol)
		}
		s.protocol = protocol
		return nil
	}
}

// WithKey makes the emulator accept key (base64, as the service's keys)
// instead of the well-known Key; Container.Key, NewClient and the control
// calls then use it. A key that is not base64 makes Run fail before
// starting anything.
func WithKey(key string) Option {
	return func(s *settings) error {
		if b, err := base64.StdEncoding.DecodeString(key); err != nil || len(b) == 0 {
			return fmt.Errorf("cosmoscontainer: the key must be non-empty base64")
		}
		s.key = key
		return nil
	}
}

// Durability levels of WithDurability: what an acknowledged write
// survives (the emulator's --durability).
const (
	// DurabilityFull flushes every commit to disk: the image's default for
	// its /data volume, and Run's when the request mounts anything.
	DurabilityFull = "full"
	// DurabilityProcess writes every commit to the kernel, without a
	// flush: an acknowledged write survives a kill -9 of PostgreSQL or of
	// the emulator, not a crash of the Docker host. Run's default for a
	// container without mounts, whose data is removed with it.
	DurabilityProcess = "process"
	// DurabilityNone acknowledges a commit before it is written: a crash
	// may lose the last ~0.6 s of writes.
	DurabilityNone = "none"
)

// durabilityEnv is the emulator's variable for --durability.
const durabilityEnv = "COSMOS_EMULATOR_DURABILITY"

// WithDurability sets the emulator's durability level: DurabilityFull,
// DurabilityProcess or DurabilityNone (COSMOS_EMULATOR_DURABILITY). Without
// it, Run chooses process for a container that mounts nothing (its data
// is removed with it) and leaves the image's default, full, when the
// request mounts a volume or a host directory (ContainerRequest.Mounts or
// Binds). Mounts added through a HostConfigModifier are not seen: give
// WithDurability(DurabilityFull) with them. Any other value makes Run
// fail before starting anything.
func WithDurability(level string) Option {
	return func(s *settings) error {
		switch level {
		case DurabilityFull, DurabilityProcess, DurabilityNone:
			s.durability = level
			return nil
		}
		return fmt.Errorf("cosmoscontainer: durability %q: accepted values are full, process, none", level)
	}
}

// defaultDurability sets the durability level of a request that chose
// none: process when it mounts nothing, as the container's data (in its
// anonymous /data volume, removed with it) dies with it anyway. A request
// that sets COSMOS_EMULATOR_DURABILITY or its alias
// COSMOS_EMULATOR_FAST_UNSAFE_COMMIT, or mounts a volume or a host
// directory, keeps its choice or the image's default (full). A
// --durability among the command's arguments wins over the variable in
// the emulator.
func defaultDurability(req *testcontainers.GenericContainerRequest) {
	if _, ok := req.Env[durabilityEnv]; ok {
		return
	}
	if _, ok := req.Env["COSMOS_EMULATOR_FAST_UNSAFE_COMMIT"]; ok {
		return
	}
	if len(req.Mounts) > 0 || len(req.Binds) > 0 { //nolint:staticcheck // Binds is deprecated, but callers may still set it
		return
	}
	if req.Env == nil {
		req.Env = map[string]string{}
	}
	req.Env[durabilityEnv] = DurabilityProcess
}

// WithMinPartitionRanges gives every container the emulator creates at
// least n partition key ranges (COSMOS_EMULATOR_MIN_PARTITION_RANGES), so
// that the SDKs' multi-range code runs without large throughput. n must be
// at least 1.
func WithMinPartitionRanges(n int) Option {
	return func(s *settings) error {
		if n < 1 {
			return fmt.Errorf("cosmoscontainer: the minimum number of partition key ranges must be at least 1")
		}
		s.minRanges = n
		return nil
	}
}

// WithDockerfile builds the image from the repository's Dockerfile in
// contextDir (the repository root) instead of using the image given to Run,
// which is then ignored (pass ""). buildArgs are Dockerfile build arguments, e.g.
// BUILD_IMAGE and RUNTIME_IMAGE to build from local base images. The image
// is removed when the container is terminated.
func WithDockerfile(contextDir string, buildArgs map[string]string) Option {
	return func(s *settings) error {
		args := make(map[string]*string, len(buildArgs))
		for k, v := range buildArgs {
			args[k] = &v
		}
		s.build = &testcontainers.FromDockerfile{Context: contextDir, Dockerfile: "Dockerfile", BuildArgs: args}
		return nil
	}
}

// WithStartupTimeout sets how long Run waits for the emulator to become
// healthy (default DefaultStartupTimeout).
func WithStartupTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("cosmoscontainer: the startup timeout must be positive")
		}
		s.timeout = d
		return nil
	}
}

// Run starts the emulator image img (or builds it, WithDockerfile) with its
// port 8081 mapped to a free host port, waits until GET /_emulator/health
// answers 200 (over http or https, whichever the container serves), and
// returns the container. On error after the container was created it
// returns the container too, so that the caller can terminate it
// (testcontainers.TerminateContainer(ctr.Docker()) accepts nil).
func Run(ctx context.Context, img string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	req, s, health, err := newRequest(img, opts)
	if err != nil {
		return nil, err
	}
	// The scheme the container will serve, with the caller's customizers
	// (WithEnv PROTOCOL=https, WithCmdArgs --protocol https) applied: the
	// wait tries it first and names it when the container never becomes
	// healthy.
	health.prefer = expectedScheme(req.Env, req.Cmd)
	gc, err := testcontainers.GenericContainer(ctx, req)
	var dc *testcontainers.DockerContainer
	if gc != nil {
		dc, _ = gc.(*testcontainers.DockerContainer)
	}
	var c *Container
	if dc != nil {
		c = &Container{DockerContainer: dc, key: s.key}
	}
	if err != nil {
		return c, fmt.Errorf("cosmoscontainer: %w", err)
	}
	if c == nil {
		return nil, fmt.Errorf("cosmoscontainer: unexpected container type %T", gc)
	}
	if health.found == nil {
		// The caller replaced the wait strategy: find out here.
		health.timeout = 30 * time.Second
		if err := health.WaitUntilReady(ctx, dc); err != nil {
			return c, fmt.Errorf("cosmoscontainer: %w", err)
		}
	}
	c.endpoint, c.certPEM = health.found.endpoint, health.found.certPEM
	c.client = newHTTPClient(c.certPEM)
	return c, nil
}

// newRequest builds the container request of Run: the Options' settings,
// then testcontainers' customizers, then the default durability level.
func newRequest(img string, opts []testcontainers.ContainerCustomizer) (testcontainers.GenericContainerRequest, settings, *healthStrategy, error) {
	s := settings{key: Key, timeout: DefaultStartupTimeout}
	for _, o := range opts {
		if o, ok := o.(Option); ok {
			if err := o(&s); err != nil {
				return testcontainers.GenericContainerRequest{}, s, nil, err
			}
		}
	}
	env := map[string]string{}
	if s.protocol != "" {
		// Our variable: it wins over Microsoft's PROTOCOL in any image.
		env["COSMOS_EMULATOR_PROTOCOL"] = s.protocol
	}
	if s.key != Key {
		env["COSMOS_EMULATOR_KEY"] = s.key
	}
	if s.minRanges > 0 {
		env["COSMOS_EMULATOR_MIN_PARTITION_RANGES"] = strconv.Itoa(s.minRanges)
	}
	if s.durability != "" {
		env[durabilityEnv] = s.durability
	}
	health := &healthStrategy{prefer: s.protocol, timeout: s.timeout}
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        img,
			ExposedPorts: []string{Port},
			Env:          env,
			WaitingFor:   health,
		},
		Started: true,
	}
	if s.build != nil {
		req.Image = "" // testcontainers refuses both
		req.FromDockerfile = *s.build
	}
	for _, o := range opts {
		if err := o.Customize(&req); err != nil {
			return testcontainers.GenericContainerRequest{}, s, nil, fmt.Errorf("cosmoscontainer: customize: %w", err)
		}
	}
	defaultDurability(&req) // after the customizers: they may mount a volume
	return req, s, health, nil
}

// Docker returns the underlying testcontainers container, nil for a nil c
// (so that testcontainers.CleanupContainer(t, ctr.Docker()) is safe after a
// failed Run).
func (c *Container) Docker() *testcontainers.DockerContainer {
	if c == nil {
		return nil
	}
	return c.DockerContainer
}

// Endpoint returns the emulator's URL as seen from the host running the
// tests, e.g. http://localhost:49153 (no trailing slash; the scheme is the
// one the container serves).
func (c *Container) Endpoint() string { return c.endpoint }

// Key returns the master key the emulator accepts.
func (c *Container) Key() string { return c.key }

// ConnectionString returns "AccountEndpoint=<Endpoint()>;AccountKey=<Key()>;",
// the form the Cosmos SDKs and Microsoft's testcontainers modules use.
func (c *Container) ConnectionString() string {
	return "AccountEndpoint=" + c.endpoint + ";AccountKey=" + c.key + ";"
}

// CertificatePEM returns the TLS certificate the container serves, PEM
// encoded (for SSL_CERT_FILE, NODE_EXTRA_CA_CERTS and the like), or nil
// over http. It is the certificate presented in the TLS handshake; the
// emulator's own is self-signed and its own authority.
func (c *Container) CertificatePEM() []byte { return bytes.Clone(c.certPEM) }

// HTTPClient returns an http.Client for the emulator that verifies its
// certificate against CertificatePEM (over https) rather than skipping
// verification.
func (c *Container) HTTPClient() *http.Client { return c.client }

// NewClient returns an azcosmos client for Endpoint, signed with Key. opts
// may be nil; when its Transport is unset, HTTPClient is used.
func (c *Container) NewClient(opts *azcosmos.ClientOptions) (*azcosmos.Client, error) {
	cred, err := azcosmos.NewKeyCredential(c.key)
	if err != nil {
		return nil, fmt.Errorf("cosmoscontainer: %w", err)
	}
	o := azcosmos.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Transport == nil {
		o.Transport = c.client
	}
	return azcosmos.NewClientWithKey(c.endpoint+"/", cred, &o)
}

// Clock is the emulator's clock: its current time and its offset from the
// wall clock (moved by AdvanceClock).
type Clock struct {
	Now    time.Time
	Offset time.Duration
}

func clockOf(r wire.ClockResponse) Clock {
	return Clock{Now: time.Unix(r.Now, 0), Offset: time.Duration(r.OffsetSeconds) * time.Second}
}

// Stats are the emulator's storage and sweeper counters.
type Stats struct {
	// Containers has one entry per container: rows stored (expired ones
	// not swept yet included), live items and their bytes.
	Containers []emulator.ContainerStats
	// Sweeper counts the TTL sweeps, the rows they deleted and failures.
	Sweeper ttl.Stats
	// Clock is the emulator clock at the time of the call.
	Clock Clock
}

// GetClock returns the emulator's clock (GET /_emulator/clock).
func (c *Container) GetClock(ctx context.Context) (Clock, error) {
	var r wire.ClockResponse
	err := c.control(ctx, http.MethodGet, "_emulator/clock", "_emulator", "_emulator/clock", nil, &r)
	return clockOf(r), err
}

// AdvanceClock moves the emulator's clock forward by d (whole seconds,
// positive), so that TTLs expire without sleeping (POST /_emulator/clock).
// It returns the clock after the move.
func (c *Container) AdvanceClock(ctx context.Context, d time.Duration) (Clock, error) {
	if d <= 0 || d%time.Second != 0 {
		return Clock{}, fmt.Errorf("cosmoscontainer: AdvanceClock(%v): the emulator clock moves forward by whole seconds", d)
	}
	secs := int64(d / time.Second)
	var r wire.ClockResponse
	err := c.control(ctx, http.MethodPost, "_emulator/clock", "_emulator", "_emulator/clock", wire.ClockRequest{AdvanceSeconds: &secs}, &r)
	return clockOf(r), err
}

// Sweep runs one TTL sweep now and returns the number of expired rows it
// deleted (POST /_emulator/ttl/sweep).
func (c *Container) Sweep(ctx context.Context) (int, error) {
	var r struct {
		Deleted int `json:"deleted"`
	}
	err := c.control(ctx, http.MethodPost, "_emulator/ttl/sweep", "sweep", "_emulator/ttl", struct{}{}, &r)
	return r.Deleted, err
}

// Reset removes every database and everything in it (POST
// /_emulator/reset), for suites that want a clean slate between tests; the
// emulator's clock, fault rules and settings stay.
func (c *Container) Reset(ctx context.Context) error {
	return c.control(ctx, http.MethodPost, "_emulator/reset", "_emulator", "_emulator/reset", struct{}{}, nil)
}

// Stats returns the storage and sweeper counters (GET /_emulator/stats).
func (c *Container) Stats(ctx context.Context) (Stats, error) {
	var r struct {
		Containers []emulator.ContainerStats `json:"containers"`
		Sweeper    ttl.Stats                 `json:"sweeper"`
		Clock      wire.ClockResponse        `json:"clock"`
	}
	err := c.control(ctx, http.MethodGet, "_emulator/stats", "_emulator", "_emulator/stats", nil, &r)
	return Stats{Containers: r.Containers, Sweeper: r.Sweeper, Clock: clockOf(r.Clock)}, err
}

// SplitRange splits live partition key range id of container coll in
// database db at the middle of its hash space, or at EPK at when not ""
// (strictly inside the range), and returns the two children (POST
// /_emulator/dbs/{db}/colls/{coll}/pkranges/{id}/split). Requests naming
// id afterwards get 410/1002, as after a split on the service.
func (c *Container) SplitRange(ctx context.Context, db, coll, id, at string) ([]emulator.PartitionKeyRange, error) {
	path := "_emulator/dbs/" + url.PathEscape(db) + "/colls/" + url.PathEscape(coll) + "/pkranges/" + url.PathEscape(id) + "/split"
	typ, link := wire.ResourceTypeAndLink(path)
	var r struct {
		PartitionKeyRanges []emulator.PartitionKeyRange `json:"PartitionKeyRanges"`
	}
	err := c.control(ctx, http.MethodPost, path, typ, link, wire.SplitRequest{EPK: at}, &r)
	return r.PartitionKeyRanges, err
}

// InjectFault sets the fault rule name in the emulator (PUT
// /_emulator/faults/{name}, replacing a rule of that name) and removes it
// when the test ends; it fails the test when the emulator refuses the
// rule.
func (c *Container) InjectFault(t testing.TB, name string, rule wire.FaultRule) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var st wire.FaultRuleStatus
	if err := c.control(ctx, http.MethodPut, "_emulator/faults/"+url.PathEscape(name), name, "_emulator/faults", rule, &st); err != nil {
		t.Fatalf("cosmoscontainer: fault rule %q: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.control(ctx, http.MethodDelete, "_emulator/faults/"+url.PathEscape(name), name, "_emulator/faults", nil, nil); err != nil {
			var ce *ControlError
			if !errors.As(err, &ce) || ce.StatusCode != http.StatusNotFound {
				t.Errorf("cosmoscontainer: removing fault rule %q: %v", name, err)
			}
		}
	})
}

// Faults returns the emulator's fault rules with their hit counts (GET
// /_emulator/faults).
func (c *Container) Faults(ctx context.Context) ([]wire.FaultRuleStatus, error) {
	var l wire.FaultList
	err := c.control(ctx, http.MethodGet, "_emulator/faults", "_emulator", "_emulator/faults", nil, &l)
	return l.Rules, err
}

// maxControlResponse bounds a control endpoint's answer.
const maxControlResponse = 16 << 20

// control sends a master-key signed request to a control endpoint (the
// resource type and link follow the generic path rule the emulator applies
// to them) and decodes the JSON answer into out. A non-2xx answer is an
// error carrying the status and the Cosmos error message.
func (c *Container) control(ctx context.Context, method, path, resourceType, link string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+"/"+path, rd)
	if err != nil {
		return fmt.Errorf("cosmoscontainer: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(c.key)
	if err != nil {
		return fmt.Errorf("cosmoscontainer: key: %w", err)
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2018-12-31")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", wire.MasterAuthorization(key, method, resourceType, link, date))
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("cosmoscontainer: %s /%s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxControlResponse))
	if err != nil {
		return fmt.Errorf("cosmoscontainer: %s /%s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Code, Message string }
		_ = json.Unmarshal(data, &e)
		return &ControlError{StatusCode: resp.StatusCode, Code: e.Code, Message: e.Message}
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("cosmoscontainer: %s /%s: decoding %q: %w", method, path, data, err)
	}
	return nil
}

// ControlError is a control call the emulator refused.
type ControlError struct {
	StatusCode    int    // HTTP status, e.g. 400 or 401
	Code, Message string // the Cosmos error body
}

// Error implements error.
func (e *ControlError) Error() string {
	return fmt.Sprintf("cosmoscontainer: the emulator answered %d %s: %s", e.StatusCode, e.Code, e.Message)
}

// newHTTPClient returns a client that trusts exactly certPEM over https
// (or the system roots when certPEM is nil).
func newHTTPClient(certPEM []byte) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if certPEM != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(certPEM)
		t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	t.ForceAttemptHTTP2 = true
	return &http.Client{Transport: t}
}

// healthStrategy is the wait strategy of Run: it polls GET
// /_emulator/health on the mapped port over the preferred scheme, then the
// other, until one answers 200, and records the endpoint and (over https)
// the certificate from the handshake.
type healthStrategy struct {
	prefer  string // "http" or "https"; empty: http, the image's default
	timeout time.Duration
	found   *probeResult
}

// expectedScheme returns the scheme a container started with env and the
// command-line arguments cmd serves, by the emulator's precedence: the
// last --protocol argument, else COSMOS_EMULATOR_PROTOCOL, else
// Microsoft's PROTOCOL, else http (the image's default). https-insecure
// (Microsoft's third value) is https.
func expectedScheme(env map[string]string, cmd []string) string {
	proto := ""
	for i := 0; i < len(cmd); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(cmd[i], "-"), "=")
		if !strings.HasPrefix(cmd[i], "-") || name != "protocol" {
			continue
		}
		if !hasValue && i+1 < len(cmd) {
			i++
			value = cmd[i]
		}
		proto = value
	}
	for _, v := range []string{"COSMOS_EMULATOR_PROTOCOL", "PROTOCOL"} {
		if proto == "" {
			proto = env[v]
		}
	}
	if strings.HasPrefix(strings.ToLower(proto), "https") {
		return "https"
	}
	return "http"
}

// statusError is a probe the emulator answered, with another status than
// 200 (for example 503 while PostgreSQL is starting).
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string {
	return fmt.Sprintf("GET %s: status %d", e.url, e.status)
}

// notHealthyError is Run's error when the emulator was not healthy within
// timeout: the URL of the scheme the container was expected to serve and
// what its last probe got (so that an http container is not reported
// through an https URL). When that URL never answered at all, the mapped
// port was most likely unreachable from here rather than the emulator
// slow, and the error says what to set. logTail is appended as is.
func notHealthyError(timeout time.Duration, last error, answered bool, logTail string) error {
	msg := fmt.Sprintf("the emulator was not healthy within %v: %v", timeout, last)
	if !answered {
		msg += "; nothing ever answered there: if these tests run inside a container (Docker-in-Docker, a dev container, a CI job container), " +
			"the port Docker mapped may not be reachable at that host; set TESTCONTAINERS_HOST_OVERRIDE to an address of the Docker host that is " +
			"(for example host.docker.internal, or the gateway of the tests' network)"
	}
	return errors.New(msg + logTail)
}

// probeResult is what a successful probe learned.
type probeResult struct {
	endpoint string
	certPEM  []byte
}

// Timeout implements wait.StrategyTimeout.
func (h *healthStrategy) Timeout() *time.Duration { return &h.timeout }

// WaitUntilReady implements wait.Strategy.
func (h *healthStrategy) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	schemes := []string{"http", "https"}
	if h.prefer == "https" {
		schemes = []string{"https", "http"}
	}
	// last is the expected scheme's latest failure (the one the error
	// reports); answered whether anything ever answered an HTTP request.
	var last error
	answered := false
	for {
		state, err := target.State(ctx)
		if err == nil && !state.Running {
			return fmt.Errorf("the emulator container stopped (exit code %d) before it was healthy%s", state.ExitCode, logTail(ctx, target))
		}
		host, herr := target.Host(ctx)
		port, perr := target.MappedPort(ctx, Port)
		if herr == nil && perr == nil {
			for i, scheme := range schemes {
				r, err := probe(ctx, scheme, net.JoinHostPort(host, port.Port()))
				if err == nil {
					h.found = r
					return nil
				}
				var se *statusError
				answered = answered || errors.As(err, &se)
				if i == 0 {
					last = err
				}
			}
		} else {
			last = errors.Join(herr, perr)
		}
		select {
		case <-ctx.Done():
			return notHealthyError(h.timeout, last, answered, logTail(context.Background(), target))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// probe asks GET /_emulator/health once. Over https the certificate is not
// verified here (it is what this learns); the leaf presented is returned.
func probe(ctx context.Context, scheme, hostPort string) (*probeResult, error) {
	var leaf []byte
	t := &http.Transport{DisableKeepAlives: true}
	if scheme == "https" {
		t.TLSClientConfig = &tls.Config{
			InsecureSkipVerify: true, //nolint:gosec // learning the self-signed certificate; clients then verify it
			VerifyConnection: func(cs tls.ConnectionState) error {
				if len(cs.PeerCertificates) > 0 {
					leaf = cs.PeerCertificates[0].Raw
				}
				return nil
			},
		}
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodGet, scheme+"://"+hostPort+HealthPath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Transport: t}).Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{url: req.URL.String(), status: resp.StatusCode}
	}
	r := &probeResult{endpoint: scheme + "://" + hostPort}
	if scheme == "https" {
		if leaf == nil {
			return nil, errors.New("https: no certificate presented")
		}
		r.certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf})
	}
	return r, nil
}

// logTail returns the last lines of the container's log, for errors.
func logTail(ctx context.Context, target wait.StrategyTarget) string {
	rc, err := target.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return "; the container's log ends with:\n" + strings.Join(lines, "\n")
}
