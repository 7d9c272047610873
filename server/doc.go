// Package server assembles the whole emulator: the PostgreSQL it stores in
// (a managed private cluster, or the one given by a connection string), the
// store, the service, the REST handler, TLS and the HTTP server. The
// cos-emulator command and the in-process test server (emulatortest) both
// run exactly this code, so tests exercise the real program.
package server
