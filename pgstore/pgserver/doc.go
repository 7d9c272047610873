// Package pgserver runs a private PostgreSQL server for the emulator and its
// tests: it finds the PostgreSQL programs (FindBinaries), creates a cluster
// once with initdb, starts postgres on it listening only on a Unix socket in
// the data directory, and stops it (Start, Server.Stop).
//
// The cluster persists in Options.DataDir across runs, or lives in a
// temporary directory removed by Stop (Options.Ephemeral). Connections use
// Server.ConnString: superuser "postgres", trust authentication, no TCP.
//
// When the calling process runs as root, the PostgreSQL programs run as the
// unprivileged "postgres" user (or "nobody"); see Start for the permission
// changes this implies. Commits are durable by default (synchronous_commit
// and fsync on); Options.Durability trades that for speed where the data
// dies with the process (DurabilityProcess) or may lose its last writes
// (DurabilityNone). A supervisor restarts a postmaster that dies (see
// Start).
//
// Typical use:
//
//	srv, err := pgserver.Start(ctx, pgserver.Options{DataDir: dir})
//	if err != nil {
//		return err // errors.Is(err, pgserver.ErrNoBinaries): PostgreSQL is not installed
//	}
//	defer srv.Stop()
//	conn, err := pgx.Connect(ctx, srv.ConnString())
package pgserver
