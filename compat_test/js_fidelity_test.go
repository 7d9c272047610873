package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
)

// TestJSNonPartitionedContainer runs compat_test/js/nonpartitioned.mjs: a
// container created without a partition key at an old API version (system
// key /_partitionKey) takes the JS SDK's whole item cycle - create, read,
// replace, upsert, patch, batch, delete - with the partition key header []
// the SDK sends for it, and the items are found by queries (cross-partition
// and with partitionKey []), readAll and the change feed from the
// beginning.
func TestJSNonPartitionedContainer(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	start := time.Now()
	out, stderr := runJS(t, node, dir, "nonpartitioned.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=nonpartitioned")
	t.Logf("script ran in %v", time.Since(start))
	want := `CONTAINER /_partitionKey systemKey=true
CREATE 201 a 1
READ a 1
REPLACE 2
UPSERT 201 200 2
PATCH 3
BATCH 201,200
QUERY a,t,u
QUERY [] a,u
READALL a,t,u
CHANGEFEED a,t,u
DELETE 204
READ deleted: 404 true
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK on a non-partitioned container:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}
