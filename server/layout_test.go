package server_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// mod is the module path of the emulator.
const mod = "github.com/cosmos-emulator/cosmos-emulator/"

// outerLayers are the packages the domain (emulator and every package under
// it) must not depend on: the HTTP and SQL libraries, the layers around the
// domain, and the test helpers that assemble those layers.
var outerLayers = []string{
	"net/http", "github.com/gorilla/mux", "github.com/jackc/pgx",
	mod + "wire", mod + "pgstore", mod + "ttl", mod + "server",
	mod + "emulatortest", mod + "cosmoscontainer",
	mod + "emulator/emulatortest", mod + "emulator/cosmoscontainer",
}

// deprecatedAliases are the former import paths of the test helpers, kept
// for one release: packages under emulator/ that only forward to their new
// home (and may import nothing else of the module but the domain itself).
var deprecatedAliases = map[string]string{
	mod + "emulator/emulatortest":    mod + "emulatortest",
	mod + "emulator/cosmoscontainer": mod + "cosmoscontainer",
}

// forbiddenDeps returns the packages of deps that match a forbidden path
// (the path itself or a package under it).
func forbiddenDeps(deps, forbidden []string) []string {
	var bad []string
	for _, d := range deps {
		for _, f := range forbidden {
			if d == f || strings.HasPrefix(d, f+"/") {
				bad = append(bad, d)
				break
			}
		}
	}
	return bad
}

// goList runs go list with args and returns the import paths it prints,
// one per line.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return strings.Fields(string(out))
}

// TestForbiddenDepsCatchesViolations keeps the boundary check able to fail:
// a domain package that reached a helper, a layer or a package under one is
// reported, and one that did not is not.
func TestForbiddenDepsCatchesViolations(t *testing.T) {
	cases := []struct {
		name string
		deps []string
		want []string
	}{
		{"clean domain", []string{"fmt", mod + "emulator/cosmosql", mod + "emulator/jsengine"}, nil},
		{"the in-process helper", []string{"fmt", mod + "emulatortest"}, []string{mod + "emulatortest"}},
		{"the container module", []string{mod + "cosmoscontainer"}, []string{mod + "cosmoscontainer"}},
		{"a package under the store", []string{mod + "pgstore/sqlgen"}, []string{mod + "pgstore/sqlgen"}},
		{"the server", []string{mod + "server", mod + "server/explorer"}, []string{mod + "server", mod + "server/explorer"}},
		{"a name that only starts like a layer", []string{mod + "wirex", mod + "serverless"}, nil},
		{"net/http", []string{"net/http", "net/http/httptest"}, []string{"net/http", "net/http/httptest"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := forbiddenDeps(c.deps, outerLayers); !slices.Equal(got, c.want) {
				t.Errorf("forbiddenDeps(%v) = %v, want %v", c.deps, got, c.want)
			}
		})
	}
}

// TestPackageBoundaries holds the import rules of the design: every import
// arrow points inwards. The domain (emulator and every package under it,
// found by go list so that a new one is covered) knows no HTTP, no SQL, no
// outer layer and no test helper; the wire layer no SQL (nor the explorer,
// under server), the store no HTTP, the sweeper neither, the data explorer
// none of the layers it talks to over HTTP, and the compatibility tests only
// the SDK and emulatortest. The deprecated aliases at the helpers' former
// paths import only their new home (and the domain).
func TestPackageBoundaries(t *testing.T) {
	type rule struct {
		pkg       string
		forbidden []string
	}
	var rules []rule
	domain := goList(t, mod+"emulator/...")
	for _, p := range domain {
		if _, alias := deprecatedAliases[p]; alias {
			continue
		}
		rules = append(rules, rule{p, outerLayers})
	}
	if len(rules) < 4 { // emulator, cosmosql, jsengine, seed at least
		t.Fatalf("go list %semulator/... found only %v", mod, domain)
	}
	rules = append(rules,
		rule{mod + "wire", []string{"github.com/jackc/pgx", mod + "pgstore", mod + "ttl", mod + "server", mod + "emulatortest", mod + "cosmoscontainer"}},
		rule{mod + "pgstore", []string{"net/http", "github.com/gorilla/mux", mod + "wire", mod + "ttl", mod + "server", mod + "emulatortest", mod + "cosmoscontainer"}},
		rule{mod + "ttl", []string{"net/http", "github.com/jackc/pgx", mod + "pgstore", mod + "wire", mod + "emulatortest", mod + "cosmoscontainer"}},
		rule{mod + "server", []string{mod + "emulatortest", mod + "cosmoscontainer"}},
		// the data explorer is a client of the REST API like any other:
		// it knows no service, store or wire internals
		rule{mod + "server/explorer", []string{"github.com/jackc/pgx", mod + "emulator", mod + "pgstore", mod + "ttl", mod + "wire"}},
	)
	for _, r := range rules {
		deps := goList(t, "-deps", r.pkg)
		for _, d := range forbiddenDeps(deps, r.forbidden) {
			t.Errorf("%s depends on %s, which the design forbids", r.pkg, d)
		}
	}
	for alias, home := range deprecatedAliases {
		imports := goList(t, "-f", `{{join .Imports "\n"}}`, alias)
		for _, imp := range imports {
			if strings.HasPrefix(imp, mod) && imp != home && imp != mod+"emulator" {
				t.Errorf("deprecated alias %s imports %s; it may forward only to %s", alias, imp, home)
			}
		}
		if !slices.Contains(imports, home) {
			t.Errorf("deprecated alias %s does not forward to %s", alias, home)
		}
	}
	out, err := exec.Command("go", "list", "-test", "-f", "{{join .Imports \"\\n\"}}\n{{join .TestImports \"\\n\"}}\n{{join .XTestImports \"\\n\"}}", mod+"compat_test").Output()
	if err != nil {
		t.Fatalf("go list compat_test: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, mod) && imp != mod+"emulatortest" && !strings.HasPrefix(imp, mod+"compat_test") {
			t.Errorf("compat_test imports %s; it may import only the SDK and emulatortest", imp)
		}
	}
}

// TestTestHelpersLeaveDockerOut holds the test helpers light: emulatortest
// (and pgtest under it) is compiled into the test binaries of the
// emulator's users, so neither may pull in testcontainers or a Docker
// client; only the testcontainers module (cosmoscontainer), which exists to
// talk to Docker, may. The package counts are logged.
func TestTestHelpersLeaveDockerOut(t *testing.T) {
	forbidden := []string{"testcontainers", "docker", "moby"}
	for _, pkg := range []string{mod + "emulatortest", mod + "emulator/emulatortest", mod + "pgstore/pgtest"} {
		deps := goList(t, "-deps", pkg)
		t.Logf("%s: %d packages (standard library included)", pkg, len(deps))
		for _, d := range deps {
			for _, f := range forbidden {
				if strings.Contains(strings.ToLower(d), f) {
					t.Errorf("%s depends on %s: the test helpers must not compile testcontainers or a Docker client into their users' tests", pkg, d)
				}
			}
		}
	}
}
