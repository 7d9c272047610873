package server

import "runtime/debug"

// Version is the emulator's release version (semantic versioning, without
// a leading "v"). Its default is the release this source tree is or
// prepares; the Makefile (VERSION) and the Dockerfile (ARG VERSION) stamp
// it at link time with -ldflags "-X
// github.com/cosmos-emulator/cosmos-emulator/server.Version=<version>",
// so that a build can name itself otherwise (e.g. 0.9.1-rc.1) without an
// edit here. A test keeps the Makefile's, the Dockerfile's and
// CHANGELOG.md's latest version equal to this default.
//
// 0.x: the REST surface the SDKs use is broad and tested, but the flags,
// the /_emulator control endpoints and the Go helpers may still change
// between minor versions; 1.0 will promise they do not.
var Version = "0.9.0"

// Revision is the VCS revision stamped at link time by the Makefile
// (-ldflags "-X github.com/cosmos-emulator/cosmos-emulator/server.Revision=<git rev-parse HEAD>[-modified]")
// and the Dockerfile (ARG REVISION), so that --version names it even when
// Go records no VCS information (GOFLAGS=-buildvcs=false, a worktree Go
// cannot read, an image built without .git). Empty: the revision comes
// from the build information.
var Revision string

// BuildVersion returns the emulator's version (Version) and VCS revision:
// Revision when stamped, else the build information's (with "-modified"
// when the tree had uncommitted changes), else the module version Go
// recorded for `go install <module>/cmd/cosmos-emulator@<version>` (a tag
// or a pseudo-version naming the commit), else "unknown".
func BuildVersion() (version, revision string) {
	return Version, buildRevision()
}

// buildRevision is BuildVersion's revision.
func buildRevision() string {
	if Revision != "" {
		return Revision
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	revision, modified := "", false
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			revision = st.Value
		case "vcs.modified":
			modified = st.Value == "true"
		}
	}
	switch {
	case revision != "" && modified:
		return revision + "-modified"
	case revision != "":
		return revision
	case bi.Main.Version != "" && bi.Main.Version != "(devel)":
		return "module " + bi.Main.Version
	}
	return "unknown"
}
