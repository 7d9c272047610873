package wire

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestSignatureKnownVector is the worked example of the REST docs
// (reference §2.1).
func TestSignatureKnownVector(t *testing.T) {
	key, err := base64.StdEncoding.DecodeString("dsZQi3KtZmCv1ljt3VNWNm7sQUF1y5rJfC6kv5JiwvW0EndXdDku/dkKBp8/ufDToSxLzR4y+O/0H/t4bQtVNw==")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, StringToSign("GET", "dbs", "dbs/ToDoList", "Thu, 27 Apr 2017 00:51:12 GMT"))
	want := "c09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu+c+c="
	if got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
	// The docs print the header in .NET's lower-case percent encoding.
	docHeader := "type%3dmaster%26ver%3d1.0%26sig%3dc09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu%2bc%2bc%3d"
	tok, ok := parseAuthorization(docHeader)
	if !ok || tok.typ != "master" || tok.ver != "1.0" || tok.sig != want {
		t.Fatalf("parseAuthorization(%q) = %+v, %v", docHeader, tok, ok)
	}
}

func TestStringToSignLowercasesVerbTypeAndDateButNotLink(t *testing.T) {
	got := StringToSign("GET", "DOCS", "dbs/Db/colls/Coll/docs/Id", "Sat, 22 Dec 2018 13:02:24 GMT")
	want := "get\ndocs\ndbs/Db/colls/Coll/docs/Id\nsat, 22 dec 2018 13:02:24 gmt\n\n"
	if got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestParseAuthorization(t *testing.T) {
	sig := "ab+cd/ef=="
	tests := []struct {
		name, header string
		wantSig      string
		ok           bool
	}{
		{"go upper-case escapes", url.QueryEscape("type=master&ver=1.0&sig=" + sig), sig, true},
		{"dotnet lower-case escapes", strings.ToLower(url.QueryEscape("type=master&ver=1.0&sig=" + sig)), strings.ToLower(sig), true},
		{"unencoded", "type=master&ver=1.0&sig=" + sig, sig, true},
		{"space for plus (decoded twice by a proxy)", "type=master&ver=1.0&sig=ab cd/ef==", sig, true},
		{"aad", "type=aad&ver=1.0&sig=a.b.c", "a.b.c", true},
		{"no sig", "type=master&ver=1.0", "", false},
		{"garbage", "%zz", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, ok := parseAuthorization(tt.header)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tt.ok, tok)
			}
			if ok && tok.sig != tt.wantSig {
				t.Fatalf("sig = %q, want %q", tok.sig, tt.wantSig)
			}
		})
	}
}

func TestResourceTypeAndLink(t *testing.T) {
	tests := []struct {
		path, typ, link string
	}{
		{"/", "", ""},
		{"", "", ""},
		{"/dbs", "dbs", ""},
		{"/dbs/", "dbs", ""},
		{"/dbs/db1", "dbs", "dbs/db1"},
		{"/dbs/db1/colls", "colls", "dbs/db1"},
		{"/dbs/db1/colls/c1", "colls", "dbs/db1/colls/c1"},
		{"/dbs/db1/colls/c1/docs", "docs", "dbs/db1/colls/c1"},
		{"/dbs/db1/colls/c1/docs/d1", "docs", "dbs/db1/colls/c1/docs/d1"},
		{"/dbs/db1/colls/c1/pkranges", "pkranges", "dbs/db1/colls/c1"},
		{"/offers", "offers", ""},
		{"/offers/AbCd/", "offers", "offers/AbCd"},
		{"/_emulator/clock", "_emulator", "_emulator/clock"},
		{"/_emulator/ttl/sweep", "sweep", "_emulator/ttl"},
		// each segment is unescaped on its own: an escaped slash stays inside the id
		{"/dbs/db1/colls/c1/docs/a%2Fb%20c%2520%C3%A9%3F%23", "docs", "dbs/db1/colls/c1/docs/a/b c%20é?#"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			typ, link := ResourceTypeAndLink(tt.path)
			if typ != tt.typ || link != tt.link {
				t.Fatalf("ResourceTypeAndLink(%q) = %q, %q; want %q, %q", tt.path, typ, link, tt.typ, tt.link)
			}
		})
	}
}

// TestSignatureBoundToTypeLinkAndVerb: a master-key signature serves only
// the verb, resource type and link it was made for. The only alternative
// links are the lower-cased RIDs the SDKs sign for RID-addressed requests
// (offers: Go and JS; pkranges by RID: .NET; a container through its
// _self link: Java); names keep their case.
func TestSignatureBoundToTypeLinkAndVerb(t *testing.T) {
	key, err := base64.StdEncoding.DecodeString(WellKnownKey)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	h := &handler{key: key, keyString: WellKnownKey, now: func() time.Time { return now }}
	dbRID, collRID := emulator.DatabaseRID(3), emulator.ContainerRID(3, 7)
	if strings.ToLower(collRID) == collRID {
		t.Fatalf("container RID %q has no upper-case letter: the case tests below would prove nothing", collRID)
	}
	pkrByRID := "/dbs/" + dbRID + "/colls/" + collRID + "/pkranges"
	docRID := emulator.DocumentRID(collRID, 42)
	docByRID := "/dbs/" + dbRID + "/colls/" + collRID + "/docs/" + docRID
	tests := []struct {
		name             string
		method, path     string // the request
		signVerb         string // "" = the request's method
		signType, signAs string // what the client signed
		ok               bool
	}{
		// what the SDKs sign
		{"doc by name", "GET", "/dbs/d/colls/c/docs/secret", "", "docs", "dbs/d/colls/c/docs/secret", true},
		{"doc feed (create, query)", "POST", "/dbs/d/colls/c/docs", "", "docs", "dbs/d/colls/c", true},
		{"database", "DELETE", "/dbs/MyDb", "", "dbs", "dbs/MyDb", true},
		{"databases feed", "POST", "/dbs", "", "dbs", "", true},
		{"escaped id signed decoded (Go, .NET)", "GET", "/dbs/d/colls/c/docs/a%2Fb%20c%2520%C3%A9%3F%23", "", "docs", "dbs/d/colls/c/docs/a/b c%20é?#", true},
		{"JS encodeURI path, + kept", "GET", "/dbs/d/colls/c/docs/sp%20ace+plus%20(x)", "", "docs", "dbs/d/colls/c/docs/sp ace+plus (x)", true},
		{"offer by RID lower-cased (Go, JS)", "GET", "/offers/AbCd/", "", "offers", "abcd", true},
		{"offer replace by RID lower-cased", "PUT", "/offers/AbCd", "", "offers", "abcd", true},
		{"offer by generic rule", "GET", "/offers/AbCd", "", "offers", "offers/AbCd", true},
		{"pkranges by RID lower-cased (.NET)", "GET", pkrByRID, "", "pkranges", strings.ToLower(collRID), true},
		{"pkranges by name", "GET", "/dbs/d/colls/Coll/pkranges", "", "pkranges", "dbs/d/colls/Coll", true},
		{"container replace by RID lower-cased (Java)", "PUT", "/dbs/" + dbRID + "/colls/" + collRID, "", "colls", strings.ToLower(collRID), true},
		{"container by RID, full link", "PUT", "/dbs/" + dbRID + "/colls/" + collRID, "", "colls", "dbs/" + dbRID + "/colls/" + collRID, true},
		{"database by RID lower-cased", "GET", "/dbs/" + dbRID, "", "dbs", strings.ToLower(dbRID), true},
		{"containers feed by database RID lower-cased", "GET", "/dbs/" + dbRID + "/colls", "", "colls", strings.ToLower(dbRID), true},
		{"doc by RID lower-cased", "GET", "/dbs/" + dbRID + "/colls/" + collRID + "/docs/" + docRID, "", "docs", strings.ToLower(docRID), true},
		// The Python SDK signs a `_self` link by its last RID lower-cased:
		// its tests read and delete items given as dicts (test_globaldb.py
		// test_global_db_read_write_endpoints, test_multimaster.py,
		// test_change_feed_all_versions.py), which pass against the service.
		{"doc by RID lower-cased (Python)", "GET", docByRID, "", "docs", strings.ToLower(docRID), true},
		{"doc delete by RID lower-cased (Python)", "DELETE", docByRID, "", "docs", strings.ToLower(docRID), true},
		{"container by RID lower-cased (Python)", "GET", "/dbs/" + dbRID + "/colls/" + collRID, "", "colls", strings.ToLower(collRID), true},
		{"doc feed by RIDs, owner lower-cased", "POST", "/dbs/" + dbRID + "/colls/" + collRID + "/docs", "", "docs", strings.ToLower(collRID), true},
		// refused: another resource, verb or type
		{"id differs in case", "GET", "/dbs/d/colls/c/docs/Secret", "", "docs", "dbs/d/colls/c/docs/secret", false},
		{"database name differs in case", "GET", "/dbs/D/colls/c/docs/secret", "", "docs", "dbs/d/colls/c/docs/secret", false},
		{"bare last segment", "GET", "/dbs/d/colls/c/docs/secret", "", "docs", "secret", false},
		{"bare lower-cased last segment", "GET", "/dbs/d/colls/c/docs/Secret", "", "docs", "secret", false},
		{"still-escaped link", "GET", "/dbs/d/colls/c/docs/a%20b", "", "docs", "dbs/d/colls/c/docs/a%20b", false},
		{"other verb", "DELETE", "/dbs/d/colls/c/docs/secret", "GET", "docs", "dbs/d/colls/c/docs/secret", false},
		{"other type", "GET", "/dbs/d/colls/c/docs/secret", "", "colls", "dbs/d/colls/c/docs/secret", false},
		{"feed signature for an item", "GET", "/dbs/d/colls/c/docs/secret", "", "docs", "dbs/d/colls/c", false},
		{"offer RID not lower-cased", "GET", "/offers/AbCd", "", "offers", "AbCd", false},
		{"offer link lower-cased", "GET", "/offers/AbCd", "", "offers", "offers/abcd", false},
		{"offer RID of another offer", "GET", "/offers/AbCe", "", "offers", "abcd", false},
		{"pkranges by name, lower-cased container", "GET", "/dbs/d/colls/Coll/pkranges", "", "pkranges", "coll", false},
		{"pkranges by RID, lower-cased link", "GET", pkrByRID, "", "pkranges", strings.ToLower("dbs/" + dbRID + "/colls/" + collRID), false},
		{"container lower-cased RID for a doc", "GET", "/dbs/" + dbRID + "/colls/" + collRID + "/docs/x", "", "docs", strings.ToLower(collRID), false},
		{"doc by name under RIDs, lower-cased name", "GET", "/dbs/" + dbRID + "/colls/" + collRID + "/docs/Secret", "", "docs", "secret", false},
		{"container by name, lower-cased", "PUT", "/dbs/" + dbRID + "/colls/Coll", "", "colls", "coll", false},
		{"database RID for a container by RID", "PUT", "/dbs/" + dbRID + "/colls/" + collRID, "", "colls", strings.ToLower(dbRID), false},
		{"container RID not lower-cased", "PUT", "/dbs/" + dbRID + "/colls/" + collRID, "", "colls", collRID, false},
		{"doc by RID, RID not lower-cased", "GET", docByRID, "", "docs", docRID, false},
		{"doc by RID, container RID signed", "GET", docByRID, "", "docs", strings.ToLower(collRID), false},
		{"doc by RID, another doc's RID signed", "GET", docByRID, "", "docs", strings.ToLower(emulator.DocumentRID(collRID, 43)), false},
		{"doc RID under a database name", "GET", "/dbs/d/colls/" + collRID + "/docs/" + docRID, "", "docs", strings.ToLower(docRID), false},
	}
	date := now.Format(http.TimeFormat)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verb := tt.signVerb
			if verb == "" {
				verb = tt.method
			}
			r := httptest.NewRequest(tt.method, tt.path, nil)
			r.Header.Set("x-ms-date", date)
			r.Header.Set("Authorization", MasterAuthorization(key, verb, tt.signType, tt.signAs, date))
			err := h.authenticate(r)
			if (err == nil) != tt.ok {
				t.Fatalf("authenticate = %v, want accepted %v", err, tt.ok)
			}
		})
	}
}

func TestVerifyAAD(t *testing.T) {
	enc := base64.RawURLEncoding.EncodeToString
	good := enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(`{"aud":"x"}`)) + "." + enc([]byte(WellKnownKey))
	tests := []struct {
		name, sig string
		ok        bool
	}{
		{"emulator token", good, true},
		{"padded signature segment", good + "==", true},
		{"other signature", enc([]byte("h")) + "." + enc([]byte("p")) + "." + enc([]byte("not the key")), false},
		{"two segments", "a.b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifyAAD(WellKnownKey, authToken{typ: "aad", sig: tt.sig}); got != tt.ok {
				t.Fatalf("verifyAAD = %v, want %v", got, tt.ok)
			}
		})
	}
}

func FuzzParseAuthorization(f *testing.F) {
	f.Add("type%3dmaster%26ver%3d1.0%26sig%3dabc%2b%3d")
	f.Add("type=aad&ver=1.0&sig=a.b.c")
	f.Add("%")
	f.Fuzz(func(t *testing.T, h string) {
		tok, ok := parseAuthorization(h)
		if ok && (tok.typ == "" || tok.sig == "") {
			t.Fatalf("accepted a token without type or sig: %+v", tok)
		}
		_ = verifyAAD(WellKnownKey, tok)
	})
}

// TestVerifyMasterMatchesSign: the allocation-free check accepts exactly
// the signatures Sign(StringToSign(...)) produces, under alternating keys
// (the pooled MACs are keyed), for upper- and lower-case verbs, types and
// dates, a non-ASCII date (lowered by strings.ToLower, as before), any of
// several candidate links, and nothing else: a wrong signature, one of
// another length, the right one with different base64 padding bits.
func TestVerifyMasterMatchesSign(t *testing.T) {
	k1, _ := base64.StdEncoding.DecodeString(WellKnownKey)
	k2 := []byte("another key, as --key sets one")
	date := "Thu, 26 Nov 2026 16:00:00 GMT"
	tests := []struct {
		name                     string
		signKey, verifyKey       []byte
		verb, rt, link, signDate string
		links                    []string
		tamper                   func(string) string
		want                     bool
	}{
		{"master key", k1, k1, "GET", "docs", "dbs/d/colls/c/docs/a", date, []string{"dbs/d/colls/c/docs/a"}, nil, true},
		{"other key", k2, k2, "POST", "colls", "dbs/d", date, []string{"dbs/d"}, nil, true},
		{"signed by another key", k2, k1, "GET", "docs", "dbs/d/colls/c/docs/a", date, []string{"dbs/d/colls/c/docs/a"}, nil, false},
		{"lower-case verb and type", k1, k1, "get", "DOCS", "dbs/d/colls/c/docs/a", date, []string{"dbs/d/colls/c/docs/a"}, nil, true},
		{"second candidate link", k1, k1, "GET", "docs", "dbs/D/colls/c/docs/a", date, []string{"dbs/d/colls/c/docs/a", "dbs/D/colls/c/docs/a"}, nil, true},
		{"no candidate matches", k1, k1, "GET", "docs", "dbs/x", date, []string{"dbs/d/colls/c/docs/a"}, nil, false},
		{"non-ASCII date", k1, k1, "GET", "docs", "dbs/d", "Thu, 26 Növ 2026 16:00:00 GMT", []string{"dbs/d"}, nil, true},
		{"one character changed", k1, k1, "GET", "docs", "dbs/d", date, []string{"dbs/d"}, func(s string) string { return "A" + s[1:] }, false},
		{"too long", k1, k1, "GET", "docs", "dbs/d", date, []string{"dbs/d"}, func(s string) string { return s + "A" }, false},
		{"padding bits", k1, k1, "GET", "docs", "dbs/d", date, []string{"dbs/d"}, func(s string) string {
			// the last character before '=' carries 2 unused bits: flip one
			b := []byte(s)
			i := strings.IndexByte(s, '=') - 1
			idx := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", b[i])
			b[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[idx^1]
			return string(b)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig := Sign(tt.signKey, StringToSign(tt.verb, tt.rt, tt.link, tt.signDate))
			if tt.tamper != nil {
				sig = tt.tamper(sig)
			}
			if got := verifyMaster(tt.verifyKey, authToken{typ: "master", ver: "1.0", sig: sig}, tt.verb, tt.rt, tt.links, tt.signDate); got != tt.want {
				t.Errorf("verifyMaster = %v, want %v", got, tt.want)
			}
		})
	}
	got := string(appendStringToSign(nil, "PoSt", "Docs", "dbs/Ä", "Thu, 26 NÖV"))
	if want := StringToSign("PoSt", "Docs", "dbs/Ä", "Thu, 26 NÖV"); got != want {
		t.Errorf("appendStringToSign = %q, want %q", got, want)
	}
}
