package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// listeningBase returns the http base URL of a started command.
func listeningBase(t *testing.T, sc *startedCommand) string {
	t.Helper()
	base, ok := strings.CutPrefix(sc.line(t, "Now listening on: "), "Now listening on: ")
	if !ok {
		t.Fatal("no listening line")
	}
	return strings.TrimSpace(base)
}

// readItem reads an item through the REST API, signed with the well-known
// key, with partition key header pk.
func readItem(t *testing.T, base, db, coll, id, pk string) signedResult {
	t.Helper()
	link := "dbs/" + db + "/colls/" + coll + "/docs/" + id
	key, _ := base64.StdEncoding.DecodeString(wire.WellKnownKey)
	date := time.Now().UTC().Format(http.TimeFormat)
	req, err := http.NewRequest(http.MethodGet, base+"/"+link, nil) //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("x-ms-documentdb-partitionkey", pk)
	req.Header.Set("Authorization", wire.MasterAuthorization(key, http.MethodGet, "docs", link, date))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return signedResult{resp.StatusCode, string(b)}
}

// TestInitDataRefused: an init data file that is missing, not of the
// format, or holds a resource the REST API would refuse stops the start
// with one line naming the file, the place in it, the API's message for
// that resource and the flag.
func TestInitDataRefused(t *testing.T) {
	dir := t.TempDir()
	items := `{"id":"0","pk":"a"},{"id":"1","pk":"a"},{"id":"2","pk":"a"},{"id":"3","pk":"a"},{"id":"4","pk":"a"},{"id":"5","pk":"a"},{"id":"6","pk":"a"},{"pk":"a"}`
	for _, c := range []struct {
		name, file string
		want       []string
	}{
		{"missing", filepath.Join(dir, "absent.json"), []string{"absent.json cannot be loaded", "no such file"}},
		{"not JSON", writeFile(t, dir, "garbage.json", "{databases"), []string{"garbage.json cannot be loaded", "not an init data file"}},
		{"unknown member", writeFile(t, dir, "typo.json", `{"database":[]}`), []string{"typo.json cannot be loaded", `unknown member "database"`}},
		{"item without id", writeFile(t, dir, "noid.json", `{"databases":[{"id":"d","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"items":[`+items+`]}]}]}`),
			[]string{"noid.json cannot be loaded", "databases[0].containers[0].items[7]: The input content is invalid because the required properties - 'id; ' - are missing"}},
		{"container without partition key paths", writeFile(t, dir, "nopk.json", `{"databases":[{"id":"d","containers":[{"id":"ok","partitionKey":{"paths":["/pk"]}},{"id":"c","partitionKey":{"paths":["pk"]}}]}]}`),
			[]string{"nopk.json cannot be loaded", "databases[0].containers[1]: The partition key component definition path 'pk' could not be accepted"}},
		{"throughput too low", writeFile(t, dir, "tp.json", `{"databases":[{"id":"d","throughput":100}]}`),
			[]string{"tp.json cannot be loaded", "databases[0]: The offer throughput value 100 is invalid"}},
		{"invalid database id", writeFile(t, dir, "dbid.json", `{"databases":[{"id":"a/b"}]}`),
			[]string{"dbid.json cannot be loaded", "databases[0]: The input name 'a/b' is invalid."}},
		{"trigger without type", writeFile(t, dir, "trig.json", `{"databases":[{"id":"d","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"triggers":[{"id":"t","body":"function(){}"}]}]}]}`),
			[]string{"trig.json cannot be loaded", "databases[0].containers[0].triggers[0]: The input content is invalid because the required properties - 'triggerType; ' - are missing"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantOneLineRefusal(t, []string{"--pg", pgtest.NewDatabase(t), "--protocol", "http", "--addr", "127.0.0.1:0",
				"--health-port", "0", "--explorer-port", "0", "--init-data", c.file}, append(c.want, "--init-data")...)
		})
	}
}

// TestInitDataAndReset runs the command with an init data file given by
// COSMOS_EMULATOR_INIT_DATA (the item reads back), then a second command
// on the same database with Microsoft's ENABLE_INIT_DATA/INIT_PATH (its
// *.json files load in alphabetical order: the first file's version of an
// item wins, as what exists is left alone; its *.csh script is named as
// not run), then a third with --reset: no database is left, as the first
// command, which shares the database, sees too.
func TestInitDataAndReset(t *testing.T) {
	pg := pgtest.NewDatabase(t)
	common := []string{"--pg", pg, "--protocol", "http", "--addr", "127.0.0.1:0", "--health-port", "0", "--explorer-port", "0"}
	dir := t.TempDir()
	file := writeFile(t, dir, "seed.json", `{"databases":[{"id":"d1","containers":[{"id":"c1","partitionKey":{"paths":["/pk"]},"items":[{"id":"1","pk":"a","v":1}]}]}]}`)
	first := startCommand(t, common, "COSMOS_EMULATOR_INIT_DATA="+file)
	base1 := listeningBase(t, first)
	if got := readItem(t, base1, "d1", "c1", "1", `["a"]`); got.status != 200 || !strings.Contains(got.body, `"v":1`) {
		t.Fatalf("seeded item: %d %s", got.status, got.body)
	}

	initDir := filepath.Join(dir, "init")
	if err := os.Mkdir(initDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, initDir, "b.json", `{"databases":[{"id":"d2","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"items":[{"id":"x","pk":"p","from":"b"},{"id":"y","pk":"p","from":"b"}]}]}]}`)
	writeFile(t, initDir, "a.json", `{"databases":[{"id":"d2","containers":[{"id":"c","partitionKey":{"paths":["/pk"]},"items":[{"id":"x","pk":"p","from":"a"}]}]}]}`)
	writeFile(t, initDir, "setup.csh", "database create d3\n")
	second := startCommand(t, common, "ENABLE_INIT_DATA=true", "INIT_PATH="+initDir)
	base2 := listeningBase(t, second)
	for id, want := range map[string]string{"x": `"from":"a"`, "y": `"from":"b"`} {
		if got := readItem(t, base2, "d2", "c", id, `["p"]`); got.status != 200 || !strings.Contains(got.body, want) {
			t.Errorf("item %s: %d %s, want %s", id, got.status, got.body, want)
		}
	}
	if log := second.stderr.String(); !strings.Contains(log, "setup.csh") || !strings.Contains(log, "not supported") {
		t.Errorf("the log does not name the *.csh script as not run:\n%s", log)
	}

	third := startCommand(t, append(common, "--reset"))
	base3 := listeningBase(t, third)
	for _, base := range []string{base3, base1} {
		got := signedDo(t, http.MethodGet, base+"/dbs", "dbs", "", "")
		var list struct {
			Databases []json.RawMessage
		}
		if err := json.Unmarshal([]byte(got.body), &list); err != nil || got.status != 200 || len(list.Databases) != 0 {
			t.Errorf("%s/dbs after --reset: %d %s", base, got.status, got.body)
		}
	}
	if got := readItem(t, base1, "d1", "c1", "1", `["a"]`); got.status != 404 {
		t.Errorf("seeded item after --reset, through the first command: %d %s, want 404", got.status, got.body)
	}
}
