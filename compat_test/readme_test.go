package compat_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// docSnippets returns the bodies of the fenced code blocks of language
// lang (```go, ```js, ```sh) in the section headed "## "+section of the
// user documentation file (README.md or docs/*.md, relative to the
// repository root), in order; section "" means the whole file.
func docSnippets(t *testing.T, file, section, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", file))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if section != "" {
		var ok bool
		_, text, ok = strings.Cut(text, "\n## "+section+"\n")
		if !ok {
			t.Fatalf("%s has no section %q", file, section)
		}
		text, _, _ = strings.Cut(text, "\n## ")
	}
	re := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```\n")
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 && section != "" {
		t.Fatalf("%s's section %q has no ```%s block", file, section, lang)
	}
	return out
}

// userDocs lists README.md, CHANGELOG.md and every docs/*.md, relative to
// the repository root.
func userDocs(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	files := []string{"README.md", "CHANGELOG.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

// TestDocsGoSnippets: every Go snippet of the README and of docs/ compiles
// as written (imports, constants, a test file's TestMain): each is put in
// a package directory of its own inside this module (named with a leading
// underscore, so ./... never sees it) and checked with go vet, which
// type-checks test files too. A snippet must therefore be a whole file.
func TestDocsGoSnippets(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	n := 0
	for _, file := range userDocs(t) {
		for i, snippet := range docSnippets(t, file, "", "go") {
			n++
			t.Run(fmt.Sprintf("%s#%d", file, i+1), func(t *testing.T) {
				dir, err := os.MkdirTemp(".", "_readme_snippet_")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(dir) })
				name := "main.go"
				if m := regexp.MustCompile(`(?m)^package (\w+)`).FindStringSubmatch(snippet); m == nil {
					t.Fatalf("Go snippet has no package clause:\n%s", snippet)
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
					t.Errorf("Go snippet does not compile as written: %v\n%s\n%s", err, out, snippet)
				}
			})
		}
	}
	if n < 3 {
		t.Fatalf("only %d Go snippets found in the documentation", n)
	}
}

// TestReadmeGoQuickStart follows the README's Go quick start as a new
// user does, outside this repository: a fresh module in an empty folder,
// the README's commands in order (go mod init, go get azcosmos@v1.5.0, go
// mod tidy, go run .) with its main.go, against a live https emulator;
// the program runs twice (it must be idempotent) and prints the greeting
// each time. It uses the module proxy (GOPROXY) for the SDK.
func TestReadmeGoQuickStart(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	var commands [][]string
	for _, line := range strings.Split(docSnippets(t, "README.md", "Quick start: Go", "sh")[0], "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			if f[0] != "go" {
				t.Fatalf("the quick start runs %q; this test runs only go commands", line)
			}
			commands = append(commands, f[1:])
		}
	}
	if len(commands) < 3 || strings.Join(commands[len(commands)-1], " ") != "run ." {
		t.Fatalf("the quick start's commands %q do not end with go run .", commands)
	}
	e := emulatortest.Start(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(docSnippets(t, "README.md", "Quick start: Go", "go")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "COSMOS_ENDPOINT="+e.Endpoint, "GOFLAGS=", "GOWORK=off")
	run := func(args []string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	runQuickStart(t, commands, run)
}

// TestDocsHygiene: the README is the front door (at most 400 lines, a
// table of contents, the two commands); no user document speaks of the
// project's history or internals a user does not have (issue numbers,
// ../shared, passes), and every relative link points at a file that
// exists (and, for README.md#section, a section that exists).
func TestDocsHygiene(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 400 {
		t.Errorf("README.md has %d lines, want at most 400", n)
	}
	for _, want := range []string{"\n## Contents\n", "make run", "make test", "\n## Install\n"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	banned := regexp.MustCompile(`(?i)\.\./shared|\bissues? #?\d+|\b(first|second|third|fourth|previous|this|next) pass\b`)
	link := regexp.MustCompile(`\]\(([^)#:]+\.md)(#[^)]*)?\)`)
	heading := regexp.MustCompile(`(?m)^#+ (.*)$`)
	for _, file := range userDocs(t) {
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := banned.FindString(line); m != "" {
				t.Errorf("%s:%d speaks of %q: %s", file, i+1, m, line)
			}
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Join("..", filepath.Dir(file), m[1])
			tb, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", file, m[1])
				continue
			}
			if m[2] == "" {
				continue
			}
			found := false
			for _, h := range heading.FindAllStringSubmatch(string(tb), -1) {
				if "#"+anchorOf(h[1]) == m[2] {
					found = true
				}
			}
			if !found {
				t.Errorf("%s links to %s%s: no such section", file, m[1], m[2])
			}
		}
	}
}

// anchorOf is the anchor GitHub gives a heading: lower case, punctuation
// other than dashes dropped, spaces as dashes.
func anchorOf(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeJSSnippet runs the README's JavaScript quick start as written,
// twice (it must be idempotent), against a live https emulator, trusting
// its certificate only through NODE_EXTRA_CA_CERTS (the PEM from
// /_explorer/emulator.pem), as the README tells; COSMOS_ENDPOINT points it
// at the test's port.
func TestReadmeJSSnippet(t *testing.T) {
	node, dir := jsSDK(t)
	snippets := docSnippets(t, "README.md", "Quick start: JavaScript", "js")
	if len(snippets) != 1 {
		t.Fatalf("README's JavaScript quick start has %d JavaScript snippets, want 1", len(snippets))
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
	for i := range 2 {
		out, stderr := runJS(t, node, dir, script, 60*time.Second,
			"COSMOS_ENDPOINT="+e.Endpoint, "NODE_EXTRA_CA_CERTS="+pemFile, "NODE_TLS_REJECT_UNAUTHORIZED=")
		if got := strings.TrimSpace(string(out)); got != "read greeting 1: hello" {
			t.Fatalf("run %d of the README JS quick start printed %q, want %q; stderr:\n%s", i+1, got, "read greeting 1: hello", stderr)
		}
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

// TestReadmeJSQuickStart follows the README's JavaScript quick start as a
// new user does: in an empty folder, its shell commands in order (npm init,
// npm install @azure/cosmos@4 from the registry, curl for the certificate,
// node with NODE_EXTRA_CA_CERTS) with its app.mjs, against a live https
// emulator (the README's address replaced by the test's); the last command
// runs twice (the program must be idempotent) and prints the greeting.
func TestReadmeJSQuickStart(t *testing.T) {
	node, _ := jsSDK(t)
	for _, tool := range []string{"npm", "curl", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is required under CI", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	var commands []string
	for _, line := range strings.Split(docSnippets(t, "README.md", "Quick start: JavaScript", "sh")[0], "\n") {
		if line = strings.TrimSpace(line); line != "" {
			commands = append(commands, line)
		}
	}
	if len(commands) < 3 || !strings.HasSuffix(commands[len(commands)-1], "node app.mjs") {
		t.Fatalf("the quick start's commands %q do not end with node app.mjs", commands)
	}
	e := emulatortest.Start(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.mjs"), []byte(docSnippets(t, "README.md", "Quick start: JavaScript", "js")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "COSMOS_ENDPOINT="+e.Endpoint, "NODE_TLS_REJECT_UNAUTHORIZED=", "PATH="+filepath.Dir(node)+":"+os.Getenv("PATH"))
	run := func(command string) string {
		command = strings.ReplaceAll(command, "https://127.0.0.1:8081/", e.Endpoint)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.Output()
		t.Logf("%s: %v", command, time.Since(start).Round(time.Millisecond))
		if err != nil {
			var stderr []byte
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				stderr = ee.Stderr
			}
			t.Fatalf("%s: %v\n%s\n%s", command, err, out, stderr)
		}
		return string(out)
	}
	runQuickStart(t, commands, run)
}

// runQuickStart runs a quick start's commands in order through run, the
// last one (the program) twice, as it must be idempotent: each run must
// print the greeting.
func runQuickStart[C any](t *testing.T, commands []C, run func(C) string) {
	t.Helper()
	for _, c := range commands[:len(commands)-1] {
		run(c)
	}
	for i := range 2 {
		if out := run(commands[len(commands)-1]); strings.TrimSpace(out) != "read greeting 1: hello" {
			t.Fatalf("run %d printed %q, want %q", i+1, out, "read greeting 1: hello")
		}
	}
}
