package compat_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// readmeSnippets returns the bodies of the fenced code blocks of language
// lang (```go, ```js) in the README's section headed "## "+section, in
// order.
func readmeSnippets(t *testing.T, section, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, text, ok := strings.Cut(string(b), "\n## "+section+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", section)
	}
	text, _, _ = strings.Cut(text, "\n## ")
	re := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```\n")
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("README.md's section %q has no ```%s block", section, lang)
	}
	return out
}

// TestReadmeGoSnippets: every Go snippet of the README's Connecting
// section (what a new user copies first) and of its Fault injection
// section compiles as written
// (imports, the key constant, a test file's TestMain): each is put in a
// package directory of its own inside this module (named with a leading
// underscore, so ./... never sees it) and checked with go vet, which
// type-checks test files too.
func TestReadmeGoSnippets(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	var snippets []string
	for _, section := range []string{"Connecting", "Fault injection"} {
		snippets = append(snippets, readmeSnippets(t, section, "go")...)
	}
	for i, snippet := range snippets {
		dir, err := os.MkdirTemp(".", "_readme_snippet_")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		name := "main.go"
		if m := regexp.MustCompile(`(?m)^package (\w+)`).FindStringSubmatch(snippet); m == nil {
			t.Fatalf("Go snippet %d has no package clause:\n%s", i+1, snippet)
		} else if strings.HasSuffix(m[1], "_test") || strings.Contains(snippet, "*testing.T") {
			name = "snippet_test.go"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(snippet), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, "vet", "./"+filepath.Base(dir))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("README Go snippet %d does not compile as written: %v\n%s\n%s", i+1, err, out, snippet)
		}
	}
}

// TestReadmeJSSnippet runs the README's JavaScript snippet as written
// against a live https emulator, trusting its certificate only through
// NODE_EXTRA_CA_CERTS (the PEM from /_explorer/emulator.pem), as the
// README tells; COSMOS_ENDPOINT points it at the test's port.
func TestReadmeJSSnippet(t *testing.T) {
	node, dir := jsSDK(t)
	snippets := readmeSnippets(t, "Connecting", "js")
	if len(snippets) != 1 {
		t.Fatalf("README's Connecting section has %d JavaScript snippets, want 1", len(snippets))
	}
	e := emulatortest.Start(t)
	resp, err := emulatortest.HTTPClient().Get(e.Endpoint + "_explorer/emulator.pem") //nolint:noctx
	if err != nil {
		t.Fatal(err)
	}
	pem, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	pemFile := filepath.Join(t.TempDir(), "emulator.pem")
	if err := os.WriteFile(pemFile, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	script := writeTempScript(t, dir, "_readme_snippet_*.mjs", snippets[0])
	// Only the extra CA: a snippet that needed verification turned off
	// would fail here.
	out, stderr := runJS(t, node, dir, script, 60*time.Second,
		"COSMOS_ENDPOINT="+e.Endpoint, "NODE_EXTRA_CA_CERTS="+pemFile, "NODE_TLS_REJECT_UNAUTHORIZED=")
	if got := strings.TrimSpace(string(out)); got != "database hello ready" {
		t.Fatalf("README JS snippet printed %q, want %q; stderr:\n%s", got, "database hello ready", stderr)
	}
}

// writeTempScript writes text to a new file named after pattern in the
// scripts' directory dir (where @azure/cosmos is installed), removed at
// test cleanup, and returns its base name for runJS.
func writeTempScript(t *testing.T, dir, pattern, text string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(f.Name())
}
