package compat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// TestJSStoredProcedures runs compat_test/js/scripts.mjs: the well-known
// stored procedures (helloWorld, createToDoItems, bulkImport with
// isAccepted and resumption, tradePlayers with its rollback, async_sample
// with Promises and abort, SimpleScript, Count and bulkDelete with
// pageSize and continuation, the JS SDK's test procedures with their
// exact values, hierarchical partition keys, script logging, error
// sub-statuses, replace and delete) through @azure/cosmos.
func TestJSStoredProcedures(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	out, _ := runJS(t, node, dir, "scripts.mjs", 240*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=scripts")
	want := `OK helloWorld
OK createToDoItems
OK bulkImport
OK tradePlayers
OK async_sample
OK SimpleScript
OK Count
OK bulkDelete
OK JS SDK procedures
OK hierarchical partitions
OK logging
OK errors
OK replace and delete
`
	if got := string(out); got != want {
		t.Fatalf("scripts.mjs printed\n%s\nwant\n%s", got, strings.TrimSpace(want))
	}
}

// TestJSTriggers runs compat_test/js/triggers.mjs: the JS SDK's own
// trigger tests (pre-triggers rewriting the id, a post-trigger checking
// the request and response bodies, an operation mismatch refused with
// 400), the docs' validateToDoItemTimestamp and updateMetadata (with its
// rollback), and the .NET tests' setJobNumber, through @azure/cosmos.
func TestJSTriggers(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	out, _ := runJS(t, node, dir, "triggers.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=triggers")
	want := `OK trigger.spec.ts
OK validateToDoItemTimestamp
OK updateMetadata
OK setJobNumber
OK not named, not run
`
	if got := string(out); got != want {
		t.Fatalf("triggers.mjs printed\n%s\nwant\n%s", got, strings.TrimSpace(want))
	}
}

// TestJSUDFs runs compat_test/js/udf.mjs: the docs' Tax UDF in WHERE and
// SELECT, queries through the SDK's pipeline (query plan, ORDER BY, TOP)
// with UDFs, paging with a selective UDF filter, undefined arguments, and
// a throwing, an unknown and a looping UDF and more than 10 references,
// through @azure/cosmos.
func TestJSUDFs(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithScriptLimits(time.Second, 0))
	out, _ := runJS(t, node, dir, "udf.mjs", 120*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=udf")
	want := `OK Tax in WHERE
OK Tax in SELECT, undefined arguments
OK pipeline queries
OK paging exactly once
OK errors
`
	if got := string(out); got != want {
		t.Fatalf("udf.mjs printed\n%s\nwant\n%s", got, strings.TrimSpace(want))
	}
}
