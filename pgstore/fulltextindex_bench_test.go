package pgstore

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// BenchmarkFullTextIndex measures full-text queries on containers of
// 10,000 and 100,000 documents (a /text of 20 words from a vocabulary of
// 5,000, about 150 bytes; 20 documents of either size also hold
// "zephyr"), with and without /text in the container's fullTextIndexes:
// the same rows in two containers, queried alternately so that both
// figures share the machine's noise. It reports the p50 of each
// (p50-plain-ms, p50-indexed-ms) and their ratio (plain/indexed).
//
//	go test -run '^$' -bench BenchmarkFullTextIndex -benchtime 5x ./pgstore/
func BenchmarkFullTextIndex(b *testing.B) {
	// (a filter without the index reads 100,000 documents for longer
	// than the default page budget)
	s, err := Open(context.Background(), pgtest.NewDatabase(b), Options{PageTimeout: 5 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		b.Fatal(err)
	}
	queries := []struct {
		name, text string
		results    int
	}{
		{"contains", `SELECT * FROM c WHERE FullTextContains(c.text, "zephyr")`, 20},
		{"ranked", `SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, "zephyr")`, 10},
		{"ranked-filtered", `SELECT TOP 10 c.id FROM c WHERE FullTextContains(c.text, "zephyr") ORDER BY RANK FullTextScore(c.text, "zephyr")`, 10},
	}
	sizes := []int{10000, 100000}
	if testing.Short() { // make bench-check: the result checks, not the large figure
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		var pair [2]emulator.Container // plain, indexed
		for i, ix := range [][]string{nil, {"/text"}} {
			id := "c" + strconv.Itoa(n) + "_" + strconv.Itoa(i)
			c, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: id, Properties: fullTextProps(id, ix...),
				PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, etag, lsn, epk)
SELECT '["p' || (g % 100) || '"]', 'x' || g, g,
       jsonb_build_object('id', 'x' || g, 'pk', 'p' || (g % 100), 'text',
         (SELECT string_agg(translate(substr(md5(((g * 7919 + k * 104729) % 5000)::text), 1, 6), '0123456789', 'ghijklmnop'), ' ')
          FROM generate_series(1, 20) k) || CASE WHEN g % ($1::int / 20) = 0 THEN ' zephyr' ELSE '' END)::text,
       1, '"e"', g, ''
FROM generate_series(1, $1::int) g`, n); err != nil {
				b.Fatal(err)
			}
			if _, err := s.pool.Exec(ctx, `ANALYZE `+itemsTable(c.Num)); err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: %d documents loaded (and indexed: %v) in %v", id, n, ix != nil, time.Since(start))
			pair[i] = c
		}
		for _, q := range queries {
			parsed, err := emulator.ParseQuery(q.text)
			if err != nil {
				b.Fatal(err)
			}
			run := func(c emulator.Container) (time.Duration, int) {
				p := emulator.QueryItemsParams{Container: c, Query: parsed, Text: q.text, Expiry: emulator.Expiry{Now: 2000},
					Page: emulator.PageRequest{MaxItems: 100}}
				start := time.Now()
				results := 0
				for {
					page, err := s.QueryItems(ctx, p)
					if err != nil {
						b.Fatal(err)
					}
					results += len(page.Docs)
					if page.Continuation == "" {
						return time.Since(start), results
					}
					p.Page.Continuation = page.Continuation
				}
			}
			b.Run(strconv.Itoa(n)+"/"+q.name, func(b *testing.B) {
				var plain, indexed []time.Duration
				for i := 0; i < b.N; i++ {
					d0, r0 := run(pair[0])
					d1, r1 := run(pair[1])
					if r0 != q.results || r1 != q.results {
						b.Fatalf("results: %d without the index, %d with", r0, r1)
					}
					plain, indexed = append(plain, d0), append(indexed, d1)
				}
				p0, p1 := p50(plain), p50(indexed)
				b.ReportMetric(ms(p0), "p50-plain-ms")
				b.ReportMetric(ms(p1), "p50-indexed-ms")
				b.ReportMetric(float64(p0)/float64(p1), "ratio")
			})
		}
	}
}

// p50 is the median of ds.
func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
