package compat_test

import "testing"

// TestJSNonPartitionedContainer runs compat_test/js/nonpartitioned.mjs: a
// container created without a partition key at an old API version (system
// key /_partitionKey) takes the JS SDK's whole item cycle - create, read,
// replace, upsert, patch, batch, delete - with the partition key header []
// the SDK sends for it, and the items are found by queries (cross-partition
// and with partitionKey []), readAll and the change feed from the
// beginning.
func TestJSNonPartitionedContainer(t *testing.T) {
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
	checkJSScript(t, "JS SDK on a non-partitioned container", "nonpartitioned.mjs", "nonpartitioned", want)
}

// TestJSAllVersionsAndDeletesFromBeginning runs compat_test/js/
// changefeed_avad_beginning.mjs: in ChangeFeedMode.AllVersionsAndDeletes
// the JS SDK's ChangeFeedStartFrom.Beginning() - for the container, a
// partition key and a feed range - fails with the service's 400 "You must
// read the change feed from within the retention period.", while Now(),
// Time() and Continuation() read the changes and the latest version feed
// still starts from the beginning.
func TestJSAllVersionsAndDeletesFromBeginning(t *testing.T) {
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
	checkJSScript(t, "JS SDK all versions and deletes from the beginning", "changefeed_avad_beginning.mjs", "avadbeginning", want)
}

// TestJSContainerQuotaInfo runs compat_test/js/quota.mjs: the JS SDK's
// container.read({populateQuotaInfo: true}) gets the index transformation
// progress (100: no reindex pending), x-ms-resource-quota and an
// x-ms-resource-usage that counts the container's items; a plain read gets
// neither usage nor progress.
func TestJSContainerQuotaInfo(t *testing.T) {
	want := `empty progress=100 documentsCount=0 quota=true usage=true
three progress=100 documentsCount=3 quota=true usage=true
without progress=- documentsCount=- quota=true usage=false
`
	checkJSScript(t, "JS SDK container read with quota info", "quota.mjs", "quota", want)
}
