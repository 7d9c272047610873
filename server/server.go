package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
	"github.com/cosmos-emulator/cosmos-emulator/server/tlscert"
	"github.com/cosmos-emulator/cosmos-emulator/ttl"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// Config is the emulator's configuration; the command fills it from flags
// and COSMOS_EMULATOR_* environment variables.
type Config struct {
	// Addr is the listen address (default 127.0.0.1:8081; port 0 picks a
	// free port).
	Addr string
	// Protocol is "https" (default) or "http".
	Protocol string
	// PG is a PostgreSQL connection string; empty means a managed private
	// cluster in DataDir.
	PG string
	// DataDir holds the managed cluster and the TLS certificate (default
	// .cosmos-emulator).
	DataDir string
	// Ephemeral runs the managed cluster in a temporary directory removed
	// at Close.
	Ephemeral bool
	// Key is the master key (default: the well-known emulator key).
	Key string
	// CertFile and CertKeyFile bring your own certificate.
	CertFile, CertKeyFile string
	// TLSHosts are extra names for the generated certificate.
	TLSHosts []string
	// Logger receives logs (default: text to stderr at info level).
	Logger *slog.Logger
	// Clock is the emulator clock (default: the wall clock).
	Clock *emulator.Clock
	// TTLSweepInterval is the pause between TTL sweeps (default 1 s); a
	// negative value disables the background sweeper (sweeps then run only
	// through POST /_emulator/ttl/sweep or Server.Sweep).
	TTLSweepInterval time.Duration
	// TTLSweepBatch is the number of rows a sweep batch deletes (default 1000).
	TTLSweepBatch int
	// Consistency is the account's default consistency level (Strong,
	// BoundedStaleness, Session, ConsistentPrefix or Eventual; default
	// Session), as Microsoft's emulator's consistency option sets it.
	Consistency string
}

// Server is a running emulator.
type Server struct {
	cfg     Config
	log     *slog.Logger
	pg      *pgserver.Server
	store   *pgstore.Store
	svc     *emulator.Service
	http    *http.Server
	ln      net.Listener
	url     string
	served  chan error
	ready   atomic.Bool
	closed  atomic.Bool
	tempDir string
	sweeper *ttl.Sweeper
	stopBG  context.CancelFunc
	bgDone  chan struct{}
}

// Start brings the emulator up: PostgreSQL, migrations, TLS, listener. It
// returns once the server accepts requests.
func Start(ctx context.Context, cfg Config) (s *Server, err error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8081"
	}
	if cfg.Protocol == "" {
		cfg.Protocol = "https"
	}
	if cfg.Protocol != "https" && cfg.Protocol != "http" {
		return nil, fmt.Errorf("server: protocol must be https or http, not %q", cfg.Protocol)
	}
	if cfg.DataDir == "" {
		cfg.DataDir = ".cosmos-emulator"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.Clock == nil {
		cfg.Clock = emulator.NewClock(nil)
	}
	s = &Server{cfg: cfg, log: cfg.Logger, served: make(chan error, 1)}
	defer func() {
		if err != nil {
			s.shutdownBackends()
		}
	}()

	connString := cfg.PG
	if connString == "" {
		opts := pgserver.Options{DataDir: filepath.Join(cfg.DataDir, "postgres"), Ephemeral: cfg.Ephemeral,
			Logf: func(format string, args ...any) { s.log.Debug(fmt.Sprintf(format, args...)) }}
		if cfg.Ephemeral {
			opts.DataDir = ""
		}
		if s.pg, err = pgserver.Start(ctx, opts); err != nil {
			return nil, err
		}
		connString = s.pg.ConnString()
	}
	if s.store, err = pgstore.Open(ctx, connString, pgstore.Options{}); err != nil {
		return nil, err
	}
	s.svc = emulator.New(s.store, cfg.Clock)
	s.sweeper = &ttl.Sweeper{Expirer: s.store, Clock: cfg.Clock, Interval: cfg.TTLSweepInterval, BatchSize: cfg.TTLSweepBatch, Logger: s.log}

	var certPEM []byte
	var tlsCert tls.Certificate
	if cfg.Protocol == "https" {
		switch {
		case cfg.CertFile != "" || cfg.CertKeyFile != "":
			tlsCert, certPEM, err = tlscert.LoadFiles(cfg.CertFile, cfg.CertKeyFile)
		case cfg.Ephemeral:
			s.tempDir, err = os.MkdirTemp("", "cosmos-emulator-tls-")
			if err == nil {
				tlsCert, certPEM, err = tlscert.LoadOrCreate(tlscert.Options{Dir: s.tempDir, Hosts: cfg.TLSHosts})
			}
		default:
			tlsCert, certPEM, err = tlscert.LoadOrCreate(tlscert.Options{Dir: cfg.DataDir, Hosts: cfg.TLSHosts})
		}
		if err != nil {
			return nil, fmt.Errorf("server: TLS certificate: %w", err)
		}
	}
	handler, err := wire.NewHandler(wire.Config{
		Service: s.svc, Key: cfg.Key, CertPEM: certPEM, Logger: s.log, Ready: s.ready.Load,
		Sweep: s.sweeper.SweepOnce, SweeperStats: func() any { return s.sweeper.Stats() },
		Consistency: cfg.Consistency,
	})
	if err != nil {
		return nil, err
	}
	if s.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, fmt.Errorf("server: listen on %s: %w", cfg.Addr, err)
	}
	s.http = &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	ln := s.ln
	if cfg.Protocol == "https" {
		// HTTP/1.1 only: measured with cmd/cosmos-bench, Go's HTTP/2 server
		// adds ~0.2 ms to every point operation (frame writing, goroutine
		// hand-offs), a third of a point read; the SDKs work with either.
		s.http.TLSConfig = &tls.Config{Certificates: []tls.Certificate{tlsCert}, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(s.ln, s.http.TLSConfig)
	}
	s.url = cfg.Protocol + "://" + advertisedHost(s.ln.Addr().String()) + "/"
	go func() { s.served <- s.http.Serve(ln) }()
	bg, cancel := context.WithCancel(context.Background())
	s.stopBG, s.bgDone = cancel, make(chan struct{})
	go func() {
		defer close(s.bgDone)
		if cfg.TTLSweepInterval >= 0 {
			s.sweeper.Run(bg)
		}
	}()
	s.ready.Store(true)
	return s, nil
}

// advertisedHost turns a listen address into the host:port clients dial
// (0.0.0.0 and :: become 127.0.0.1).
func advertisedHost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + port
}

// URL returns the endpoint, e.g. https://127.0.0.1:8081/.
func (s *Server) URL() string { return s.url }

// Service returns the emulator service (for in-process tests).
func (s *Server) Service() *emulator.Service { return s.svc }

// Store returns the PostgreSQL store.
func (s *Server) Store() *pgstore.Store { return s.store }

// ConnString returns the PostgreSQL connection string in use.
func (s *Server) ConnString() string {
	if s.pg != nil {
		return s.pg.ConnString()
	}
	return s.cfg.PG
}

// Done is closed-over: it receives the HTTP server's exit error.
func (s *Server) Done() <-chan error { return s.served }

// Close shuts down gracefully: in-flight requests finish (bounded by ctx),
// then the store closes and the managed PostgreSQL stops cleanly.
func (s *Server) Close(ctx context.Context) error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.ready.Store(false)
	var errs []error
	if s.http != nil {
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("server: shutdown: %w", err))
		}
	}
	if s.stopBG != nil {
		s.stopBG()
		<-s.bgDone
	}
	errs = append(errs, s.shutdownBackends())
	return errors.Join(errs...)
}

// Clock returns the emulator clock (move it with Advance/SetOffset).
func (s *Server) Clock() *emulator.Clock { return s.svc.Clock() }

// Sweep runs one TTL sweep now and returns how many rows it deleted.
func (s *Server) Sweep(ctx context.Context) (int, error) { return s.sweeper.SweepOnce(ctx) }

// SweeperStats returns the sweeper's counters.
func (s *Server) SweeperStats() ttl.Stats { return s.sweeper.Stats() }

// ContainerStats counts stored rows and live items of every container.
func (s *Server) ContainerStats(ctx context.Context) ([]emulator.ContainerStats, error) {
	return s.svc.ContainerStats(ctx)
}

func (s *Server) shutdownBackends() error {
	var errs []error
	if s.store != nil {
		s.store.Close()
	}
	if s.pg != nil {
		if err := s.pg.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.tempDir != "" {
		_ = os.RemoveAll(s.tempDir)
	}
	return errors.Join(errs...)
}
