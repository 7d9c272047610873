package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

// TestPlainHTTPOnHTTPSPort: a plain-HTTP request on a port that serves
// HTTPS (the gateway's, and the explorer's when it serves https) is
// answered 400 with the service's JSON error body {"code":"BadRequest",
// "message":...} naming the https URL to use, and the connection closes;
// a request with a body gets the answer too (not a reset). Go's own
// answer was a text body the SDKs cannot parse. TLS clients on the same
// port are served as before: the Go SDK creates a database, and a TLS
// request follows each plain one.
func TestPlainHTTPOnHTTPSPort(t *testing.T) {
	e := emulatortest.Start(t, func(c *server.Config) { c.ExplorerAddr, c.ExplorerProtocol = "127.0.0.1:0", "https" })
	gateway := strings.TrimSuffix(strings.TrimPrefix(e.Endpoint, "https://"), "/")
	explorer := strings.TrimSuffix(strings.TrimPrefix(e.ExplorerURL(), "https://"), "/_explorer/index.html")
	tests := []struct {
		name, hostPort, request string
	}{
		{"GET / on the gateway", gateway, "GET / HTTP/1.1\r\nHost: " + gateway + "\r\n\r\n"},
		{"POST with a body on the gateway", gateway, "POST /dbs HTTP/1.1\r\nHost: " + gateway + "\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n" + `{"id":"` + strings.Repeat("x", 200000-9) + `"}`},
		{"HTTP/1.0 without Host", gateway, "GET /_emulator/health HTTP/1.0\r\n\r\n"},
		{"GET / on the explorer's https port", explorer, "GET / HTTP/1.1\r\nHost: " + explorer + "\r\n\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", tc.hostPort, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails, not blocks
			start := time.Now()
			if _, err := io.WriteString(conn, tc.request); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading the body: %v", err)
			}
			t.Logf("answered in %v", time.Since(start))
			var e struct{ Code, Message string }
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("body %q is not JSON: %v", body, err)
			}
			if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" || e.Code != "BadRequest" ||
				!strings.Contains(e.Message, "serves HTTPS") || !resp.Close {
				t.Fatalf("answer %d %v %s, want 400 JSON BadRequest saying to use https, connection closed", resp.StatusCode, resp.Header, body)
			}
			if host := strings.Contains(tc.request, "Host: "); host && !strings.Contains(e.Message, "https://"+tc.hostPort+"/") {
				t.Errorf("message %q does not name https://%s/", e.Message, tc.hostPort)
			}
			// TLS on the same port, right after.
			resp, err = emulatortest.HTTPClient().Get("https://" + tc.hostPort + "/_emulator/health") //nolint:noctx
			if err != nil {
				t.Fatalf("TLS after a plain request: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("TLS health after a plain request: %d", resp.StatusCode)
			}
		})
	}
	if _, err := e.Client(t).CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "afterplain"}, nil); err != nil {
		t.Fatalf("the SDK over TLS: %v", err)
	}
}
