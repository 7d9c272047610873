package pgstore

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// BenchmarkReadItemStore measures a point read in the store alone (one
// primary-key SELECT through the pool), the part of an SDK read below the
// HTTP server: compare with cosmos-bench's raw pgx read and the SDK read.
//
//	go test -run '^$' -bench BenchmarkReadItemStore -benchtime 20000x ./pgstore/
func BenchmarkReadItemStore(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	c := newContainer(b, s, nil)
	seedBenchItems(b, s, c, 1)
	key := emulator.ItemKey{Container: c, PK: `["p0"]`, ID: "x0"}
	b.Run("store", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.ReadItem(ctx, key); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var body string
			if err := s.pool.QueryRow(ctx, `SELECT body FROM `+itemsTable(c.Num)+` WHERE pk = $1 AND id = $2`, key.PK, key.ID).Scan(&body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkQueryByIDStore measures the single-partition query SELECT * FROM
// c WHERE c.id = @id (partition key known, one result) below the HTTP
// server: parsing, translation and the statement, against the point read
// of the same item in the same run.
//
//	go test -run '^$' -bench BenchmarkQueryByIDStore -benchtime 5000x ./pgstore/
func BenchmarkQueryByIDStore(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	c := newContainer(b, s, nil)
	const n = 1000
	seedBenchItems(b, s, c, n)
	const text = "SELECT * FROM c WHERE c.id = @id"
	b.Run("query", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			q, err := emulator.ParseQuery(text)
			if err != nil {
				b.Fatal(err)
			}
			pk := `["p` + strconv.Itoa(i%10) + `"]`
			page, err := s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, PK: &pk, Query: q, Text: text,
				Params: map[string]json.RawMessage{"@id": json.RawMessage(`"x` + strconv.Itoa(i%n) + `"`)}})
			if err != nil {
				b.Fatal(err)
			}
			if len(page.Docs) != 1 {
				b.Fatalf("%d results", len(page.Docs))
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			key := emulator.ItemKey{Container: c, PK: `["p` + strconv.Itoa(i%10) + `"]`, ID: "x" + strconv.Itoa(i%n)}
			if _, err := s.ReadItem(ctx, key); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// seedBenchItems creates n items of about 1 KB in container c: ids x0 ..
// x<n-1>, item i in logical partition "p<i%10>".
func seedBenchItems(b *testing.B, s *Store, c emulator.Container, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		id, pk := "x"+strconv.Itoa(i), "p"+strconv.Itoa(i%10)
		key := emulator.ItemKey{Container: c, PK: `["` + pk + `"]`, ID: id}
		body := []byte(`{"id":"` + id + `","pk":"` + pk + `","payload":"` + strings.Repeat("x", 900) + `"}`)
		if _, err := s.CreateItem(context.Background(), emulator.WriteItemParams{ItemKey: key, Body: body, TS: 1, ETag: `"e"`}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateWithPathIndexes measures a point create (about 1 KB, 100
// partitions) into containers with no path index, the global path index
// on /n (what a query across partitions makes), the partition-first one
// (what a single-partition query makes), and both: the write cost of each
// index a query adds.
//
//	go test -run '^$' -bench BenchmarkCreateWithPathIndexes -benchtime 5000x ./pgstore/
func BenchmarkCreateWithPathIndexes(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		b.Fatal(err)
	}
	path := [][]string{{"n"}}
	all := emulator.IndexingPolicy{IncludedPaths: []string{"/*"}}
	for _, tt := range []struct {
		name          string
		global, keyed bool
	}{{"none", false, false}, {"global", true, false}, {"keyed", false, true}, {"both", true, true}} {
		c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: tt.name, Properties: []byte(`{"id":"` + tt.name + `"}`),
			PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
		if err != nil {
			b.Fatal(err)
		}
		for _, keyed := range []bool{false, true} {
			if (keyed && tt.keyed) || (!keyed && tt.global) {
				if err := s.ensureIndexes(ctx, c, all, path, keyed); err != nil {
					b.Fatal(err)
				}
			}
		}
		next := 0 // b.Run calls the function more than once: ids go on
		b.Run(tt.name, func(b *testing.B) {
			for range b.N {
				i := next
				next++
				id, pk := "x"+strconv.Itoa(i), "p"+strconv.Itoa(i%100)
				key := emulator.ItemKey{Container: c, PK: `["` + pk + `"]`, ID: id}
				body := []byte(`{"id":"` + id + `","pk":"` + pk + `","n":` + strconv.Itoa(i/100) + `,"payload":"` + strings.Repeat("x", 900) + `"}`)
				if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: key, Body: body, TS: 1, ETag: `"e"`}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// itemWriter is what BenchmarkItemWritesStore calls: the Store (each
// write its own transaction) or itemOps on an open transaction.
type itemWriter interface {
	ReplaceItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, error)
	UpsertItem(ctx context.Context, p emulator.WriteItemParams) (emulator.Item, bool, error)
	DeleteItem(ctx context.Context, k emulator.ItemKey, ifMatch string) (int64, error)
}

// BenchmarkItemWritesStore measures the item write statements in the
// store alone, without and with If-Match and with TTL off and on (when the
// statements carry the expiry predicate): replace and upsert of existing
// items, upsert of new ids, delete. The items are about 1 KB, in 10
// logical partitions. Each runs as single operations through the pool
// ("commit": each its own transaction, whose commit weighs most) and
// inside one open transaction ("in-tx": the statement and its round trip
// alone, rolled back at the end).
//
//	go test -run '^$' -bench BenchmarkItemWritesStore -benchtime 2000x ./pgstore/
func BenchmarkItemWritesStore(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	const n = 1000
	for _, ttl := range []*int32{nil, i32(3600)} {
		c := newContainer(b, s, ttl)
		name := "ttl-off"
		if ttl != nil {
			name = "ttl-on"
		}
		// next numbers the ids of upsert-new and dpre prefixes those the
		// deletes seed, new for every run: the sub-benchmarks run more
		// than once, and the in-tx ones roll back.
		next, dpre := 0, ""
		e := emulator.Expiry{Now: 2, DefaultTTL: ttl}
		params := func(id string, ifMatch string) emulator.WriteItemParams {
			pk := "p" + strconv.Itoa(len(id)%10)
			return emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["` + pk + `"]`, ID: id, Expiry: e},
				Body: []byte(`{"id":"` + id + `","pk":"` + pk + `","payload":"` + strings.Repeat("x", 900) + `"}`), TS: 1, ETag: `"e"`, IfMatch: ifMatch}
		}
		seed := func(b *testing.B, prefix string, count int) {
			b.Helper()
			for i := range count {
				if _, err := s.CreateItem(ctx, params(prefix+strconv.Itoa(i), "")); err != nil {
					b.Fatal(err)
				}
			}
		}
		seed(b, "x", n)
		for _, op := range []struct {
			name string
			run  func(w itemWriter, i int) error
		}{
			{"replace", func(w itemWriter, i int) error {
				_, err := w.ReplaceItem(ctx, params("x"+strconv.Itoa(i%n), ""))
				return err
			}},
			{"replace-ifmatch", func(w itemWriter, i int) error {
				_, err := w.ReplaceItem(ctx, params("x"+strconv.Itoa(i%n), `"e"`))
				return err
			}},
			{"upsert-existing", func(w itemWriter, i int) error {
				_, _, err := w.UpsertItem(ctx, params("x"+strconv.Itoa(i%n), ""))
				return err
			}},
			{"upsert-new", func(w itemWriter, _ int) error {
				next++
				_, _, err := w.UpsertItem(ctx, params("u"+strconv.Itoa(next), ""))
				return err
			}},
			{"delete", func(w itemWriter, i int) error {
				_, err := w.DeleteItem(ctx, params(dpre+strconv.Itoa(i), "").ItemKey, "")
				return err
			}},
			{"delete-ifmatch", func(w itemWriter, i int) error {
				_, err := w.DeleteItem(ctx, params(dpre+strconv.Itoa(i), "").ItemKey, `"e"`)
				return err
			}},
		} {
			for _, mode := range []string{"commit", "in-tx"} {
				b.Run(name+"/"+mode+"/"+op.name, func(b *testing.B) {
					b.StopTimer()
					if strings.HasPrefix(op.name, "delete") {
						next++
						dpre = "d" + strconv.Itoa(next) + "-"
						seed(b, dpre, b.N)
					}
					var w itemWriter = s
					if mode == "in-tx" {
						tx, err := s.pool.Begin(ctx)
						if err != nil {
							b.Fatal(err)
						}
						defer func() { _ = tx.Rollback(ctx) }()
						w = itemOps{q: tx}
					}
					b.StartTimer()
					for i := range b.N {
						if err := op.run(w, i); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
				})
			}
		}
	}
}
