package wire

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestNormalizeRequest: the request line and headers a resource can be
// addressed by, and the 400s for those no resource can be.
func TestNormalizeRequest(t *testing.T) {
	tests := []struct {
		name       string
		target     string
		header     [2]string
		wantPath   string // escaped path after normalizing; "" = 400
		wantLinkOf string // the signed link derived from it
	}{
		{"plain", "/dbs/d/colls/c/docs/a", [2]string{}, "/dbs/d/colls/c/docs/a", "dbs/d/colls/c/docs/a"},
		{"trailing slash", "/offers/AbCd/", [2]string{}, "/offers/AbCd", "offers/AbCd"},
		{"escaped slash kept in the id", "/dbs/d/colls/c/docs/a%2Fb", [2]string{}, "/dbs/d/colls/c/docs/a%2Fb", "dbs/d/colls/c/docs/a/b"},
		{"JS id with ?", "/dbs/d/colls/c/docs/Disallowed?Chars", [2]string{}, "/dbs/d/colls/c/docs/Disallowed%3FChars", "dbs/d/colls/c/docs/Disallowed?Chars"},
		{"JS id ending in ?", "/dbs/d/colls/c/docs/what?", [2]string{}, "/dbs/d/colls/c/docs/what%3F", "dbs/d/colls/c/docs/what?"},
		{"JS id with ? and /", "/dbs/d/colls/c/docs/a?b/c", [2]string{}, "/dbs/d/colls/c/docs/a%3Fb%2Fc", "dbs/d/colls/c/docs/a?b/c"},
		{"query string outside /dbs left alone", "/_emulator/health?x=1", [2]string{}, "/_emulator/health", "_emulator/health"},
		{"dot segment kept", "/dbs/d/colls/c/docs/..", [2]string{}, "/dbs/d/colls/c/docs/..", "dbs/d/colls/c/docs/.."},
		{"control characters in an id", "/dbs/d/colls/c/docs/a%0D%0A%09b", [2]string{}, "/dbs/d/colls/c/docs/a%0D%0A%09b", "dbs/d/colls/c/docs/a\r\n\tb"},
		{"%00 in an id", "/dbs/d/colls/c/docs/a%00", [2]string{}, "", ""},
		{"%00 in a database", "/dbs/%00", [2]string{}, "", ""},
		{"invalid UTF-8 in a container", "/dbs/d/colls/%C3%28", [2]string{}, "", ""},
		{"invalid UTF-8 after ?", "/dbs/d/colls/c/docs/a?%FF", [2]string{}, "", ""},
		{"invalid UTF-8 in a header", "/dbs/d", [2]string{"If-Match", "\"\xff\""}, "", ""},
		{"invalid UTF-8 in the partition key header", "/dbs/d/colls/c/docs/a", [2]string{"x-ms-documentdb-partitionkey", "[\"\xc3\"]"}, "", ""},
		{"UTF-8 in a header", "/dbs/d", [2]string{"x-ms-continuation", "é"}, "/dbs/d", "dbs/d"},
		// The Python SDK's test_user_agent_special_characters sends a
		// user agent with "é" encoded as Latin-1 (one byte 0xE9) and
		// expects the request to succeed, as it does against the service.
		{"Latin-1 in the user agent", "/dbs/d", [2]string{"User-Agent", "T\xe9stUserAgent's azsdk-python-cosmos/4.17.1"}, "/dbs/d", "dbs/d"},
		{"Latin-1 in another header", "/dbs/d", [2]string{"x-ms-continuation", "T\xe9st"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "http://h"+tt.target, nil)
			if tt.header[0] != "" {
				r.Header.Set(tt.header[0], tt.header[1])
			}
			err := normalizeRequest(r)
			if tt.wantPath == "" {
				if emulator.KindOf(err) != emulator.KindBadRequest {
					t.Fatalf("normalizeRequest = %v, want a 400", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.URL.EscapedPath(); got != tt.wantPath {
				t.Fatalf("path %q, want %q", got, tt.wantPath)
			}
			if _, link := ResourceTypeAndLink(r.URL.EscapedPath()); link != tt.wantLinkOf {
				t.Fatalf("link %q, want %q", link, tt.wantLinkOf)
			}
		})
	}
}

// TestReadBody: a body is read whole whatever its Content-Length says
// about it (exact, absent, or more than it holds), and one over
// MaxItemSize, announced or not, is 413.
func TestReadBody(t *testing.T) {
	big := strings.Repeat("x", emulator.MaxItemSize+1)
	for _, tc := range []struct {
		name   string
		body   string
		length int64 // the Content-Length header; -1: none (chunked)
		fails  bool
		want   emulator.Kind // when it fails
	}{
		{"exact length", `{"id":"a"}`, 10, false, 0},
		{"no length", `{"id":"a"}`, -1, false, 0},
		{"batch-sized, exact", strings.Repeat("y", 300<<10), 300 << 10, false, 0},
		{"shorter than announced", `{"id":"a"}`, 20, true, emulator.KindBadRequest},
		{"too large, announced", `{}`, emulator.MaxItemSize + 1, true, emulator.KindTooLarge},
		{"too large, not announced", big, -1, true, emulator.KindTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/dbs/d/colls/c/docs", io.NopCloser(strings.NewReader(tc.body)))
			r.ContentLength = tc.length
			if tc.name == "shorter than announced" {
				r.Body = io.NopCloser(io.MultiReader(strings.NewReader(tc.body), iotest.ErrReader(io.ErrUnexpectedEOF)))
			}
			b, err := readBody(r)
			if tc.fails {
				if err == nil || !emulator.IsKind(err, tc.want) {
					t.Fatalf("error %v, want kind %v", err, tc.want)
				}
				return
			}
			if err != nil || string(b) != tc.body {
				t.Fatalf("read %d bytes, %v; want the %d bytes sent", len(b), err, len(tc.body))
			}
		})
	}
}
