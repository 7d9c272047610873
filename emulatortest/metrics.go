package emulatortest

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// ScrapeMetrics GETs url (an emulator's /_emulator/metrics, or /metrics on
// its health port), unsigned as Prometheus does, and returns each sample
// of the text format, named with its labels as written (e.g.
// `cosmos_emulator_requests_total{operation="Create",resource_type="dbs",status="201"}`),
// mapped to its value. A status other than 200 or a line it cannot read
// fails the test.
func ScrapeMetrics(t testing.TB, hc *http.Client, url string) map[string]float64 {
	t.Helper()
	resp, err := hc.Get(url) //nolint:noctx // a test URL on loopback
	if err != nil {
		t.Fatalf("emulatortest: metrics: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("emulatortest: metrics: %d %s %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	out := map[string]float64{}
	for _, l := range strings.Split(string(body), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			t.Fatalf("emulatortest: metrics line %q has no value", l)
		}
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			t.Fatalf("emulatortest: metrics line %q: %v", l, err)
		}
		out[l[:i]] = v
	}
	return out
}
