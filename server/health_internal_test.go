package server

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthNotReady: before the emulator is ready (and after Close) the
// health server answers /alive 200 and /ready, /health, /status and
// /metrics 503, as Aspire's readiness probe expects; /status names what is
// not up.
func TestHealthNotReady(t *testing.T) {
	s := &Server{cfg: Config{DisableExplorer: true}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h := s.healthHandler()
	for _, c := range []struct {
		path   string
		status int
		body   string
	}{
		{"/alive", 200, `{"status":"alive"}`},
		{"/ready", 503, `{"status":"not ready"}`},
		{"/health", 503, `{"status":"not ready"}`},
		{"/status", 503, `"postgresql":"FAIL","gateway":"FAIL","explorer":"DISABLED","ready":false`},
		{"/metrics", 503, `not ready`},
		{"/other", 404, `"code":"NotFound"`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.body) || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s %q, want %d with %q", c.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), c.status, c.body)
		}
	}
}
