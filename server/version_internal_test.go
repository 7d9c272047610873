package server

import (
	"os"
	"regexp"
	"testing"
)

// TestBuildVersionStamped: a revision stamped at link time (the Makefile's
// -ldflags -X ...server.Revision) is what BuildVersion reports, whatever
// the build information holds (none under -buildvcs=false); unstamped,
// the build information's revision or "unknown" is reported. The version
// is Version, never Go's "(devel)".
func TestBuildVersionStamped(t *testing.T) {
	saved := Revision
	defer func() { Revision = saved }()
	Revision = ""
	version, rev := BuildVersion()
	if rev == "" {
		t.Fatal("unstamped: empty revision, want the build information's or unknown")
	}
	if version != Version {
		t.Fatalf("version %q, want Version %q", version, Version)
	}
	Revision = "0123456789abcdef-modified"
	if _, rev := BuildVersion(); rev != Revision {
		t.Fatalf("stamped: revision %q, want %q", rev, Revision)
	}
}

// semver is a semantic version without a leading v (semver.org's grammar,
// simplified: numeric parts without leading zeros, optional pre-release and
// build metadata).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// TestVersionEverywhere: Version is a semantic version, and the places that
// repeat it agree with it: the Makefile's VERSION default, the Dockerfile's
// ARG VERSION default (the image's label and --version) and the first
// entry of CHANGELOG.md. A release bumps them together.
func TestVersionEverywhere(t *testing.T) {
	if !semver.MatchString(Version) {
		t.Fatalf("Version %q is not a semantic version", Version)
	}
	tests := []struct {
		file string
		re   string // its first submatch is the version the file states
	}{
		{"../Makefile", `(?m)^VERSION\s*\?=\s*(\S+)\s*$`},
		{"../Dockerfile", `(?m)^ARG VERSION=(\S+)\s*$`},
		{"../CHANGELOG.md", `(?m)^## \[?(\d[^\]\s]*)\]?`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(tc.re).FindSubmatch(b)
			if m == nil {
				t.Fatalf("%s states no version (%s)", tc.file, tc.re)
			}
			if string(m[1]) != Version {
				t.Errorf("%s says %s, server.Version is %s", tc.file, m[1], Version)
			}
		})
	}
}
