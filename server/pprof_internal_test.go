package server

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestPprof: with Config.PprofAddr on loopback the profiling server serves
// net/http/pprof's index and profiles; any other host, or no port, is a
// start error and nothing listens; empty runs no profiling server.
func TestPprof(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		s := &Server{cfg: Config{PprofAddr: addr}, log: logger}
		if err := s.listenPprof(); err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		for path, want := range map[string]string{"/debug/pprof/": "goroutine", "/debug/pprof/heap?debug=1": "heap profile"} {
			resp, err := http.Get(s.PprofURL() + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
				t.Errorf("%s GET %s: %d, body without %q", addr, path, resp.StatusCode, want)
			}
		}
		s.closePprof()
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:6060", "example.com:6060", "127.0.0.1"} {
		s := &Server{cfg: Config{PprofAddr: addr}, log: logger}
		var se *StartError
		if err := s.listenPprof(); !errors.As(err, &se) || !strings.Contains(se.Cause, "loopback") {
			t.Errorf("PprofAddr %q: %v, want a StartError about loopback", addr, err)
		}
		if s.PprofURL() != "" {
			t.Errorf("PprofAddr %q: listening at %s", addr, s.PprofURL())
		}
	}
	s := &Server{log: logger}
	if err := s.listenPprof(); err != nil || s.PprofURL() != "" {
		t.Errorf("no PprofAddr: %v, %q", err, s.PprofURL())
	}
	s.closePprof()
}
