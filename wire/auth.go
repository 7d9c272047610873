package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// MaxClockSkew is how far x-ms-date may be from the wall clock (reference
// §2.3: 15 minutes).
const MaxClockSkew = 15 * time.Minute

// WellKnownKey is the public master key of Microsoft's emulator, the
// default key of this one.
const WellKnownKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// ResourceTypeAndLink derives the signed resource type and link of a request
// from its escaped path (sdk-notes §3.1): split on '/', unescape each
// segment; an odd count addresses a feed (type = last segment, link = the
// segments before it), an even count a resource (type = second to last,
// link = all segments). The empty path is type "" and link "".
// Container operations (.../colls/{c}/operations/{op}) are signed as the
// container.
func ResourceTypeAndLink(escapedPath string) (resourceType, link string) {
	segs := splitPath(escapedPath)
	switch {
	case len(segs) == 0:
		return "", ""
	case len(segs) == 6 && segs[0] == "dbs" && segs[2] == "colls" && segs[4] == "operations":
		// POST .../colls/{c}/operations/partitionkeydelete is signed as
		// the container (the JS SDK's deleteAllItemsForPartitionKey)
		return "colls", strings.Join(segs[:4], "/")
	case len(segs)%2 == 1:
		return segs[len(segs)-1], strings.Join(segs[:len(segs)-1], "/")
	default:
		return segs[len(segs)-2], strings.Join(segs, "/")
	}
}

// splitPath trims outer slashes, splits on '/' and unescapes each segment.
func splitPath(escapedPath string) []string {
	p := strings.Trim(escapedPath, "/")
	if p == "" {
		return nil
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if u, err := url.PathUnescape(s); err == nil {
			segs[i] = u
		}
	}
	return segs
}

// StringToSign returns the payload the master-key signature covers.
func StringToSign(verb, resourceType, link, date string) string {
	return strings.ToLower(verb) + "\n" + strings.ToLower(resourceType) + "\n" + link + "\n" + strings.ToLower(date) + "\n" + "\n"
}

// Sign returns the base64 HMAC-SHA256 of payload under the decoded key.
func Sign(key []byte, payload string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// MasterAuthorization returns the URL-encoded Authorization header value a
// client sends for a master-key request (the Go SDK's encoding).
func MasterAuthorization(key []byte, verb, resourceType, link, date string) string {
	return url.QueryEscape("type=master&ver=1.0&sig=" + Sign(key, StringToSign(verb, resourceType, link, date)))
}

// authToken is a parsed Authorization header.
type authToken struct {
	typ, ver, sig string
}

// parseAuthorization decodes the header once (only if it contains '%':
// some clients send it unencoded), then splits on '&' and cuts at the first
// '='. It never decodes twice: a second decoding would turn '+' in the
// base64 signature into a space.
func parseAuthorization(h string) (authToken, bool) {
	if strings.Contains(h, "%") {
		d, err := url.QueryUnescape(h)
		if err != nil {
			return authToken{}, false
		}
		h = d
	}
	var t authToken
	for _, part := range strings.Split(h, "&") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "type":
			t.typ = strings.ToLower(v)
		case "ver":
			t.ver = v
		case "sig":
			t.sig = strings.ReplaceAll(v, " ", "+")
		}
	}
	return t, t.typ != "" && t.sig != ""
}

// verifyMaster checks a request's Authorization against key. linkCandidates are
// the acceptable signed links (raw, decoded, lower-cased for RIDs).
func verifyMaster(key []byte, tok authToken, verb, resourceType string, links []string, date string) bool {
	for _, l := range links {
		want := Sign(key, StringToSign(verb, resourceType, l, date))
		if hmac.Equal([]byte(want), []byte(tok.sig)) {
			return true
		}
	}
	return false
}

// verifyAAD accepts the emulator-style AAD token that the SDKs' emulator
// tests build: header.payload.signature where the signature segment is the
// master key itself, base64url-encoded (sdk-notes §3.2). Microsoft's
// emulator accepts exactly these when AAD is enabled.
func verifyAAD(keyString string, tok authToken) bool {
	parts := strings.Split(tok.sig, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[2], "="))
	if err != nil {
		return false
	}
	return hmac.Equal(sig, []byte(keyString))
}

// accountReadWithAuth reports an account read (GET /) that carries an
// Authorization header: served without one, it is verified when it has one
// (a client with a wrong master key, or an expired or forged resource
// token, gets its 401 at start-up, as from the service).
func accountReadWithAuth(r *http.Request) bool {
	return r.URL.EscapedPath() == "/" && r.Header.Get("Authorization") != ""
}
