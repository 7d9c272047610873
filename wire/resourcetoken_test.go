package wire

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

func tokenHandler(t *testing.T, key string) (*handler, *emulator.Clock) {
	t.Helper()
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	clock := emulator.NewClock(func() time.Time { return t0 })
	return &handler{svc: emulator.New(nil, clock), key: k, tokenKey: tokenKey(k)}, clock
}

// TestResourceTokenMintVerify: a minted token parses from its URL-encoded
// header form, carries the permission's scope, mode and canonical
// partition key, expires exactly at its lifetime on the emulator clock,
// and fails verification when edited or checked under another key.
func TestResourceTokenMintVerify(t *testing.T) {
	h, clock := tokenHandler(t, WellKnownKey)
	p := emulator.Permission{RID: "AAAAAAAAAAAAAAAAAAAAAA==", UserRID: "AAAAAAAAAAA=", Scope: "dbs/d/colls/c", Mode: "all", PartitionKey: []byte(`[1.0]`)}
	tok := h.mintToken(p, 600)
	if !strings.HasPrefix(tok, "type=resource&ver=1&sig=") || !strings.HasSuffix(tok, ";") || strings.Contains(tok, ",") {
		t.Fatalf("token shape %q", tok)
	}
	if h.mintToken(p, 600) == tok {
		t.Error("two mints gave the same token")
	}
	dotnet := regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(url.QueryEscape(tok), strings.ToLower)
	for _, header := range []string{url.QueryEscape(tok), dotnet, tok} {
		at, ok := parseAuthorization(header)
		if !ok || at.typ != "resource" {
			t.Fatalf("parseAuthorization(%q) = %+v %v", header, at, ok)
		}
		rt, err := h.verifyResourceToken(at.sig)
		if err != nil {
			t.Fatalf("verify %q: %v", header, err)
		}
		if rt.Scope != "dbs/d/colls/c" || !rt.Write || rt.PK == nil || *rt.PK != "[1]" || rt.Expires != clock.Now().Unix()+600 {
			t.Errorf("payload %+v", rt)
		}
	}
	at, _ := parseAuthorization(tok)
	if err := clock.Advance(599 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := h.verifyResourceToken(at.sig); err != nil {
		t.Errorf("one second before expiry: %v", err)
	}
	_ = clock.Advance(time.Second)
	if _, err := h.verifyResourceToken(at.sig); !emulator.IsKind(err, emulator.KindUnauthorized) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("at expiry: %v", err)
	}
	other, _ := tokenHandler(t, base64.StdEncoding.EncodeToString([]byte("another key")))
	if _, err := other.verifyResourceToken(at.sig); !emulator.IsKind(err, emulator.KindUnauthorized) {
		t.Errorf("under another key: %v", err)
	}
	flipped := []byte(at.sig)
	flipped[30] ^= 1
	if _, err := h.verifyResourceToken(string(flipped)); !emulator.IsKind(err, emulator.KindUnauthorized) {
		t.Errorf("edited: %v", err)
	}
}

func TestTokenLifetime(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   int64
		ok     bool
	}{
		{"", 3600, true}, {"600", 600, true}, {" 86400 ", 86400, true}, {"3600", 3600, true},
		{"599", 0, false}, {"86401", 0, false}, {"-600", 0, false}, {"1e3", 0, false}, {"six hundred", 0, false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if tc.header != "" {
			r.Header.Set("x-ms-documentdb-expiry-seconds", tc.header)
		}
		got, err := tokenLifetime(r)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("%q: %d, %v; want %d ok=%v", tc.header, got, err, tc.want, tc.ok)
		}
		if err != nil && !emulator.IsKind(err, emulator.KindBadRequest) {
			t.Errorf("%q: %v is not a 400", tc.header, err)
		}
	}
}

// TestScopeCovers: segment-wise prefixes, the database and container
// segments matching across names and RIDs, the lookup only when needed.
func TestScopeCovers(t *testing.T) {
	names := []string{"d", "DRID", "c", "CRID"}
	split := func(s string) []string { return strings.Split(s, "/") }
	for _, tc := range []struct {
		outer, inner string
		want         bool
	}{
		{"dbs/d/colls/c", "dbs/d/colls/c", true},
		{"dbs/d/colls/c", "dbs/d/colls/c/docs/a", true},
		{"dbs/d", "dbs/d/colls/c/docs/a", true},
		{"dbs/DRID/colls/CRID", "dbs/d/colls/c/docs/a", true},
		{"dbs/d/colls/c", "dbs/DRID/colls/CRID/pkranges", true},
		{"dbs/d/colls/c/docs/a", "dbs/d/colls/c", false},
		{"dbs/d/colls/c/docs/a", "dbs/d/colls/c/docs/b", false},
		{"dbs/d/colls/c", "dbs/d/colls/c2", false},
		{"dbs/d/colls/CRID", "dbs/d/colls/other", false},
		{"dbs/d/colls/c", "dbs/d/users/c", false},
	} {
		looked := 0
		got := scopeCovers(split(tc.outer), split(tc.inner), func() []string { looked++; return names })
		if got != tc.want {
			t.Errorf("scopeCovers(%s, %s) = %v, want %v", tc.outer, tc.inner, got, tc.want)
		}
		if tc.outer == tc.inner && looked != 0 {
			t.Errorf("%s: looked the container up for an exact match", tc.outer)
		}
	}
}

// TestAuthorizeWithoutContainer: the decisions that need no container
// lookup (the account, administrative resources).
func TestAuthorizeWithoutContainer(t *testing.T) {
	h, _ := tokenHandler(t, WellKnownKey)
	tok := resourceToken{Scope: "dbs/d/colls/c", Write: true}
	for _, tc := range []struct {
		method, path string
		want         emulator.Kind
	}{
		{http.MethodGet, "/", 0},
		{http.MethodPost, "/", emulator.KindForbidden},
		{http.MethodGet, "/dbs", emulator.KindForbidden},
		{http.MethodGet, "/dbs/d", emulator.KindForbidden},
		{http.MethodDelete, "/dbs/d", emulator.KindForbidden},
		{http.MethodPost, "/dbs/d/colls", emulator.KindForbidden},
		{http.MethodGet, "/dbs/d/users/u/permissions", emulator.KindForbidden},
		{http.MethodGet, "/offers", emulator.KindForbidden},
		{http.MethodPost, "/_emulator/clock", emulator.KindForbidden},
		{http.MethodDelete, "/dbs/d/colls/c", emulator.KindForbidden},
		{http.MethodPut, "/dbs/d/colls/c", emulator.KindForbidden},
		{http.MethodGet, "/dbs/d/colls/c", 0},
		{http.MethodGet, "/dbs/d/colls/c/docs", 0},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		err := h.authorizeResourceToken(r, tok)
		if (tc.want == 0) != (err == nil) || (err != nil && !emulator.IsKind(err, tc.want)) {
			t.Errorf("%s %s: %v, want kind %v", tc.method, tc.path, err, tc.want)
		}
	}
}

// BenchmarkResourceTokenVerify measures what a resource token costs per
// request before the container lookup: parsing the URL-encoded header,
// the MAC and the payload.
func BenchmarkResourceTokenVerify(b *testing.B) {
	k, _ := base64.StdEncoding.DecodeString(WellKnownKey)
	h := &handler{svc: emulator.New(nil, nil), key: k, tokenKey: tokenKey(k)}
	header := url.QueryEscape(h.mintToken(emulator.Permission{RID: "AAAAAAAAAAAAAAAAAAAAAA==", UserRID: "AAAAAAAAAAA=", Scope: "dbs/d/colls/c", Mode: "Read"}, 3600))
	b.ReportAllocs()
	for b.Loop() {
		at, _ := parseAuthorization(header)
		if _, err := h.verifyResourceToken(at.sig); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMasterKeyVerify is the same for a master-key signature, for
// comparison.
func BenchmarkMasterKeyVerify(b *testing.B) {
	k, _ := base64.StdEncoding.DecodeString(WellKnownKey)
	date := "Thu, 26 Nov 2026 16:00:00 GMT"
	header := MasterAuthorization(k, "GET", "colls", "dbs/d/colls/c", date)
	b.ReportAllocs()
	for b.Loop() {
		at, _ := parseAuthorization(header)
		if !verifyMaster(k, at, "GET", "colls", []string{"dbs/d/colls/c"}, date) {
			b.Fatal("not verified")
		}
	}
}
