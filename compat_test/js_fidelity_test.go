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

// TestJSAllVersionsAndDeletesFromBeginning runs compat_test/js/
// changefeed_avad_beginning.mjs: in ChangeFeedMode.AllVersionsAndDeletes
// the JS SDK's ChangeFeedStartFrom.Beginning() - for the container, a
// partition key and a feed range - fails with the service's 400 "You must
// read the change feed from within the retention period.", while Now(),
// Time() and Continuation() read the changes and the latest version feed
// still starts from the beginning.
func TestJSAllVersionsAndDeletesFromBeginning(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	start := time.Now()
	out, stderr := runJS(t, node, dir, "changefeed_avad_beginning.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=avadbeginning")
	t.Logf("script ran in %v", time.Since(start))
	const refused = "error 400 You must read the change feed from within the retention period."
	want := `now 304
beginning: ` + refused + `
beginning p: ` + refused + `
beginning range: ` + refused + `
time: ok a,b
time p: ok a
now: ok a,b
continuation: ok d
latest version beginning: ok a,b,c,d
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK all versions and deletes from the beginning:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}

// TestJSContainerQuotaInfo runs compat_test/js/quota.mjs: the JS SDK's
// container.read({populateQuotaInfo: true}) gets the index transformation
// progress (100: no reindex pending), x-ms-resource-quota and an
// x-ms-resource-usage that counts the container's items; a plain read gets
// neither usage nor progress.
func TestJSContainerQuotaInfo(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	start := time.Now()
	out, stderr := runJS(t, node, dir, "quota.mjs", 90*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=quota")
	t.Logf("script ran in %v", time.Since(start))
	want := `empty progress=100 documentsCount=0 quota=true usage=true
three progress=100 documentsCount=3 quota=true usage=true
without progress=- documentsCount=- quota=true usage=false
`
	if got := string(out); got != want {
		t.Fatalf("JS SDK container read with quota info:\n%s\nwant:\n%s\nstderr:\n%s", got, want, strings.TrimSpace(stderr))
	}
}
