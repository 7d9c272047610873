package compat_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// BenchmarkRangesPointOps measures a point read, a point create and a
// single-partition query (partition key header) through raw REST on a
// container with 1 and with 16 partition key ranges: their cost must not
// grow with the number of ranges (the range of a point operation is found
// from the cached container, a hash and a binary search).
//
//	go test -run '^$' -bench BenchmarkRangesPointOps -benchtime 2000x ./compat_test
func BenchmarkRangesPointOps(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("ranges=%d", n), func(b *testing.B) {
			em := emulatortest.Start(b, emulatortest.WithMinPartitionRanges(n))
			db := mustDB(b, em.Client(b), "bench")
			e := &itemEnv{db: "bench", coll: "c", cc: mustContainer(b, db, "c"), raw: newRaw(b, em)}
			for i := 0; i < 100; i++ {
				resp := e.raw.do(http.MethodPost, e.docs(), []byte(fmt.Sprintf(`{"id":"r%d","pk":"p%d"}`, i, i)), pkHeader, fmt.Sprintf(`["p%d"]`, i))
				if resp.Status != http.StatusCreated {
					b.Fatalf("seed: %d %s", resp.Status, resp.Body)
				}
			}
			b.Run("read", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					k := i % 100
					resp := e.raw.do(http.MethodGet, docPath(e.db, e.coll, fmt.Sprintf("r%d", k)), nil, pkHeader, fmt.Sprintf(`["p%d"]`, k))
					if resp.Status != http.StatusOK {
						b.Fatalf("read: %d %s", resp.Status, resp.Body)
					}
				}
			})
			created := 0 // ids stay new when the benchmark runs again with a larger b.N
			b.Run("create", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					created++
					i := created
					resp := e.raw.do(http.MethodPost, e.docs(), []byte(fmt.Sprintf(`{"id":"c%d","pk":"q%d"}`, i, i)), pkHeader, fmt.Sprintf(`["q%d"]`, i))
					if resp.Status != http.StatusCreated {
						b.Fatalf("create: %d %s", resp.Status, resp.Body)
					}
				}
			})
			b.Run("query", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					k := i % 100
					resp := e.raw.do(http.MethodPost, e.docs(), []byte(fmt.Sprintf(`{"query":"SELECT * FROM c WHERE c.id = 'r%d'"}`, k)),
						"Content-Type", "application/query+json", "x-ms-documentdb-isquery", "True", pkHeader, fmt.Sprintf(`["p%d"]`, k))
					if resp.Status != http.StatusOK {
						b.Fatalf("query: %d %s", resp.Status, resp.Body)
					}
				}
			})
		})
	}
}
