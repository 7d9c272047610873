package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestLargeQueriesAnswerOr400: queries as large as the service accepts
// (512 KB of text) either answer or are refused with a 400, never a 500 from
// PostgreSQL's "stack depth limit exceeded" or "out of memory": long chains
// of one operator, a 40,000-value IN list, long OR filters. A query whose
// statement PostgreSQL takes longer to plan than the page budget (450
// chained %: tens of seconds of planning on a busy machine) may answer 408
// instead: the budget stops it (budget.go), which is still no 500.
func TestLargeQueriesAnswerOr400(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	if _, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p"]', 'id' || g, g, '{"id":"id' || g || '","n":' || g || '}', 1000, NULL, '"e"', g, '' FROM generate_series(1, 50) g`); err != nil {
		t.Fatal(err)
	}
	in := make([]string, 40000)
	ors := make([]string, 1000)
	for i := range in {
		in[i] = strconv.Itoa(i * 2)
	}
	for i := range ors {
		ors[i] = "c.n = " + strconv.Itoa(i*2)
	}
	tests := []struct {
		name, query string
		want        string // the results, or "400"
	}{
		{"40,000 IN values", `SELECT VALUE COUNT(1) FROM c WHERE c.n IN (` + strings.Join(in, ", ") + `)`, "25"},
		{"1,000 OR terms", `SELECT VALUE COUNT(1) FROM c WHERE ` + strings.Join(ors, " OR "), "25"},
		{"1,000 AND terms", `SELECT VALUE COUNT(1) FROM c WHERE ` + strings.Repeat("c.n > 0 AND ", 999) + "true", "50"},
		{"20,000 AND terms", `SELECT VALUE COUNT(1) FROM c WHERE ` + strings.Repeat("c.n > 0 AND ", 20000) + "true", "400"},
		{"20,000 OR terms", `SELECT VALUE COUNT(1) FROM c WHERE ` + strings.Repeat("c.n < 0 OR ", 20000) + "false", "400"},
		{"450 chained %", `SELECT VALUE c.n` + strings.Repeat(" % 9", 450) + ` FROM c WHERE c.n = 1`, "1"},
		{"200 nested functions", `SELECT VALUE ` + strings.Repeat("ABS(", 200) + "c.n" + strings.Repeat(")", 200) + ` FROM c WHERE c.n = 1`, "1"},
		{"a text over 512 KB", `SELECT VALUE c.n FROM c WHERE c.n IN (` + strings.Repeat("1, ", 180000) + `1)`, "400"},
		{"100,000 chained +", `SELECT VALUE c.n` + strings.Repeat(" + 1", 100000) + ` FROM c WHERE c.n = 1`, "400"},
		{"60,000 chained %", `SELECT VALUE c.n` + strings.Repeat(" % 9", 60000) + ` FROM c WHERE c.n = 1`, "400"},
		{"60,000 chained ??", `SELECT VALUE c.x` + strings.Repeat(" ?? c.x", 60000) + ` FROM c WHERE c.n = 1`, "400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := emulator.ParseQuery(tt.query)
			if err == nil {
				var page emulator.QueryPage
				page, err = s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: tt.query,
					Page: emulator.PageRequest{MaxItems: 100}})
				if err == nil && tt.want != "400" {
					var got []string
					for _, d := range page.Docs {
						got = append(got, string(d))
					}
					if strings.Join(got, ",") != tt.want {
						t.Fatalf("results %v, want %s", got, tt.want)
					}
					return
				}
			}
			if tt.want == "400" {
				var ee *emulator.Error
				if err == nil {
					return // answering is fine too
				}
				if !errors.As(err, &ee) || ee.Kind != emulator.KindBadRequest {
					t.Fatalf("error %v, want a 400", err)
				}
				return
			}
			if ee := (*emulator.Error)(nil); strings.HasPrefix(tt.name, "450 chained") && errors.As(err, &ee) && ee.Kind == emulator.KindRequestTimeout {
				t.Logf("past the page budget: %v", err)
				return
			}
			t.Fatal(err)
		})
	}
}

// BenchmarkQueryIN40000 measures a query whose IN list holds 40,000 values
// (parse, translation and execution over 1,000 items).
//
//	go test -run '^$' -bench QueryIN40000 ./pgstore/
func BenchmarkQueryIN40000(b *testing.B) {
	s := openStore(b)
	ctx := context.Background()
	c := newContainer(b, s, nil)
	if _, err := s.pool.Exec(ctx, `INSERT INTO `+itemsTable(c.Num)+` (pk, id, seq, body, ts, ttl, etag, lsn, epk)
SELECT '["p"]', 'id' || g, g, '{"id":"id' || g || '","n":' || g || '}', 1000, NULL, '"e"', g, '' FROM generate_series(1, 1000) g`); err != nil {
		b.Fatal(err)
	}
	in := make([]string, 40000)
	for i := range in {
		in[i] = strconv.Itoa(i * 2)
	}
	query := `SELECT VALUE COUNT(1) FROM c WHERE c.n IN (` + strings.Join(in, ", ") + `)`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q, err := emulator.ParseQuery(query)
		if err != nil {
			b.Fatal(err)
		}
		page, err := s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2000}, Query: q, Text: query,
			Page: emulator.PageRequest{MaxItems: 100}})
		if err != nil || len(page.Docs) != 1 || string(page.Docs[0]) != "500" {
			b.Fatalf("%v %q", err, page.Docs)
		}
	}
}

// TestQueryResourceErrorsAre400: PostgreSQL's refusals of a statement too
// large or too deep for it (stack depth, statement too complex, out of
// memory) are the query's fault, a 400, not a 500.
func TestQueryResourceErrorsAre400(t *testing.T) {
	for _, code := range []string{"54001", "54000", "53200"} {
		err := classifyQuery(fmt.Errorf("query: %w", &pgconn.PgError{Code: code, Message: "stack depth limit exceeded"}))
		var ee *emulator.Error
		if !errors.As(err, &ee) || ee.Kind != emulator.KindBadRequest {
			t.Errorf("%s: %v, want a 400", code, err)
		}
	}
}
