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
// Without PostgreSQL (no COSMOS_TEST_PG and no PostgreSQL binaries) the
// tests that ask for a database are skipped, except when the CI environment
// variable is set: then they fail, so that CI never passes by skipping.
package pgtest
