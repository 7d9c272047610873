package wire

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Resource tokens (users-permissions.md §2.3, §3). A permission's _token is
// self-contained: it carries the permission's scope, mode, partition key
// and expiry, authenticated with an HMAC under a key derived from the
// master key, so verifying one needs no database access and tokens survive
// restarts (and die with a change of master key). The shape is the
// service's, type=resource&ver=1&sig=<A>;<B>; with A the base64 of a
// random 16-byte nonce and B the base64 of the JSON payload followed by
// the HMAC-SHA256 of nonce‖payload. Clients treat it as opaque.

const (
	// DefaultTokenExpiry is a resource token's lifetime without an
	// x-ms-documentdb-expiry-seconds header.
	DefaultTokenExpiry = 3600
	// MinTokenExpiry and MaxTokenExpiry bound x-ms-documentdb-expiry-seconds
	// (inclusive): the bounds the hosted service was observed to enforce
	// and the current limits page states (10 minutes to 24 hours), chosen
	// over the 5-hour maximum of the older REST pages.
	MinTokenExpiry = 600
	MaxTokenExpiry = 86400
	// MaxAuthorizationHeader is the longest Authorization header accepted
	// (the service's limit for resource tokens, 8 KiB).
	MaxAuthorizationHeader = 8192
	// MsgInsufficientPermissions is the 403 of a request a resource token
	// does not cover.
	MsgInsufficientPermissions = "Insufficient permissions provided in the authorization header for the corresponding request. Please retry with another authorization header."
)

// tokenNonceSize is the size of the random part of a token.
const tokenNonceSize = 16

// resourceToken is the payload of a resource token.
type resourceToken struct {
	Version    int    `json:"v"`
	Permission string `json:"p"` // the permission's _rid
	User       string `json:"u"` // its user's _rid
	// Scope is the permission's resource link, by names where it resolved
	// (emulator.Permission.Scope).
	Scope string `json:"s"`
	// Write is true for permissionMode All.
	Write bool `json:"w"`
	// PK is the canonical resourcePartitionKey, absent when none.
	PK      *string `json:"k,omitempty"`
	Issued  int64   `json:"i"`
	Expires int64   `json:"x"` // unix seconds of the emulator clock
}

// tokenKey derives the resource-token MAC key from the master key, so that
// a token never doubles as a master-key signature.
func tokenKey(master []byte) []byte {
	m := hmac.New(sha256.New, master)
	m.Write([]byte("cosmos-emulator resource token v1"))
	return m.Sum(nil)
}

func tokenMAC(key, nonce, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(nonce)
	m.Write(payload)
	return m.Sum(nil)
}

// mintToken returns a new resource token for p valid for lifetime seconds
// from now (emulator time).
func (h *handler) mintToken(p emulator.Permission, lifetime int64) string {
	now := h.svc.Clock().Now().Unix()
	t := resourceToken{Version: 1, Permission: p.RID, User: p.UserRID, Scope: p.Scope, Write: p.AllowsWrites(), Issued: now, Expires: now + lifetime}
	if k := p.PartitionKeyCanonical(); k != "" {
		t.PK = &k
	}
	payload, _ := json.Marshal(t)
	nonce := make([]byte, tokenNonceSize)
	_, _ = rand.Read(nonce)
	body := append(payload, tokenMAC(h.tokenKey, nonce, payload)...)
	return "type=resource&ver=1&sig=" + base64.StdEncoding.EncodeToString(nonce) + ";" + base64.StdEncoding.EncodeToString(body) + ";"
}

// errBadResourceToken is the 401 of a resource token that is malformed or
// was not issued by this account.
var errBadResourceToken = emulator.Errorf(emulator.KindUnauthorized, "The input authorization token can't serve the request: the resource token is malformed or was not issued by this account (or under its current key). Read the permission again to get a valid token.")

// verifyResourceToken checks the signature part of a resource token and
// returns its payload; an expired token is a 401 too.
func (h *handler) verifyResourceToken(sig string) (resourceToken, error) {
	var t resourceToken
	parts := strings.Split(sig, ";")
	if len(parts) < 2 || len(parts) > 3 || (len(parts) == 3 && parts[2] != "") {
		return t, errBadResourceToken
	}
	nonce, err1 := base64.StdEncoding.DecodeString(parts[0])
	body, err2 := base64.StdEncoding.DecodeString(parts[1])
	if err1 != nil || err2 != nil || len(nonce) != tokenNonceSize || len(body) <= sha256.Size {
		return t, errBadResourceToken
	}
	payload, mac := body[:len(body)-sha256.Size], body[len(body)-sha256.Size:]
	if !hmac.Equal(mac, tokenMAC(h.tokenKey, nonce, payload)) {
		return t, errBadResourceToken
	}
	if err := json.Unmarshal(payload, &t); err != nil || t.Version != 1 {
		return t, errBadResourceToken
	}
	now := h.svc.Clock().Now()
	if now.Unix() >= t.Expires {
		return t, emulator.Errorf(emulator.KindUnauthorized, "Request is blocked because the resource token has expired (expiry time: %s, current server time: %s). Read the permission again to get a new token.",
			time.Unix(t.Expires, 0).UTC().Format(http.TimeFormat), now.UTC().Format(http.TimeFormat))
	}
	return t, nil
}

// tokenLifetime reads x-ms-documentdb-expiry-seconds: DefaultTokenExpiry
// when absent, else an integer in MinTokenExpiry..MaxTokenExpiry.
func tokenLifetime(r *http.Request) (int64, error) {
	v := strings.TrimSpace(r.Header.Get("X-Ms-Documentdb-Expiry-Seconds"))
	if v == "" {
		return DefaultTokenExpiry, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < MinTokenExpiry || n > MaxTokenExpiry {
		return 0, emulator.BadRequest("Value '%s' specified for the header 'x-ms-documentdb-expiry-seconds' is invalid. It must be an integer number of seconds from %d (10 minutes) to %d (24 hours).", v, MinTokenExpiry, MaxTokenExpiry)
	}
	return n, nil
}

// errInsufficient is the 403 of a request a resource token does not cover.
var errInsufficient = emulator.Errorf(emulator.KindForbidden, MsgInsufficientPermissions)

// authorizeResourceToken decides whether the verified token t covers the
// request (users-permissions.md §3.3):
//
//   - GET / (the account) is allowed with any valid token;
//   - GET/HEAD of a container and GET of its pkranges are allowed when the
//     token's scope is the container, inside it, or above it (a database
//     scope), whatever its partition key;
//   - any other request must address the scope or something below it: a
//     container's items feed, queries, query plans, change feed, batches,
//     conflicts and scripts, or one child resource (item, stored procedure,
//     ...); POST create/upsert/batch address the container's feed, so an
//     item-scoped token never covers them;
//   - a container itself is never replaced or deleted with a token;
//   - writes (everything but GET/HEAD and query or query-plan POSTs to a
//     feed) need permissionMode All;
//   - a token with a resourcePartitionKey needs the same key in the
//     x-ms-documentdb-partitionkey header (query-plan requests excepted);
//   - everything else (databases, users, permissions, offers, the
//     control endpoints) is refused.
//
// Names and RIDs are interchangeable in both the scope and the request.
func (h *handler) authorizeResourceToken(r *http.Request, t resourceToken) error {
	segs := splitPath(r.URL.EscapedPath())
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	if len(segs) == 0 {
		if read {
			return nil
		}
		return errInsufficient
	}
	if len(segs) < 4 || segs[0] != "dbs" || segs[2] != "colls" {
		return errInsufficient
	}
	scope := strings.Split(t.Scope, "/")
	// the request's target: the container for the container itself and
	// its feeds, else the addressed child
	target := segs
	switch {
	case len(segs) == 5:
		target = segs[:4]
	case len(segs) == 6 && segs[4] == "operations":
		target = segs[:4]
	}
	names := h.containerNames(r, segs)
	container := target[:4]
	if len(segs) == 4 || (len(segs) == 5 && segs[4] == "pkranges") {
		// the container and its partition key ranges: reads only
		if !read {
			return errInsufficient
		}
		if scopeCovers(scope, container, names) || scopeCovers(container, scope, names) {
			return nil
		}
		return errInsufficient
	}
	if !scopeCovers(scope, target, names) {
		return errInsufficient
	}
	feedRead := len(segs) == 5 && r.Method == http.MethodPost && !isTrue(r.Header.Get("X-Ms-Cosmos-Is-Batch-Request")) &&
		(isTrue(r.Header.Get("X-Ms-Cosmos-Is-Query-Plan-Request")) || isQuery(r))
	if !read && !feedRead && !t.Write {
		return errInsufficient
	}
	if t.PK != nil && !isTrue(r.Header.Get("X-Ms-Cosmos-Is-Query-Plan-Request")) {
		pk, err := ParsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
		if err != nil || pk == nil || pk.Canonical() != *t.PK {
			return errInsufficient
		}
	}
	return nil
}

// containerNames returns a function that looks up, once and only when
// called, the ids and RIDs ([dbID, dbRID, collID, collRID]) of the
// container a request addresses (segs[1], segs[3]); nil when it does not
// exist.
func (h *handler) containerNames(r *http.Request, segs []string) func() []string {
	var names []string
	looked := false
	return func() []string {
		if !looked {
			looked = true
			if c, err := h.svc.GetContainer(r.Context(), segs[1], segs[3]); err == nil {
				names = []string{c.DatabaseID, c.DatabaseRID, c.ID, c.RID}
			}
		}
		return names
	}
}

// scopeCovers reports whether the link segments outer are a prefix of
// inner, segment by segment. The database and container segments (1 and
// 3) also match when one names and the other is the RID of the container
// described by names (see containerNames), which is called only then.
func scopeCovers(outer, inner []string, names func() []string) bool {
	if len(outer) > len(inner) {
		return false
	}
	for i := range outer {
		if outer[i] == inner[i] {
			continue
		}
		if i != 1 && i != 3 {
			return false
		}
		n := names()
		if n == nil {
			return false
		}
		id, rid := n[i-1], n[i]
		if (outer[i] != id && outer[i] != rid) || (inner[i] != id && inner[i] != rid) {
			return false
		}
	}
	return true
}
