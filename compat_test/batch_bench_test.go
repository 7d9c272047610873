package compat_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// The batch benchmarks compare, per item created, a single create with a
// transactional batch of 100 creates and a bulk request of 100 creates
// (what the SDKs' bulk sends per partition key range):
//
//	go test -run '^$' -bench 'Create' -benchtime 2000x ./compat_test
//
// ns/op is per item in every one of them; items are about 1 KB.

// pad fills a benchmark item to about 1 KB.
var pad = strings.Repeat("x", 1000)

// benchEnv starts an emulator with a container partitioned on /pk.
func benchEnv(b *testing.B) *itemEnv {
	em := emulatortest.Start(b)
	db := mustDB(b, em.Client(b), "bench")
	return &itemEnv{db: "bench", coll: "c", cc: mustContainer(b, db, "c"), raw: newRaw(b, em)}
}

func BenchmarkSingleCreate(b *testing.B) {
	e := benchEnv(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp := e.raw.do(http.MethodPost, e.docs(), []byte(fmt.Sprintf(`{"id":"s%d","pk":"a","pad":%q}`, i, pad)), pkHeader, `["a"]`)
		if resp.Status != http.StatusCreated {
			b.Fatalf("create: %d %s", resp.Status, resp.Body)
		}
	}
}

func benchBatch(b *testing.B, hdr []string, perOpPK bool) {
	e := benchEnv(b)
	b.ResetTimer()
	for n := 0; n < b.N; n += 100 {
		ops := make([]string, 0, 100)
		for i := n; i < n+100 && i < b.N; i++ {
			pk := ""
			if perOpPK {
				pk = `"partitionKey":"[\"a\"]",`
			}
			ops = append(ops, fmt.Sprintf(`{"operationType":"Create",%s"resourceBody":{"id":"b%d","pk":"a","pad":%q}}`, pk, i, pad))
		}
		resp := e.raw.do(http.MethodPost, e.docs(), []byte("["+strings.Join(ops, ",")+"]"), hdr...)
		if resp.Status != http.StatusOK {
			b.Fatalf("batch: %d %s", resp.Status, resp.Body)
		}
	}
}

func BenchmarkBatchCreate(b *testing.B) { benchBatch(b, batchHeaders, false) }

func BenchmarkBulkCreate(b *testing.B) { benchBatch(b, bulkHeaders, true) }
