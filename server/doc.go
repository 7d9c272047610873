// Package server assembles the whole emulator: the PostgreSQL it stores in
// (a managed private cluster, or the one given by a connection string), the
// store, the service, the REST handler, TLS and the HTTP server. The
// cos-emulator command and the in-process test server (emulatortest) both
// run exactly this code, so tests exercise the real program.
//
// Failures and faults: Start either returns a serving Server or a
// *StartError (one line: cause and fix) after undoing everything it
// started. The managed PostgreSQL is restarted by its supervisor when its
// postmaster dies; while PostgreSQL cannot be reached, requests get 503
// with a retry delay and /_emulator/health answers 503. The HTTP server
// bounds reads, writes, idle connections and the number of connections
// (Config.ReadTimeout, WriteTimeout, IdleTimeout, MaxConns).
//
// Microsoft's emulator interface and observability: with Config.HealthAddr
// a plain-HTTP health server (health.go) answers the probes of Microsoft's
// image (GET /alive, /ready, /status) from the start of Start, /ready
// turning 200 once the emulator serves and PostgreSQL answers. Each Server
// has its own Prometheus registry (metrics.go): the connection pool, the
// TTL sweeper and its backlog, build information, the Go runtime; the wire
// layer adds the request metrics and serves them at /_emulator/metrics.
// Config.CertBundle takes a PKCS#12 certificate (Microsoft's CERT_PATH).
package server
