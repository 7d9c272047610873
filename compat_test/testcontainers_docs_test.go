package compat_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestcontainersDocsAreTheTests: the Testcontainers for Java and
// testcontainers-python examples of docs/testing-helpers.md are, byte for
// byte, the tests that scripts/ci/docker.sh runs against the image
// (compat_test/testcontainers/java and .../python), and every Java or
// Python line shown in docs/docker.md's sections for them is a line of
// those tests.
func TestTestcontainersDocsAreTheTests(t *testing.T) {
	for _, c := range []struct{ section, lang, file string }{
		{"Java: Testcontainers", "java", "testcontainers/java/src/test/java/example/CosmosEmulatorTest.java"},
		{"Python: testcontainers-python", "python", "testcontainers/python/test_cosmosdb.py"},
	} {
		b, err := os.ReadFile(filepath.FromSlash(c.file))
		if err != nil {
			t.Fatal(err)
		}
		test := string(b)
		snippets := docSnippets(t, "docs/testing-helpers.md", c.section, c.lang)
		if len(snippets) != 1 || snippets[0] != test {
			t.Errorf("docs/testing-helpers.md's section %q must hold exactly one ```%s block equal to %s; it has %d block(s), the first:\n%s",
				c.section, c.lang, c.file, len(snippets), strings.Join(snippets, "\n---\n"))
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(test, "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		shown := docSnippets(t, "docs/docker.md", c.section, c.lang)
		for _, s := range shown {
			for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
				if l = strings.TrimSpace(l); l != "" && l != "..." && !lines[l] {
					t.Errorf("docs/docker.md's section %q shows %q, which is no line of %s", c.section, l, c.file)
				}
			}
		}
	}
}
