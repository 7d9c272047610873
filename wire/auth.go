package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
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
	if len(tok.sig) != base64.StdEncoding.EncodedLen(sha256.Size) {
		return false // no HMAC-SHA256 in base64 has another length
	}
	m := getMAC(key)
	defer macs.Put(m)
	var payload [256]byte
	var sum [sha256.Size]byte
	var want [44]byte // base64.StdEncoding.EncodedLen(sha256.Size)
	for _, l := range links {
		m.h.Reset()
		m.h.Write(appendStringToSign(payload[:0], verb, resourceType, l, date))
		base64.StdEncoding.Encode(want[:], m.h.Sum(sum[:0]))
		if hmac.Equal(want[:], []byte(tok.sig)) {
			return true
		}
	}
	return false
}

// keyedMAC is an HMAC-SHA256 under key, kept in macs between requests:
// hmac.New allocates and hashes the key each time, Reset does neither.
type keyedMAC struct {
	key string
	h   hash.Hash
}

var macs sync.Pool

// getMAC returns a pooled HMAC-SHA256 under key (put it back in macs).
func getMAC(key []byte) *keyedMAC {
	if m, ok := macs.Get().(*keyedMAC); ok && m.key == string(key) {
		return m
	}
	return &keyedMAC{key: string(key), h: hmac.New(sha256.New, key)}
}

// appendStringToSign appends StringToSign(verb, resourceType, link, date)
// to buf without the intermediate strings.
func appendStringToSign(buf []byte, verb, resourceType, link, date string) []byte {
	buf = appendLower(buf, verb)
	buf = append(buf, '\n')
	buf = appendLower(buf, resourceType)
	buf = append(buf, '\n')
	buf = append(buf, link...)
	buf = append(buf, '\n')
	buf = appendLower(buf, date)
	return append(buf, '\n', '\n')
}

// appendLower appends strings.ToLower(s) to buf; ASCII is lowered in place,
// anything else through strings.ToLower.
func appendLower(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(buf, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
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
