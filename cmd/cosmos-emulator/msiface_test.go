package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startedCommand is the real command running as a child process.
type startedCommand struct {
	cmd    *exec.Cmd
	lines  []string // stdout lines up to the Started line, with their terminators
	stderr *syncBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit error, once done
}

// startCommand runs the command (this test binary re-executed as main) with
// args and the environment extra, and reads its stdout until the line
// ending in "Started" (as the testcontainers modules wait for it). The
// process is stopped when the test ends.
func startCommand(t *testing.T, args []string, extra ...string) *startedCommand {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	// Microsoft's variables the test environment may hold are cleared:
	// each test names those it means.
	cmd.Env = []string{runMainEnv + "=1", "TMPDIR=" + t.TempDir()}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !isMicrosoftEnv(name) && !strings.HasPrefix(name, "COSMOS_EMULATOR_") && name != runMainEnv && name != "TMPDIR" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sc := &startedCommand{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = sc.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-sc.done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	started := make(chan error, 1)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				started <- err
				break
			}
			sc.lines = append(sc.lines, line)
			if strings.HasSuffix(strings.TrimRight(line, "\r\n"), "Started") {
				started <- nil
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		sc.err = cmd.Wait()
		close(sc.done)
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("the command ended before its Started line (%v); stderr:\n%s", err, sc.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("no Started line; stderr:\n%s", sc.stderr.String())
	}
	return sc
}

func isMicrosoftEnv(name string) bool {
	for _, m := range microsoftEnv {
		if m.env == name {
			return true
		}
	}
	return false
}

// line returns the stdout line that starts with prefix, without its
// terminator.
func (sc *startedCommand) line(t *testing.T, prefix string) string {
	t.Helper()
	for _, l := range sc.lines {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimRight(l, "\r\n")
		}
	}
	t.Fatalf("no line starting with %q in %q", prefix, sc.lines)
	return ""
}

// TestMicrosoftInterface runs the real command as the testcontainers Node
// module starts Microsoft's image (PORT, PROTOCOL=http, ENABLE_TELEMETRY,
// plus the Go module's `--enable-explorer false` as two arguments, here
// `true` so the explorer page is served) and checks what the tools wait
// for: the log lines (Java's regex, Node's substring), the health probes
// on the health port, the data explorer page, the metrics moving
// with requests, the request log, and a clean exit on SIGTERM.
func TestMicrosoftInterface(t *testing.T) {
	healthPort, explorerPort := freePort(t), freePort(t)
	sc := startCommand(t, []string{"--pg", pgtest.NewDatabase(t), "--enable-explorer", "true", "--log-requests"},
		"PORT=0", "PROTOCOL=http", "ENABLE_TELEMETRY=false", "HEALTH_PORT="+strconv.Itoa(healthPort), "EXPLORER_PORT="+strconv.Itoa(explorerPort),
		"AZURE_COSMOS_EMULATOR_PARTITION_COUNT=None")

	// Java: a line matching (?s).*Started\r\n$ with its terminator kept.
	java := regexp.MustCompile(`(?s)^.*Started\r\n$`)
	if last := sc.lines[len(sc.lines)-1]; !java.MatchString(last) {
		t.Errorf("last line %q does not match Java's wait", last)
	}
	// Node: a line containing "Now listening on: ".
	listening := sc.line(t, "Now listening on: ")
	base, ok := strings.CutPrefix(listening, "Now listening on: ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("listening line %q", listening)
	}
	ready := sc.line(t, "cosmos-emulator ready: ")
	if want := "cosmos-emulator ready: " + base + "/"; ready != want {
		t.Errorf("ready line %q, want %q", ready, want)
	}
	if cs := sc.line(t, "Connection string: "); cs != "Connection string: AccountEndpoint="+base+"/;AccountKey="+wire.WellKnownKey+";" {
		t.Errorf("connection string line %q", cs)
	}
	sc.line(t, "PostgreSQL=OK, Gateway=OK, Explorer=OK, Ready=YES")
	sc.line(t, "System is now fully ready to accept requests")
	health := "http://127.0.0.1:" + strconv.Itoa(healthPort)
	if h := sc.line(t, "Health probes on "); !strings.Contains(h, health) {
		t.Errorf("health line %q does not name %s", h, health)
	}
	explorer := "http://127.0.0.1:" + strconv.Itoa(explorerPort)
	if x := sc.line(t, "Data explorer on "); x != "Data explorer on "+explorer+"/_explorer/index.html" {
		t.Errorf("explorer line %q does not name %s", x, explorer)
	}

	// The health server (as Aspire probes it), the explorer page (as
	// testcontainers-python probes it), the unsigned metrics.
	for _, c := range []struct {
		url, body string
		status    int
	}{
		{health + "/alive", `"alive"`, 200},
		{health + "/ready", `"ready"`, 200},
		{health + "/status", `"postgresql":"OK","gateway":"OK","explorer":"OK","ready":true`, 200},
		{health + "/metrics", "cosmos_emulator_ready 1", 200},
		{health + "/nothing", "NotFound", 404},
		{base + "/_explorer/index.html", "<!doctype html>", 200},
		{explorer + "/", "<!doctype html>", 200}, // redirected to the page
		{base + "/_emulator/health", `"ok"`, 200},
		{base + "/_emulator/metrics", "cosmos_emulator_pg_pool_max_connections", 200},
	} {
		status, body := get(t, c.url)
		if status != c.status || !strings.Contains(body, c.body) {
			t.Errorf("GET %s: %d %q, want %d with %q", c.url, status, body, c.status, c.body)
		}
		if strings.Contains(body, wire.WellKnownKey) {
			t.Errorf("GET %s shows the key", c.url)
		}
	}

	// Counts move with requests.
	const created = `cosmos_emulator_requests_total{operation="Create",resource_type="dbs",status="201"}`
	const conflict = `cosmos_emulator_requests_total{operation="Create",resource_type="dbs",status="409"}`
	before := metrics(t, base)
	for range 2 {
		createDatabase(t, base, "msiface")
	}
	after := metrics(t, base)
	if before[created] != 0 || after[created] != 1 || after[conflict] != before[conflict]+1 {
		t.Errorf("database creates: %s %v -> %v, %s -> %v", created, before[created], after[created], conflict, after[conflict])
	}
	// The explorer's own port reaches the gateway (the page's API calls).
	createDatabase(t, explorer, "msiface-explorer")
	if after := metrics(t, base); after[created] != 2 {
		t.Errorf("a database created through the explorer port: %s = %v, want 2", created, after[created])
	}
	if after[`cosmos_emulator_request_charge_total{operation="Create",resource_type="dbs"}`] <= 0 {
		t.Error("no request charge counted for the creates")
	}
	if after[`cosmos_emulator_request_duration_seconds_count{operation="Create",resource_type="dbs"}`] != 2 {
		t.Error("the creates' latency was not observed twice")
	}

	// The request log line.
	logLine := regexp.MustCompile(`msg=request method=POST path=/dbs status=201 duration=\S+ activity_id=[0-9a-f-]{36} request_charge=[0-9.]+`)
	deadline := time.Now().Add(10 * time.Second)
	for !logLine.MatchString(sc.stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no request log line in stderr:\n%s", sc.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	// SIGTERM: a clean exit.
	if err := sc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sc.done:
		if sc.err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr:\n%s", sc.err, sc.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

// TestHealthPortInUse: a health port given explicitly that is taken is a
// start error of one line (exit 1); the default port, taken, is skipped
// with a warning and the emulator serves.
func TestHealthPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	pg := pgtest.NewDatabase(t)

	code, stdout, stderr := runCommand(t, t.TempDir(), []string{"--addr", "127.0.0.1:0", "--pg", pg, "--health-port", port})
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if code != 1 || stdout != "" || len(lines) != 1 || !strings.Contains(lines[0], "cannot listen on 127.0.0.1:"+port+" for the health server") ||
		!strings.Contains(lines[0], "--health-port") {
		t.Errorf("explicit busy health port: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// The default port is optional: stand in for it with the busy port.
	cfg, err := ParseFlags([]string{"--addr", "127.0.0.1:0", "--pg", pg, "--data-dir", t.TempDir()}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.HealthOptional {
		t.Fatal("the default health port is not optional")
	}
	cfg.HealthAddr = busy.Addr().String()
	var logs syncBuffer
	cfg.Logger = slogTo(&logs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, pw); pw.Close() }()
	out, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(out, "cosmos-emulator ready: ") {
		t.Fatalf("no ready line: %q %v", out, err)
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck
	if !strings.Contains(logs.String(), "the health server (/alive, /ready) is not running: cannot listen on "+busy.Addr().String()) {
		t.Errorf("no warning about the busy default port in %q", logs.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// slogTo returns a text logger writing to w.
func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// get fetches url over plain HTTP.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url) //nolint:gosec,noctx // a test URL on loopback
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// metrics scrapes /_emulator/metrics into sample -> value.
func metrics(t *testing.T, base string) map[string]float64 {
	t.Helper()
	return emulatortest.ScrapeMetrics(t, http.DefaultClient, base+"/_emulator/metrics")
}

// createDatabase POSTs /dbs signed with the well-known key (201 or 409).
func createDatabase(t *testing.T, base, id string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"id": id})
	if r := signedDo(t, http.MethodPost, base+"/dbs", "dbs", "", string(body)); r.status != 201 && r.status != 409 {
		t.Fatalf("create database: %d", r.status)
	}
}

// TestInvalidSettingExits: the command refuses an invalid Microsoft
// setting before starting anything: exit status 1 and one line naming the
// variable or flag, the value and the accepted values; --help and
// --version exit 0.
func TestInvalidSettingExits(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  []string
		want []string
	}{
		{nil, []string{"PROTOCOL=ftp"}, []string{`PROTOCOL="ftp"`, "accepted values are https, http, https-insecure"}},
		{nil, []string{"PORT=abc"}, []string{`PORT="abc"`, "accepted values are integers from 0 to 65535"}},
		{nil, []string{"ENABLE_EXPLORER=maybe"}, []string{`ENABLE_EXPLORER="maybe"`, "accepted values are true, false"}},
		{[]string{"--enable-explorer", "maybe"}, nil, []string{`"maybe"`, "enable-explorer", "accepted values are true, false"}},
	} {
		tmp := t.TempDir()
		code, stdout, stderr := runCommand(t, tmp, c.args, c.env...)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if code != 1 || stdout != "" || len(lines) != 1 || !strings.HasPrefix(lines[0], "cosmos-emulator: ") {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q", c.args, c.env, code, stdout, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(lines[0], w) {
				t.Errorf("%v %v: %q does not contain %q", c.args, c.env, lines[0], w)
			}
		}
	}
	for _, arg := range []string{"--help", "-h", "--version"} {
		code, stdout, stderr := runCommand(t, t.TempDir(), []string{arg})
		if code != 0 || stderr != "" || !strings.Contains(stdout, "cosmos-emulator") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}
