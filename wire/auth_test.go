package wire

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
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

func TestLinkCandidatesCoverRIDLowerCasingAndEscapedLinks(t *testing.T) {
	got := linkCandidates("/offers/AbCd/", "offers/AbCd")
	if !contains(got, "offers/abcd") || !contains(got, "offers/AbCd") {
		t.Fatalf("offer link candidates %q lack the lower-cased RID link", got)
	}
	got = linkCandidates("/dbs/d/colls/c/docs/a%20b", "dbs/d/colls/c/docs/a b")
	if !contains(got, "dbs/d/colls/c/docs/a%20b") || !contains(got, "dbs/d/colls/c/docs/a b") {
		t.Fatalf("doc link candidates %q lack the raw or decoded link", got)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
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
