package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// opFunc performs one operation on item i.
type opFunc func(ctx context.Context, i int) error

// item is one benchmark document.
type item struct {
	id, pk      string
	body        []byte // the document as created
	replacement []byte // the same document, version 2, for replace
}

// itemSet holds the documents of a run, prepared up front so that encoding
// is not measured.
type itemSet struct{ items []item }

// newItemSet prepares n documents of size bytes each over 64 partitions.
func newItemSet(n, size int) *itemSet {
	s := &itemSet{items: make([]item, n)}
	for i := range s.items {
		it := &s.items[i]
		it.id, it.pk = fmt.Sprintf("item-%07d", i), fmt.Sprintf("pk-%02d", i%64)
		it.body, it.replacement = document(it.id, it.pk, 1, size), document(it.id, it.pk, 2, size)
	}
	return s
}

// get returns item i.
func (s *itemSet) get(i int) *item { return &s.items[i] }

// document returns a JSON document of exactly size bytes (at least its fixed
// part) with the given id, partition key and version, padded with a string
// payload.
func document(id, pk string, version, size int) []byte {
	head := fmt.Sprintf(`{"id":%q,"pk":%q,"version":%d,"kind":"bench","payload":"`, id, pk, version)
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(head)
	for i := range max(size-len(head)-2, 0) {
		b = append(b, alphabet[(i+version)%len(alphabet)])
	}
	return append(b, `"}`...)
}

// measure calls f(0) .. f(warmup+n-1) one after the other and returns the
// latencies of the last n.
func measure(warmup, n int, f func(i int) error) (latencyStats, error) {
	lat, err := alternate(warmup, n, func(_, i int) error { return f(i) }, 1)
	if err != nil {
		return latencyStats{}, err
	}
	return newLatencyStats(lat[0], 0), nil
}

// perOp divides a phase's CPU time by the operations that ran in it.
func perOp(c phaseCPU, ops int) perOpCPU {
	return perOpCPU{Emulator: c.EmulatorMS / float64(max(ops, 1)), Postgres: c.PostgresMS / float64(max(ops, 1))}
}

// latencyStats summarises the measured operations of one benchmark.
// Latencies are in milliseconds.
type latencyStats struct {
	Ops       int     `json:"ops"`
	Seconds   float64 `json:"seconds,omitempty"`
	OpsPerSec float64 `json:"ops_per_sec,omitempty"`
	Mean      float64 `json:"mean_ms"`
	P50       float64 `json:"p50_ms"`
	P90       float64 `json:"p90_ms"`
	P99       float64 `json:"p99_ms"`
	Max       float64 `json:"max_ms"`
}

// newLatencyStats computes the statistics of lat over a wall time elapsed
// (0: the sum of lat).
func newLatencyStats(lat []time.Duration, elapsed time.Duration) latencyStats {
	s := latencyStats{Ops: len(lat)}
	if len(lat) == 0 {
		return s
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	if elapsed == 0 {
		elapsed = sum
	}
	pct := func(p float64) float64 {
		return ms(lat[min(max(int(math.Ceil(p/100*float64(len(lat)))), 1), len(lat))-1])
	}
	s.Seconds, s.OpsPerSec = elapsed.Seconds(), float64(len(lat))/elapsed.Seconds()
	s.Mean, s.P50, s.P90, s.P99, s.Max = ms(sum/time.Duration(len(lat))), pct(50), pct(90), pct(99), ms(lat[len(lat)-1])
	return s
}

// rawBench runs the point scenario's raw pgx statements on a table
// bench_raw shaped as an items table's point-operation part, through a
// pgxpool as the store's (each statement prepared once, then one round trip).
type rawBench struct{ pool *pgxpool.Pool }

// managedConnString returns the connection string of the cluster the
// emulator manages in dataDir (its --data-dir): a Unix socket in
// dataDir/postgres/run, or the directory line 5 of postmaster.pid names
// when that path was too long for a socket; superuser postgres, trust.
func managedConnString(dataDir string) (string, error) {
	sockDir := filepath.Join(dataDir, "postgres", "run")
	if _, err := os.Stat(filepath.Join(sockDir, ".s.PGSQL.5432")); err != nil {
		b, perr := os.ReadFile(filepath.Join(dataDir, "postgres", "pgdata", "postmaster.pid"))
		lines := strings.Split(string(b), "\n")
		if perr != nil || len(lines) < 5 || strings.TrimSpace(lines[4]) == "" {
			return "", fmt.Errorf("finding the managed PostgreSQL socket: %v; postmaster.pid: %v", err, perr)
		}
		sockDir = strings.TrimSpace(lines[4])
	}
	return fmt.Sprintf("host='%s' port=5432 user=postgres dbname=postgres sslmode=disable", strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(sockDir)), nil
}

// newRawBench (re)creates the benchmark table through pool.
func newRawBench(ctx context.Context, pool *pgxpool.Pool) (*rawBench, error) {
	if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS bench_raw; CREATE TABLE bench_raw (pk text, id text, body text, PRIMARY KEY (pk, id))`); err != nil {
		return nil, fmt.Errorf("raw pgx: %w", err)
	}
	return &rawBench{pool}, nil
}

// op returns an opFunc running sql with item i's partition key, id and
// body (its replacement when replace) that must touch one row.
func (r *rawBench) op(items *itemSet, sql string, replace bool) opFunc {
	return func(ctx context.Context, i int) error {
		it := items.get(i)
		body := it.body
		if replace {
			body = it.replacement
		}
		tag, err := r.pool.Exec(ctx, sql, it.pk, it.id, string(body))
		if err == nil && tag.RowsAffected() != 1 {
			err = fmt.Errorf("%s touched %d rows", sql, tag.RowsAffected())
		}
		return err
	}
}

// The raw statements of the point scenario.
const (
	rawInsert = `INSERT INTO bench_raw (pk, id, body) VALUES ($1, $2, $3)`
	rawSelect = `SELECT body FROM bench_raw WHERE pk = $1 AND id = $2 AND $3::text IS NOT NULL`
	rawUpdate = `UPDATE bench_raw SET body = $3 WHERE pk = $1 AND id = $2`
)
