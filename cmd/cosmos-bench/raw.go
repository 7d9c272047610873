package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// rawTable is the table of the raw benchmark. It mirrors the point-operation
// part of an emulator items table: text partition key and id as the primary
// key, the document as text.
const rawTable = "bench_raw"

// The managed cluster, as pgstore/pgserver configures it: no TCP listener,
// a Unix socket in <--data-dir>/postgres/run named after port 5432, and the
// superuser "postgres" with trust authentication (see Server.ConnString).
const (
	managedPort = 5432
	managedUser = "postgres"
	socketFile  = ".s.PGSQL.5432"
)

// managedConnString returns the connection string of the cluster the
// emulator manages in dataDir (its --data-dir). The server package gives
// pgserver the data directory dataDir/postgres, whose socket directory is
// dataDir/postgres/run, unless that path is too long for a Unix socket and
// pgserver used a directory under /tmp; postmaster.pid names the directory
// in use either way.
func managedConnString(dataDir string) (string, error) {
	sockDir := filepath.Join(dataDir, "postgres", "run")
	if _, err := os.Stat(filepath.Join(sockDir, socketFile)); err != nil {
		pidFile := filepath.Join(dataDir, "postgres", "pgdata", "postmaster.pid")
		b, perr := os.ReadFile(pidFile)
		if perr != nil {
			return "", fmt.Errorf("finding the managed PostgreSQL socket: %v; %v", err, perr)
		}
		// Line 5 of postmaster.pid is the first socket directory.
		lines := strings.Split(string(b), "\n")
		if len(lines) < 5 || strings.TrimSpace(lines[4]) == "" {
			return "", fmt.Errorf("finding the managed PostgreSQL socket: %v, and %s names none", err, pidFile)
		}
		sockDir = strings.TrimSpace(lines[4])
	}
	return fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable",
		quoteConnValue(sockDir), managedPort, managedUser), nil
}

// quoteConnValue quotes a keyword/value connection string value if needed.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\r\f\v'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// rawBench runs the raw pgx statements. Like the emulator's store it uses a
// pgxpool with pgx's default statement cache, so each statement is prepared
// once per connection and then costs one round trip.
type rawBench struct {
	pool    *pgxpool.Pool
	version string
}

// newRawBench connects to connString with one connection per client and
// (re)creates the benchmark table.
func newRawBench(ctx context.Context, connString string, clients int) (*rawBench, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("raw pgx: %w", err)
	}
	cfg.MaxConns = int32(clients)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("raw pgx: connect: %w", err)
	}
	r := &rawBench{pool: pool}
	if err := pool.QueryRow(ctx, `SHOW server_version`).Scan(&r.version); err != nil {
		pool.Close()
		return nil, fmt.Errorf("raw pgx: %w", err)
	}
	if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS `+rawTable+`;
CREATE TABLE `+rawTable+` (pk text, id text, body text, PRIMARY KEY (pk, id))`); err != nil {
		pool.Close()
		return nil, fmt.Errorf("raw pgx: creating %s: %w", rawTable, err)
	}
	return r, nil
}

// close drops the benchmark table and disconnects.
func (r *rawBench) close(ctx context.Context) error {
	defer r.pool.Close()
	if _, err := r.pool.Exec(ctx, `DROP TABLE IF EXISTS `+rawTable); err != nil {
		return fmt.Errorf("raw pgx: dropping %s: %w", rawTable, err)
	}
	return nil
}

// create inserts item i.
func (r *rawBench) create(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		_, err := r.pool.Exec(ctx, `INSERT INTO `+rawTable+` (pk, id, body) VALUES ($1, $2, $3)`, it.pk, it.id, string(it.body))
		return 0, err
	}
}

// read selects item i by primary key.
func (r *rawBench) read(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		var body string
		if err := r.pool.QueryRow(ctx, `SELECT body FROM `+rawTable+` WHERE pk = $1 AND id = $2`, it.pk, it.id).Scan(&body); err != nil {
			return 0, err
		}
		if len(body) == 0 {
			return 0, errors.New("empty body")
		}
		return 0, nil
	}
}

// replace updates item i's body by primary key.
func (r *rawBench) replace(items *itemSet) opFunc {
	return func(ctx context.Context, i int) (time.Duration, error) {
		it := items.get(i)
		tag, err := r.pool.Exec(ctx, `UPDATE `+rawTable+` SET body = $3 WHERE pk = $1 AND id = $2`, it.pk, it.id, string(it.replacement))
		if err != nil {
			return 0, err
		}
		if tag.RowsAffected() != 1 {
			return 0, fmt.Errorf("UPDATE of %s/%s touched %d rows", it.pk, it.id, tag.RowsAffected())
		}
		return 0, nil
	}
}
