package server

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// listenPprof starts the profiling server of Config.PprofAddr, if set:
// net/http/pprof's handlers under /debug/pprof/ over plain HTTP. It serves
// loopback addresses only, since profiles expose the process's memory
// layout and a CPU profile costs the emulator while it runs; any other
// host is a *StartError.
func (s *Server) listenPprof() error {
	addr := s.cfg.PprofAddr
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	if err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		return &StartError{Cause: fmt.Sprintf("the profiling address %q is not a loopback host:port", addr),
			Fix: "give --pprof a loopback address such as 127.0.0.1:6060 (port 0 picks a free one)"}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &StartError{Cause: fmt.Sprintf("cannot listen on %s for the profiling server: %v", addr, innermost(err)),
			Fix: "choose another address with --pprof", Err: err}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	s.pprofLn = ln
	// No write timeout: /debug/pprof/profile?seconds=N answers after N s.
	s.pprofSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.pprofSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("profiling server stopped", "err", err)
		}
	}()
	return nil
}

// PprofURL returns the profiling server's base URL (http://host:port), or
// "" when it is not running.
func (s *Server) PprofURL() string {
	if s.pprofLn == nil {
		return ""
	}
	return "http://" + advertisedHost(s.pprofLn.Addr().String())
}

// closePprof stops the profiling server, if it runs, at once (a profile
// being taken is cut short).
func (s *Server) closePprof() {
	if s.pprofSrv != nil {
		s.pprofSrv.Close()
	}
}
