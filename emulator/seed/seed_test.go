package seed_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
	"github.com/cosmos-emulator/cosmos-emulator/emulator/seed"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newService returns a Service over a fresh database of a real PostgreSQL.
func newService(t *testing.T) *emulator.Service {
	t.Helper()
	st, err := pgstore.Open(context.Background(), pgtest.NewDatabase(t), pgstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return emulator.New(st, nil)
}

// itemsFile is an init data file of one container holding n items of
// about size bytes each.
func itemsFile(n, size int) []byte {
	var b strings.Builder
	b.WriteString(`{"databases":[{"id":"d","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"items":[`)
	pad := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%d","pk":"p%d","n":%d,"pad":%q}`, i, i%100, i, pad)
	}
	b.WriteString(`]}]}]}`)
	return []byte(b.String())
}

// TestLoadItems loads 10,000 small items, then the same file again (every
// item exists: nothing is created), then 100 items of 100 KB, which need
// batches smaller than 100 items to stay within a request body's size, and
// logs the durations.
func TestLoadItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	data := itemsFile(10000, 40)
	t0 := time.Now()
	res, err := seed.Load(ctx, svc, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10,000 items (%d KiB): %v", len(data)>>10, time.Since(t0))
	if res.Databases != 1 || res.Containers != 1 || res.Items != 10000 || res.Existing != 0 {
		t.Errorf("first load: %+v", res)
	}
	t0 = time.Now()
	res, err = seed.Load(ctx, svc, data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the same 10,000 items again, all existing: %v", time.Since(t0))
	if res.Databases != 0 || res.Containers != 0 || res.Items != 0 || res.Existing != 10002 {
		t.Errorf("second load: %+v", res)
	}
	stats, err := svc.ContainerStats(ctx)
	if err != nil || len(stats) != 1 || stats[0].LiveItems != 10000 {
		t.Errorf("container stats: %+v %v", stats, err)
	}

	svc2 := newService(t)
	big := itemsFile(100, 100<<10)
	t0 = time.Now()
	if res, err := seed.Load(ctx, svc2, big); err != nil || res.Items != 100 {
		t.Fatalf("100 items of 100 KB: %+v %v", res, err)
	}
	t.Logf("100 items of 100 KB (%d MiB): %v", len(big)>>20, time.Since(t0))
}

// TestLoadRefusals: a file refused before anything is created (its
// structure, its item count) creates nothing; one refused by the service
// names the place and carries the service's message.
func TestLoadRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		want       string
		created    bool // the load created something before the error
	}{
		{"two values", `{"databases":[]} {}`, "more data after the JSON object", false},
		{"items not an array", `{"databases":[{"id":"d","containers":[{"id":"c","items":{}}]}]}`, "databases[0].containers[0]: items: ", false},
		{"both throughputs", `{"databases":[{"id":"d","throughput":400,"autoscaleMaxThroughput":4000}]}`, "databases[0]: give throughput or autoscaleMaxThroughput, not both", false},
		{"item not an object", `{"databases":[{"id":"d","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"items":[{"id":"a"},[1]]}]}]}`,
			"databases[0].containers[0].items[1]: " + emulator.MsgInvalidPayload, true},
		{"item number out of range", `{"databases":[{"id":"d","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"items":[{"id":"a","n":1e400}]}]}]}`,
			"databases[0].containers[0].items[0]: " + emulator.MsgInvalidPayload, true},
		{"container not an object", `{"databases":[{"id":"d","containers":["c"]}]}`, "databases[0].containers[0]: " + emulator.MsgInvalidPayload, true},
		{"udf without body", `{"databases":[{"id":"d","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"userDefinedFunctions":[{"id":"f"}]}]}]}`,
			"databases[0].containers[0].userDefinedFunctions[0]: ", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := newService(t)
			_, err := seed.Load(context.Background(), svc, []byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			t.Log(err)
			dbs, lerr := svc.ContainerStats(context.Background())
			if lerr != nil {
				t.Fatal(lerr)
			}
			if _, gerr := svc.GetDatabase(context.Background(), "d"); (gerr == nil) != tc.created {
				t.Errorf("database created: %v, want %v (%d containers)", gerr == nil, tc.created, len(dbs))
			}
		})
	}
}

// TestLoadTooManyItems: a file over MaxItems is refused before anything
// is created.
func TestLoadTooManyItems(t *testing.T) {
	t.Parallel()
	svc := newService(t)
	var b strings.Builder
	b.WriteString(`{"databases":[{"id":"d","containers":[{"id":"c","items":[`)
	b.WriteString(strings.Repeat("{},", seed.MaxItems))
	b.WriteString(`{}]}]}]}`)
	_, err := seed.Load(context.Background(), svc, []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "databases[0].containers[0].items: the file holds more than 1000000 items") {
		t.Fatalf("error %v", err)
	}
	if _, err := svc.GetDatabase(context.Background(), "d"); !emulator.IsKind(err, emulator.KindNotFound) {
		t.Errorf("database d: %v, want not found", err)
	}
}

// TestReadmeExample loads the init data example of docs/seed-and-reset.md,
// so that the documented example stays a file the emulator takes.
func TestReadmeExample(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../docs/seed-and-reset.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```json\n")
	example, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/seed-and-reset.md has no json example")
	}
	res, err := seed.Load(context.Background(), newService(t), []byte(example))
	if err != nil || res.Databases != 1 || res.Containers != 1 || res.Items != 1 || res.Scripts != 3 {
		t.Fatalf("documented example: %+v %v", res, err)
	}
}

// TestLoadRefusesMalformedFiles: what a file's author gets for each
// mistake: where it is (line and column, or the entry's place) and what
// is wrong, in the file's terms; nothing is created. A byte order mark is
// not a mistake.
func TestLoadRefusesMalformedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	tests := []struct {
		name, file, want string
	}{
		{"trailing garbage", `{"databases":[]} }`, "line 1, column 18: more data after the JSON object"},
		{"a second value", "{\"databases\":[]}\n{}", "line 2, column 1: more data after the JSON object"},
		{"null", `null`, "it must be one JSON object"},
		{"an array", `[]`, "it must be one JSON object"},
		{"empty", ``, "it must be one JSON object"},
		{"syntax error", "{\"databases\": [\n  {\"id\": \"a\",}\n]}", "line 2, column 14: invalid character '}'"},
		{"truncated", "{\"databases\": [\n  {\"id\": \"a\"", "the JSON ends before it is complete"},
		{"wrong type", "{\"databases\": [{\"id\": \"a\", \"throughput\": \"400\"}]}", "line 1, column 46: databases.throughput must be an integer, not a string"},
		{"databases not an array", `{"databases": {"id": "a"}}`, "databases must be an array, not an object"},
		{"unknown member", `{"databases": [], "extra": 1}`, `unknown member "extra"`},
		{"database twice", `{"databases": [{"id": "a"}, {"id": "a"}]}`, `databases[1]: the id "a" is given twice in this file`},
		{"container twice", `{"databases": [{"id": "a", "containers": [{"id": "c", "partitionKey": {"paths": ["/pk"]}}, {"id": "c", "partitionKey": {"paths": ["/pk"]}}]}]}`,
			`databases[0].containers[1]: the id "c" is given twice in this file`},
		{"procedure twice", `{"databases": [{"id": "a", "containers": [{"id": "c", "partitionKey": {"paths": ["/pk"]}, "storedProcedures": [{"id": "s", "body": "function () {}"}, {"id": "s", "body": "function () {}"}]}]}]}`,
			`databases[0].containers[0].storedProcedures[1]: the id "s" is given twice in this file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := seed.Load(ctx, svc, []byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v; want an error containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "seed.") {
				t.Fatalf("the error speaks Go: %v", err)
			}
		})
	}
	// nothing of the refused files was created
	if _, err := svc.GetDatabase(ctx, "a"); !emulator.IsKind(err, emulator.KindNotFound) {
		t.Fatalf("a refused file created database a: %v", err)
	}
}

// TestLoadItemGivenTwice: the same item id with the same partition key
// twice in one container entry is refused (it used to be dropped); the
// same id under two partition keys is two items.
func TestLoadItemGivenTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	_, err := seed.Load(ctx, svc, []byte(`{"databases": [{"id": "d", "containers": [{"id": "c", "partitionKey": {"paths": ["/pk"]},
		"items": [{"id": "1", "pk": "a"}, {"id": "1", "pk": "b"}, {"id": "1", "pk": "a", "v": 2}]}]}]}`))
	if err == nil || !strings.Contains(err.Error(), `databases[0].containers[0].items[2]: the item id "1" with this partition key is given twice in this file (also items[0])`) {
		t.Fatalf("Load: %v", err)
	}
}

// TestLoadByteOrderMark: a file saved with a UTF-8 byte order mark (as
// some Windows editors do) loads.
func TestLoadByteOrderMark(t *testing.T) {
	t.Parallel()
	res, err := seed.Load(context.Background(), newService(t), append([]byte("\xef\xbb\xbf"), `{"databases": [{"id": "bom"}]}`...))
	if err != nil || res.Databases != 1 {
		t.Fatalf("Load: %+v, %v", res, err)
	}
}
