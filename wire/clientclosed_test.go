package wire

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/prometheus/client_golang/prometheus"
)

// TestClientClosedRequest: an error answered after the client went away
// (the request's context cancelled) is counted as status 499 and logged at
// debug level, not as a 500 at error level; the same error while the client
// waits stays a 500 logged at error level.
func TestClientClosedRequest(t *testing.T) {
	for _, c := range []struct {
		name       string
		gone       bool
		wantStatus string
		wantLog    string
		noLog      string
	}{
		{"client gone", true, "499", "level=DEBUG msg=\"client closed request\"", "level=ERROR"},
		{"client waiting", false, "500", "level=ERROR msg=\"request failed\"", "client closed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf strings.Builder
			reg := prometheus.NewRegistry()
			m, err := newRequestMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			h := &handler{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), metrics: m}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := httptest.NewRequest("POST", "/dbs/d/colls/c/docs", nil).WithContext(ctx)
			r.Header.Set("x-ms-documentdb-isquery", "true")
			inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.gone {
					cancel() // what net/http does when the connection closes
				}
				// what a store returns when its statement was cancelled
				h.writeError(w, r, &emulator.Error{Kind: emulator.KindInternal, Message: "The emulator's database failed: query items",
					Err: fmt.Errorf("query items: %w", context.Canceled)})
			})
			h.observe(inner).ServeHTTP(httptest.NewRecorder(), r)
			if got := requestsByStatus(t, reg); len(got) != 1 || got[c.wantStatus] != 1 {
				t.Errorf("requests by status %v, want one of status %s", got, c.wantStatus)
			}
			logged := buf.String()
			if !strings.Contains(logged, c.wantLog) || strings.Contains(logged, c.noLog) {
				t.Errorf("log %q: want %q and no %q", logged, c.wantLog, c.noLog)
			}
		})
	}
}

// requestsByStatus sums the requests counter of reg by status label.
func requestsByStatus(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if !strings.HasSuffix(mf.GetName(), "requests_total") {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}
