package compat_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSPlainHTTPOnHTTPSPort runs compat_test/js/plainhttp.mjs: @azure/cosmos
// given an http:// endpoint for the emulator's HTTPS port reports a 400
// whose message says to use https, for the account read and for a write,
// instead of a JSON parse error (Go's text answer to such a request).
func TestJSPlainHTTPOnHTTPSPort(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t) // https
	plain := "http://" + strings.TrimPrefix(e.Endpoint, "https://")
	out, _ := runJS(t, node, dir, "plainhttp.mjs", 60*time.Second, "COSMOS_ENDPOINT="+plain)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a line per call, got:\n%s", out)
	}
	for _, line := range lines {
		var r struct {
			Call    string `json:"call"`
			OK      bool   `json:"ok"`
			Code    any    `json:"code"`
			Name    string `json:"name"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		t.Logf("%s: code %v, %s: %s", r.Call, r.Code, r.Name, r.Message)
		if r.OK || r.Code != float64(400) || !strings.Contains(r.Message, "serves HTTPS") || strings.Contains(r.Message, "JSON") {
			t.Errorf("%s: got %s, want a 400 saying the port serves HTTPS", r.Call, line)
		}
	}
}
