package server_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestPackageBoundaries holds the import rules of the design: the domain
// knows no HTTP or SQL, the wire layer no SQL (nor the explorer, under
// server), the store no HTTP, the sweeper neither, the data explorer none
// of the layers it talks to over HTTP, and the compatibility tests only the
// SDK and emulatortest.
func TestPackageBoundaries(t *testing.T) {
	const mod = "github.com/cosmos-emulator/cosmos-emulator/"
	rules := []struct {
		pkg       string
		forbidden []string
	}{
		{mod + "emulator", []string{"net/http", "github.com/gorilla/mux", "github.com/jackc/pgx", mod + "wire", mod + "pgstore", mod + "ttl", mod + "server"}},
		// the init data loader works through the service like a client
		{mod + "emulator/seed", []string{"net/http", "github.com/gorilla/mux", "github.com/jackc/pgx", mod + "wire", mod + "pgstore", mod + "ttl", mod + "server"}},
		{mod + "wire", []string{"github.com/jackc/pgx", mod + "pgstore", mod + "ttl", mod + "server"}},
		{mod + "pgstore", []string{"net/http", "github.com/gorilla/mux", mod + "wire", mod + "ttl", mod + "server"}},
		{mod + "ttl", []string{"net/http", "github.com/jackc/pgx", mod + "pgstore", mod + "wire"}},
		// the data explorer is a client of the REST API like any other:
		// it knows no service, store or wire internals
		{mod + "server/explorer", []string{"github.com/jackc/pgx", mod + "emulator", mod + "pgstore", mod + "ttl", mod + "wire"}},
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", "-json=ImportPath", r.pkg).Output()
		if err != nil {
			if strings.Contains(r.pkg, "/ttl") {
				continue // the ttl package may not exist yet
			}
			t.Fatalf("go list %s: %v", r.pkg, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var p struct{ ImportPath string }
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			for _, f := range r.forbidden {
				if p.ImportPath == f || strings.HasPrefix(p.ImportPath, f+"/") {
					t.Errorf("%s depends on %s, which the design forbids", r.pkg, p.ImportPath)
				}
			}
		}
	}
	out, err := exec.Command("go", "list", "-test", "-f", "{{join .Imports \"\\n\"}}\n{{join .TestImports \"\\n\"}}\n{{join .XTestImports \"\\n\"}}", mod+"compat_test").Output()
	if err != nil {
		t.Fatalf("go list compat_test: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, mod) && imp != mod+"emulator/emulatortest" && !strings.HasPrefix(imp, mod+"compat_test") {
			t.Errorf("compat_test imports %s; it may import only the SDK and emulatortest", imp)
		}
	}
}

// TestTestHelpersLeaveDockerOut holds the test helpers light: emulatortest
// (and pgtest under it) is compiled into the test binaries of the
// emulator's users, so neither may pull in testcontainers or a Docker
// client; only the testcontainers module (emulator/cosmoscontainer), which
// exists to talk to Docker, may. The package counts are logged.
func TestTestHelpersLeaveDockerOut(t *testing.T) {
	const mod = "github.com/cosmos-emulator/cosmos-emulator/"
	forbidden := []string{"testcontainers", "docker", "moby"}
	for _, pkg := range []string{mod + "emulator/emulatortest", mod + "pgstore/pgtest"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
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
