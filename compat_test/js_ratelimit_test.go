package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSRateLimit runs compat_test/js/ratelimit.mjs against an emulator
// started WithRateLimit: @azure/cosmos retries the 429s of 240 concurrent
// creates on a 400 RU/s container (x-ms-throttle-retry-count shows
// retries) and all 240 land once; a client without throttle retries gets
// 429/3200 with a retry-after within (0, 1000] ms, and exactly its
// unthrottled creates landed.
func TestJSRateLimit(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithRateLimit())
	start := time.Now()
	out, stderr := runJS(t, node, dir, "ratelimit.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=ratelimit")
	t.Logf("script ran in %v:\n%s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr))
	want := "RETRIED errors=0 throttled=true count=240\nBARE throttled=true codes=429/3200 retryAfter=true landed=true\n"
	if got := string(out); got != want {
		t.Fatalf("JS SDK under --rate-limit:\n%s\nwant:\n%s", got, want)
	}
}
