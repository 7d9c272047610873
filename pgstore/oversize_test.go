package pgstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// randomText returns n incompressible characters (hex of random bytes):
// PostgreSQL compresses long index entries, so a repeated character would
// fit.
func randomText(n int) string {
	b := make([]byte, (n+1)/2)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)[:n]
}

// indexedContainer creates a container whose policy indexes every path
// and makes the global and the partition-first path index of /v by
// querying it across partitions and in partition "p".
func indexedContainer(t *testing.T, s *Store, id string) emulator.Container {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil && !emulator.IsKind(err, emulator.KindConflict) {
		t.Fatal(err)
	}
	c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id,
		Properties:   []byte(`{"id":"` + id + `","indexingPolicy":{"indexingMode":"consistent","includedPaths":[{"path":"/*"}]}}`),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// makePathIndexes queries /v across partitions and in partition "p", which
// makes its two path indexes, and returns the path indexes of c.
func makePathIndexes(t *testing.T, s *Store, c emulator.Container) []string {
	t.Helper()
	p := `["p"]`
	for _, pk := range []*string{nil, &p} {
		drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: `SELECT * FROM c WHERE c.v = "x"`, PK: pk, Page: emulator.PageRequest{MaxItems: 10}})
	}
	return pathIndexes(t, s, c)
}

// pathIndexes returns the query-made path indexes of c's table.
func pathIndexes(t *testing.T, s *Store, c emulator.Container) []string {
	t.Helper()
	var names []string
	rows, err := s.pool.Query(context.Background(), `SELECT indexname FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 ORDER BY 1`, "items_"+itoa(c.Num))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if pathIndexName.MatchString(n) {
			names = append(names, n)
		}
	}
	return names
}

// longDoc is a document of partition "p" whose /v is long.
func longDoc(id string, v any) emulator.WriteItemParams {
	body, err := json.Marshal(map[string]any{"id": id, "pk": "p", "v": v})
	if err != nil {
		panic(err)
	}
	return emulator.WriteItemParams{ItemKey: emulator.ItemKey{PK: `["p"]`, ID: id}, Body: body, TS: 1, ETag: `"` + id + `"`}
}

// TestLongValueOnIndexedPathWrites: once queries have made the path
// indexes of /v, every write path stores a document whose /v is too long
// for a btree entry (a 3,200-character string, which PostgreSQL refuses
// naming the index; a 20,000-character one, refused naming none; a large
// object; a large array): the index is dropped, the write succeeds, the
// body is stored as sent, and queries on /v (equality, range, ORDER BY,
// in one partition and across) return the exact results.
func TestLongValueOnIndexedPathWrites(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	values := map[string]any{
		"string":  randomText(3200),
		"huge":    randomText(20000),
		"object":  map[string]any{"a": randomText(1500), "b": randomText(1500), "c": []any{1, 2}},
		"array":   []any{randomText(1600), randomText(1600)},
		"shortok": "short",
	}
	type write func(c emulator.Container, docs []emulator.WriteItemParams) error
	writes := map[string]write{
		"create": func(_ emulator.Container, docs []emulator.WriteItemParams) error {
			for _, d := range docs {
				if _, err := s.CreateItem(ctx, d); err != nil {
					return err
				}
			}
			return nil
		},
		"upsert": func(_ emulator.Container, docs []emulator.WriteItemParams) error {
			for _, d := range docs {
				if _, _, err := s.UpsertItem(ctx, d); err != nil {
					return err
				}
			}
			return nil
		},
		"replace": func(c emulator.Container, docs []emulator.WriteItemParams) error {
			for _, d := range docs {
				short := longDoc(d.ID, "x")
				short.Container = c
				if _, err := s.CreateItem(ctx, short); err != nil {
					return err
				}
				if _, err := s.ReplaceItem(ctx, d); err != nil {
					return err
				}
			}
			return nil
		},
		"bulk": func(_ emulator.Container, docs []emulator.WriteItemParams) error {
			return s.InItemTx(ctx, emulator.TxOptions{}, func(st emulator.ItemTx) error {
				var ops []emulator.ItemOp
				for _, d := range docs {
					ops = append(ops, emulator.ItemOp{Op: emulator.BatchCreate, Params: d})
				}
				out, err := st.RunItemOps(ctx, ops)
				if err != nil {
					return err
				}
				for _, r := range out {
					if r.Err != nil {
						return r.Err
					}
				}
				return nil
			})
		},
		"batch": func(_ emulator.Container, docs []emulator.WriteItemParams) error {
			return s.InItemTx(ctx, emulator.TxOptions{SharedLSN: true}, func(st emulator.ItemTx) error {
				for _, d := range docs {
					if _, _, err := st.UpsertItem(ctx, d); err != nil {
						return err
					}
				}
				return nil
			})
		},
		"script": func(_ emulator.Container, docs []emulator.WriteItemParams) error {
			return s.InScriptTx(ctx, func(tx emulator.ScriptTx) error {
				for _, d := range docs {
					// as a script may: go on after a failed write
					_, _ = tx.CreateItem(ctx, d)
				}
				return nil
			})
		},
	}
	n := 0
	for wname, w := range writes {
		t.Run(wname, func(t *testing.T) {
			n++
			c := indexedContainer(t, s, fmt.Sprintf("c%d", n))
			if got := makePathIndexes(t, s, c); len(got) != 2 {
				t.Fatalf("path indexes %v, want 2", got)
			}
			var docs []emulator.WriteItemParams
			for _, k := range slices.Sorted(mapKeys(values)) {
				d := longDoc(k, values[k])
				d.Container = c
				docs = append(docs, d)
			}
			if err := w(c, docs); err != nil {
				t.Fatalf("write: %v", err)
			}
			if got := pathIndexes(t, s, c); len(got) != 0 {
				t.Errorf("path indexes %v after the long values, want none", got)
			}
			for _, d := range docs {
				it, err := s.ReadItem(ctx, d.ItemKey)
				if err != nil {
					t.Fatalf("read %s: %v", d.ID, err)
				}
				if string(it.Body) != string(d.Body) {
					t.Errorf("%s stored %.80s, want %.80s", d.ID, it.Body, d.Body)
				}
			}
			checkLongQueries(t, s, c, values)
			if got := makePathIndexes(t, s, c); len(got) != 0 {
				t.Errorf("path indexes %v made again, want none", got)
			}
		})
	}
}

// checkLongQueries runs queries on /v of c, whose documents are values
// (id -> /v) in partition "p", in that partition and across partitions,
// and compares their ids with the expected ones.
func checkLongQueries(t *testing.T, s *Store, c emulator.Container, values map[string]any) {
	t.Helper()
	str := values["string"].(string)
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	tests := []struct {
		query  string
		params map[string]json.RawMessage
		want   []string
	}{
		{`SELECT VALUE c.id FROM c WHERE c.v = @v`, map[string]json.RawMessage{"@v": raw(str)}, []string{"string"}},
		{`SELECT VALUE c.id FROM c WHERE c.v = @v`, map[string]json.RawMessage{"@v": raw(values["object"])}, []string{"object"}},
		{`SELECT VALUE c.id FROM c WHERE c.v = @v`, map[string]json.RawMessage{"@v": raw(values["array"])}, []string{"array"}},
		{`SELECT VALUE c.id FROM c WHERE c.v >= @v`, map[string]json.RawMessage{"@v": raw(str[:10])}, wantAtLeast(values, str[:10])},
		{`SELECT VALUE c.id FROM c WHERE IS_STRING(c.v) ORDER BY c.v`, nil, sortedStrings(values)},
	}
	p := `["p"]`
	for _, tt := range tests {
		for _, pk := range []*string{&p, nil} {
			got, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: tt.query, PK: pk, Params: tt.params, Page: emulator.PageRequest{MaxItems: 2}})
			var ids []string
			for _, d := range got {
				var id string
				if err := json.Unmarshal([]byte(d), &id); err != nil {
					t.Fatalf("result %s", d)
				}
				ids = append(ids, id)
			}
			if !strings.Contains(tt.query, "ORDER BY") {
				slices.Sort(ids)
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("%.60s (pk %v): %v, want %v", tt.query, pk != nil, ids, tt.want)
			}
		}
	}
}

// wantAtLeast returns the ids of the string values >= min, in id order.
func wantAtLeast(values map[string]any, min string) []string {
	var ids []string
	for _, k := range slices.Sorted(mapKeys(values)) {
		if v, ok := values[k].(string); ok && v >= min {
			ids = append(ids, k)
		}
	}
	return ids
}

// sortedStrings returns the ids of the string values in value order.
func sortedStrings(values map[string]any) []string {
	var ids []string
	for _, k := range slices.Sorted(mapKeys(values)) {
		if _, ok := values[k].(string); ok {
			ids = append(ids, k)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(values[a].(string), values[b].(string)) })
	return ids
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestQueryOnLongStoredValues: a query on a path whose stored values are
// too long for a btree entry succeeds, without the index (its CREATE INDEX
// refused), with the exact results, and the next query does not try the
// index again.
func TestQueryOnLongStoredValues(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	for _, size := range []int{3200, 20000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := indexedContainer(t, s, fmt.Sprintf("q%d", size))
			values := map[string]any{"string": randomText(size), "shortok": "short", "object": map[string]any{"a": randomText(size)}, "array": []any{randomText(size)}}
			for _, k := range slices.Sorted(mapKeys(values)) {
				d := longDoc(k, values[k])
				d.Container = c
				if _, err := s.CreateItem(ctx, d); err != nil {
					t.Fatal(err)
				}
			}
			if got := makePathIndexes(t, s, c); len(got) != 0 {
				t.Errorf("path indexes %v, want none", got)
			}
			checkLongQueries(t, s, c, values)
			s.autoIdx.mu.Lock()
			blocked := len(s.autoIdx.blocked[c.Num])
			s.autoIdx.mu.Unlock()
			if blocked != 2 {
				t.Errorf("%d blocked indexes, want 2", blocked)
			}
		})
	}
}

// TestConcurrentLongValueWrites: writers that hit the same path index at
// once all succeed (the second drop finds the index gone), also when the
// transactions hold every connection of the pool (each drops on its own
// connection).
func TestConcurrentLongValueWrites(t *testing.T) {
	s, err := Open(context.Background(), pgtest.NewDatabase(t), Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := indexedContainer(t, s, "conc")
	makePathIndexes(t, s, c)
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := longDoc(fmt.Sprint("w", i), randomText(3200))
			d.Container = c
			<-start
			if i%4 == 0 {
				_, errs[i] = s.CreateItem(ctx, d)
			} else {
				errs[i] = s.InItemTx(ctx, emulator.TxOptions{SharedLSN: true}, func(st emulator.ItemTx) error {
					_, err := st.CreateItem(ctx, d)
					return err
				})
			}
		}()
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := pathIndexes(t, s, c); len(got) != 0 {
		t.Errorf("path indexes %v, want none", got)
	}
}

// TestOversizeNamesOnlyPathIndexes: only the names of query-made path
// indexes are dropped (and written into DROP INDEX).
func TestOversizeNamesOnlyPathIndexes(t *testing.T) {
	for name, want := range map[string]bool{
		"items_12_p_0123456789abcdef":               true,
		"items_12_k_0123456789abcdef":               true,
		"items_12_c_0123456789abcdef":               true,
		"items_12_lsn":                              false,
		"items_12_pkey":                             false,
		"items_12_p_0123456789abcdef; DROP TABLE x": false,
	} {
		if got := pathIndexName.MatchString(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

// TestLongValueOnCompositeIndex: a composite index of the policy that
// refuses a long value is dropped and the write succeeds (the
// composite-index check of ORDER BY comes from the policy, so the query
// keeps working and its order stays exact); a value too long even for a
// page (no index named in the error) likewise.
func TestLongValueOnCompositeIndex(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: "comp",
		Properties:   []byte(`{"id":"comp","indexingPolicy":{"includedPaths":[{"path":"/*"}],"compositeIndexes":[[{"path":"/v"},{"path":"/w"}]]}}`),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"a": "a", "l": randomText(3200), "m": randomText(20000), "z": "zz"}
	for _, k := range slices.Sorted(mapKeys(values)) {
		d := longDoc(k, values[k])
		d.Container = c
		d.Body = append(d.Body[:len(d.Body)-1], `,"w":1}`...)
		if _, err := s.CreateItem(ctx, d); err != nil {
			t.Fatalf("create %s: %v", k, err)
		}
	}
	if got := pathIndexes(t, s, c); len(got) != 0 {
		t.Errorf("indexes %v, want none", got)
	}
	got, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: `SELECT VALUE c.id FROM c ORDER BY c.v, c.w`, Page: emulator.PageRequest{MaxItems: 2}})
	var want []string
	for _, k := range sortedStrings(values) {
		want = append(want, `"`+k+`"`)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ORDER BY c.v, c.w: %v, want %v", got, want)
	}
}

// TestCompositeIndexOnLongStoredValues: replacing a container's policy
// with a composite index that a stored value is too long for succeeds
// (the index is left out), and its ORDER BY gives the exact order; a path
// name holding the block's dollar-quote tag changes nothing.
func TestCompositeIndexOnLongStoredValues(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := indexedContainer(t, s, "rc")
	values := map[string]any{"a": "a", "l": randomText(3200), "z": "zz"}
	for _, k := range slices.Sorted(mapKeys(values)) {
		d := longDoc(k, values[k])
		d.Container = c
		d.Body = append(d.Body[:len(d.Body)-1], `,"w$ci$":1}`...)
		if _, err := s.CreateItem(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	props := `{"id":"rc","indexingPolicy":{"includedPaths":[{"path":"/*"}],"compositeIndexes":[[{"path":"/v"},{"path":"/w$ci$"}],[{"path":"/w$ci$"},{"path":"/id"}]]}}`
	if _, err := s.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: "rc", Properties: []byte(props), TS: 2, ETag: `"f"`}); err != nil {
		t.Fatalf("replace container: %v", err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = 'cosmos' AND tablename = $1 AND indexname LIKE '%\_c\_%'`, "items_"+itoa(c.Num)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d composite indexes, want 1 (the one without the long value)", n)
	}
	c, err := s.GetContainer(ctx, "db", "rc")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := drainQuery(t, s, emulator.QueryItemsParams{Container: c, Text: `SELECT VALUE c.id FROM c ORDER BY c.v, c["w$ci$"]`, Page: emulator.PageRequest{MaxItems: 2}})
	var want []string
	for _, k := range sortedStrings(values) {
		want = append(want, `"`+k+`"`)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ORDER BY c.v, c.w: %v, want %v", got, want)
	}
}
