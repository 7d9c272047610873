package pgstore

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// hostileName is a property name that, in SQL text quoted for
// standard_conforming_strings=on, breaks out of its literal when the
// setting is off, closing the parentheses of an index definition and
// creating a table (where COPY ... PROGRAM would run a shell command).
const hostileName = `x\')))); CREATE TABLE cosmos.pwned(); --`

// TestHostileSessionSettingsCannotChangeStatements: a database whose
// defaults turn standard_conforming_strings off (and change the text
// form of numbers and the client encoding) cannot change what the
// store's statements mean: every connection runs with the forced
// settings (jit off too), and a composite-index path and a query path holding a
// backslash and a quote stay data (index DDL and query text alike).
func TestHostileSessionSettingsCannotChangeStatements(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// the container exists before the database's defaults change
	s, err := Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateDatabase(ctx, emulator.CreateDatabaseParams{ID: "db", TS: 1, ETag: `"e"`}); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: "c", Properties: []byte(`{"id":"c"}`),
		PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, set := range []string{"standard_conforming_strings = off", "extra_float_digits = -15", "client_encoding = 'LATIN1'", "TimeZone = 'America/New_York'", "jit = on"} {
		if _, err := admin.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET `+strings.ReplaceAll(set, "'", "''")+`', current_database()); END $$`); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Open(ctx, dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for k, want := range map[string]string{"standard_conforming_strings": "on", "client_encoding": "UTF8", "extra_float_digits": "1", "TimeZone": "UTC", "jit": "off"} {
		var got string
		if err := s.pool.QueryRow(ctx, "SELECT current_setting($1)", k).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", k, got, err, want)
		}
	}
	props, _ := json.Marshal(map[string]any{"id": "c", "indexingPolicy": map[string]any{
		"includedPaths":    []map[string]string{{"path": "/*"}},
		"compositeIndexes": [][]map[string]string{{{"path": "/" + hostileName}, {"path": "/n"}}},
	}})
	c, err := s.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: "c", Properties: props, TS: 2, ETag: `"f"`})
	if err != nil {
		t.Fatal(err)
	}
	var pwned *string
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('cosmos.pwned')::text`).Scan(&pwned); err != nil || pwned != nil {
		t.Fatalf("the composite-index path ran as SQL: cosmos.pwned = %v (%v)", deref2(pwned), err)
	}
	for i, v := range []int{2, 1, 3} {
		body, _ := json.Marshal(map[string]any{"id": string(rune('a' + i)), "pk": "p", hostileName: v, "n": 0.1 + float64(i)})
		if _, err := s.CreateItem(ctx, emulator.WriteItemParams{ItemKey: emulator.ItemKey{Container: c, PK: `["p"]`, ID: string(rune('a' + i))}, Body: body, TS: 1, ETag: `"e"`}); err != nil {
			t.Fatal(err)
		}
	}
	lit, _ := json.Marshal(hostileName) // a Cosmos SQL string literal too
	for _, tt := range []struct{ query, want string }{
		{`SELECT VALUE c.id FROM c WHERE c[` + string(lit) + `] = 1`, `"b"`},
		{`SELECT VALUE c.id FROM c WHERE c[` + string(lit) + `] >= 2 ORDER BY c[` + string(lit) + `] DESC, c.n DESC`, `"c","a"`},
		{`SELECT VALUE c.n * 3 FROM c WHERE c.id = "c"`, `6.300000000000001`},
	} {
		q, err := emulator.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.QueryItems(ctx, emulator.QueryItemsParams{Container: c, Expiry: emulator.Expiry{Now: 2}, Query: q, Text: tt.query, Page: emulator.PageRequest{MaxItems: 10}})
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		var got []string
		for _, d := range page.Docs {
			got = append(got, string(d))
		}
		if strings.Join(got, ",") != tt.want {
			t.Fatalf("%s: %v, want %s", tt.query, got, tt.want)
		}
	}
	// both the composite index and the path index the filter created
	// hold the name as data
	var composite, path int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE indexname LIKE '%\_c\_%'), count(*) FILTER (WHERE indexname LIKE '%\_p\_%') FROM pg_indexes WHERE tablename = $1 AND strpos(indexdef, 'pwned') > 0`,
		"items_"+itoa(c.Num)).Scan(&composite, &path); err != nil || composite != 1 || path != 1 {
		t.Fatalf("%d composite and %d path indexes on the name (%v), want 1 and 1", composite, path, err)
	}
}

// TestConnectionStringCannotOverrideSettings: a connection string that
// turns a forced setting off (options=-c ...) does not win over it.
func TestConnectionStringCannotOverrideSettings(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), cfg.ConnString()+" options='-c standard_conforming_strings=off'", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got string
	if err := s.pool.QueryRow(context.Background(), "SHOW standard_conforming_strings").Scan(&got); err != nil || got != "on" {
		t.Fatalf("standard_conforming_strings = %q (%v), want on", got, err)
	}
}

func deref2(p *string) string {
	if p == nil {
		return "absent"
	}
	return *p
}

// TestCompositeIndexesTheStoreCannotBuild: a composite index with more
// paths than a PostgreSQL index can hold, or with a path holding NUL, is
// the request's fault (400) on create and on replace, never a 500 from
// the DDL.
func TestCompositeIndexesTheStoreCannotBuild(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	c := newContainer(t, s, nil)
	var many []map[string]string
	for i := 0; i < maxCompositePaths+1; i++ {
		many = append(many, map[string]string{"path": "/p" + strings.Repeat("x", i)})
	}
	for _, tt := range []struct {
		name      string
		composite []map[string]string
	}{
		{"too many paths", many},
		{"NUL in a path", []map[string]string{{"path": "/a\x00b"}, {"path": "/n"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			props, _ := json.Marshal(map[string]any{"id": "x", "indexingPolicy": map[string]any{"compositeIndexes": [][]map[string]string{tt.composite}}})
			_, err := s.CreateContainer(ctx, emulator.CreateContainerParams{DatabaseRef: "db", ID: "x", Properties: props,
				PartitionKey: emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}, TS: 1, ETag: `"e"`})
			if !emulator.IsKind(err, emulator.KindBadRequest) {
				t.Fatalf("create: %v, want a 400", err)
			}
			_, err = s.ReplaceContainer(ctx, emulator.ReplaceContainerParams{DatabaseRef: "db", CollRef: c.ID, Properties: props, TS: 2, ETag: `"f"`})
			if !emulator.IsKind(err, emulator.KindBadRequest) {
				t.Fatalf("replace: %v, want a 400", err)
			}
		})
	}
}
