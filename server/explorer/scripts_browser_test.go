package explorer_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/chromedp/chromedp"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// connectedByServer is the page's condition for "connected with the key
// the server handed over".
const connectedByServer = `document.getElementById("key-status").dataset.state === "connected" && document.getElementById("key-status").textContent.endsWith(" with the key the emulator gave this page.")`

// createContainers creates database db with the containers colls
// (partition key /tenant) through the SDK.
func createContainers(t *testing.T, e *emulatortest.Emulator, db string, colls ...string) *azcosmos.DatabaseClient {
	t.Helper()
	ctx := context.Background()
	client := e.Client(t)
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: db}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := client.NewDatabase(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range colls {
		props := azcosmos.ContainerProperties{ID: c, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/tenant"}}}
		if _, err := d.CreateContainer(ctx, props, nil); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// placeSproc creates the item {id, tenant: "t1", qty} in the partition it
// runs in, logs a line and answers what it created; a second run with the
// same id meets a 409, which it throws.
const placeSproc = `function place(id, qty) {
    var c = getContext().getCollection();
    console.log("placing " + id + " for " + qty);
    var ok = c.createDocument(c.getSelfLink(), { id: id, tenant: "t1", qty: qty }, function (err, doc) {
        if (err) throw err;
        getContext().getResponse().setBody({ placed: doc.id, qty: doc.qty });
    });
    if (!ok) throw new Error("not accepted");
}`

// TestExplorerScripts: a stored procedure created in the page is listed,
// shown read-only, and runs with the partition key and parameters typed
// in: the response body, the request charge and the script log are shown,
// and the item it wrote is in that partition (read back with the SDK). A
// second run shows the service's error (400 with substatus 409), invalid
// parameters are refused before sending, logging can be turned off, and
// the edit mode replaces the body. A trigger (type and operation) and a
// UDF created in the page are listed; the UDF is deleted. The URL names
// the open procedure, and a reload shows it again.
func TestExplorerScripts(t *testing.T) {
	b := newBrowser(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	ctx := context.Background()
	db := createContainers(t, e, "app", "orders")

	b.do("open the explorer", chromedp.Navigate(e.Endpoint+"_explorer/index.html"))
	b.waitFor(connectedByServer)
	b.click(`#tree button.coll[data-db="app"][data-coll="orders"]`)
	b.click("#tab-scripts")
	b.noError("scripts tab")
	b.waitFor(`document.getElementById("sprocs-table").dataset.count === "0" && document.getElementById("udfs-table").dataset.count === "0"`)
	if h := b.eval(`location.hash`); h != "#db=app&coll=orders&tab=scripts" {
		t.Errorf("hash on the scripts tab: %q", h)
	}

	// create a stored procedure
	b.click("#new-sprocs")
	b.set("#script-id", "place")
	b.set("#script-body", placeSproc)
	b.click("#save-script")
	b.noError("create the stored procedure")
	b.waitFor(`document.querySelector('#sprocs tr[data-id="place"]') !== null`)
	if msg := b.text("#script-msg"); !strings.HasPrefix(msg, "Saved (created, ") {
		t.Errorf("message after create: %q", msg)
	}
	if got := b.eval(`String(document.getElementById("script-body").readOnly) + " " + document.getElementById("run-form").hidden`); got != "true false" {
		t.Errorf("after create, body read-only and run form hidden: %q, want true false", got)
	}
	if h := b.eval(`location.hash`); h != "#db=app&coll=orders&tab=scripts&sproc=place" {
		t.Errorf("hash with the procedure open: %q", h)
	}
	b.shot("sproc-created")

	// run it in partition t1 with two parameters
	b.set("#run-pk", "t1")
	b.set("#run-params", `["o1", 3]`)
	b.click("#run-sproc")
	b.noError("run the stored procedure")
	b.waitFor(`document.getElementById("run-summary").dataset.state === "done"`)
	var res struct {
		Placed string `json:"placed"`
		Qty    int    `json:"qty"`
	}
	if err := json.Unmarshal([]byte(b.text("#run-result")), &res); err != nil || res.Placed != "o1" || res.Qty != 3 {
		t.Errorf("response body shown %q (%v), want placed o1, qty 3", b.text("#run-result"), err)
	}
	if log := b.text("#run-log"); log != "placing o1 for 3" {
		t.Errorf("script log shown %q", log)
	}
	if sum := b.text("#run-summary"); !strings.HasPrefix(sum, "200: ran place, request charge ") || !strings.HasSuffix(sum, " RU.") {
		t.Errorf("run summary %q", sum)
	}
	b.shot("sproc-run")
	coll, err := db.NewContainer("orders")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := coll.ReadItem(ctx, azcosmos.NewPartitionKeyString("t1"), "o1", nil); err != nil {
		t.Errorf("the item the procedure wrote, read in partition t1: %v", err)
	}

	// the same run again: the script meets a 409 and throws it
	b.click("#run-sproc")
	if got := b.errorText(); !strings.HasPrefix(got, "400 BadRequest (substatus 409): ") || !strings.Contains(got, "Resource with specified id or name already exists") {
		t.Errorf("error shown for the second run: %q", got)
	}
	if st := b.eval(`document.getElementById("run-summary").dataset.state`); st != "failed" {
		t.Errorf("run summary state after the error: %q", st)
	}
	b.shot("sproc-error")
	b.click("#error-dismiss")

	// parameters that are not JSON: nothing is sent
	b.set("#run-params", `["o2", `)
	b.click("#run-sproc")
	if msg := b.text("#run-msg"); !strings.Contains(msg, "Not valid JSON") {
		t.Errorf("message for invalid parameters: %q", msg)
	}
	if got := b.errorText(); got != "" {
		t.Errorf("invalid parameters reached the service: %q", got)
	}

	// logging off: no script log
	b.do("turn logging off", chromedp.Click(chromedp.CSS("#run-logging")))
	b.set("#run-params", `["o2", 1]`)
	b.click("#run-sproc")
	b.noError("run without logging")
	b.waitFor(`document.getElementById("run-summary").dataset.state === "done"`)
	if log := b.text("#run-log"); log != "(logging off)" {
		t.Errorf("script log without logging: %q", log)
	}

	// edit mode: replace the body, run the new one
	b.click("#edit-script")
	if got := b.eval(`String(document.getElementById("script-body").readOnly)`); got != "false" {
		t.Errorf("body read-only in edit mode: %s", got)
	}
	b.set("#script-body", `function place() { getContext().getResponse().setBody({ version: 2 }); }`)
	b.click("#save-script")
	b.noError("replace the stored procedure")
	if msg := b.text("#script-msg"); !strings.HasPrefix(msg, "Saved (replaced, ") {
		t.Errorf("message after replace: %q", msg)
	}
	b.click("#run-sproc")
	b.noError("run the replaced procedure")
	b.waitFor(`document.getElementById("run-summary").dataset.state === "done"`)
	if got := b.text("#run-result"); !strings.Contains(got, `"version": 2`) {
		t.Errorf("response body of the replaced procedure: %q", got)
	}

	// a trigger and a user-defined function, listed
	b.click("#new-triggers")
	b.set("#script-id", "stamp")
	b.set("#script-trigger-type", "Post")
	b.set("#script-trigger-op", "Create")
	b.click("#save-script")
	b.noError("create the trigger")
	b.waitFor(`document.querySelector('#triggers tr[data-id="stamp"]') !== null`)
	if got := b.eval(`[...document.querySelector('#triggers tr[data-id="stamp"]').cells].map((c) => c.textContent).slice(0, 3).join(" ")`); got != "stamp Post Create" {
		t.Errorf("trigger row %q, want stamp Post Create", got)
	}
	b.click("#new-udfs")
	b.set("#script-id", "double")
	b.click("#save-script")
	b.noError("create the UDF")
	b.waitFor(`document.getElementById("udfs-table").dataset.count === "1" && document.querySelector('#udfs tr[data-id="double"]') !== null`)
	if h := b.eval(`location.hash`); h != "#db=app&coll=orders&tab=scripts&udf=double" {
		t.Errorf("hash with the UDF open: %q", h)
	}
	b.shot("scripts-listed")
	b.do("delete the UDF", chromedp.Click(chromedp.CSS("#delete-script")), chromedp.WaitVisible(chromedp.CSS("#confirm-ok")))
	b.click("#confirm-ok")
	b.noError("delete the UDF")
	b.waitFor(`document.getElementById("udfs-table").dataset.count === "0"`)

	// a link to the procedure: reload shows it again
	b.click(`#sprocs button[aria-label="Open stored procedure place"]`)
	b.do("reload", chromedp.Reload())
	b.waitFor(connectedByServer)
	b.waitFor(`!document.getElementById("script-form").hidden && document.getElementById("script-title").textContent === "Stored procedure place"`)
	b.noError("reload on the procedure")
	if got := b.eval(`document.getElementById("script-body").value`); !strings.Contains(got, "version: 2") {
		t.Errorf("body after reload: %q", got)
	}
	if got := b.eval(`document.getElementById("tab-scripts").getAttribute("aria-selected") + " " + document.getElementById("run-form").hidden`); got != "true false" {
		t.Errorf("after reload, scripts tab selected and run form shown: %q", got)
	}
	b.shot("sproc-reloaded")
}

// TestExplorerDeepLinks: a URL naming a database, container and tab opens
// them; clicks record the view in the URL; back and forward step through
// the views; reload and a pasted link restore the view; a link to a
// container that does not exist says so.
func TestExplorerDeepLinks(t *testing.T) {
	b := newBrowser(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	createContainers(t, e, "dl", "a", "b")
	page := e.Endpoint + "_explorer/index.html"

	// view is the condition that container coll is open on tab
	view := func(coll, tab string) string {
		return `!document.getElementById("coll-view").hidden && document.getElementById("coll-title").textContent === "dl / ` + coll +
			`" && document.getElementById("tab-` + tab + `").getAttribute("aria-selected") === "true" && !document.getElementById("panel-` + tab + `").hidden`
	}
	hash := func(want string) {
		t.Helper()
		if got := b.eval(`location.hash`); got != want {
			t.Errorf("hash %q, want %q", got, want)
		}
	}

	b.do("open a link to container b, ranges", chromedp.Navigate(page+"#db=dl&coll=b&tab=ranges"))
	b.waitFor(connectedByServer)
	b.waitFor(view("b", "ranges") + ` && document.getElementById("ranges-table").dataset.count === "1"`)
	b.noError("deep link")
	b.shot("deep-link")

	b.click(`#tree button.coll[data-db="dl"][data-coll="a"]`)
	b.waitFor(view("a", "ranges"))
	hash("#db=dl&coll=a&tab=ranges")
	b.click("#tab-query")
	hash("#db=dl&coll=a&tab=query")
	b.click(`#tree button.db[data-db="dl"]`)
	b.waitFor(`!document.getElementById("db-view").hidden`)
	hash("#db=dl")

	for _, step := range []struct {
		name string
		act  chromedp.Action[chromedp.Void]
		want string
	}{
		{"back to a, query", chromedp.NavigateBack(), view("a", "query")},
		{"back to a, ranges", chromedp.NavigateBack(), view("a", "ranges")},
		{"back to b, ranges", chromedp.NavigateBack(), view("b", "ranges")},
		{"forward to a, ranges", chromedp.NavigateForward(), view("a", "ranges")},
		{"forward to a, query", chromedp.NavigateForward(), view("a", "query")},
		{"reload", chromedp.Reload(), view("a", "query")},
	} {
		b.do(step.name, step.act)
		b.waitFor(step.want)
		b.do(step.name+": idle", idle())
		b.noError(step.name)
	}

	// a pasted link, in a fresh page
	href := b.eval(`location.href`)
	b.do("leave", chromedp.Navigate("about:blank"))
	b.do("paste the link", chromedp.Navigate(href))
	b.waitFor(connectedByServer)
	b.waitFor(view("a", "query"))

	// the settings tab of b, then a link to a container that does not exist
	b.do("leave", chromedp.Navigate("about:blank"))
	b.do("link to settings", chromedp.Navigate(page+"#db=dl&coll=b&tab=settings"))
	b.waitFor(view("b", "settings"))
	b.do("leave", chromedp.Navigate("about:blank"))
	b.do("link to a missing container", chromedp.Navigate(page+"#db=dl&coll=gone&tab=items"))
	b.waitFor(`!document.getElementById("error").hidden`)
	if got := b.errorText(); got != "404 NotFound: The link names container gone of database dl, which does not exist." {
		t.Errorf("error for a link to a missing container: %q", got)
	}
}

// TestExplorerConnectionState: the header says which endpoint the page is
// connected to, and that it is not connected once the emulator stops
// answering.
func TestExplorerConnectionState(t *testing.T) {
	b := newBrowser(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))

	b.do("open the explorer", chromedp.Navigate(e.Endpoint+"_explorer/index.html"))
	b.waitFor(connectedByServer)
	if got := b.text("#key-status"); got != "Connected to "+e.Endpoint+" with the key the emulator gave this page." {
		t.Errorf("connected text %q", got)
	}
	b.shot("connected")

	e.Stop(t)
	b.click("#refresh-tree")
	b.waitFor(`document.getElementById("key-status").dataset.state === "error"`)
	if got := b.text("#key-status"); !strings.HasPrefix(got, "Not connected: "+e.Endpoint+" does not answer. ") {
		t.Errorf("text once the emulator stopped: %q", got)
	}
	if got := b.errorText(); !strings.HasPrefix(got, "NetworkError: ") {
		t.Errorf("error shown once the emulator stopped: %q", got)
	}
	b.shot("not-answering")
}
