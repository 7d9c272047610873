// Package pgtest gives tests a PostgreSQL database of their own.
//
// The server is the one named by the COSMOS_TEST_PG environment variable (any
// pgx connection string or postgres:// URL of a role that may create and drop
// databases), or else a private, ephemeral server that package pgserver
// starts on first use, once per test process, at process durability (a
// commit waits for its WAL to reach the kernel, not the disk: the data dies
// with the tests anyway, and a kill -9 of the server loses no acknowledged
// write; pgserver.DurabilityProcess). Each test takes a fresh empty
// database with NewDatabase, so tests may run in parallel and reruns never
// see old data.
//
// A package that uses it stops the private server through Main:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
//		...
//	}
//
// With no PostgreSQL binaries but the docker command and a running Docker
// engine, the private server is a throwaway postgres:15 container instead
// (started with the docker command, so that no Docker client library is
// compiled into the tests).
//
// Without PostgreSQL (no COSMOS_TEST_PG, no PostgreSQL binaries, no Docker) the
// tests that ask for a database are skipped, except when the CI environment
// variable is set: then they fail, so that CI never passes by skipping.
package pgtest
