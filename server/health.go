package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/net/netutil"
)

// DefaultHealthPort is the port of the health server in Microsoft's
// emulator image (HEALTH_PORT), which Aspire probes at /ready.
const DefaultHealthPort = 8080

// healthTimeout bounds every request of the health server: probes are
// tiny; healthMaxConns bounds its connections (more wait to be accepted).
const (
	healthTimeout  = 10 * time.Second
	healthMaxConns = 64
)

// HealthStatus is the body of the health server's /status: what Microsoft's
// emulator reports in its status line (PostgreSQL=OK, Gateway=OK,
// Explorer=OK, Ready=YES), as JSON.
type HealthStatus struct {
	// PostgreSQL is "OK" when PostgreSQL answered a ping, else "FAIL".
	PostgreSQL string `json:"postgresql"`
	// Gateway is "OK" once the REST endpoint serves, else "FAIL".
	Gateway string `json:"gateway"`
	// Explorer is "OK" when /_explorer/index.html is served, "DISABLED"
	// with ENABLE_EXPLORER=false.
	Explorer string `json:"explorer"`
	// Ready is true when both PostgreSQL and the gateway are OK.
	Ready bool `json:"ready"`
	// Endpoint is the gateway's URL; Version the emulator's version.
	Endpoint string `json:"endpoint"`
	Version  string `json:"version"`
	// Durability is the durability level in force: full, process, none,
	// or external with an external PostgreSQL (Server.Durability).
	Durability string `json:"durability"`
}

// listenHealth binds the health server's address. A failure is a
// *StartError, unless the address is optional: then it is logged once the
// server has started (so a start-up failure stays a single line) and the
// emulator runs without health server.
func (s *Server) listenHealth() error {
	if s.cfg.HealthAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.HealthAddr)
	if err != nil {
		if s.cfg.HealthOptional {
			s.healthSkipped = fmt.Sprintf("the health server (/alive, /ready) is not running: cannot listen on %s: %v; choose another port with --health-port (or HEALTH_PORT), 0 to turn it off",
				s.cfg.HealthAddr, innermost(err))
			return nil
		}
		return &StartError{Cause: fmt.Sprintf("cannot listen on %s for the health server: %v", s.cfg.HealthAddr, innermost(err)),
			Fix: "stop the program using that port, or choose another with --health-port (or HEALTH_PORT; 0 turns the health server off)", Err: err}
	}
	s.healthLn = ln
	s.healthSrv = &http.Server{Handler: s.healthHandler(), ReadHeaderTimeout: healthTimeout, ReadTimeout: healthTimeout,
		WriteTimeout: healthTimeout, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	go func() {
		if err := s.healthSrv.Serve(netutil.LimitListener(ln, healthMaxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("health server stopped", "err", err)
		}
	}()
	return nil
}

// HealthURL returns the health server's base URL (http://host:port), or ""
// when it is not running.
func (s *Server) HealthURL() string {
	if s.healthLn == nil {
		return ""
	}
	return "http://" + advertisedHost(s.healthLn.Addr().String())
}

// healthHandler serves the probes of Microsoft's emulator over plain HTTP:
// GET /alive (200 while the process runs), /ready and /health (200 once
// the emulator serves and PostgreSQL answers, else 503), /status (JSON
// HealthStatus; 200 or 503 like /ready) and /metrics (the Prometheus
// metrics, once started).
func (s *Server) healthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /alive", func(w http.ResponseWriter, r *http.Request) {
		writeHealth(w, http.StatusOK, map[string]string{"status": "alive"})
	})
	ready := func(w http.ResponseWriter, r *http.Request) {
		if s.healthy() {
			writeHealth(w, http.StatusOK, map[string]string{"status": "ready"})
			return
		}
		writeHealth(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready"})
	}
	mux.HandleFunc("GET /ready", ready)
	mux.HandleFunc("GET /health", ready)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		st := s.status()
		code := http.StatusOK
		if !st.Ready {
			code = http.StatusServiceUnavailable
		}
		writeHealth(w, code, st)
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		reg := s.registry.Load()
		if reg == nil {
			writeHealth(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready"})
			return
		}
		promhttp.HandlerFor(prometheus.Gatherer(reg), promhttp.HandlerOpts{Timeout: healthTimeout, ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeHealth(w, http.StatusNotFound, map[string]string{"code": "NotFound", "message": "The health server serves GET /alive, /ready, /health, /status and /metrics."})
	})
	return mux
}

// status reports the state of each part, as /status shows it.
func (s *Server) status() HealthStatus {
	version, _ := BuildVersion()
	st := HealthStatus{PostgreSQL: "FAIL", Gateway: "FAIL", Explorer: "OK", Version: version, Durability: string(s.durability)}
	if s.cfg.DisableExplorer {
		st.Explorer = "DISABLED"
	}
	if s.ready.Load() { // s.url is set before ready
		st.Gateway, st.Endpoint = "OK", s.url
		if s.healthy() {
			st.PostgreSQL = "OK"
		}
	}
	st.Ready = st.Gateway == "OK" && st.PostgreSQL == "OK"
	return st
}

// writeHealth writes v as the JSON body of a health answer.
func writeHealth(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
