package pgstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// BenchmarkBatchCreateStore: what a transactional batch of 100 creates of
// 1 KB items costs in the store (one multi-row INSERT and the commit)
// against one single create, with the time split between statement and
// commit.
//
//	go test -run '^$' -bench BenchmarkBatchCreateStore -benchtime 300x ./pgstore/
func BenchmarkBatchCreateStore(b *testing.B) {
	s := openStore(b)
	benchBatchCreates(b, s, newContainer(b, s, nil))
}

func benchBatchCreates(b *testing.B, s *Store, c emulator.Container) {
	ctx := context.Background()
	pad := strings.Repeat("x", 960)
	body := func(id string) []byte { return []byte(`{"id":"` + id + `","pk":"p","pad":"` + pad + `"}`) }
	op := func(id string) emulator.ItemOp {
		return emulator.ItemOp{Op: emulator.BatchCreate, Params: emulator.WriteItemParams{
			ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: id}, Body: body(id), TS: 1, ETag: `"e"`}}
	}
	n := 0
	b.Run("single", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			n++
			if _, err := s.CreateItem(ctx, op(fmt.Sprint("s", n)).Params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("batch100", func(b *testing.B) {
		var stmt, commit time.Duration
		for i := 0; i < b.N; i++ {
			ops := make([]emulator.ItemOp, 100)
			for k := range ops {
				n++
				ops[k] = op(fmt.Sprint("b", n))
			}
			t0 := time.Now()
			var t1 time.Time
			err := s.InItemTx(ctx, emulator.TxOptions{SharedLSN: true}, func(st emulator.ItemTx) error {
				_, err := st.RunItemOps(ctx, ops)
				t1 = time.Now()
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			stmt += t1.Sub(t0)
			commit += time.Since(t1)
		}
		b.ReportMetric(float64(stmt.Microseconds())/float64(b.N), "stmt-µs/op")
		b.ReportMetric(float64(commit.Microseconds())/float64(b.N), "commit-µs/op")
	})
}
