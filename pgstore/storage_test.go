package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// wordsDoc returns a document of about 1 KB made of words and numbers:
// text that pglz does not compress (it wants a quarter saved), as many
// real documents of that size.
func wordsDoc(id string, seed uint64) string {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa " +
		"quebec romeo sierra tango uniform victor whiskey xray yankee zulu order customer shipped pending invoice total")
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	fmt.Fprintf(&b, `{"id":%q,"pk":"p","n":%d,"notes":"`, id, seed%100)
	for b.Len() < 1000 {
		fmt.Fprintf(&b, "%s %d ", words[r.IntN(len(words))], r.IntN(10000))
	}
	b.WriteString(`"}`)
	return b.String()
}

// TestItemsStorageKeepsJSONBInLine: an items table, made now or migrated
// from the previous DDL, keeps the jsonb copy of a 1 KB document in its row
// uncompressed (doc is MAIN: PostgreSQL shortens the text first), so a
// query that filters on it neither decompresses it nor fetches it from the
// TOAST table; where the server has lz4 the text is compressed with it and
// stays in line too. Before, the jsonb copy was moved to the TOAST table.
func TestItemsStorageKeepsJSONBInLine(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	var lz4 bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var m0027 string
	for _, m := range ms {
		if m.version == 27 {
			m0027 = m.sql
		}
	}
	if m0027 == "" {
		t.Fatal("no migration 0027")
	}
	for _, tc := range []struct {
		name string
		// prepare runs on the container's items table before the writes.
		prepare func(table string) error
	}{
		{"new table", func(string) error { return nil }},
		{"table of the previous DDL, migrated", func(table string) error {
			if _, err := s.pool.Exec(ctx, `ALTER TABLE `+table+` ALTER COLUMN doc SET STORAGE EXTENDED; ALTER TABLE `+table+` ALTER COLUMN body SET COMPRESSION DEFAULT`); err != nil {
				return err
			}
			_, err := s.pool.Exec(ctx, m0027)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil && !emulator.IsKind(err, emulator.KindConflict) {
				t.Fatal(err)
			}
			c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: strings.ReplaceAll(tc.name, " ", "-"), Properties: []byte(`{}`),
				PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
			if err != nil {
				t.Fatal(err)
			}
			table := itemsTable(c.Num)
			if err := tc.prepare(table); err != nil {
				t.Fatal(err)
			}
			var storage, compression string
			if err := s.pool.QueryRow(ctx, `SELECT (SELECT attstorage::text FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'doc'),
  (SELECT attcompression::text FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'body')`, table).Scan(&storage, &compression); err != nil {
				t.Fatal(err)
			}
			wantCompression := ""
			if lz4 {
				wantCompression = "l"
			}
			if storage != "m" || compression != wantCompression {
				t.Errorf("doc storage %q, body compression %q; want \"m\" (MAIN) and %q", storage, compression, wantCompression)
			}
			const n = 20
			for i := range n {
				id := fmt.Sprint("d", i)
				body := wordsDoc(id, uint64(i))
				if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id}, Body: []byte(body), TS: 1, ETag: `"e"`}); err != nil {
					t.Fatal(err)
				}
				// Read-back stays exact.
				it, err := s.ReadItem(ctx, emulator.ItemKey{Container: c, PK: `["p"]`, ID: id})
				if err != nil {
					t.Fatal(err)
				}
				if string(it.Body) != body {
					t.Fatalf("read back %.80q..., want %.80q...", it.Body, body)
				}
			}
			var docCompressed, bodyCompressed, toastBytes int64
			if err := s.pool.QueryRow(ctx, `SELECT count(pg_column_compression(doc)), count(pg_column_compression(body)),
  (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = $1::regclass) FROM `+table, table).Scan(&docCompressed, &bodyCompressed, &toastBytes); err != nil {
				t.Fatal(err)
			}
			t.Logf("lz4 %v: of %d documents, %d with doc compressed, %d with body compressed; TOAST table %d bytes", lz4, n, docCompressed, bodyCompressed, toastBytes)
			if docCompressed != 0 {
				t.Errorf("%d of %d jsonb copies compressed, want 0", docCompressed, n)
			}
			// With lz4 both copies stay in the row: nothing in the TOAST
			// table (without it the text may go there, which is allowed).
			if lz4 && (bodyCompressed != n || toastBytes != 0) {
				t.Errorf("lz4: %d of %d texts compressed and a TOAST table of %d bytes; want all compressed in line, an empty TOAST table", bodyCompressed, n, toastBytes)
			}
		})
	}
}
