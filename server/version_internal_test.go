package server

import "testing"

// TestBuildVersionStamped: a revision stamped at link time (the Makefile's
// -ldflags -X ...server.Revision) is what BuildVersion reports, whatever
// the build information holds (none under -buildvcs=false); unstamped,
// the build information's revision or "unknown" is reported.
func TestBuildVersionStamped(t *testing.T) {
	saved := Revision
	defer func() { Revision = saved }()
	Revision = ""
	if _, rev := BuildVersion(); rev == "" {
		t.Fatal("unstamped: empty revision, want the build information's or unknown")
	}
	Revision = "0123456789abcdef-modified"
	if _, rev := BuildVersion(); rev != Revision {
		t.Fatalf("stamped: revision %q, want %q", rev, Revision)
	}
}
