package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// The runner the scenarios share: start an emulator with a database
// (startSDKRun), seed its containers straight into their items tables
// (seedSQL, seedRows), alternate the sides being compared (alternate,
// compare) and report (writeCompare, writeChecks).

// sdkRun is a scenario's emulator process, on its own data directory, with
// a database created through the SDK, the clients to reach it and a pgx
// pool on its PostgreSQL database (for seeding).
type sdkRun struct {
	dataDir string
	emu     *emulatorProcess
	ctl     *controlClient
	client  *azcosmos.Client
	hc      *http.Client
	dbID    string
	db      *azcosmos.DatabaseClient
	pool    *pgxpool.Pool
}

// startSDKRun starts the emulator on the data directory name under the
// run's work directory (logging to name-emulator.log, with the extra
// flags) and creates a database through the SDK with one connection. On
// error everything it started is stopped again.
func (b *bench) startSDKRun(ctx context.Context, name string, extra ...string) (r *sdkRun, err error) {
	r = &sdkRun{dataDir: filepath.Join(b.workDir, name)}
	b.logf("%s: starting the emulator", name)
	if r.emu, err = b.start(ctx, r.dataDir, name+"-emulator.log", extra...); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	r.ctl = newControlClient(r.emu.url)
	if r.client, r.hc, err = newSDKClient(r.emu.url); err != nil {
		return r, err
	}
	dbID := newDatabaseID()
	if _, err := r.client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: dbID}, nil); err != nil {
		return r, fmt.Errorf("SDK: creating database %s: %w", dbID, err)
	}
	r.dbID = dbID
	if r.db, err = r.client.NewDatabase(dbID); err != nil {
		return r, err
	}
	r.pool, err = b.connectPG(ctx, r.dataDir)
	return r, err
}

// createContainer creates container id, partitioned on /pk with the
// default indexing policy and defaultTtl ttl (nil: none), through the SDK,
// and returns its client and its items table.
func (r *sdkRun) createContainer(ctx context.Context, id string, ttl *int32) (*azcosmos.ContainerClient, string, error) {
	props := azcosmos.ContainerProperties{ID: id, DefaultTimeToLive: ttl, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := r.db.CreateContainer(ctx, props, nil); err != nil {
		return nil, "", fmt.Errorf("SDK: creating container %s: %w", id, err)
	}
	c, err := r.db.NewContainer(id)
	if err != nil {
		return nil, "", err
	}
	_, table, err := itemsTable(ctx, r.pool, r.dbID, id)
	return c, table, err
}

// close closes the clients and stops the emulator (its data directory,
// the database with it, goes with the run's work directory).
func (r *sdkRun) close() {
	if r.pool != nil {
		r.pool.Close()
	}
	if r.hc != nil {
		r.hc.CloseIdleConnections()
		r.ctl.close()
	}
	r.emu.stop()
}

// seedSQL returns an INSERT of items g = 0..n-1 into table as of time $1,
// each about size bytes of JSON: id item-<g, width digits>, partition key
// 'p' || (pk), then the members fields (SQL starting with a comma, or ""),
// a payload of pad (SQL; "" repeats 'x'), timestamp ts, the rows where
// holds ("" for all). seedRows passes the keys ["p0"].. and their EPKs
// (a hash computed in Go) as $2 and $3; a row of another key is left out.
func seedSQL(table string, n, size, width int, pk, fields, pad, ts, where string) string {
	if pad == "" {
		pad = fmt.Sprintf("repeat('x', %d)", size)
	}
	if fields == "" {
		fields = "''"
	}
	if where == "" {
		where = "TRUE"
	}
	return fmt.Sprintf(`INSERT INTO %[1]s (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT m.k, id, nextval('cosmos.doc_seq'), head || left(pad, greatest(%[2]d - length(head) - 2, 0)) || '"}', ts, NULL,
       '"' || lpad(to_hex(g), 8, '0') || '-0000-0100-0000-' || lpad(to_hex(ts), 8, '0') || '0000"', nextval('cosmos.lsn_seq'), m.epk
FROM (SELECT g, p, id, ts, '{"id":"' || id || '","pk":"' || p || '"' || %[3]s || ',"payload":"' AS head, %[4]s AS pad
      FROM (SELECT g, 'p' || (%[5]s) AS p, 'item-' || lpad(g::text, %[6]d, '0') AS id, %[7]s AS ts
            FROM generate_series(0::bigint, %[8]d) AS g WHERE %[9]s) a) b
JOIN unnest($2::text[], $3::text[]) AS m(k, epk) ON m.k = '["' || p || '"]'`,
		table, size, fields, pad, pk, width, ts, n-1, where)
}

// seedRows runs a seedSQL statement writing want rows of partition keys
// p0..p<partitions-1> as of now, then settles the table as autovacuum
// would have by the time a container holds that many items: VACUUM
// (ANALYZE) of it and of the change log, and a CHECKPOINT, so that
// neither lands in a measurement.
func seedRows(ctx context.Context, pool *pgxpool.Pool, table, insert string, partitions, want int, now int64) error {
	var def emulator.PartitionKeyDefinition
	err := pool.QueryRow(ctx, `SELECT pk_def FROM cosmos.containers WHERE num = $1`, strings.TrimPrefix(table, "cosmos.items_")).Scan(&def)
	keys, epks := make([]string, partitions), make([]string, partitions)
	for i := range keys {
		keys[i] = `["p` + strconv.Itoa(i) + `"]`
		epks[i] = emulator.CanonicalEPK(def, keys[i])
	}
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = pool.Exec(ctx, insert, now, keys, epks)
	}
	if err == nil && tag.RowsAffected() != int64(want) {
		err = fmt.Errorf("wrote %d rows, want %d", tag.RowsAffected(), want)
	}
	if err != nil {
		return fmt.Errorf("pgx: seeding %s: %w", table, err)
	}
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) `+table); err != nil {
		return fmt.Errorf("pgx: %w", err)
	}
	_, _ = pool.Exec(ctx, `VACUUM (ANALYZE) cosmos.changes`)
	_, err = pool.Exec(ctx, `CHECKPOINT`)
	return err
}

// alternate calls f(side, i) for i = 0 .. warmup+runs-1 on each of sides
// sides in turn, the first side of a round alternating (so that drift in
// the machine's speed hits every side alike), and returns the latencies of
// the measured calls (i >= warmup) by side.
func alternate(warmup, runs int, f func(side, i int) error, sides int) ([][]time.Duration, error) {
	lat := make([][]time.Duration, sides)
	for i := range warmup + runs {
		for k := range sides {
			j := k
			if i%2 == 1 {
				j = sides - 1 - k
			}
			t := time.Now()
			if err := f(j, i); err != nil {
				return nil, fmt.Errorf("side %d, run %d: %w", j, i, err)
			}
			if d := time.Since(t); i >= warmup {
				lat[j] = append(lat[j], d)
			}
		}
	}
	return lat, nil
}

// compareOp is one operation a comparison times on every side: run i on
// side j. target > 0 bounds the p50 ratio of the last side to the first.
type compareOp struct {
	name   string
	target float64
	run    func(side, i int) error
}

// compareResult is a comparison of operations on sides that differ in one
// thing (a container's size or ranges).
type compareResult struct {
	Sides  []string     `json:"sides"`
	Runs   int          `json:"runs"`
	Warmup int          `json:"warmup"`
	Ops    []opCompared `json:"operations"`
}

// opCompared is one operation on every side: its first run alone (which
// may build an index), then the measured runs' latencies, and the ratio of
// the last side's p50 to the first's.
type opCompared struct {
	Name     string         `json:"name"`
	FirstMs  []float64      `json:"first_run_ms"`
	Latency  []latencyStats `json:"latency"`
	P50Ratio float64        `json:"p50_ratio"`
	Target   float64        `json:"target_ratio,omitempty"`
}

// compare times each op: run 0 on each side alone, then warmup and runs
// more alternating (alternate).
func (b *bench) compare(scenario string, sides []string, warmup, runs int, ops []compareOp) (compareResult, error) {
	res := compareResult{Sides: sides, Runs: runs, Warmup: warmup}
	for _, op := range ops {
		b.logf("%s: %s (%d + %d runs on each side, alternating)", scenario, op.name, warmup, runs)
		o := opCompared{Name: op.name, Target: op.target}
		for j := range sides {
			t := time.Now()
			if err := op.run(j, 0); err != nil {
				return res, fmt.Errorf("%s on %s: %w", op.name, sides[j], err)
			}
			o.FirstMs = append(o.FirstMs, ms(time.Since(t)))
		}
		lat, err := alternate(warmup, runs, func(j, i int) error { return op.run(j, i+1) }, len(sides))
		if err != nil {
			return res, fmt.Errorf("%s: %w", op.name, err)
		}
		for j := range sides {
			o.Latency = append(o.Latency, newLatencyStats(lat[j], 0))
		}
		o.P50Ratio = ratio(o.Latency[len(sides)-1].P50, o.Latency[0].P50)
		b.logf("%s: %s: p50 %.3f ms on %s vs %.3f ms on %s (%.2fx)", scenario, op.name, o.Latency[len(sides)-1].P50, sides[len(sides)-1], o.Latency[0].P50, sides[0], o.P50Ratio)
		res.Ops = append(res.Ops, o)
	}
	return res, nil
}

// checks returns the targets of the comparison's operations.
func (r *compareResult) checks() []targetCheck {
	var cs []targetCheck
	for _, o := range r.Ops {
		if o.Target > 0 {
			cs = append(cs, atMost(o.Name+", p50 "+r.Sides[len(r.Sides)-1]+" / "+r.Sides[0], o.P50Ratio, o.Target))
		}
	}
	return cs
}

// writeCompare writes a comparison's table and targets.
func writeCompare(w io.Writer, title string, r *compareResult) {
	if r == nil || len(r.Sides) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d measured runs after %d warm-up, sides alternating; ms)\n", title, r.Runs, r.Warmup)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "operation\tfirst run\tp50 %s\tp99\tp50 ratio\n", strings.Join(r.Sides, "\tp99\tp50 "))
	for _, o := range r.Ops {
		fmt.Fprintf(tw, "%s\t%s", o.Name, strings.Trim(fmt.Sprintf("%.1f", o.FirstMs), "[]"))
		for _, l := range o.Latency {
			fmt.Fprintf(tw, "\t%.3f\t%.3f", l.P50, l.P99)
		}
		fmt.Fprintf(tw, "\t%.2fx\n", o.P50Ratio)
	}
	tw.Flush()
	writeChecks(w, r.checks())
}

// ms converts d to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// watchRSS samples the VmRSS of process pid every 10 ms until the returned
// function is called, which returns the RSS before and the peak, in MB.
func watchRSS(pid int) func() (before, peak float64) {
	before, _ := rssMB(pid)
	peak, stop, done := before, make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for sleepCtx(context.Background(), 10*time.Millisecond) == nil {
			select {
			case <-stop:
				return
			default:
			}
			if m, err := rssMB(pid); err == nil {
				peak = max(peak, m)
			}
		}
	}()
	return func() (float64, float64) {
		close(stop)
		<-done
		return before, peak
	}
}

// connectPG connects to the managed PostgreSQL of the emulator running on
// dataDir.
func (b *bench) connectPG(ctx context.Context, dataDir string) (*pgxpool.Pool, error) {
	conn, err := managedConnString(dataDir)
	if err != nil {
		return nil, err
	}
	return pgxpool.New(ctx, conn)
}

// itemsTable returns the items table of container containerID in database
// dbID.
func itemsTable(ctx context.Context, pool *pgxpool.Pool, dbID, containerID string) (num int64, table string, err error) {
	err = pool.QueryRow(ctx, `SELECT c.num FROM cosmos.containers c JOIN cosmos.databases d ON d.num = c.db_num WHERE d.id = $1 AND c.id = $2`, dbID, containerID).Scan(&num)
	return num, fmt.Sprintf("cosmos.items_%d", num), err
}
