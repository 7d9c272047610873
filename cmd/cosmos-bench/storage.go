package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The storage scenario measures what storing a document costs, in two
// parts run in one process so that their numbers come from the same
// machine state.
//
// End to end: creates and then replaces of ~-size byte documents through
// the Go SDK (1 client) against the emulator of -bin and, with
// -storage-other-bin, against a second build, the two alternating round by
// round; for each it reports the latencies and the WAL bytes written per
// operation (the insert position of the emulator's own cluster,
// pg_current_wal_insert_lsn, before and after each round, divided by the
// round's operations; an idle emulator writes next to nothing in between).
//
// Table shapes: the same documents written with raw pgx, one transaction
// per write as the emulator's point writes are, into copies of the items
// table (made from a real container's table with LIKE ... INCLUDING ALL)
// and of the change log in several shapes, alternating shape by shape:
//
//   - text+jsonb, default storage: the emulator's design (the exact text,
//     a generated jsonb copy for queries, PostgreSQL's default column
//     storage, and the log entry copying the text);
//   - text+jsonb, log by ref: the log entry of a current version carries no
//     body (a reader finds it in the items table by the version's seq);
//     the body is copied into the entry only when the version is replaced
//     or deleted, so a replace writes the new entry and fills the old one;
//   - text only, log by ref: no stored jsonb (queries parse the text);
//   - jsonb only, log by ref: no text (not exact: shown as the floor);
//   - text+jsonb with the jsonb kept in the row (STORAGE MAIN), the text
//     compressed with pglz, or with lz4;
//   - text+jsonb with rows kept whole up to 8 KB (toast_tuple_target).
//
// Every shape starts from PostgreSQL's default column storage, whatever
// the items table it is copied from has.
//
// After the writes it fills each shape with -storage-rows documents and
// times three queries on each (point read, a filter that reads every row,
// a filter inside one logical partition), alternating shapes run by run.
// The documents are varied (numbers, words, an array, a nested object) so
// that compression sees text like a real document's, not one repeated
// character.
//
//	go run ./cmd/cosmos-bench -scenario storage [-storage-n 500] [-storage-rounds 4] [-storage-rows 20000] [-storage-query-n 30] [-storage-other-bin path]

// storageConfig configures the storage scenario.
type storageConfig struct {
	otherBin  string // a second emulator build to alternate with -bin ("" = none)
	n         int    // creates (and replaces) per round
	rounds    int    // measured rounds, after one unmeasured warm-up round
	rows      int    // documents in each shape for the query timings
	queryRuns int    // measured runs of each query on each shape
}

// storageResult is what the storage scenario measured.
type storageResult struct {
	Size      int              `json:"doc_bytes"`
	Emulators []storageEmuLine `json:"end_to_end"`
	Shapes    []storageShape   `json:"table_shapes"`
	Rows      int              `json:"query_rows"`
}

// storageEmuLine is one emulator build's end-to-end figures.
type storageEmuLine struct {
	Binary        string       `json:"binary"`
	Create        latencyStats `json:"create_sdk"`
	Replace       latencyStats `json:"replace_sdk"`
	CreateWAL     float64      `json:"create_wal_bytes_per_op"`
	ReplaceWAL    float64      `json:"replace_wal_bytes_per_op"`
	CreateFPI     float64      `json:"create_wal_full_page_image_bytes_per_op"`
	ReplaceFPI    float64      `json:"replace_wal_full_page_image_bytes_per_op"`
	ItemsTableKB  float64      `json:"items_table_kb_per_1000"`
	ChangeLogKB   float64      `json:"change_log_kb_per_1000"`
	createWALSum  walBytes
	replaceWALSum walBytes
	createLat     []time.Duration
	replaceLat    []time.Duration
}

// storageShape is one table shape's figures.
type storageShape struct {
	Name       string       `json:"name"`
	Exact      bool         `json:"exact_read_back"`
	Create     latencyStats `json:"create_pgx"`
	Replace    latencyStats `json:"replace_pgx"`
	CreateWAL  float64      `json:"create_wal_bytes_per_op"`
	ReplaceWAL float64      `json:"replace_wal_bytes_per_op"`
	CreateFPI  float64      `json:"create_wal_full_page_image_bytes_per_op"`
	ReplaceFPI float64      `json:"replace_wal_full_page_image_bytes_per_op"`
	DeleteFPI  float64      `json:"delete_wal_full_page_image_bytes_per_op"`
	Delete     latencyStats `json:"delete_pgx"`
	DeleteWAL  float64      `json:"delete_wal_bytes_per_op"`
	LogRead    latencyStats `json:"change_log_drain"`
	PointRead  latencyStats `json:"point_read"`
	ScanFilter latencyStats `json:"filter_all_rows"`
	PartFilter latencyStats `json:"filter_one_partition"`
	TableKB    float64      `json:"table_kb_per_1000"`
	// Compressed is the share of the query documents whose text, and
	// whose jsonb, PostgreSQL stored compressed (in the row or in the
	// TOAST table).
	TextCompressed float64 `json:"text_compressed_share"`
	JSONCompressed float64 `json:"jsonb_compressed_share"`
	// ToastKB is the size of the shape's TOAST table per 1000 documents:
	// the values PostgreSQL moved out of the rows, which a query that
	// reads them fetches through the TOAST table's index.
	ToastKB float64 `json:"toast_kb_per_1000"`

	createWALSum, replaceWALSum, deleteWALSum walBytes
	createLat, replaceLat, deleteLat          []time.Duration
	logLat, pointLat, scanLat, partLat        []time.Duration
}

// storageDoc returns document i of a run: about size bytes of JSON with
// an id, the partition key pk, numbers, a boolean, an array, a nested
// object and words drawn from a small vocabulary, the same for the same i.
func storageDoc(id, pk string, i, size int) []byte {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
		"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform",
		"victor", "whiskey", "xray", "yankee", "zulu", "order", "customer", "shipped", "pending", "invoice", "total"}
	r := rand.New(rand.NewPCG(uint64(i), 7))
	var b strings.Builder
	fmt.Fprintf(&b, `{"id":%q,"pk":%q,"n":%d,"price":%.2f,"flag":%t,"tags":[`, id, pk, i%100, r.Float64()*1000, i%2 == 0)
	for k := 0; k < 4; k++ {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", words[r.IntN(len(words))])
	}
	fmt.Fprintf(&b, `],"address":{"street":"%d %s street","city":%q,"zip":"%05d"},"notes":"`, r.IntN(999), words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(100000))
	for b.Len() < size-2 {
		b.WriteString(words[r.IntN(len(words))])
		fmt.Fprintf(&b, " %d ", r.IntN(10000))
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

// storageEmu is one emulator of the end-to-end part.
type storageEmu struct {
	line *storageEmuLine
	emu  *emulatorProcess
	sdk  *sdkBench
	pool *pgxpool.Pool
}

// close deletes e's benchmark database, disconnects and stops the
// emulator.
func (e *storageEmu) close(ctx context.Context) error {
	var err error
	if e.pool != nil {
		e.pool.Close()
	}
	if e.sdk != nil {
		err = e.sdk.close(ctx)
	}
	e.emu.stop()
	return err
}

// walInsertLSN returns the cluster's WAL insert position in bytes.
func walInsertLSN(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&n)
	return n, err
}

// walBytes is the WAL written over a window: in all, and the part that is
// full-page images (the first change of each page after a checkpoint, a
// cost that depends on when checkpoints fall rather than on the row
// shape); fpi is -1 where pg_walinspect is not available.
type walBytes struct{ all, fpi int64 }

// add accumulates w into t.
func (t *walBytes) add(w walBytes) {
	t.all += w.all
	if t.fpi >= 0 && w.fpi >= 0 {
		t.fpi += w.fpi
	} else {
		t.fpi = -1
	}
}

// perOp returns t's bytes per operation over ops operations, in all and
// in full-page images (-1 if unknown).
func (t walBytes) perOp(ops float64) (all, fpi float64) {
	fpi = -1
	if t.fpi >= 0 {
		fpi = float64(t.fpi) / ops
	}
	return float64(t.all) / ops, fpi
}

// withWAL runs f and returns the WAL bytes the cluster wrote meanwhile.
func withWAL(ctx context.Context, pool *pgxpool.Pool, f func() error) (walBytes, error) {
	before, err := walInsertLSN(ctx, pool)
	if err != nil {
		return walBytes{}, err
	}
	if err := f(); err != nil {
		return walBytes{}, err
	}
	after, err := walInsertLSN(ctx, pool)
	if err != nil {
		return walBytes{}, err
	}
	w := walBytes{all: after - before, fpi: -1}
	// pg_get_wal_stats reads only flushed WAL; a durable commit has flushed
	// up to the window's end, otherwise the tail not yet flushed is left out.
	var fpi int64
	if pool.QueryRow(ctx, `SELECT coalesce(sum(fpi_size), 0)::bigint FROM pg_get_wal_stats(pg_lsn '0/0' + $1::numeric, least(pg_lsn '0/0' + $2::numeric, pg_current_wal_flush_lsn()), false)`,
		before, after).Scan(&fpi) == nil {
		w.fpi = fpi
	}
	return w, nil
}

// timeEach runs f(i) for i in [0, n) sequentially and appends each
// duration to lat.
func timeEach(n int, lat *[]time.Duration, f func(i int) error) error {
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := f(i); err != nil {
			return err
		}
		*lat = append(*lat, time.Since(t0))
	}
	return nil
}

// runStorage runs the storage scenario.
func (b *bench) runStorage(ctx context.Context, res *storageResult) (err error) {
	cfg := b.cfg.storage
	size := b.cfg.itemSize
	res.Size, res.Rows = size, cfg.rows
	bins := []string{b.bin}
	if cfg.otherBin != "" {
		other, err := filepath.Abs(cfg.otherBin)
		if err != nil {
			return err
		}
		bins = append(bins, other)
	}
	var emus []*storageEmu
	defer func() {
		for _, e := range emus {
			err = errors.Join(err, e.close(ctx))
		}
	}()
	for i, bin := range bins {
		e, err := b.startStorageEmu(ctx, i, bin)
		if e != nil {
			emus = append(emus, e)
		}
		if err != nil {
			return err
		}
	}
	if err := b.storageEndToEnd(ctx, emus, res); err != nil {
		return err
	}
	// Table shapes, in the first emulator's cluster.
	return b.storageShapes(ctx, emus[0], res)
}

// startStorageEmu starts emulator i of the storage scenario from bin on a
// data directory of its own, with an SDK client (its database and
// container) and a pool on its managed cluster. A non-nil result needs
// closing (storageEmu.close) even with an error.
func (b *bench) startStorageEmu(ctx context.Context, i int, bin string) (*storageEmu, error) {
	dataDir := filepath.Join(b.workDir, "storage"+strconv.Itoa(i))
	emu, err := startEmulator(ctx, bin, append([]string{"--data-dir", dataDir, "--addr", mustFreeAddr()}, b.cfg.emulatorArgs...),
		filepath.Join(b.workDir, "emulator-storage"+strconv.Itoa(i)+".log"), b.emuLog, b.cfg.readyTimeout)
	if err != nil {
		return nil, err
	}
	e := &storageEmu{line: &storageEmuLine{Binary: bin}, emu: emu}
	if e.sdk, err = newSDKBench(ctx, emu.url, 1, b.cfg.http1); err != nil {
		return e, err
	}
	conn, err := managedConnString(dataDir)
	if err != nil {
		return e, err
	}
	if e.pool, err = pgxpool.New(ctx, conn); err != nil {
		return e, err
	}
	// pg_walinspect attributes the WAL to full-page images; without it
	// (a server without the contrib modules) only the totals are shown.
	if _, err := e.pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`); err != nil {
		b.logf("storage: no pg_walinspect (%v): full-page images are not told apart", err)
	}
	return e, nil
}

// storageEndToEnd creates, then replaces, documents through the SDK on
// each emulator, alternating them round by round (the first round warms
// up), and adds each one's figures to res.
func (b *bench) storageEndToEnd(ctx context.Context, emus []*storageEmu, res *storageResult) error {
	cfg, size := b.cfg.storage, b.cfg.itemSize
	pk := azcosmos.NewPartitionKeyString("p")
	for round := 0; round <= cfg.rounds; round++ {
		for _, e := range emus {
			ids := make([]string, cfg.n)
			for i := range ids {
				ids[i] = fmt.Sprintf("r%d-%d", round, i)
			}
			create := func(i int) error {
				_, err := e.sdk.container.CreateItem(ctx, pk, storageDoc(ids[i], "p", i, size), nil)
				return err
			}
			replace := func(i int) error {
				_, err := e.sdk.container.ReplaceItem(ctx, pk, ids[i], storageDoc(ids[i], "p", i+1, size), nil)
				return err
			}
			var cl, rl []time.Duration
			cw, err := withWAL(ctx, e.pool, func() error { return timeEach(cfg.n, &cl, create) })
			if err != nil {
				return fmt.Errorf("storage: create: %w", err)
			}
			rw, err := withWAL(ctx, e.pool, func() error { return timeEach(cfg.n, &rl, replace) })
			if err != nil {
				return fmt.Errorf("storage: replace: %w", err)
			}
			if round == 0 {
				continue // warm-up
			}
			e.line.createLat = append(e.line.createLat, cl...)
			e.line.replaceLat = append(e.line.replaceLat, rl...)
			e.line.createWALSum.add(cw)
			e.line.replaceWALSum.add(rw)
		}
		if round > 0 {
			b.logf("storage: end-to-end round %d of %d done", round, cfg.rounds)
		}
	}
	ops := float64(cfg.n * cfg.rounds)
	for _, e := range emus {
		l := e.line
		l.Create = newLatencyStats(l.createLat, sum(l.createLat))
		l.Replace = newLatencyStats(l.replaceLat, sum(l.replaceLat))
		l.CreateWAL, l.CreateFPI = l.createWALSum.perOp(ops)
		l.ReplaceWAL, l.ReplaceFPI = l.replaceWALSum.perOp(ops)
		_, table, err := itemsTable(ctx, e.pool, e.sdk.db.ID(), "items")
		if err != nil {
			return err
		}
		items := float64(cfg.n * (cfg.rounds + 1))
		var tb, lb int64
		if err := e.pool.QueryRow(ctx, `SELECT pg_total_relation_size($1::regclass), pg_total_relation_size('cosmos.changes')`, table).Scan(&tb, &lb); err != nil {
			return err
		}
		l.ItemsTableKB = float64(tb) / 1024 / items * 1000
		l.ChangeLogKB = float64(lb) / 1024 / items * 1000
		res.Emulators = append(res.Emulators, *l)
	}

	return nil
}

// mustFreeAddr is freeAddr for a caller that would fail at start anyway.
func mustFreeAddr() string {
	a, err := freeAddr()
	if err != nil {
		return "127.0.0.1:0"
	}
	return a
}

// sum returns the total of ds.
func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// shapeDef is a table shape of the storage scenario: how its items table
// is made from the real one (src) and how a document is written, replaced
// and read.
type shapeDef struct {
	name  string
	exact bool
	text  bool // has the body text column
	json  bool // has the doc jsonb column (generated from body when text)
	byRef bool // the log entry carries no body until its version is superseded
	// docMain keeps the jsonb copy out of compression while the text can
	// be compressed (doc STORAGE MAIN: PostgreSQL compresses a row's
	// EXTENDED columns first, its MAIN ones only if the row is still too
	// big), and lz4 compresses the text with lz4 instead of pglz.
	docMain, lz4 bool
	// whole keeps rows up to 8 KB whole (toast_tuple_target 8160): neither
	// copy is compressed or moved to the TOAST table below that.
	whole bool
}

var storageShapeDefs = []shapeDef{
	{name: "text+jsonb, default storage, body logged (now)", exact: true, text: true, json: true},
	{name: "text+jsonb, log by reference", exact: true, text: true, json: true, byRef: true},
	{name: "text only, log by reference", exact: true, text: true, byRef: true},
	{name: "jsonb only, log by reference", json: true, byRef: true},
	{name: "text+jsonb, jsonb in the row", exact: true, text: true, json: true, docMain: true},
	{name: "text+jsonb, jsonb in the row, text lz4", exact: true, text: true, json: true, docMain: true, lz4: true},
	{name: "text+jsonb, rows whole up to 8 KB", exact: true, text: true, json: true, whole: true},
}

// storageShapes runs the table-shape part on e's cluster.
func (b *bench) storageShapes(ctx context.Context, e *storageEmu, res *storageResult) error {
	cfg := b.cfg.storage
	size := b.cfg.itemSize
	_, src, err := itemsTable(ctx, e.pool, e.sdk.db.ID(), "items")
	if err != nil {
		return err
	}
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	c := conn.Conn()
	if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS storage_bench CASCADE; CREATE SCHEMA storage_bench`); err != nil {
		return err
	}
	defer func() { _, _ = e.pool.Exec(context.Background(), `DROP SCHEMA IF EXISTS storage_bench CASCADE`) }()
	// The lz4 shapes need a server built with lz4.
	var lz4 bool
	if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`).Scan(&lz4); err != nil {
		return err
	}
	var defs []shapeDef
	for _, d := range storageShapeDefs {
		if d.lz4 && !lz4 {
			b.logf("storage: the server has no lz4: shape %q left out", d.name)
			continue
		}
		defs = append(defs, d)
	}
	r := &shapeRun{cfg: cfg, size: size, pool: e.pool, c: c, defs: defs, shapes: make([]storageShape, len(defs))}
	for i, d := range defs {
		r.shapes[i] = storageShape{Name: d.name, Exact: d.exact}
	}
	if err := r.create(ctx, src); err != nil {
		return err
	}
	if err := r.write(ctx); err != nil {
		return err
	}
	if err := r.drain(ctx); err != nil {
		return err
	}
	b.logf("storage: table shapes written; filling each with %d documents for the queries", cfg.rows)
	if err := r.fill(ctx); err != nil {
		return err
	}
	if err := r.query(ctx); err != nil {
		return err
	}
	res.Shapes = r.shapes
	return nil
}

// shapeRun is the table-shape part of a storage run: the shapes' tables
// in storage_bench, on one connection, and what they measured.
type shapeRun struct {
	cfg    storageConfig
	size   int
	pool   *pgxpool.Pool // for the WAL position, outside c's transactions
	c      *pgx.Conn
	defs   []shapeDef
	shapes []storageShape // one per def
	seq    int64          // the last seq (and lsn) written
}

// create makes each shape's items table, a copy of src, and change log.
func (r *shapeRun) create(ctx context.Context, src string) error {
	for i, d := range r.defs {
		t, l := shapeTables(i)
		ddl := `CREATE TABLE ` + t + ` (LIKE ` + src + ` INCLUDING ALL);
CREATE TABLE ` + l + ` (LIKE cosmos.changes INCLUDING ALL);
ALTER TABLE ` + t + ` ADD COLUMN cseq bigint;
ALTER TABLE ` + t + ` ALTER COLUMN doc SET STORAGE EXTENDED;
ALTER TABLE ` + t + ` ALTER COLUMN body SET COMPRESSION DEFAULT;`
		if d.docMain {
			ddl += `ALTER TABLE ` + t + ` ALTER COLUMN doc SET STORAGE MAIN;`
		}
		if d.whole {
			ddl += `ALTER TABLE ` + t + ` SET (toast_tuple_target = 8160);`
		}
		if d.lz4 {
			ddl += `ALTER TABLE ` + t + ` ALTER COLUMN body SET COMPRESSION lz4;`
		}
		switch {
		case !d.json:
			ddl += `ALTER TABLE ` + t + ` DROP COLUMN doc;`
		case !d.text:
			ddl += `ALTER TABLE ` + t + ` DROP COLUMN doc; ALTER TABLE ` + t + ` DROP COLUMN body; ALTER TABLE ` + t + ` ADD COLUMN doc jsonb NOT NULL;`
		}
		if _, err := r.c.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("storage: shape %s: %w", d.name, err)
		}
	}
	return nil
}

// write creates, replaces and deletes documents in every shape, shape by
// shape in each round, measuring latency and WAL; the first round warms up.
func (r *shapeRun) write(ctx context.Context) error {
	for round := 0; round <= r.cfg.rounds; round++ {
		for i, d := range r.defs {
			s := &r.shapes[i]
			var cl, rl []time.Duration
			cw, err := withWAL(ctx, r.pool, func() error {
				return timeEach(r.cfg.n, &cl, func(k int) error {
					r.seq++
					return shapeWrite(ctx, r.c, i, d, false, fmt.Sprintf("r%d-%d", round, k), storageDoc(fmt.Sprintf("r%d-%d", round, k), "p", k, r.size), r.seq)
				})
			})
			if err != nil {
				return fmt.Errorf("storage: shape %s: create: %w", d.name, err)
			}
			rw, err := withWAL(ctx, r.pool, func() error {
				return timeEach(r.cfg.n, &rl, func(k int) error {
					r.seq++
					return shapeWrite(ctx, r.c, i, d, true, fmt.Sprintf("r%d-%d", round, k), storageDoc(fmt.Sprintf("r%d-%d", round, k), "p", k+1, r.size), r.seq)
				})
			})
			if err != nil {
				return fmt.Errorf("storage: shape %s: replace: %w", d.name, err)
			}
			var dl []time.Duration
			dw, err := withWAL(ctx, r.pool, func() error {
				return timeEach(r.cfg.n/2, &dl, func(k int) error {
					r.seq++
					return shapeDelete(ctx, r.c, i, d, fmt.Sprintf("r%d-%d", round, 2*k), r.seq)
				})
			})
			if err != nil {
				return fmt.Errorf("storage: shape %s: delete: %w", d.name, err)
			}
			if round == 0 {
				continue
			}
			s.createLat, s.replaceLat, s.deleteLat = append(s.createLat, cl...), append(s.replaceLat, rl...), append(s.deleteLat, dl...)
			s.createWALSum.add(cw)
			s.replaceWALSum.add(rw)
			s.deleteWALSum.add(dw)
		}
	}
	ops := float64(r.cfg.n * r.cfg.rounds)
	for i := range r.shapes {
		s := &r.shapes[i]
		s.Create = newLatencyStats(s.createLat, sum(s.createLat))
		s.Replace = newLatencyStats(s.replaceLat, sum(s.replaceLat))
		s.Delete = newLatencyStats(s.deleteLat, sum(s.deleteLat))
		s.CreateWAL, s.CreateFPI = s.createWALSum.perOp(ops)
		s.ReplaceWAL, s.ReplaceFPI = s.replaceWALSum.perOp(ops)
		s.DeleteWAL, s.DeleteFPI = s.deleteWALSum.perOp(float64(r.cfg.n / 2 * r.cfg.rounds))
	}
	return nil
}

// drain times the all-versions change feed's read of each shape's log.
func (r *shapeRun) drain(ctx context.Context) error {
	// The all-versions change feed's read: the whole log in pages of 1000
	// entries, each entry with its body (by reference: the current
	// version's from the items table).
	for run := 0; run < 3+5; run++ {
		for i, d := range r.defs {
			t0 := time.Now()
			if err := drainShapeLog(ctx, r.c, i, d); err != nil {
				return fmt.Errorf("storage: shape %s: reading the log: %w", d.name, err)
			}
			if run >= 3 {
				r.shapes[i].logLat = append(r.shapes[i].logLat, time.Since(t0))
			}
		}
	}
	for i := range r.shapes {
		r.shapes[i].LogRead = newLatencyStats(r.shapes[i].logLat, sum(r.shapes[i].logLat))
	}
	return nil
}

// fill replaces each shape's documents by -storage-rows new ones in 100
// logical partitions, and measures how they are stored.
func (r *shapeRun) fill(ctx context.Context) error {
	// Query timings on -storage-rows documents per shape, in 100 logical
	// partitions.
	for i, d := range r.defs {
		t, l := shapeTables(i)
		if _, err := r.c.Exec(ctx, `TRUNCATE `+t+`, `+l); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for k := 0; k < r.cfg.rows; k++ {
			r.seq++
			id, pkv := "q"+strconv.Itoa(k), "p"+strconv.Itoa(k%100)
			queueShapeInsert(batch, t, d, id, pkv, storageDoc(id, pkv, k, r.size), r.seq)
			if batch.Len() == 1000 || k == r.cfg.rows-1 {
				if err := r.c.SendBatch(ctx, batch).Close(); err != nil {
					return fmt.Errorf("storage: filling %s: %w", d.name, err)
				}
				batch = &pgx.Batch{}
			}
		}
		if _, err := r.c.Exec(ctx, `VACUUM ANALYZE `+t); err != nil {
			return err
		}
		var tb int64
		if err := r.c.QueryRow(ctx, `SELECT pg_total_relation_size($1::regclass)`, t).Scan(&tb); err != nil {
			return err
		}
		r.shapes[i].TableKB = float64(tb) / 1024 / float64(r.cfg.rows) * 1000
		text, doc := "NULL::text", "NULL::jsonb"
		if d.text {
			text = "body"
		}
		if d.json {
			doc = "doc"
		}
		var toast int64
		if err := r.c.QueryRow(ctx, `SELECT avg((pg_column_compression(`+text+`) IS NOT NULL)::int)::float8, avg((pg_column_compression(`+doc+`) IS NOT NULL)::int)::float8,
  (SELECT pg_total_relation_size(reltoastrelid) FROM pg_class WHERE oid = $1::regclass) FROM `+t, t).
			Scan(&r.shapes[i].TextCompressed, &r.shapes[i].JSONCompressed, &toast); err != nil {
			return err
		}
		r.shapes[i].ToastKB = float64(toast) / 1024 / float64(r.cfg.rows) * 1000
	}
	return nil
}

// query times a point read, a filter over every row and a sorted filter
// inside one partition on each shape, shape by shape in each run; the
// first three runs warm the caches.
func (r *shapeRun) query(ctx context.Context) error {
	for run := 0; run < r.cfg.queryRuns+3; run++ {
		for i, d := range r.defs {
			s := &r.shapes[i]
			t, _ := shapeTables(i)
			read, doc := "body", "doc"
			if !d.text {
				read = "doc::text"
			}
			if !d.json {
				doc = "(body::jsonb)"
			}
			k := run*37%r.cfg.rows + 1
			queries := []struct {
				lat  *[]time.Duration
				sql  string
				args []any
			}{
				{&s.pointLat, `SELECT ` + read + ` FROM ` + t + ` WHERE pk = $1 AND id = $2`, []any{"p" + strconv.Itoa(k%100), "q" + strconv.Itoa(k)}},
				{&s.scanLat, `SELECT ` + read + ` FROM ` + t + ` WHERE ` + doc + `->'n' = to_jsonb($1::int) AND ` + doc + `->'tags' @> '["alpha"]'`, []any{run % 100}},
				{&s.partLat, `SELECT ` + read + ` FROM ` + t + ` WHERE pk = $1 AND ` + doc + `->'flag' = 'true'::jsonb ORDER BY ` + doc + `->'price'`, []any{"p" + strconv.Itoa(run%100)}},
			}
			for _, q := range queries {
				t0 := time.Now()
				rows, err := r.c.Query(ctx, q.sql, q.args...)
				if err != nil {
					return fmt.Errorf("storage: query on %s: %w", d.name, err)
				}
				for rows.Next() {
					var body string
					if err := rows.Scan(&body); err != nil {
						rows.Close()
						return err
					}
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return fmt.Errorf("storage: query on %s: %w", d.name, err)
				}
				if run >= 3 { // the first runs warm the caches
					*q.lat = append(*q.lat, time.Since(t0))
				}
			}
		}
	}
	for i := range r.shapes {
		s := &r.shapes[i]
		s.PointRead = newLatencyStats(s.pointLat, sum(s.pointLat))
		s.ScanFilter = newLatencyStats(s.scanLat, sum(s.scanLat))
		s.PartFilter = newLatencyStats(s.partLat, sum(s.partLat))
	}
	return nil
}

// shapeTables names shape i's items table and change log.
func shapeTables(i int) (items, log string) {
	n := strconv.Itoa(i)
	return "storage_bench.items_" + n, "storage_bench.changes_" + n
}

// queueShapeInsert queues the insert of a document into shape table t.
func queueShapeInsert(batch *pgx.Batch, t string, d shapeDef, id, pk string, body []byte, seq int64) {
	col, val := "body", any(string(body))
	if !d.text {
		col = "doc"
	}
	batch.Queue(`INSERT INTO `+t+` (pk, id, seq, `+col+`, ts, etag, lsn, epk, cseq) VALUES ($1, $2, $3, $4, $5, $6, $3, $1, $3)`,
		pk, id, seq, val, time.Now().Unix(), fmt.Sprintf(`"%016x"`, seq))
}

// shapeWrite writes one document into shape i as the emulator's point
// writes do: the item and its log entry in one transaction. A replace of
// a shape that logs by reference also copies the superseded version's
// body into that version's log entry.
func shapeWrite(ctx context.Context, c *pgx.Conn, i int, d shapeDef, replace bool, id string, body []byte, seq int64) error {
	t, l := shapeTables(i)
	col, val, read := "body", any(string(body)), "body"
	if !d.text {
		col, read = "doc", "doc::text"
	}
	logged := any(string(body))
	if d.byRef {
		logged = nil
	}
	etag := fmt.Sprintf(`"%016x"`, seq)
	return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		op := "c"
		if replace {
			op = "r"
			if d.byRef {
				b.Queue(`UPDATE `+l+` AS ch SET body = o.`+read+` FROM `+t+` o WHERE o.pk = $1 AND o.id = $2 AND ch.coll = 1 AND ch.seq = o.cseq`, "p", id)
			}
			b.Queue(`UPDATE `+t+` SET `+col+` = $3, ts = $4, etag = $5, lsn = $6, cseq = $6 WHERE pk = $1 AND id = $2`, "p", id, val, time.Now().Unix(), etag, seq)
		} else {
			b.Queue(`INSERT INTO `+t+` (pk, id, seq, `+col+`, ts, etag, lsn, epk, cseq) VALUES ($1, $2, $3, $4, $5, $6, $3, $1, $3)`,
				"p", id, seq, val, time.Now().Unix(), etag)
		}
		b.Queue(`INSERT INTO `+l+` (coll, seq, op, pk, id, doc_seq, lsn, crts, etag, body, epk) VALUES (1, $1, $2, 'p', $3, $1, $1, $4, $5, $6, 'p')`,
			seq, op, id, time.Now().Unix(), etag, logged)
		return tx.SendBatch(ctx, b).Close()
	})
}

// shapeDelete deletes one document of shape i with its log entry; a
// shape that logs by reference copies the deleted version's body into
// that version's entry.
func shapeDelete(ctx context.Context, c *pgx.Conn, i int, d shapeDef, id string, seq int64) error {
	t, l := shapeTables(i)
	read := "body"
	if !d.text {
		read = "doc::text"
	}
	return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if d.byRef {
			b.Queue(`UPDATE `+l+` AS ch SET body = o.`+read+` FROM `+t+` o WHERE o.pk = $1 AND o.id = $2 AND ch.coll = 1 AND ch.seq = o.cseq`, "p", id)
		}
		b.Queue(`DELETE FROM `+t+` WHERE pk = $1 AND id = $2`, "p", id)
		b.Queue(`INSERT INTO `+l+` (coll, seq, op, pk, id, lsn, crts, epk) VALUES (1, $1, 'd', 'p', $2, $1, $3, 'p')`, seq, id, time.Now().Unix())
		return tx.SendBatch(ctx, b).Close()
	})
}

// drainShapeLog reads shape i's whole change log in pages of 1000 entries
// with their bodies.
func drainShapeLog(ctx context.Context, c *pgx.Conn, i int, d shapeDef) error {
	t, l := shapeTables(i)
	sql := `SELECT seq, body FROM ` + l + ` WHERE coll = 1 AND seq > $1 ORDER BY seq LIMIT 1000`
	if d.byRef {
		read := "i.body"
		if !d.text {
			read = "i.doc::text"
		}
		sql = `SELECT ch.seq, coalesce(ch.body, ` + read + `) FROM ` + l + ` ch LEFT JOIN ` + t + ` i ON ch.body IS NULL AND ch.op <> 'd' AND i.pk = ch.pk AND i.id = ch.id AND i.lsn = ch.lsn
WHERE ch.coll = 1 AND ch.seq > $1 ORDER BY ch.seq LIMIT 1000`
	}
	var after int64
	for {
		rows, err := c.Query(ctx, sql, after)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var body *string
			if err := rows.Scan(&after, &body); err != nil {
				rows.Close()
				return err
			}
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if n < 1000 {
			return nil
		}
	}
}

// writeStorageReport writes the storage scenario's tables.
func writeStorageReport(w io.Writer, r *storageResult) {
	fmt.Fprintf(w, "\nStorage scenario: documents of about %d bytes, one client, latencies in ms, WAL in bytes per operation\n", r.Size)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "end to end (Go SDK)\tcreate p50\tcreate p99\tcreate WAL (FPI)\treplace p50\treplace p99\treplace WAL (FPI)\titems KB/1000\tlog KB/1000\t")
	for _, e := range r.Emulators {
		fmt.Fprintf(tw, "%s\t%7.3f\t%7.3f\t%s\t%7.3f\t%7.3f\t%s\t%7.0f\t%7.0f\t\n", e.Binary, e.Create.P50, e.Create.P99, walCell(e.CreateWAL, e.CreateFPI),
			e.Replace.P50, e.Replace.P99, walCell(e.ReplaceWAL, e.ReplaceFPI), e.ItemsTableKB, e.ChangeLogKB)
	}
	tw.Flush()
	if len(r.Shapes) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTable shapes (raw pgx, one transaction per write; queries over %d documents in 100 partitions)\n", r.Rows)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "shape\texact\tcreate p50\tcreate WAL (FPI)\treplace p50\treplace WAL (FPI)\tdelete p50\tdelete WAL (FPI)\tlog drain p50\tKB/1000\tcompressed text/jsonb\tTOAST KB/1000\tpoint p50\tfilter all p50\tfilter 1 partition p50\t")
	for _, s := range r.Shapes {
		fmt.Fprintf(tw, "%s\t%t\t%7.3f\t%s\t%7.3f\t%s\t%7.3f\t%s\t%7.2f\t%7.0f\t%3.0f%% / %3.0f%%\t%7.0f\t%7.3f\t%7.3f\t%7.3f\t\n", s.Name, s.Exact, s.Create.P50, walCell(s.CreateWAL, s.CreateFPI),
			s.Replace.P50, walCell(s.ReplaceWAL, s.ReplaceFPI), s.Delete.P50, walCell(s.DeleteWAL, s.DeleteFPI), s.LogRead.P50, s.TableKB, 100*s.TextCompressed, 100*s.JSONCompressed, s.ToastKB, s.PointRead.P50, s.ScanFilter.P50, s.PartFilter.P50)
	}
	tw.Flush()
}

// walCell formats WAL bytes per operation with the full-page-image part in
// parentheses when known.
func walCell(all, fpi float64) string {
	if fpi < 0 {
		return fmt.Sprintf("%7.0f", all)
	}
	return fmt.Sprintf("%7.0f (%5.0f)", all, fpi)
}
