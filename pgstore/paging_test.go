package pgstore

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// insertDocs writes n items {"id":"<i>","pk":"p<i%2>","n":i,"g":i%3,"arr":[1,2],
// "pad":"xx..."} (pad of padBytes bytes) with seq i, in one statement.
func insertDocs(t testing.TB, s *Store, c emulator.Container, n, padBytes int) {
	t.Helper()
	_, err := s.pool.Exec(context.Background(), `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p' || (g % 2) || '"]', g::text, g,
       '{"id":"' || g || '","pk":"p' || (g % 2) || '","n":' || g || ',"g":' || (g % 3) || ',"arr":[1,2],"pad":"' || repeat('x', $2) || '"}',
       1000, NULL, '"e"', g, ''
FROM generate_series(1, $1) g`, n, padBytes)
	if err != nil {
		t.Fatal(err)
	}
}

// drainQuery runs a query page by page and returns every result and the
// number of pages.
func drainQuery(t testing.TB, s *Store, p emulator.QueryItemsParams) ([]string, int) {
	t.Helper()
	q, err := emulator.ParseQuery(p.Text)
	if err != nil {
		t.Fatal(err)
	}
	p.Query, p.Expiry = q, emulator.Expiry{Now: 2000}
	var out []string
	for pages := 1; ; pages++ {
		page, err := s.QueryItems(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", p.Text, err)
		}
		if pages > 10000 {
			t.Fatalf("%s: more than 10000 pages", p.Text)
		}
		for _, d := range page.Docs {
			out = append(out, string(d))
		}
		if page.Continuation == "" {
			return out, pages
		}
		p.Page.Continuation = page.Continuation
	}
}

// TestQueryLastPageHasNoContinuation: every query shape gives each result
// exactly once across pages of every size, and a full last page carries no
// continuation (no trailing empty page) unless the gateway fans the query
// out over partitions itself, where the service's gateway returns one.
func TestQueryLastPageHasNoContinuation(t *testing.T) {
	s := openStore(t)
	c := newContainer(t, s, nil)
	insertDocs(t, s, c, 12, 0)
	seq := func(from, to int) string {
		var b []string
		for i := from; i <= to; i++ {
			b = append(b, fmt.Sprint(i))
		}
		return strings.Join(b, ",")
	}
	p0 := `["p0"]`
	tests := []struct {
		name, query string
		pk          *string
		fanOut      bool
		want        string
	}{
		{"plain", "SELECT VALUE c.n FROM c", nil, false, seq(1, 12)},
		{"single partition", "SELECT VALUE c.n FROM c", &p0, false, "2,4,6,8,10,12"},
		{"ORDER BY", "SELECT VALUE c.n FROM c ORDER BY c.n DESC", nil, false, "12,11,10,9,8,7,6,5,4,3,2,1"},
		{"JOIN", "SELECT VALUE c.n FROM c JOIN x IN c.arr WHERE x = 1", nil, false, seq(1, 12)},
		{"TOP", "SELECT TOP 6 VALUE c.n FROM c", nil, false, seq(1, 6)},
		{"TOP with ORDER BY", "SELECT TOP 4 VALUE c.n FROM c ORDER BY c.n DESC", nil, false, "12,11,10,9"},
		{"OFFSET LIMIT", "SELECT VALUE c.n FROM c OFFSET 7 LIMIT 1", nil, false, "8"},
		{"OFFSET LIMIT with ORDER BY", "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 3 LIMIT 6", nil, false, seq(4, 9)},
		{"DISTINCT", "SELECT DISTINCT VALUE c.g FROM c", nil, false, "0,1,2"},
		{"GROUP BY", "SELECT VALUE c.g FROM c GROUP BY c.g", nil, false, "0,1,2"},
		{"TOP with GROUP BY", "SELECT TOP 2 VALUE c.g FROM c GROUP BY c.g", nil, false, "0,1"},
		{"gateway fan-out", "SELECT VALUE c.n FROM c", nil, true, seq(1, 12)},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 3, 4, 6, 12, 100} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, size), func(t *testing.T) {
				got, pages := drainQuery(t, s, emulator.QueryItemsParams{Container: c, PK: tt.pk, Text: tt.query, GatewayFanOut: tt.fanOut,
					Page: emulator.PageRequest{MaxItems: size}})
				if strings.Join(got, ",") != tt.want {
					t.Fatalf("results %v, want %s", got, tt.want)
				}
				n := len(got)
				want := max((n+size-1)/size, 1)
				if tt.fanOut && n%size == 0 {
					want++ // the gateway's trailing empty page
				}
				if pages != want {
					t.Fatalf("%d results in %d pages of %d, want %d pages", n, pages, size, want)
				}
			})
		}
	}
}

// countingDialer counts the bytes the store reads from PostgreSQL.
type countingDialer struct{ read atomic.Int64 }

type countingConn struct {
	net.Conn
	d *countingDialer
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.d.read.Add(int64(n))
	return n, err
}

func (d *countingDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return countingConn{c, d}, nil
}

// openCountingStore opens a store whose connections count the bytes read.
func openCountingStore(t *testing.T) (*Store, *countingDialer) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	d := &countingDialer{}
	cfg.ConnConfig.DialFunc = d.dial
	s, err := openConfig(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, d
}

// TestQueryPageStopsAtItsBudget: a page over large documents with a huge
// x-ms-max-item-count ends at the 4 MB budget with a continuation, reading
// from PostgreSQL about one page, not the container; draining the
// container page by page yields every item exactly once and reads about
// the container once, not once per page.
func TestQueryPageStopsAtItsBudget(t *testing.T) {
	s, d := openCountingStore(t)
	c := newContainer(t, s, nil)
	const docs, pad = 60, 1 << 20 // 60 documents of 1 MB
	insertDocs(t, s, c, docs, pad)
	total := int64(docs * pad)
	for _, tt := range []struct{ name, query string }{
		{"plain", "SELECT * FROM c"},
		{"ORDER BY", "SELECT * FROM c ORDER BY c.n DESC"},
		{"VALUE", "SELECT VALUE c.pad FROM c"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, err := emulator.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			p := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: tt.query, Page: emulator.PageRequest{MaxItems: 100000}}
			before := d.read.Load()
			page, err := s.QueryItems(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			read := d.read.Load() - before
			size := 0
			for _, doc := range page.Docs {
				size += len(doc)
			}
			if len(page.Docs) == 0 || size > emulator.MaxResponseBytes || page.Continuation == "" {
				t.Fatalf("first page: %d docs, %d bytes, continuation %q", len(page.Docs), size, page.Continuation)
			}
			// one page and what was in flight when it stopped, not the container
			if read > 4*emulator.MaxResponseBytes {
				t.Fatalf("the first page (%d bytes) read %d bytes from PostgreSQL (container: %d)", size, read, total)
			}
			before = d.read.Load()
			got, pages := drainQuery(t, s, p)
			read = d.read.Load() - before
			seen := map[string]int{}
			for _, g := range got {
				seen[g[:min(len(g), 40)]]++
			}
			if len(got) != docs || len(seen) != docs && tt.name != "VALUE" {
				t.Fatalf("drain: %d results (%d distinct), want %d", len(got), len(seen), docs)
			}
			if read > 2*total {
				t.Fatalf("the drain (%d pages) read %d bytes from PostgreSQL for a container of %d", pages, read, total)
			}
			t.Logf("drain: %d pages, %d MB read for %d MB of documents", pages, read>>20, total>>20)
		})
	}
}

// BenchmarkQueryLargePage measures one page of SELECT * with
// x-ms-max-item-count 100000 over 60 documents of 1 MB: the bytes
// allocated (B/op) and read from PostgreSQL (read-MB/op) per page.
func BenchmarkQueryLargePage(b *testing.B) {
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	d := &countingDialer{}
	cfg.ConnConfig.DialFunc = d.dial
	s, err := openConfig(context.Background(), cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateDatabase(context.Background(), emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		b.Fatal(err)
	}
	c, err := s.CreateContainer(context.Background(), emulator.CreateContainerParams{DatabaseRef: "db", ID: "c", Properties: []byte(`{"id":"c"}`),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
	if err != nil {
		b.Fatal(err)
	}
	insertDocs(b, s, c, 60, 1<<20)
	q, _ := emulator.ParseQuery("SELECT * FROM c")
	p := emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: "SELECT * FROM c", Page: emulator.PageRequest{MaxItems: 100000}}
	b.ReportAllocs()
	b.ResetTimer()
	before := d.read.Load()
	for i := 0; i < b.N; i++ {
		if _, err := s.QueryItems(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(d.read.Load()-before)/float64(b.N)/(1<<20), "read-MB/op")
}

// TestReadFeedStopsAtItsBudget: a read feed page over large documents
// reads about one page from PostgreSQL, not the rest of the container.
func TestReadFeedStopsAtItsBudget(t *testing.T) {
	s, d := openCountingStore(t)
	c := newContainer(t, s, nil)
	insertDocs(t, s, c, 60, 1<<20)
	before := d.read.Load()
	items, err := s.ReadItems(context.Background(), emulator.ReadItemsParams{Container: c, Limit: 100001, Expiry: emulator.Expiry{Now: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	read := d.read.Load() - before
	page, more := emulator.Paginate(items, 100000, func(it emulator.Item) int { return len(it.Body) + 200 })
	if !more || len(page) == 0 || len(items) > 8 || read > 4*emulator.MaxResponseBytes {
		t.Fatalf("%d rows fetched (page of %d, more %v), %d bytes read from PostgreSQL", len(items), len(page), more, read)
	}
}
