package wire

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/internal/reqphase"
	"github.com/cosmos-emulator/cosmos-emulator/wire/rntbd"
)

// Config configures NewHandler.
type Config struct {
	// Service executes the requests. Required.
	Service *emulator.Service
	// Key is the base64 master key clients sign with (default WellKnownKey).
	Key string
	// CertPEM is served at /_explorer/emulator.pem when non-empty.
	CertPEM []byte
	// Logger receives request errors (default: discard).
	Logger *slog.Logger
	// Ready reports readiness for /_emulator/health (default: always ready).
	Ready func() bool
	// Now is the wall clock used to check x-ms-date (default time.Now). It
	// is deliberately not the emulator Clock: request signatures are dated
	// by the client's real clock.
	Now func() time.Time
	// Sweep runs one TTL sweep now (POST /_emulator/ttl/sweep); nil when no
	// sweeper runs.
	Sweep func(ctx context.Context) (int, error)
	// SweeperStats returns the sweeper's counters for GET /_emulator/stats.
	SweeperStats func() any
	// Consistency is the account's default consistency level advertised in
	// GET / (userConsistencyPolicy), one of ConsistencyLevels, matched
	// case-insensitively (default "Session").
	Consistency string
	// Unavailable, if set, reports whether an unclassified error means the
	// storage is temporarily unreachable; such errors are sent as 503
	// instead of 500.
	Unavailable func(error) bool
	// Metrics, if set, receives the request collectors (requests by
	// operation, resource type and status, latency, request charge,
	// change feed reads) and is served, unsigned, at MetricsPath in the
	// Prometheus text format; nil serves no metrics.
	Metrics *prometheus.Registry
	// LogRequests logs one line per request (method, path, status,
	// duration, activity id, request charge) at info level; without it
	// the line is logged at debug level.
	LogRequests bool
	// Explorer, if set, serves every request under /_explorer/ except
	// the certificate /_explorer/emulator.pem, without a signature (the
	// data explorer, package server/explorer); nil answers them 404, as
	// Microsoft's emulator does with ENABLE_EXPLORER=false.
	Explorer http.Handler
	// RateLimit throttles data-plane requests over their container's (or
	// shared database's) provisioned request units per second with 429
	// and sub-status 3200, as the service does (ratelimit.go); off, no
	// request is ever throttled and none pays for the check.
	RateLimit bool
	// Faults holds the fault rules (faults.go), shared with the caller so
	// that it can load rules at start or set them in-process; nil starts
	// with an empty set. The control endpoints /_emulator/faults change it.
	Faults *FaultSet
	// RNTBDPort is the port of the direct-mode (RNTBD) listener that GET
	// /addresses hands out (addresses.go); 0: none runs, and address
	// requests are refused with a 400 saying so.
	RNTBDPort int
}

// ConsistencyLevels are the default consistency levels an account can
// have, as the service spells them.
var ConsistencyLevels = []string{"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}

// ParseConsistency returns the service's spelling of a consistency level
// named case-insensitively ("" is "Session"), or an error naming the valid
// levels.
func ParseConsistency(s string) (string, error) {
	if s == "" {
		return "Session", nil
	}
	for _, l := range ConsistencyLevels {
		if strings.EqualFold(s, l) {
			return l, nil
		}
	}
	return "", fmt.Errorf("wire: unknown consistency level %q: use one of %s", s, strings.Join(ConsistencyLevels, ", "))
}

type handler struct {
	svc       *emulator.Service
	key       []byte
	keyString string
	certPEM   []byte
	log       *slog.Logger
	ready     func() bool
	now       func() time.Time
	// consistency is the account's default consistency level.
	consistency string

	sweepFn      func(ctx context.Context) (int, error)
	sweeperStats func() any
	unavailable  func(error) bool

	// tokenKey authenticates resource tokens (resourcetoken.go).
	tokenKey []byte

	// metrics counts requests (nil: no metrics); logRequests logs each
	// request at info level (metrics.go).
	metrics     *requestMetrics
	logRequests bool

	// limiter throttles (nil: Config.RateLimit off).
	limiter *rateLimiter
	// faults holds the fault rules (faults.go), never nil.
	faults *FaultSet
	// rntbdPort is Config.RNTBDPort.
	rntbdPort int
}

// NewHandler returns the http.Handler serving the Cosmos DB REST API.
func NewHandler(cfg Config) (http.Handler, error) {
	rest, _, err := NewHandlers(cfg)
	return rest, err
}

// NewHandlers returns the two transports of one API: the http.Handler of
// the REST API (gateway mode, as NewHandler) and the rntbd.Handler of
// direct-mode requests (direct.go). They share one state: the fault
// rules, the rate limiter's budgets (a container's request units are
// spent by both) and the request metrics (a direct request is counted
// under the same names and labels as the REST request it stands for).
func NewHandlers(cfg Config) (http.Handler, rntbd.Handler, error) {
	h, err := newHandler(cfg)
	if err != nil {
		return nil, nil, err
	}
	if cfg.RateLimit {
		h.limiter = newRateLimiter(cfg.Service, time.Now)
	}
	r, err := h.router(cfg)
	if err != nil {
		return nil, nil, err
	}
	return h.observe(h.middleware(h.faultHook(h.rateLimit(r)))), rntbd.HandlerFunc(h.serveDirect), nil
}

// newHandler checks cfg and returns the handler state that both
// transports share: service, keys, consistency, logger, clock.
func newHandler(cfg Config) (*handler, error) {
	if cfg.Service == nil {
		return nil, errors.New("wire: Config.Service is required")
	}
	keyString := cfg.Key
	if keyString == "" {
		keyString = WellKnownKey
	}
	key, err := base64.StdEncoding.DecodeString(keyString)
	if err != nil {
		return nil, fmt.Errorf("wire: the master key is not valid base64: %w", err)
	}
	consistency, err := ParseConsistency(cfg.Consistency)
	if err != nil {
		return nil, err
	}
	h := &handler{svc: cfg.Service, key: key, keyString: keyString, tokenKey: tokenKey(key), certPEM: cfg.CertPEM, log: cfg.Logger, ready: cfg.Ready, now: cfg.Now,
		sweepFn: cfg.Sweep, sweeperStats: cfg.SweeperStats, consistency: consistency, unavailable: cfg.Unavailable,
		logRequests: cfg.LogRequests, faults: cfg.Faults, rntbdPort: cfg.RNTBDPort}
	if h.faults == nil {
		h.faults = NewFaultSet()
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if h.ready == nil {
		h.ready = func() bool { return true }
	}
	if h.now == nil {
		h.now = time.Now
	}
	return h, nil
}

// router is the handler's gorilla/mux router over every resource path.
func (h *handler) router(cfg Config) (*mux.Router, error) {
	// SkipClean: gorilla/mux would answer a path with "." or ".." segments
	// with a redirect to another resource's path; such ids are refused at
	// create instead (emulator.ValidateItemID).
	r := mux.NewRouter().UseEncodedPath().SkipClean(true)
	r.NotFoundHandler = http.HandlerFunc(h.notFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(h.methodNotAllowed)

	// Routes are tried in order, each a regular expression over the path,
	// so the most frequent come first: the health check (the floor of the
	// benchmarks), then items. Paths of different shapes cannot both
	// match (every template is anchored and {name} excludes '/'), so the
	// order decides nothing but the cost: a point read used to be tried
	// against 20 routes before its own: 8.6-8.9 µs of routing, now 1.4-2.6
	// (go test -run '^$' -bench BenchmarkRouteItem ./wire/, loaded machine).
	r.HandleFunc("/_emulator/health", h.health).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/colls/{coll}/docs/{id}", h.readItem).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/colls/{coll}/docs", h.postDocs).Methods(http.MethodPost) // create, upsert, query, batch
	r.HandleFunc("/dbs/{db}/colls/{coll}/docs/{id}", h.replaceItem).Methods(http.MethodPut)
	r.HandleFunc("/dbs/{db}/colls/{coll}/docs/{id}", h.deleteItem).Methods(http.MethodDelete)
	r.HandleFunc("/dbs/{db}/colls/{coll}/docs/{id}", h.patchItem).Methods(http.MethodPatch)
	r.HandleFunc("/dbs/{db}/colls/{coll}/docs", h.readFeed).Methods(http.MethodGet)

	r.HandleFunc("/", h.getAccount).Methods(http.MethodGet)
	r.HandleFunc("/addresses", h.addresses).Methods(http.MethodGet)
	r.HandleFunc("//addresses", h.addresses).Methods(http.MethodGet)
	h.registerExplorer(r, cfg.Explorer)                       // /_explorer/... (explorer.go)
	if err := h.registerControl(r, cfg.Metrics); err != nil { // /_emulator/... (control.go)
		return nil, err
	}

	r.HandleFunc("/dbs", h.queryDatabases).Methods(http.MethodGet)
	r.HandleFunc("/dbs", h.postDatabases).Methods(http.MethodPost)
	r.HandleFunc("/dbs/{db}", h.getDatabase).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}", h.deleteDatabase).Methods(http.MethodDelete)

	r.HandleFunc("/dbs/{db}/colls", h.queryContainers).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/colls", h.postContainers).Methods(http.MethodPost)
	r.HandleFunc("/dbs/{db}/colls/{coll}", h.getContainer).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/colls/{coll}", h.replaceContainer).Methods(http.MethodPut)
	r.HandleFunc("/dbs/{db}/colls/{coll}", h.deleteContainer).Methods(http.MethodDelete)
	r.HandleFunc("/dbs/{db}/colls/{coll}/pkranges", h.partitionKeyRanges).Methods(http.MethodGet)
	r.HandleFunc("/dbs/{db}/colls/{coll}/operations/partitionkeydelete", h.partitionKeyDelete).Methods(http.MethodPost)

	h.registerUsers(r)   // users, permissions, conflicts (users.go)
	h.registerScripts(r) // stored procedures, triggers, UDFs (scripts.go)

	r.HandleFunc("/offers", h.queryOffers).Methods(http.MethodGet)
	r.HandleFunc("/offers", h.postOffers).Methods(http.MethodPost)
	r.HandleFunc("/offers/{rid}", h.getOffer).Methods(http.MethodGet)
	r.HandleFunc("/offers/{rid}", h.replaceOffer).Methods(http.MethodPut)

	return r, nil
}

// exemptFromAuth lists what is served without a signature: the account
// (older Go SDKs send GET / unsigned), the certificate, the explorer's
// pages, the health check and the metrics. An account read that does carry an Authorization header is
// verified like any request (accountReadWithAuth), so a wrong key or an
// expired resource token is a 401 there too.
func exemptFromAuth(r *http.Request) bool {
	p := r.URL.EscapedPath()
	return (p == "/" && r.Method == http.MethodGet) || p == "/_explorer" || strings.HasPrefix(p, "/_explorer/") || p == "/_emulator/health" || p == MetricsPath
}

// middleware normalizes and checks the request line and headers
// (normalizeRequest), sets the headers every response carries,
// authenticates and recovers from panics.
func (h *handler) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		badRequest := normalizeRequest(r)
		hd := w.Header()
		activity := r.Header.Get("X-Ms-Activity-Id")
		if activity == "" || badRequest != nil {
			activity = newUUID()
		}
		setDefaultHeaders(hd, activity)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				h.writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		if badRequest != nil {
			h.writeError(w, r, badRequest)
			return
		}
		if !exemptFromAuth(r) || accountReadWithAuth(r) {
			if err := h.authenticate(r); err != nil {
				h.writeError(w, r, err)
				return
			}
		}
		if err := h.checkConsistencyLevel(r); err != nil {
			h.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// normalizeRequest prepares the request for routing and signature checks
// and returns the 400 of a request no resource can be addressed by:
//
//   - trailing slashes are trimmed (the Go SDK's offer paths keep one);
//   - under /dbs/, a query string is part of the last path segment: the
//     REST API has no query parameters, and the JS SDK puts ids through
//     encodeURI, which leaves '?' as is, so id "a?b" arrives as
//     /docs/a?b, signed over the id "a?b";
//   - every path segment must unescape to valid UTF-8 without U+0000, and
//     every header value must be valid UTF-8 (no resource can have such a
//     name, and PostgreSQL refuses such text).
func normalizeRequest(r *http.Request) error {
	p := r.URL.EscapedPath()
	if (r.URL.RawQuery != "" || r.URL.ForceQuery) && strings.HasPrefix(p, "/dbs/") {
		p += "%3F" + strings.ReplaceAll(r.URL.RawQuery, "/", "%2F")
		r.URL.RawQuery, r.URL.ForceQuery = "", false
	}
	if len(p) > 1 && strings.HasSuffix(p, "/") {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	if p != r.URL.EscapedPath() {
		u, err := url.PathUnescape(p)
		if err != nil {
			return emulator.BadRequest("Request url is invalid: the path is not validly percent-encoded.")
		}
		r.URL.Path, r.URL.RawPath = u, p
	}
	for _, seg := range strings.Split(p, "/") {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return emulator.BadRequest("Request url is invalid: the path segment '%s' is not validly percent-encoded.", seg)
		}
		if !utf8.ValidString(u) || strings.IndexByte(u, 0) >= 0 {
			return emulator.BadRequest("Request url is invalid: a path segment is not valid UTF-8 or holds the character U+0000; no resource has such a name.")
		}
	}
	for name, vals := range r.Header {
		if name == "User-Agent" {
			// Informational, never stored or compared as data: the
			// service takes a Latin-1 one (Python's http.client sends
			// "TéstUserAgent's" so, as the Python SDK's
			// test_user_agent_special_characters does).
			continue
		}
		for _, v := range vals {
			if !utf8.ValidString(v) {
				return emulator.BadRequest("The value of the header %s is not valid UTF-8.", name)
			}
		}
	}
	return nil
}

// authenticate verifies the Authorization header (reference §2). Every
// authentication failure is a 401 (never 403 with sub-status 3 or 1008,
// which the SDKs retry for minutes); a valid resource token that does not
// cover the request is a 403 (authorizeResourceToken). Its time counts
// in the request's reqphase.Auth, for both transports.
func (h *handler) authenticate(r *http.Request) error {
	defer reqphase.Start(r.Context(), reqphase.Auth)()
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return emulator.Errorf(emulator.KindUnauthorized, "Required Header authorization is missing. Ensure a valid Authorization token is passed.")
	}
	if len(auth) > MaxAuthorizationHeader {
		return emulator.Errorf(emulator.KindUnauthorized, "The authorization header is too long.")
	}
	tok, ok := parseAuthorization(auth)
	if !ok {
		return emulator.Errorf(emulator.KindUnauthorized, "The authorization header is malformed: expected type=master&ver=1.0&sig=<signature>.")
	}
	if tok.typ == "resource" {
		// a resource token is the whole header: no date, nothing signed
		// per request (users-permissions.md §3.1)
		t, err := h.verifyResourceToken(tok.sig)
		if err != nil {
			return err
		}
		if isAddressPath(r.URL.EscapedPath()) {
			// the addresses of a container's documents need a token that
			// reads them; the master partition's, any token
			r = addressAuthorizationRequest(r)
		}
		return h.authorizeResourceToken(r, t)
	}
	date := r.Header.Get("X-Ms-Date")
	if date == "" {
		date = r.Header.Get("Date")
	}
	if date == "" {
		return emulator.Errorf(emulator.KindUnauthorized, "The request has neither an x-ms-date nor a Date header; the signature cannot be checked.")
	}
	t, err := http.ParseTime(date)
	if err != nil {
		t, err = time.Parse(time.RFC1123, date)
	}
	if err != nil {
		// The case of the value is irrelevant (reference §1.3): clients
		// may send "sun, 22 nov 2026 07:47:29 gmt".
		t, err = http.ParseTime(strings.ToUpper(date))
	}
	if err != nil {
		return emulator.Errorf(emulator.KindUnauthorized, "The x-ms-date header '%s' is not an RFC 1123 date.", date)
	}
	if skew := h.now().Sub(t); skew > MaxClockSkew || skew < -MaxClockSkew {
		return emulator.Errorf(emulator.KindUnauthorized, "The authorization token is not valid at the current time: x-ms-date '%s' is more than 15 minutes from the server's clock (%s).", date, h.now().UTC().Format(http.TimeFormat))
	}
	switch tok.typ {
	case "master":
		resType, link := ResourceTypeAndLink(r.URL.EscapedPath())
		links := linkCandidates(r.URL.EscapedPath(), link)
		if isAddressPath(r.URL.EscapedPath()) {
			resType, links = h.addressSignedResource(r)
			link = links[0]
		}
		if verifyMaster(h.key, tok, r.Method, resType, links, date) {
			return nil
		}
		return emulator.Errorf(emulator.KindUnauthorized, "The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. For more info: https://aka.ms/cosmosdb-tsg-mac-signature. Server used the following payload to sign: '%s'", StringToSign(r.Method, resType, link, date))
	case "aad":
		if verifyAAD(h.keyString, tok) {
			return nil
		}
		return emulator.Errorf(emulator.KindUnauthorized, "The AAD token was not accepted: the emulator accepts emulator-style tokens whose signature segment is the account key.")
	default:
		return emulator.Errorf(emulator.KindUnauthorized, "Authorization type '%s' is not supported by this emulator; use master key (type=master) or emulator AAD tokens.", tok.typ)
	}
}

// linkCandidates returns the links a signature may cover for a request
// whose decoded link is link: that link exactly (Go, JS and .NET sign the
// decoded, case-preserved link; reference §2.2), plus, for a RID-addressed
// request, the lower-cased RID alone that the SDKs sign for it: GET/PUT
// /offers/{rid} (Go, JS), and any path under /dbs/{dbRid} whose ids are all
// well-formed RIDs of their level (database 4 bytes, container or user 8,
// a document, script or permission 16), signed by the RID of the resource
// addressed, or of the feed's owner (.NET reads pkranges so; Java replaces
// and deletes a container through its _self link, and its
// BaseAuthorizationTokenProvider lower-cases every link that is not name
// based). A lower-cased RID names no resource by name, and RIDs differing
// only in case are distinct values the service itself cannot tell apart in
// a signature, so nothing else is case-folded: a signature over docs/secret
// does not read docs/Secret, and neither the still-escaped link nor a bare
// last segment is accepted.
func linkCandidates(escapedPath, link string) []string {
	out := []string{link}
	segs := splitPath(escapedPath)
	switch {
	case len(segs) == 2 && segs[0] == "offers":
		out = append(out, strings.ToLower(segs[1]))
	case len(segs) >= 2 && segs[0] == "dbs":
		// The ids of the link: every odd segment, without a feed's last
		// (type) segment.
		last := len(segs) - 1
		if len(segs)%2 == 1 {
			last = len(segs) - 2
		}
		for i := 1; i <= last; i += 2 {
			if !isRID(segs[i], ridLevelSize[min(i/2, len(ridLevelSize)-1)]) {
				return out
			}
		}
		out = append(out, strings.ToLower(segs[last]))
	}
	return out
}

// ridLevelSize is the size in bytes of the RID at each level of a
// RID-addressed path: database, container or user, then a document,
// script, trigger, UDF or permission.
var ridLevelSize = [...]int{4, 8, 16}

// isRID reports whether s is a well-formed RID of n bytes.
func isRID(s string, n int) bool {
	b, ok := emulator.DecodeRID(s)
	return ok && len(b) == n
}

// newUUID returns a random (version 4) UUID, the form of activity ids:
// github.com/google/uuid, one allocation (the string).
func newUUID() string { return uuid.NewString() }

// defaultHeaders are the response headers every request starts with, the
// activity id first; their names are in canonical form, so they are stored
// without canonicalising them again.
var defaultHeaders = [...]struct{ name, value string }{
	{textproto.CanonicalMIMEHeaderKey("x-ms-activity-id"), ""},
	{"Content-Type", "application/json"},
	{textproto.CanonicalMIMEHeaderKey("x-ms-gatewayversion"), "version=2.14.0"},
	{textproto.CanonicalMIMEHeaderKey("x-ms-serviceversion"), "version=2.14.0.0"},
	{textproto.CanonicalMIMEHeaderKey("x-ms-schemaversion"), "1.21"},
	{textproto.CanonicalMIMEHeaderKey("x-ms-session-token"), "0:-1#1"},
	{textproto.CanonicalMIMEHeaderKey("x-ms-request-charge"), "1"},
	{"Cache-Control", "no-store, no-cache"},
	{"Server", "cosmos-emulator"},
}

// setHeaders sets header kv[i] to kv[i+1] for each pair, as hd.Set would
// for names in canonical form (they must be: this does not canonicalise),
// with one allocation for all the values where hd.Set makes one per
// header. Each value slice has its capacity cut to its length, so an
// hd.Add on one copies it rather than overwriting the next header's value.
func setHeaders(hd http.Header, kv ...string) {
	vals := make([]string, len(kv)/2)
	for i := range vals {
		vals[i] = kv[2*i+1]
		hd[kv[2*i]] = vals[i : i+1 : i+1]
	}
}

// setDefaultHeaders sets defaultHeaders in hd, as hd.Set would, with the
// given activity id. The values share one backing array (one allocation
// instead of one per header, plus the canonicalisation of each name); each
// header's slice has its capacity cut to its length, so hd.Add on one
// copies it rather than overwriting the next header's value.
func setDefaultHeaders(hd http.Header, activity string) {
	vals := make([]string, len(defaultHeaders))
	for i, h := range defaultHeaders {
		vals[i] = h.value
		hd[h.name] = vals[i : i+1 : i+1]
	}
	vals[0] = activity
}

func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, emulator.BadRequest("Request url is invalid: %s %s addresses no resource this emulator serves (attachments are not supported).", r.Method, r.URL.Path))
}

func (h *handler) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, emulator.Errorf(emulator.KindMethodNotAllowed, "The requested verb %s is not supported on %s.", r.Method, r.URL.Path))
}

// ---- helpers

// pathVar returns an unescaped mux path variable.
func pathVar(r *http.Request, name string) string {
	v := mux.Vars(r)[name]
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// maxBodyPrealloc is the most readBody allocates for a body on the word of
// its Content-Length header alone.
const maxBodyPrealloc = 256 << 10

// readBody reads at most MaxItemSize bytes; a larger body is 413.
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > emulator.MaxItemSize {
		return nil, emulator.ErrTooLarge
	}
	// Sized from the announced length, so a 100-operation batch (about
	// 100 KB) is read into one allocation rather than ReadAll's doublings;
	// but at most maxBodyPrealloc is allocated before the bytes arrive.
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), maxBodyPrealloc)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, emulator.MaxItemSize+1)); err != nil {
		return nil, &emulator.Error{Kind: emulator.KindBadRequest, Message: "The request body could not be read.", Err: err}
	}
	b := buf.Bytes()
	if len(b) > emulator.MaxItemSize {
		return nil, emulator.ErrTooLarge
	}
	return b, nil
}

func isTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

// isQuery reports whether a POST carries a query rather than a resource.
func isQuery(r *http.Request) bool {
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	return strings.HasPrefix(ct, "application/query+json") || strings.HasPrefix(ct, "application/sql") ||
		isTrue(r.Header.Get("X-Ms-Documentdb-Isquery")) || isTrue(r.Header.Get("X-Ms-Documentdb-Query"))
}

// decodeQuery reads a query body; application/sql bodies are the bare text.
// Either must be valid UTF-8.
func decodeQuery(r *http.Request) (emulator.Query, error) {
	body, err := readBody(r)
	if err != nil {
		return emulator.Query{}, err
	}
	return parseQueryBody(body, strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "application/sql"))
}

// parseQueryBody decodes a query body: {"query","parameters"} JSON, or
// with sqlText the bare query text. Either must be valid UTF-8.
func parseQueryBody(body []byte, sqlText bool) (emulator.Query, error) {
	var q emulator.Query
	if !utf8.Valid(body) {
		// encoding/json would replace the bytes with U+FFFD silently
		return q, emulator.InvalidBody(emulator.ErrJSONInvalidUTF8)
	}
	if sqlText {
		q.Text = string(body)
		return q, nil
	}
	if err := json.Unmarshal(body, &q); err != nil {
		return q, &emulator.Error{Kind: emulator.KindBadRequest, Message: emulator.MsgInvalidPayload, Err: err}
	}
	if err := emulator.CheckJSONSurrogates(body); err != nil {
		// the query text or a parameter would hold U+FFFD instead
		return q, emulator.InvalidBody(err)
	}
	seen := map[string]bool{}
	for _, p := range q.Parameters {
		if !strings.HasPrefix(p.Name, "@") || len(p.Name) < 2 {
			return q, emulator.BadRequest("Parameter names should be in the format of symbol '@' followed by a valid identifier. Invalid name: '%s'.", p.Name)
		}
		if seen[p.Name] {
			return q, emulator.BadRequest("Specified duplicate parameter name '%s'.", p.Name)
		}
		seen[p.Name] = true
	}
	return q, nil
}

// throughput decodes the provisioning headers of a create request.
func throughput(r *http.Request) (*emulator.Throughput, error) {
	if v := r.Header.Get("X-Ms-Cosmos-Offer-Autopilot-Settings"); v != "" {
		var s struct {
			MaxThroughput     int `json:"maxThroughput"`
			AutoUpgradePolicy *struct {
				ThroughputPolicy *struct {
					IncrementPercent int `json:"incrementPercent"`
				} `json:"throughputPolicy"`
			} `json:"autoUpgradePolicy"`
		}
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return nil, emulator.BadRequest("The x-ms-cosmos-offer-autopilot-settings header is not valid JSON.")
		}
		tp := &emulator.Throughput{AutoscaleMax: s.MaxThroughput}
		if s.AutoUpgradePolicy != nil && s.AutoUpgradePolicy.ThroughputPolicy != nil {
			tp.AutoscaleIncrementPercent = s.AutoUpgradePolicy.ThroughputPolicy.IncrementPercent
		}
		if tp.AutoscaleMax <= 0 {
			return nil, emulator.BadRequest("The autoscale maxThroughput must be a positive integer.")
		}
		return tp, nil
	}
	if v := r.Header.Get("X-Ms-Offer-Throughput"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, emulator.BadRequest("The x-ms-offer-throughput header '%s' is not an integer.", v)
		}
		return &emulator.Throughput{Manual: n}, nil
	}
	return nil, nil
}

// pageRequest decodes x-ms-max-item-count and x-ms-continuation.
func pageRequest(r *http.Request) (emulator.PageRequest, error) {
	n, err := emulator.ParsePageSize(r.Header.Get("X-Ms-Max-Item-Count"))
	return emulator.PageRequest{MaxItems: n, Continuation: r.Header.Get("X-Ms-Continuation")}, err
}

// charge returns a deterministic request-charge estimate in RU for an
// operation touching n bytes: reads cost about 1 RU per KB, writes about
// 5 RU plus 1 per KB, like the service's published ballpark.
func charge(write bool, n int) string {
	return strconv.FormatFloat(chargeRU(write, n), 'f', -1, 64)
}

// chargeRU is charge as a number (rounded to hundredths).
func chargeRU(write bool, n int) float64 {
	kb := float64(n) / 1024
	ru := 1 + kb
	if write {
		ru = 5.71 + kb
	}
	return float64(int(ru*100+0.5)) / 100
}

// writeResource sends one resource with its etag.
func writeResource(w http.ResponseWriter, status int, body []byte, etag string) {
	if etag == "" {
		writeBody(w, status, body)
		return
	}
	setHeaders(w.Header(), "Etag", etag, "Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeFeed sends a feed envelope {"_rid":..,"<name>":[..],"_count":n}.
func writeFeed(w http.ResponseWriter, ownerRID, name string, docs [][]byte, continuation string) {
	buf := feedBody(ownerRID, name, docs)
	hd := w.Header()
	hd.Set("X-Ms-Item-Count", strconv.Itoa(len(docs)))
	if continuation != "" {
		hd.Set("X-Ms-Continuation", continuation)
	}
	hd.Set("X-Ms-Request-Charge", charge(false, len(buf)))
	writeBody(w, http.StatusOK, buf)
}

// feedBody is a feed envelope {"_rid":..,"<name>":[..],"_count":n}.
func feedBody(ownerRID, name string, docs [][]byte) []byte {
	n := 0
	for _, d := range docs {
		n += len(d) + 1
	}
	buf := make([]byte, 0, n+64)
	buf = append(buf, `{"_rid":`...)
	buf = emulator.AppendJSONString(buf, ownerRID)
	buf = append(buf, ',')
	buf = emulator.AppendJSONString(buf, name)
	buf = append(buf, ':')
	buf = emulator.AppendJSONArray(buf, docs)
	buf = append(buf, `,"_count":`...)
	buf = strconv.AppendInt(buf, int64(len(docs)), 10)
	return append(buf, '}')
}

// checkConsistencyLevel refuses (400) a request on the account's resources
// (under /dbs and /offers) whose x-ms-consistency-level is stronger than
// the account's default consistency, as the service does (reference
// §2.3: "stronger than account → 400"; azure-cosmos (Python)'s
// test_user_configs expects the 400 from a Strong client creating a
// database on a Session account). A weaker or equal level, and a value
// that names no level, are accepted; the account read (GET /) is not
// checked.
func (h *handler) checkConsistencyLevel(r *http.Request) error {
	asked := r.Header.Get("X-Ms-Consistency-Level")
	if asked == "" {
		return nil
	}
	p := r.URL.EscapedPath()
	if !strings.HasPrefix(p, "/dbs") && !strings.HasPrefix(p, "/offers") {
		return nil
	}
	rank := func(level string) int {
		for i, l := range ConsistencyLevels { // strongest first
			if strings.EqualFold(l, level) {
				return i
			}
		}
		return -1
	}
	a, account := rank(asked), rank(h.consistency)
	if a < 0 || account < 0 || a >= account {
		return nil
	}
	return emulator.BadRequest("ConsistencyLevel %s specified in the request is invalid when service is configured with consistency level %s. Ensure the request consistency level is not stronger than the service consistency level.",
		ConsistencyLevels[a], h.consistency)
}
