package explorer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/server/explorer"
)

const testKey = "c2VjcmV0LWtleS1mb3ItdGVzdHMtb25seQ=="

// TestIsLoopbackListener: only listeners bound to a loopback address (or
// localhost) count as loopback; the unspecified and LAN addresses do not.
func TestIsLoopbackListener(t *testing.T) {
	for _, tt := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8081", true},
		{"127.10.0.3:8081", true},
		{"[::1]:8081", true},
		{"localhost:8081", true},
		{"0.0.0.0:8081", false},
		{"[::]:8081", false},
		{":8081", false},
		{"192.168.1.20:8081", false},
		{"10.0.0.1:8081", false},
		{"[fe80::1%eth0]:8081", false},
		{"example.com:8081", false},
	} {
		if got := explorer.IsLoopbackListener(tt.addr); got != tt.want {
			t.Errorf("IsLoopbackListener(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

// TestKeyForRequest is the key-exposure rule: the key reaches a page only
// from a loopback listener through a loopback host name, or with the
// explicit flag.
func TestKeyForRequest(t *testing.T) {
	for _, tt := range []struct {
		name   string
		listen string
		expose bool
		host   string
		want   bool
		reason string // part of the reason when refused
	}{
		{"loopback listener, localhost", "127.0.0.1:8081", false, "localhost:8081", true, ""},
		{"loopback listener, 127.0.0.1", "127.0.0.1:8081", false, "127.0.0.1:8081", true, ""},
		{"loopback listener, [::1]", "[::1]:8081", false, "[::1]:8081", true, ""},
		{"loopback listener, host without port", "127.0.0.1:80", false, "localhost", true, ""},
		{"loopback listener, rebinding name", "127.0.0.1:8081", false, "attacker.example:8081", false, "not a loopback name"},
		{"all interfaces", "0.0.0.0:8081", false, "localhost:8081", false, "not on a loopback address"},
		{"all interfaces IPv6", "[::]:8081", false, "127.0.0.1:8081", false, "--explorer-expose-key"},
		{"LAN address", "192.168.1.20:8081", false, "192.168.1.20:8081", false, "not on a loopback address"},
		{"all interfaces with the flag", "0.0.0.0:8081", true, "emulator:8081", true, ""},
		{"loopback with the flag, any host", "127.0.0.1:8081", true, "attacker.example:8081", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key, ok, reason := explorer.KeyForRequest(explorer.Config{Key: testKey, ListenAddr: tt.listen, ExposeKey: tt.expose}, tt.host)
			if ok != tt.want {
				t.Fatalf("ok = %v, want %v (reason %q)", ok, tt.want, reason)
			}
			if ok && (key != testKey || reason != "") {
				t.Errorf("key %q reason %q", key, reason)
			}
			if !ok && (key != "" || !strings.Contains(reason, tt.reason)) {
				t.Errorf("key %q, reason %q does not say %q", key, reason, tt.reason)
			}
		})
	}
}

// get performs one request against h and returns status, headers, body.
func get(t *testing.T, h http.Handler, method, target, host string) (int, http.Header, string) {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	if host != "" {
		r.Host = host
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Header(), w.Body.String()
}

// TestHandler: the embedded files with their types and the security
// headers, the settings, and the refusals (unknown file, other methods).
func TestHandler(t *testing.T) {
	h := explorer.New(explorer.Config{Key: testKey, ListenAddr: "127.0.0.1:8081"})
	for _, tt := range []struct {
		method, path string
		status       int
		ctype, body  string
	}{
		{"GET", "/_explorer/index.html", 200, "text/html; charset=utf-8", `<script type="module" src="app.js">`},
		{"GET", "/_explorer/", 200, "text/html; charset=utf-8", "<!doctype html>"},
		{"HEAD", "/_explorer/index.html", 200, "text/html; charset=utf-8", ""},
		{"GET", "/_explorer/app.js", 200, "text/javascript; charset=utf-8", "import"},
		{"GET", "/_explorer/cosmos.js", 200, "text/javascript; charset=utf-8", "export class Client"},
		{"GET", "/_explorer/hmac.js", 200, "text/javascript; charset=utf-8", "export function hmacSha256"},
		{"GET", "/_explorer/style.css", 200, "text/css; charset=utf-8", "body"},
		{"GET", "/_explorer/nope.js", 404, "application/json", `"code":"NotFound"`},
		{"GET", "/_explorer/../explorer.go", 404, "application/json", `"code":"NotFound"`},
		{"GET", "/_explorer/assets/app.js", 404, "application/json", `"code":"NotFound"`},
		{"POST", "/_explorer/index.html", 405, "application/json", `"code":"MethodNotAllowed"`},
		{"GET", "/elsewhere", 404, "application/json", `"code":"NotFound"`},
	} {
		status, hd, body := get(t, h, tt.method, tt.path, "")
		if status != tt.status || hd.Get("Content-Type") != tt.ctype || !strings.Contains(body, tt.body) {
			t.Errorf("%s %s: %d %q %.80q", tt.method, tt.path, status, hd.Get("Content-Type"), body)
		}
		if status == 200 && (!strings.Contains(hd.Get("Content-Security-Policy"), "script-src 'self'") || hd.Get("X-Content-Type-Options") != "nosniff") {
			t.Errorf("%s %s: security headers %v", tt.method, tt.path, hd)
		}
	}
	var s explorer.Settings
	status, hd, body := get(t, h, "GET", explorer.SettingsPath, "localhost:8081")
	if err := json.Unmarshal([]byte(body), &s); err != nil || status != 200 || !s.KeyProvided || s.Key != testKey || hd.Get("Cache-Control") != "no-store" {
		t.Errorf("settings through localhost: %d %s %v", status, body, hd)
	}
	status, _, body = get(t, h, "GET", explorer.SettingsPath, "rebound.example:8081")
	if status != 200 || strings.Contains(body, testKey) || !strings.Contains(body, `"keyProvided":false`) {
		t.Errorf("settings through another name: %d %s", status, body)
	}
}

// TestServedByEmulator runs the real server: the explorer is mounted on
// the main port without a signature, the settings follow the listener's
// address and the --explorer-expose-key setting, and the certificate path
// stays the certificate's.
func TestServedByEmulator(t *testing.T) {
	addr := func(a string) emulatortest.Option { return func(c *server.Config) { c.Addr = a } }
	expose := func(c *server.Config) { c.ExplorerExposeKey = true }
	for _, tt := range []struct {
		name    string
		opts    []emulatortest.Option
		wantKey bool
	}{
		{"loopback", nil, true},
		{"all interfaces", []emulatortest.Option{addr("0.0.0.0:0")}, false},
		{"all interfaces, --explorer-expose-key", []emulatortest.Option{addr("0.0.0.0:0"), expose}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := emulatortest.Start(t, append([]emulatortest.Option{emulatortest.WithProtocol("http"), emulatortest.WithKey(testKey)}, tt.opts...)...)
			body := httpGet(t, e.Endpoint+"_explorer/settings.json", 200)
			if got := strings.Contains(body, testKey); got != tt.wantKey {
				t.Errorf("settings %s: key given = %v, want %v", body, got, tt.wantKey)
			}
			httpGet(t, e.Endpoint+"_explorer/index.html", 200)
			if b := httpGet(t, e.Endpoint+"_explorer/", 200); !strings.Contains(b, "<!doctype html>") { // redirected
				t.Errorf("GET /_explorer/: %.80q", b)
			}
			httpGet(t, e.Endpoint+"_explorer/emulator.pem", 404) // http: no certificate
		})
	}
}

func httpGet(t *testing.T, url string, want int) string {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // test of a local server
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d %s, want %d", url, resp.StatusCode, b, want)
	}
	return string(b)
}
