package server

import (
	"crypto/tls"
	"fmt"
	"net"

	"github.com/cosmos-emulator/cosmos-emulator/wire/rntbd"
)

// The direct-mode listener: RNTBD over TLS with the gateway's certificate
// (Config.RNTBDAddr), served by the direct-mode transport of
// wire.NewHandlers, on the same service and state as the gateway.
// GET /addresses hands its port out (wire.Config.RNTBDPort).

// listenDirect binds Config.RNTBDAddr, if set. A taken address fails the
// start, or, with Config.RNTBDOptional, is a warning and direct mode is
// off.
func (s *Server) listenDirect() error {
	if s.cfg.RNTBDAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.RNTBDAddr)
	if err != nil {
		if s.cfg.RNTBDOptional {
			s.directSkipped = fmt.Sprintf("direct mode is off: cannot listen on %s: %v; gateway mode works as before; choose another port with --rntbd-port",
				s.cfg.RNTBDAddr, innermost(err))
			return nil
		}
		return &StartError{Cause: fmt.Sprintf("cannot listen on %s for direct mode (RNTBD): %v", s.cfg.RNTBDAddr, innermost(err)),
			Fix: "stop the program using that port, or choose another with --rntbd-port (0 turns direct mode off)", Err: err}
	}
	s.directLn = ln
	return nil
}

// directPort is the port of the direct-mode listener (0: none).
func (s *Server) directPort() int {
	if s.directLn == nil {
		return 0
	}
	return s.directLn.Addr().(*net.TCPAddr).Port
}

// serveDirect starts serving the direct-mode listener with cert: h is the
// direct-mode transport of the gateway's handler (wire.NewHandlers), so
// fault rules, rate limiting and metrics apply to both.
func (s *Server) serveDirect(h rntbd.Handler, cert tls.Certificate) {
	if s.directLn == nil {
		return
	}
	s.direct = rntbd.NewServer(h, rntbd.Options{Logger: s.log, MaxConns: s.cfg.MaxConns})
	ln := tls.NewListener(s.directLn, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	go func() {
		if err := s.direct.Serve(ln); err != nil && err != rntbd.ErrServerClosed {
			s.log.Error("direct-mode listener stopped", "err", err)
		}
	}()
}

// RNTBDAddr returns the address the direct-mode (RNTBD) listener listens
// on, or "" when direct mode is off.
func (s *Server) RNTBDAddr() string {
	if s.directLn == nil {
		return ""
	}
	return s.directLn.Addr().String()
}

// closeDirect stops the direct-mode listener and its connections.
func (s *Server) closeDirect() {
	if s.direct != nil {
		s.direct.Close()
	} else if s.directLn != nil {
		s.directLn.Close()
	}
}
