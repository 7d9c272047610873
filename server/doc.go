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
package server
