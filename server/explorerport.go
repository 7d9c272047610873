package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"golang.org/x/net/netutil"
)

// DefaultExplorerPort is the port of the data explorer in Microsoft's
// emulator image (EXPLORER_PORT).
const DefaultExplorerPort = 1234

// listenExplorer binds Config.ExplorerAddr, if set. A failure is a
// *StartError, unless the address is optional (the default port): then it
// is logged once the server has started and the explorer stays reachable
// on the main port only.
func (s *Server) listenExplorer() error {
	if s.cfg.ExplorerAddr == "" || s.cfg.DisableExplorer {
		return nil
	}
	if p := s.cfg.ExplorerProtocol; p != "" && p != "http" && p != "https" {
		return &StartError{Cause: fmt.Sprintf("the explorer protocol must be https or http, not %q", p), Fix: "set --explorer-protocol to https or http"}
	}
	ln, err := net.Listen("tcp", s.cfg.ExplorerAddr)
	if err != nil {
		if s.cfg.ExplorerOptional {
			s.explorerSkipped = fmt.Sprintf("the data explorer has no listener of its own: cannot listen on %s: %v; it is still served at /_explorer/index.html on the main port; choose another port with --explorer-port (or EXPLORER_PORT), 0 to turn it off",
				s.cfg.ExplorerAddr, innermost(err))
			return nil
		}
		return &StartError{Cause: fmt.Sprintf("cannot listen on %s for the data explorer: %v", s.cfg.ExplorerAddr, innermost(err)),
			Fix: "stop the program using that port, or choose another with --explorer-port (or EXPLORER_PORT; 0 turns the explorer's own listener off)", Err: err}
	}
	s.explorerLn = ln
	return nil
}

// serveExplorer serves the explorer listener, once the gateway handler
// exists. The listener serves the gateway's own handler in-process, so the
// explorer page loaded from it (GET / redirects there) makes its signed
// API calls (/dbs, /_emulator/...) to its own origin: no CORS, and the
// same authorization as on the main port. Its scheme is
// Config.ExplorerProtocol (default: http), https with the gateway's
// certificate.
func (s *Server) serveExplorer(gateway http.Handler, tlsConfig *tls.Config) {
	if s.explorerLn == nil {
		return
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// GET / without a signature is a browser (or a compose health
		// check such as curl -f http://localhost:1234): the page.
		if r.URL.Path == "/" && r.Header.Get("Authorization") == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			http.Redirect(w, r, "/_explorer/index.html", http.StatusFound)
			return
		}
		gateway.ServeHTTP(w, r)
	})
	s.explorerSrv = &http.Server{Handler: h, ReadHeaderTimeout: s.http.ReadHeaderTimeout,
		ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.WriteTimeout, IdleTimeout: s.cfg.IdleTimeout,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	ln := s.explorerLn
	if s.cfg.MaxConns > 0 {
		ln = netutil.LimitListener(ln, s.cfg.MaxConns)
	}
	if s.explorerScheme() == "https" {
		s.explorerSrv.TLSConfig = tlsConfig
		ln = tls.NewListener(sniffListener{ln}, tlsConfig)
	}
	go func() {
		if err := s.explorerSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("data explorer listener stopped", "err", err)
		}
	}()
}

// explorerScheme is the explorer listener's scheme: ExplorerProtocol, or
// http when unset. Microsoft's EXPLORER_PROTOCOL defaults to PROTOCOL's
// value, which is http in its image; this emulator's gateway defaults to
// https, and following it would make the page a browser opens by default
// one behind a certificate warning. The page's API calls go to its own
// origin, so http here needs nothing from the gateway's scheme; tools
// that want https (Aspire with a certificate) set EXPLORER_PROTOCOL.
func (s *Server) explorerScheme() string {
	if s.cfg.ExplorerProtocol == "" {
		return "http"
	}
	return s.cfg.ExplorerProtocol
}

// needsTLS reports whether a certificate must be loaded: the gateway or
// the explorer listener serves https.
func (s *Server) needsTLS() bool {
	return s.cfg.Protocol == "https" || (s.explorerLn != nil && s.explorerScheme() == "https") || s.directLn != nil
}

// ExplorerURL returns the data explorer's page on its own listener
// (e.g. http://127.0.0.1:1234/_explorer/index.html), or "" when it has
// none (explorer disabled, no ExplorerAddr, or the optional port taken).
func (s *Server) ExplorerURL() string {
	if s.explorerLn == nil {
		return ""
	}
	return s.explorerScheme() + "://" + advertisedHost(s.explorerLn.Addr().String()) + "/_explorer/index.html"
}

// closeExplorer stops the explorer listener gracefully within ctx when it
// serves, or closes a listener never served.
func (s *Server) closeExplorer(ctx context.Context) error {
	switch {
	case s.explorerSrv != nil:
		return s.explorerSrv.Shutdown(ctx)
	case s.explorerLn != nil:
		return s.explorerLn.Close()
	}
	return nil
}

// abortExplorer stops the explorer listener at once (a start that failed
// half-way): open connections are closed, not drained.
func (s *Server) abortExplorer() {
	switch {
	case s.explorerSrv != nil:
		s.explorerSrv.Close()
	case s.explorerLn != nil:
		s.explorerLn.Close()
	}
}
