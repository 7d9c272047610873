package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgserver"
)

// sqlStatement is one statement's line of pg_stat_statements over the
// measured phases.
type sqlStatement struct {
	Query   string  `json:"query"`
	Calls   int64   `json:"calls"`
	TotalMS float64 `json:"total_exec_ms"`
	MeanMS  float64 `json:"mean_exec_ms"`
	Rows    int64   `json:"rows"`
	WALKB   float64 `json:"wal_kb"`
}

// statsServer is a private PostgreSQL with pg_stat_statements loaded, for
// the js scenario's -js-sql-stats: the emulator runs on it with --pg, so
// the SQL of every request is counted.
type statsServer struct {
	srv  *pgserver.Server
	conn string
	pg   *pgx.Conn // the bench's own connection, for the statistics
}

// startStatsServer starts the server in dir (ephemeral) and creates the
// extension in its database.
func startStatsServer(ctx context.Context, dir string, logf func(string, ...any)) (*statsServer, error) {
	srv, err := pgserver.Start(ctx, pgserver.Options{DataDir: dir, Ephemeral: true, Logf: logf, Settings: map[string]string{
		"shared_preload_libraries":         "pg_stat_statements",
		"pg_stat_statements.track":         "all",
		"pg_stat_statements.max":           "10000",
		"pg_stat_statements.save":          "off",
		"track_functions":                  "none",
		"pg_stat_statements.track_utility": "off",
	}})
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL for -js-sql-stats: %w", err)
	}
	s := &statsServer{srv: srv, conn: srv.ConnString()}
	if s.pg, err = pgx.Connect(ctx, s.conn); err != nil {
		srv.Stop() //nolint:errcheck
		return nil, err
	}
	if _, err := s.pg.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		s.Close() //nolint:errcheck
		return nil, fmt.Errorf("pg_stat_statements: %w", err)
	}
	return s, nil
}

// Close closes the bench's connection and stops the server.
func (s *statsServer) Close() error {
	s.pg.Close(context.Background()) //nolint:errcheck
	return s.srv.Stop()
}

// reset clears the statistics.
func (s *statsServer) reset(ctx context.Context) error {
	_, err := s.pg.Exec(ctx, `SELECT pg_stat_statements_reset()`)
	return err
}

// top returns the n statements with the most execution time since reset.
func (s *statsServer) top(ctx context.Context, n int) ([]sqlStatement, error) {
	rows, err := s.pg.Query(ctx, `SELECT query, calls, total_exec_time, mean_exec_time, rows, wal_bytes::float8 / 1024
FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT $1`, n)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (sqlStatement, error) {
		var st sqlStatement
		err := r.Scan(&st.Query, &st.Calls, &st.TotalMS, &st.MeanMS, &st.Rows, &st.WALKB)
		return st, err
	})
}

// writeSQLStats writes the statements table, per operation of the phases
// (ops operations in all).
func writeSQLStats(w io.Writer, sts []sqlStatement, ops int) {
	if len(sts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSQL during the mixed phases (pg_stat_statements, -js-sql-stats; %d operations), by execution time\n", ops)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  calls\tcalls/op\ttotal ms\tmean ms\tWAL KB/call\tstatement\t")
	for _, st := range sts {
		q := strings.Join(strings.Fields(st.Query), " ")
		if len(q) > 110 {
			q = q[:110] + "..."
		}
		perCall := 0.0
		if st.Calls > 0 {
			perCall = st.WALKB / float64(st.Calls)
		}
		fmt.Fprintf(tw, "%7d\t%8.2f\t%8.1f\t%7.3f\t%11.2f\t%s\t\n", st.Calls, float64(st.Calls)/float64(max(ops, 1)), st.TotalMS, st.MeanMS, perCall, q)
	}
	tw.Flush()
}
