package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSPermissions runs compat_test/js/permissions.mjs: the JS SDK's own
// user, permission, authorization (functional and integration) and
// conflict tests, with clients built from resourceTokens (keyed by
// container id, item id and container link) and from a permissionFeed, the
// 403 and 401 cases, a partition-key-scoped token and an expired one (the
// frozen clock moved through the control endpoint).
func TestJSPermissions(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0)))
	out, stderr := runJS(t, node, dir, "permissions.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=perm")
	want := `PASS user CRUD
PASS user CRUD with upsert
PASS permission CRUD
PASS permission CRUD with upsert
PASS permission CRUD over multiple partitions
PASS permission CRUD over multiple partitions with upsert
PASS should handle all the key options
PASS should do authorization successfully name based
PASS should do authorization successfully name based with upsert
PASS should do authorization successfully over multiple partitions
PASS should allow deletion of a doc with container token
PASS integration authorization
PASS expired token
PASS conflicts
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK permissions:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}
