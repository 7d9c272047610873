package server

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/emulator/jsengine"
	"github.com/cosmos-emulator/cosmos-emulator/emulator/seed"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
	"github.com/cosmos-emulator/cosmos-emulator/server/explorer"
	"github.com/cosmos-emulator/cosmos-emulator/server/tlscert"
	"github.com/cosmos-emulator/cosmos-emulator/ttl"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
	"github.com/cosmos-emulator/cosmos-emulator/wire/rntbd"
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
	// DataDir holds the managed cluster and the TLS certificate (default:
	// DefaultDataDir).
	DataDir string
	// Ephemeral runs the managed cluster in a temporary directory removed
	// at Close.
	Ephemeral bool
	// Key is the master key (default: the well-known emulator key).
	Key string
	// CertFile and CertKeyFile bring your own certificate.
	CertFile, CertKeyFile string
	// CertExport, when set and the gateway serves https, is a file path
	// the serving certificate (PEM, the bytes of /_explorer/emulator.pem)
	// is written to at start, its directories created: the container
	// image sets the path where Microsoft's classic emulator keeps it,
	// which testcontainers-python copies out of the container.
	CertExport string
	// TLSHosts are extra names for the generated certificate; requests
	// naming them in Host are served (see AllowedHosts).
	TLSHosts []string
	// AllowedHosts are host names, beyond the ones always accepted, that
	// requests may name in their Host header; "*" accepts any. Always
	// accepted: IP addresses, names without a dot, and names under
	// localhost, internal and local. Others are refused with 403, against
	// DNS rebinding (see hostGuard).
	AllowedHosts []string
	// Logger receives logs (default: text to stderr at info level).
	Logger *slog.Logger
	// Clock is the emulator clock (default: the wall clock).
	Clock *emulator.Clock
	// TTLSweepInterval is the pause between TTL sweeps (default 1 s); a
	// negative value disables the background sweeper (sweeps then run only
	// through POST /_emulator/ttl/sweep or Server.Sweep).
	TTLSweepInterval time.Duration
	// TTLSweepBatch is the number of rows a sweep batch deletes while no
	// client request is being served (default 1000); under load batches
	// are a quarter of it (package ttl).
	TTLSweepBatch int
	// Consistency is the account's default consistency level (Strong,
	// BoundedStaleness, Session, ConsistentPrefix or Eventual; default
	// Session), as Microsoft's emulator's consistency option sets it.
	Consistency string
	// PGBin is the directory of the PostgreSQL programs (initdb, pg_ctl,
	// postgres) for the managed cluster; empty searches PATH, then
	// /usr/lib/postgresql/*/bin.
	PGBin string
	// Durability is what an acknowledged write of the managed cluster
	// survives (--durability): DurabilityFull (the WAL is flushed to disk
	// before the acknowledgement), DurabilityProcess (written to the
	// kernel: survives any process crash, not an OS crash) or
	// DurabilityNone (acknowledged before the WAL is written). Empty
	// chooses by the data's lifetime: DurabilityNone when FastUnsafeCommit
	// is set, DurabilityProcess when Ephemeral (the data dies with the
	// process anyway), else DurabilityFull. It has no effect with PG: an
	// external server keeps its own settings, and nothing is refused.
	Durability Durability
	// FastUnsafeCommit is the older name of DurabilityNone
	// (--fast-unsafe-commit): when Durability is empty it selects it.
	FastUnsafeCommit bool
	// ReadTimeout bounds reading one request, headers and body (default
	// DefaultReadTimeout); a client that trickles its body is cut off.
	ReadTimeout time.Duration
	// WriteTimeout bounds a request from the end of its headers to the end
	// of its response (default DefaultWriteTimeout).
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request (default DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxConns is the most client connections served at once (default
	// DefaultMaxConns; negative: no limit). A connection beyond it closes
	// the one that has waited longest for a request (idle keep-alive, or
	// open and silent); when every one is busy with a request, it is
	// answered 503 naming the limit and closed; past twice the limit,
	// connections wait in the listen queue (see connLimiter).
	MaxConns int
	// MinPartitionRanges, above 1, gives every container created from now
	// on at least that many partition key ranges (a system key or kind
	// Range keeps one), so that a suite exercises the SDKs' multi-range
	// code without provisioning over 10,000 RU/s (default 1: the
	// service's rule alone, emulator.RangeCountFor).
	MinPartitionRanges int
	// ScriptTimeout bounds one execution of a stored procedure, trigger
	// or the UDF calls of a query (default 5 s, the service's).
	ScriptTimeout time.Duration
	// ScriptMaxMemory is how far the heap may grow during one script
	// execution before it is stopped (default 256 MiB).
	ScriptMaxMemory uint64
	// PageTimeout is the time budget of one page of a query or read feed
	// in PostgreSQL (default DefaultPageTimeout, 5 s, the service's):
	// past it the statement is cancelled and the page ends with what it
	// holds and a continuation, or, holding nothing, fails with a 408
	// (pgstore.Options.PageTimeout).
	PageTimeout time.Duration
	// HealthAddr, when set, is the address of the plain-HTTP health server
	// (GET /alive, /ready, /health, /status, /metrics; server/health.go),
	// which serves from the start of Start, /ready answering 503 until the
	// emulator serves and PostgreSQL answers. Empty: no health server.
	HealthAddr string
	// HealthOptional makes a HealthAddr that cannot be bound a warning
	// (logged once started) instead of a start error: for the default
	// port, which another program may hold.
	HealthOptional bool
	// PprofAddr, when set, is a loopback address (host:port) where
	// net/http/pprof is served over plain HTTP (/debug/pprof/; pprof.go),
	// for profiling the emulator under load. Empty: no profiling server.
	PprofAddr string
	// GoMaxProcs, when positive, is the number of CPUs the process runs Go
	// code on at once (runtime.GOMAXPROCS), set by Start for the whole
	// process; 0 leaves Go's setting alone. The command chooses half the
	// CPUs by default (cmd/cosmos-emulator/gomaxprocs.go says why).
	GoMaxProcs int
	// CertBundle is a PKCS#12 (.pfx/.p12) file holding the certificate, its
	// chain and private key, opened with CertBundlePassword (Microsoft's
	// CERT_PATH and CERT_SECRET); a PEM file holding both certificate and
	// key is accepted too. Exclusive with CertFile/CertKeyFile.
	CertBundle, CertBundlePassword string
	// FaultsFile, when set, is a JSON file of fault rules loaded at start,
	// in the form GET /_emulator/faults answers:
	// {"rules":[{"name": ..., "match": {...}, "response": {...}, ...}]}
	// (wire.FaultList); an unreadable or invalid file fails the start.
	FaultsFile string
	// LogRequests logs one line per request at info level (method, path,
	// status, duration, activity id, request charge); without it the line
	// is logged at debug level.
	LogRequests bool
	// RateLimit throttles item requests and stored procedure executions
	// over their container's provisioned RU/s (or its shared database's)
	// with 429/3200 and x-ms-retry-after-ms, as the service does
	// (--rate-limit); off by default, and then nothing is throttled.
	RateLimit bool
	// DisableExplorer turns the data explorer off: /_explorer/index.html
	// and the other explorer paths answer 404 (Microsoft's
	// ENABLE_EXPLORER=false); by default the explorer (package
	// server/explorer) is served.
	DisableExplorer bool
	// ExplorerExposeKey makes the data explorer hand the master key to
	// its pages even when the emulator listens on a non-loopback address
	// (--explorer-expose-key); by default the key is given only when the
	// listener and the page's host name are loopback ones
	// (explorer.KeyForRequest), else the user types it.
	ExplorerExposeKey bool
	// ExplorerAddr, when set and the explorer is enabled, is a second
	// listener (Microsoft's EXPLORER_PORT, 1234) serving the gateway's
	// handler, where GET / without a signature redirects to the explorer's
	// page, so the page and its API calls share one origin
	// (explorerport.go). Empty: the explorer is on the main port only.
	ExplorerAddr string
	// ExplorerOptional makes an ExplorerAddr that cannot be bound a
	// warning (logged once started) instead of a start error: for the
	// default port, which another program may hold.
	ExplorerOptional bool
	// ExplorerProtocol is the explorer listener's scheme, "http" or
	// "https" (with the gateway's certificate); empty: "http", whatever
	// Protocol is, so that a browser opens the page without being asked
	// to trust the self-signed certificate (Microsoft's image serves its
	// explorer over http unless asked otherwise too).
	ExplorerProtocol string
	// Reset removes every database and everything in it at start, before
	// InitData loads and before the emulator serves (--reset; what POST
	// /_emulator/reset does at run time).
	Reset bool
	// InitData are init data files (package emulator/seed's format)
	// loaded in order at start, before the emulator serves: what is
	// absent is created, what exists is left alone, so a restart over
	// kept data loads them again harmlessly. A file that cannot be read
	// or that the service refuses fails the start, its message naming
	// the file and the place in it.
	InitData []string
	// RNTBDAddr, when set, is the address of the direct-mode listener:
	// RNTBD over TLS with the gateway's certificate, which the Java SDK
	// uses by default (its port is handed out by GET /addresses). Empty:
	// direct mode is off, and address requests are answered 400.
	RNTBDAddr string
	// RNTBDOptional makes an RNTBDAddr that cannot be bound a warning
	// (logged once started; direct mode is then off) instead of a start
	// error: for the default port, which another emulator may hold.
	RNTBDOptional bool
}

// Defaults of the HTTP server's limits. The timeouts are far above what a
// legitimate request needs (a 2 MB item, a query page: the service itself
// gives a page 5 s), yet they end connections that a client holds open
// without using them.
const (
	DefaultReadTimeout  = 2 * time.Minute
	DefaultWriteTimeout = 5 * time.Minute
	DefaultIdleTimeout  = 2 * time.Minute
	DefaultMaxConns     = 1000
	// DefaultPageTimeout is Config.PageTimeout's default: the service's
	// execution limit of one query page.
	DefaultPageTimeout = pgstore.DefaultPageTimeout
	// readHeaderTimeout bounds reading a request's headers.
	readHeaderTimeout = 30 * time.Second
)

// Server is a running emulator.
type Server struct {
	cfg Config
	log *slog.Logger
	pg  *pgserver.Server
	// durability is the level in force: the managed cluster's, or
	// DurabilityExternal with Config.PG.
	durability Durability
	store      *pgstore.Store
	svc        *emulator.Service
	http       *http.Server
	ln         net.Listener
	url        string
	served     chan error
	// faults holds the fault rules (Config.FaultsFile, /_emulator/faults).
	faults *wire.FaultSet
	ready  atomic.Bool
	closed atomic.Bool
	// lastPing is when PostgreSQL last answered a health ping (UnixNano).
	lastPing atomic.Int64
	tempDir  string
	sweeper  *ttl.Sweeper
	stopBG   context.CancelFunc
	bgDone   chan struct{}
	// the health server (health.go): its listener and server, or why it
	// is not running when it was optional
	healthLn      net.Listener
	healthSrv     *http.Server
	healthSkipped string
	// the profiling server (pprof.go), when Config.PprofAddr is set
	pprofLn  net.Listener
	pprofSrv *http.Server
	// the data explorer's own listener (explorerport.go), or why it is
	// not running when it was optional
	explorerLn      net.Listener
	explorerSrv     *http.Server
	explorerSkipped string
	// registry holds the metrics once the store and sweeper exist.
	registry atomic.Pointer[prometheus.Registry]
	// the direct-mode listener and server (direct.go), or why it is not
	// running when it was optional
	directLn      net.Listener
	direct        *rntbd.Server
	directSkipped string
}

// Start brings the emulator up: listener, PostgreSQL, migrations, TLS. It
// returns once the server accepts requests. On failure it stops and removes
// everything it started (the managed PostgreSQL, temporary directories, the
// listener) and returns a *StartError whose message is one line naming the
// cause and the fix.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	s, err := start(ctx, cfg)
	if err != nil {
		return nil, explain(cfg, err)
	}
	return s, nil
}

func start(ctx context.Context, cfg Config) (_ *Server, err error) {
	cfg = withDefaults(cfg)
	if cfg.Protocol != "https" && cfg.Protocol != "http" {
		return nil, &StartError{Cause: fmt.Sprintf("the protocol must be https or http, not %q", cfg.Protocol), Fix: "set --protocol to https or http"}
	}
	if cfg.CertBundle != "" && (cfg.CertFile != "" || cfg.CertKeyFile != "") {
		return nil, &StartError{Cause: "both a PKCS#12 certificate (--cert-path, CERT_PATH) and PEM files (--cert, --cert-key) are given", Fix: "give one of them"}
	}
	if _, err := base64.StdEncoding.DecodeString(cfg.Key); err != nil {
		return nil, &StartError{Cause: "the master key (--key) is not valid base64", Fix: "give the base64 key clients sign with, or leave --key out for the well-known emulator key", Err: err}
	}
	level, err := cfg.DurabilityLevel()
	if err != nil {
		return nil, &StartError{Cause: fmt.Sprintf("the durability level %q is not known", cfg.Durability), Fix: "set --durability to full, process or none", Err: err}
	}
	if cfg.GoMaxProcs > 0 {
		runtime.GOMAXPROCS(cfg.GoMaxProcs)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, served: make(chan error, 1), faults: wire.NewFaultSet(), durability: level}
	if cfg.FaultsFile != "" {
		// before anything starts: a wrong file is a quick, clear failure
		data, err := os.ReadFile(cfg.FaultsFile)
		if err == nil {
			err = s.faults.LoadFaultList(data)
		}
		if err != nil {
			return nil, &StartError{Cause: fmt.Sprintf("the faults file %s cannot be loaded: %v", cfg.FaultsFile, err),
				Fix: "give --faults-file a readable JSON file {\"rules\":[{\"name\":...,\"match\":{...},\"response\":{...}}]}", Err: err}
		}
	}
	defer func() {
		if err != nil {
			if s.ln != nil {
				s.ln.Close()
			}
			if s.healthSrv != nil {
				s.healthSrv.Close()
			}
			s.closePprof()
			s.abortExplorer()
			s.closeDirect()
			s.shutdownBackends()
		}
	}()
	// Listen first: a port in use is the commonest failure and costs
	// nothing to find out.
	if s.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, &StartError{Cause: fmt.Sprintf("cannot listen on %s: %v", cfg.Addr, innermost(err)),
			Fix: "stop the program using that address or choose another with --addr or --port (port 0 picks a free one)", Err: err}
	}
	// The health server answers from now on: /alive 200, /ready 503
	// until the emulator is ready.
	if err = s.listenHealth(); err != nil {
		return nil, err
	}
	if err = s.listenPprof(); err != nil {
		return nil, err
	}
	if err = s.listenExplorer(); err != nil {
		return nil, err
	}
	if err = s.listenDirect(); err != nil {
		return nil, err
	}

	connString := cfg.PG
	if connString == "" {
		if s.pg, err = s.startManaged(ctx); err != nil {
			return nil, err
		}
		connString = s.pg.ConnString()
	}
	if s.store, err = pgstore.Open(ctx, connString, pgstore.Options{Logger: s.log, PageTimeout: cfg.PageTimeout}); err != nil {
		return nil, err
	}
	// scripts raise GOMAXPROCS while they compute (see jsengine)
	jsengine.EnableSchedulerHeadroom()
	s.svc = emulator.New(s.store, cfg.Clock)
	s.svc.ConfigureScripts(jsengine.Config{Timeout: cfg.ScriptTimeout, MaxMemory: cfg.ScriptMaxMemory})
	s.svc.SetMinPartitionRanges(cfg.MinPartitionRanges)
	if err = s.prepareData(ctx); err != nil {
		return nil, err
	}
	fg := newForeground()
	s.sweeper = &ttl.Sweeper{Expirer: s.store, Clock: cfg.Clock, Interval: cfg.TTLSweepInterval, BatchSize: cfg.TTLSweepBatch, Logger: s.log, Foreground: fg}

	var certPEM []byte
	var tlsCert tls.Certificate
	if s.needsTLS() {
		switch {
		case cfg.CertBundle != "":
			tlsCert, certPEM, err = tlscert.LoadBundle(cfg.CertBundle, cfg.CertBundlePassword)
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
			return nil, &StartError{Cause: fmt.Sprintf("cannot load the TLS certificate: %v", err),
				Fix: "check --cert and --cert-key (PEM files) or --cert-path and its password (CERT_SECRET), or leave them out for a generated certificate", Err: err}
		}
		if cfg.CertExport != "" {
			if err := exportCertificate(cfg.CertExport, certPEM); err != nil {
				return nil, &StartError{Cause: fmt.Sprintf("cannot write the certificate to --cert-export %s: %v", cfg.CertExport, err),
					Fix: "choose a path in a directory the emulator's user may create and write, or leave --cert-export out", Err: err}
			}
		}
	}
	reg := s.newRegistry()
	var explorerHandler http.Handler
	if !cfg.DisableExplorer {
		explorerHandler = explorer.New(explorer.Config{Key: cfg.Key, ListenAddr: s.ln.Addr().String(), ExposeKey: cfg.ExplorerExposeKey})
	}
	handler, direct, err := wire.NewHandlers(wire.Config{
		Service: s.svc, Key: cfg.Key, CertPEM: certPEM, Logger: s.log, Ready: s.healthy,
		Sweep: s.sweeper.SweepOnce, SweeperStats: func() any { return s.sweeper.Stats() },
		Consistency: cfg.Consistency,
		Unavailable: pgstore.IsUnavailable,
		Metrics:     reg, LogRequests: cfg.LogRequests, Explorer: explorerHandler,
		RateLimit: cfg.RateLimit,
		Faults:    s.faults,
		RNTBDPort: s.directPort(),
	})
	if err != nil {
		return nil, err
	}
	handler = fg.wrap(handler) // the sweeper's pacing sees the client requests
	handler = newHostGuard(append(append([]string{}, cfg.AllowedHosts...), cfg.TLSHosts...)).wrap(handler)
	var limiter *connLimiter
	if cfg.MaxConns > 0 {
		limiter = newConnLimiter(cfg.MaxConns)
		handler = limiter.refuseOverLimit(handler)
	}
	s.http = &http.Server{Handler: handler, ReadHeaderTimeout: min(readHeaderTimeout, cfg.ReadTimeout),
		ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout, IdleTimeout: cfg.IdleTimeout,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	ln := s.ln
	if limiter != nil {
		s.http.ConnContext, s.http.ConnState = limiter.connContext, limiter.connState
		ln = netutil.LimitListener(ln, limiter.hardCap())
	}
	// HTTP/1.1 only: measured with cmd/cosmos-bench, Go's HTTP/2 server
	// adds ~0.2 ms to every point operation (frame writing, goroutine
	// hand-offs), a third of a point read; the SDKs work with either.
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{tlsCert}, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
	if cfg.Protocol == "https" {
		s.http.TLSConfig = tlsConfig
		// sniffListener: a plain-HTTP client gets a JSON 400 saying to use
		// https, not Go's text answer, which the SDKs fail to parse.
		ln = tls.NewListener(sniffListener{ln}, s.http.TLSConfig)
	}
	s.url = cfg.Protocol + "://" + advertisedHost(s.ln.Addr().String()) + "/"
	go func() { s.served <- s.http.Serve(ln) }()
	s.serveExplorer(handler, tlsConfig)
	s.serveDirect(fg.wrapDirect(direct), tlsCert)
	bg, cancel := context.WithCancel(context.Background())
	s.stopBG, s.bgDone = cancel, make(chan struct{})
	go func() {
		defer close(s.bgDone)
		if cfg.TTLSweepInterval >= 0 {
			s.sweeper.Run(bg)
		}
	}()
	s.registry.Store(reg)
	s.ready.Store(true)
	if s.healthSkipped != "" {
		s.log.Warn(s.healthSkipped)
	}
	if s.explorerSkipped != "" {
		s.log.Warn(s.explorerSkipped)
	}
	if s.directSkipped != "" {
		s.log.Warn(s.directSkipped)
	}
	return s, nil
}

// prepareData applies Config.Reset, then loads Config.InitData, before
// anything serves.
func (s *Server) prepareData(ctx context.Context) error {
	if s.cfg.Reset {
		t0 := time.Now()
		n, err := s.svc.Reset(ctx)
		if err != nil {
			return &StartError{Cause: fmt.Sprintf("--reset could not remove the data: %v", err),
				Fix: "run with --log-level debug for details, or leave --reset out", Err: err}
		}
		s.log.Info("reset: every database removed", "databases", n, "elapsed", time.Since(t0).Round(time.Millisecond))
	}
	for _, path := range s.cfg.InitData {
		t0 := time.Now()
		res, err := seed.LoadFile(ctx, s.svc, path)
		if err != nil {
			return &StartError{Cause: fmt.Sprintf("the init data file %s cannot be loaded: %v", path, err),
				Fix: "correct the file (what loaded before the error stays and is left alone when it loads again) or leave --init-data out", Err: err}
		}
		s.log.Info("init data loaded", "file", path, "databases", res.Databases, "containers", res.Containers,
			"items", res.Items, "scripts", res.Scripts, "existing", res.Existing, "elapsed", time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// withDefaults fills the zero fields of cfg.
func withDefaults(cfg Config) Config {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8081"
	}
	if cfg.Protocol == "" {
		cfg.Protocol = "https"
	}
	if cfg.DataDir == "" {
		cfg.DataDir = DefaultDataDir()
	}
	if cfg.Key == "" {
		cfg.Key = wire.WellKnownKey
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if cfg.Clock == nil {
		cfg.Clock = emulator.NewClock(nil)
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	return cfg
}

// startManaged starts the managed PostgreSQL cluster in DataDir/postgres
// (or a temporary directory when Ephemeral).
func (s *Server) startManaged(ctx context.Context) (*pgserver.Server, error) {
	cfg := s.cfg
	opts := pgserver.Options{DataDir: filepath.Join(cfg.DataDir, "postgres"), Ephemeral: cfg.Ephemeral,
		Durability: s.durability,
		Logf: func(format string, args ...any) {
			msg := fmt.Sprintf(format, args...)
			if strings.Contains(msg, "initdb created") && !cfg.Ephemeral {
				s.log.Info(msg) // the first start's one slow step, announced below
				return
			}
			s.log.Debug(msg)
		},
		Warnf: func(format string, args ...any) { s.log.Warn(fmt.Sprintf(format, args...)) },
	}
	if cfg.Ephemeral {
		opts.DataDir = ""
	} else if _, err := os.Stat(filepath.Join(opts.DataDir, "pgdata", "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		s.log.Info("first start: creating the managed PostgreSQL cluster with initdb (a few seconds, once)", "dir", opts.DataDir)
	}
	if cfg.PGBin != "" {
		bin, err := pgserver.BinariesIn(cfg.PGBin)
		if err != nil {
			return nil, err
		}
		opts.Binaries = &bin
	}
	return pgserver.Start(ctx, opts)
}

// healthPingReuse is how long a successful PostgreSQL ping answers for
// the health endpoint: probes that poll it often then cost no SQL round
// trip (the endpoint is also the benchmarks' HTTPS floor), and an outage
// shows within this time. A failed ping is never reused.
const healthPingReuse = 500 * time.Millisecond

// healthy reports readiness for /_emulator/health: started, not closing,
// and PostgreSQL answered within healthPingReuse (else it is pinged now).
func (s *Server) healthy() bool {
	if !s.ready.Load() {
		return false
	}
	if time.Since(time.Unix(0, s.lastPing.Load())) < healthPingReuse {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.store.Ping(ctx) != nil {
		return false
	}
	s.lastPing.Store(time.Now().UnixNano())
	return true
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

// ListenAddr returns the address the REST endpoint listens on, e.g.
// 0.0.0.0:8081 (URL names 127.0.0.1 for it).
func (s *Server) ListenAddr() string { return s.ln.Addr().String() }

// closeHealth stops the health server, if it runs (bounded by ctx).
func (s *Server) closeHealth(ctx context.Context) error {
	if s.healthSrv == nil {
		return nil
	}
	return s.healthSrv.Shutdown(ctx)
}

// Service returns the emulator service (for in-process tests).
func (s *Server) Service() *emulator.Service { return s.svc }

// Store returns the PostgreSQL store.
func (s *Server) Store() *pgstore.Store { return s.store }

// Faults returns the fault rules the emulator applies to requests (those
// of Config.FaultsFile and those set through /_emulator/faults); tests
// in the same process may set and delete rules on it directly.
func (s *Server) Faults() *wire.FaultSet { return s.faults }

// ManagedPostgres returns the managed PostgreSQL server, or nil when the
// emulator uses the server of Config.PG.
func (s *Server) ManagedPostgres() *pgserver.Server { return s.pg }

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
	// scripts first: a request stuck in a script would hold Shutdown until
	// its time bound, and a script goroutine stuck in native work is
	// abandoned, never waited for
	if s.svc != nil {
		s.svc.StopScripts()
	}
	var errs []error
	if s.http != nil {
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("server: shutdown: %w", err))
		}
	}
	if err := s.closeExplorer(ctx); err != nil {
		errs = append(errs, fmt.Errorf("server: data explorer listener shutdown: %w", err))
	}
	s.closeDirect()
	if s.stopBG != nil {
		s.stopBG()
		<-s.bgDone
	}
	if err := s.closeHealth(ctx); err != nil {
		errs = append(errs, fmt.Errorf("server: health server shutdown: %w", err))
	}
	s.closePprof()
	errs = append(errs, s.shutdownBackends())
	return errors.Join(errs...)
}

// Clock returns the emulator clock (move it with Advance/SetOffset).
func (s *Server) Clock() *emulator.Clock { return s.svc.Clock() }

// Sweep runs one TTL sweep now and returns how many rows it deleted.
func (s *Server) Sweep(ctx context.Context) (int, error) { return s.sweeper.SweepOnce(ctx) }

// SweeperStats returns the sweeper's counters.
func (s *Server) SweeperStats() ttl.Stats { return s.sweeper.Stats() }

// SplitPartitionKeyRange splits live partition key range id of container
// coll in database db at EPK at ("" for the middle of its hash space) and
// returns the two children (emulator.Service.SplitRange; what POST
// /_emulator/dbs/{db}/colls/{coll}/pkranges/{id}/split does).
func (s *Server) SplitPartitionKeyRange(ctx context.Context, db, coll, id, at string) ([]emulator.PartitionKeyRange, error) {
	return s.svc.SplitRange(ctx, db, coll, id, at)
}

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

// exportCertificate writes the serving certificate (PEM) to path, world
// readable (it is public), creating its directories.
func exportCertificate(path string, certPEM []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, certPEM, 0o644) //nolint:gosec // a certificate is public
}
