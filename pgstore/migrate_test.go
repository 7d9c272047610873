package pgstore

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// TestMigrateAppliesEveryUnrecordedVersion: a database on which a later
// migration was recorded first (branches landing in either order) still
// gets the earlier ones, and a recorded one is not run again.
func TestMigrateAppliesEveryUnrecordedVersion(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	last := ms[len(ms)-1]
	// Only the last migration is recorded (its objects were never made).
	if _, err := pool.Exec(ctx, `CREATE SCHEMA cosmos;
CREATE TABLE cosmos.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO cosmos.schema_migrations (version, name) VALUES ($1, $2)`, last.version, last.name); err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(ms) {
		t.Fatalf("%d migrations recorded, want %d", n, len(ms))
	}
	// The earlier ones ran: the schema's tables exist.
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM cosmos.databases`).Scan(&n); err != nil {
		t.Fatalf("an earlier migration did not run: %v", err)
	}
	// Running again changes nothing.
	if err := migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
}
