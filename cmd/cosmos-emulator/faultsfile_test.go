package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// TestFaultsFile starts the command with a faults file, given by the flag
// or by its variable COSMOS_EMULATOR_FAULTS_FILE: the file's rule applies
// from the first request (a 503 on the first database create, then the
// create succeeds, as the rule has count 1), and GET /_emulator/faults
// lists it with its hit.
func TestFaultsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "faults.json")
	rules := `{"rules":[{"name":"first-create","match":{"resourceType":"dbs"},"response":{"status":503},"count":1}]}`
	if err := os.WriteFile(file, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		env  []string
	}{
		{"flag", []string{"--faults-file", file}, nil},
		{"variable", nil, []string{"COSMOS_EMULATOR_FAULTS_FILE=" + file}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := startCommand(t, append([]string{"--pg", pgtest.NewDatabase(t), "--protocol", "http", "--addr", "127.0.0.1:0"}, c.args...), c.env...)
			base, ok := strings.CutPrefix(sc.line(t, "Now listening on: "), "Now listening on: ")
			if !ok {
				t.Fatal("no listening line")
			}
			if got := signedDo(t, http.MethodPost, base+"/dbs", "dbs", "", `{"id":"d1"}`); got.status != 503 {
				t.Fatalf("first create: %d %s, want the file's 503", got.status, got.body)
			}
			if got := signedDo(t, http.MethodPost, base+"/dbs", "dbs", "", `{"id":"d1"}`); got.status != 201 {
				t.Fatalf("second create: %d %s, want 201 (the rule has count 1)", got.status, got.body)
			}
			got := signedDo(t, http.MethodGet, base+"/_emulator/faults", "_emulator", "_emulator/faults", "")
			var list struct {
				Rules []struct {
					Name string `json:"name"`
					Hits int    `json:"hits"`
				} `json:"rules"`
			}
			if err := json.Unmarshal([]byte(got.body), &list); err != nil || len(list.Rules) != 1 || list.Rules[0].Name != "first-create" || list.Rules[0].Hits != 1 {
				t.Fatalf("GET /_emulator/faults: %d %s (%v)", got.status, got.body, err)
			}
		})
	}
}

// TestFaultsFileRefused: a faults file that is missing, not JSON or holds
// an invalid rule stops the start with one line naming the file, the
// cause and the expected form.
func TestFaultsFileRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, file string
		want       []string
	}{
		{"missing", filepath.Join(dir, "absent.json"), []string{"absent.json cannot be loaded", "no such file"}},
		{"not JSON", write("garbage.json", "{rules"), []string{"garbage.json cannot be loaded"}},
		{"no response", write("noresp.json", `{"rules":[{"name":"r","match":{"operation":"Read"},"response":{}}]}`), []string{"noresp.json cannot be loaded", "response"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantOneLineRefusal(t, []string{"--ephemeral", "--addr", "127.0.0.1:0", "--faults-file", c.file}, append(c.want, "--faults-file")...)
		})
	}
}

type signedResult struct {
	status int
	body   string
}

// signedDo sends a request signed with the well-known key for the
// resource link (resource type rt, id link).
func signedDo(t *testing.T, method, url, rt, link, body string) signedResult {
	t.Helper()
	key, _ := base64.StdEncoding.DecodeString(wire.WellKnownKey)
	date := time.Now().UTC().Format(http.TimeFormat)
	req, err := http.NewRequest(method, url, bytes.NewReader([]byte(body))) //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2020-07-15")
	req.Header.Set("Authorization", wire.MasterAuthorization(key, method, rt, link, date))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return signedResult{resp.StatusCode, b.String()}
}

// wantOneLineRefusal runs the command with args in a fresh temporary
// directory and wants it to refuse to start: exit status 1, nothing on
// stdout, and one stderr line "cosmos-emulator: ..." that says every want.
func wantOneLineRefusal(t *testing.T, args []string, want ...string) {
	t.Helper()
	code, stdout, stderr := runCommand(t, t.TempDir(), args)
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout)
	}
	line := strings.TrimRight(stderr, "\n")
	t.Log(line)
	if strings.Contains(line, "\n") || !strings.HasPrefix(line, "cosmos-emulator: ") {
		t.Fatalf("stderr is not one line:\n%s", stderr)
	}
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("%q does not say %q", line, w)
		}
	}
}
