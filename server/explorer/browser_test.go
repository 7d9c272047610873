package explorer_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
	"github.com/cosmos-emulator/cosmos-emulator/wire"
)

// The browser tests drive Debian's headless Chromium through the DevTools
// protocol (chromedp) and click through the explorer as a user would.
// They skip when no Chromium is installed, except under CI (CI set),
// where that is a failure. Screenshots go to $COSMOS_TEST_ARTIFACTS/explorer,
// or compat_test/out/explorer/ in the repository (ignored by git).

// chromiumPath finds the browser: $COSMOS_TEST_CHROMIUM, else chromium
// (Debian), chromium-browser or google-chrome on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("COSMOS_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium found (CI must not skip the explorer tests): apt-get install -y chromium")
	}
	t.Skip("no Chromium found: apt-get install -y chromium to run the explorer's browser tests")
	return ""
}

// artifactsDir is where screenshots are saved.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "compat_test", "out", "explorer")
	if d := os.Getenv("COSMOS_TEST_ARTIFACTS"); d != "" {
		dir = filepath.Join(d, "explorer")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser is one headless Chromium tab for a test.
type browser struct {
	t   *testing.T
	ctx context.Context
	dir string
	n   int

	mu         sync.Mutex
	exceptions []string
}

// newBrowser starts Chromium with a fresh profile and the flags that keep
// it off the (closed) network; it is stopped when the test ends.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.IgnoreCertErrors, // the emulator's self-signed certificate
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, dir: artifactsDir(t)}
	// Listen starts the browser (with no timeout: it lives until cleanup)
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok && e.ExceptionDetails != nil {
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			b.mu.Lock()
			b.exceptions = append(b.exceptions, msg)
			b.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.exceptions {
			t.Errorf("uncaught exception in the page: %s", e)
		}
	})
	return b
}

// stepTimeout bounds one step, so that a page that never reaches the
// awaited state fails the test instead of hanging it.
const stepTimeout = time.Minute

// do performs actions, failing the test on error with a screenshot.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot("failed")
		b.t.Fatalf("%s: %v (page error: %q)", what, err, b.errorText())
	}
}

// idle waits until the page has no action in flight.
func idle() chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`document.body.dataset.pending === "0"`, chromedp.WithPollingInterval(20*time.Millisecond))
}

// click clicks the element of the CSS selector sel and waits for the
// action it starts to end. It clicks again when the element it found was
// replaced before the click reached it (DevTools: "Could not find node with
// given id"), as a re-render by an action still in flight does. (It cannot
// wait for the page to be idle first: a confirmation dialog is an action
// in flight until its button is clicked.)
func (b *browser) click(sel string) {
	b.t.Helper()
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
		err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)), idle())
		cancel()
		if err == nil {
			return
		}
		if attempt < 5 && strings.Contains(err.Error(), "Could not find node with given id") {
			b.t.Logf("click %s: the element was replaced before the click (%v); again", sel, err)
			continue
		}
		b.shot("failed")
		b.t.Fatalf("click %s: %v (page error: %q)", sel, err, b.errorText())
	}
}

// set replaces the value of the input, select or textarea sel.
func (b *browser) set(sel, value string) {
	b.t.Helper()
	b.do("set "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.SetValue(chromedp.CSS(sel), value))
}

// text returns the text content of sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return b.eval(`document.querySelector(` + jsString(sel) + `).textContent`)
}

// eval evaluates a JavaScript expression to a string (a promise is
// awaited).
func (b *browser) eval(expr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.shot("failed")
		b.t.Fatalf("eval %s: %v", expr, err)
	}
	return s
}

// waitFor waits until the JavaScript condition holds.
func (b *browser) waitFor(cond string) {
	b.t.Helper()
	b.do("wait for "+cond, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(20*time.Millisecond)))
}

// errorText is the text of the page's error region ("" when hidden).
func (b *browser) errorText() string {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("error").hidden ? "" : document.getElementById("error-text").textContent`))
	return s
}

// noError fails the test when the page shows an error.
func (b *browser) noError(step string) {
	b.t.Helper()
	if s := b.errorText(); s != "" {
		b.shot("failed")
		b.t.Fatalf("%s: the page shows the error %q", step, s)
	}
}

// shot saves a full-page PNG screenshot named after the test and step.
func (b *browser) shot(name string) {
	b.n++
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(b.dir, fmt.Sprintf("%s-%02d-%s.png", strings.ReplaceAll(b.t.Name(), "/", "_"), b.n, name))
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestExplorerClickThrough opens the explorer on a loopback emulator (the
// server hands the page its key) and goes through what a user does:
// create a database (with the keyboard) and a container with a default
// TTL, add items, see a client-side and a service error, query with
// paging, read the change feed, advance the emulator clock and see items
// expire and then be swept, edit and delete an item, delete the container
// and the database.
func TestExplorerClickThrough(t *testing.T) {
	b := newBrowser(t)
	t0 := time.Now().Truncate(time.Second)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithFrozenClock(t0), emulatortest.WithoutBackgroundSweeper())

	b.do("open the explorer", chromedp.Navigate(e.Endpoint+"_explorer/index.html"))
	b.waitFor(`document.getElementById("key-status").textContent.endsWith(" with the key the emulator gave this page.")`)
	b.noError("connect")
	b.shot("connected")

	// a database, created with the keyboard (Enter submits the form)
	b.do("open the new database form", chromedp.Click(chromedp.CSS("#new-db-details summary")))
	b.do("type the database id", chromedp.SendKeys(chromedp.CSS("#new-db-id"), "shop\r"), idle())
	b.noError("create database")
	b.waitFor(`document.querySelector('#tree button.db[data-db="shop"]') !== null && !document.getElementById("db-view").hidden`)
	if got := b.text("#db-title"); got != "Database shop" {
		t.Errorf("database view title %q", got)
	}

	// a container with partition key /tenant and defaultTtl 60
	b.set("#new-coll-id", "carts")
	b.set("#new-coll-pk", "/tenant")
	b.do("choose TTL seconds", chromedp.Click(chromedp.CSS(`#new-coll-form input[name="ttl-mode"][value="seconds"]`)))
	b.set("#new-coll-ttl", "60")
	b.set("#new-coll-throughput", "500")
	b.click(`#new-coll-form button[type="submit"]`)
	b.noError("create container")
	b.waitFor(`!document.getElementById("coll-view").hidden && document.getElementById("coll-title").textContent === "shop / carts"`)
	b.click("#tab-settings")
	settings := b.text("#coll-settings")
	for _, want := range []string{"/tenant", "60 seconds after the last write", "Hash", "500 RU/s (manual)"} {
		if !strings.Contains(settings, want) {
			t.Errorf("container settings %q lack %q", settings, want)
		}
	}
	if idx := b.text("#coll-indexing"); !strings.Contains(idx, `"indexingMode": "consistent"`) {
		t.Errorf("indexing policy %q", idx)
	}
	b.shot("container-settings")

	// the tabs follow the keyboard (arrow keys move and wrap)
	b.do("arrow right on the last tab", chromedp.SendKeys(chromedp.CSS("#tab-settings"), kb.ArrowRight))
	if got := b.eval(`document.activeElement.id + " " + document.getElementById("tab-items").getAttribute("aria-selected") + " " + document.getElementById("panel-items").hidden`); got != "tab-items true false" {
		t.Errorf("after ArrowRight on the last tab: %q", got)
	}

	// items: a and b expire with the default TTL, c never (ttl -1)
	for _, doc := range []string{
		`{"id":"a","tenant":"t1","n":1}`,
		`{"id":"b","tenant":"t1","n":2}`,
		`{"id":"c","tenant":"t2","n":3,"ttl":-1}`,
	} {
		b.click("#new-item")
		b.set("#editor", doc)
		b.click("#save-item")
		b.noError("create item " + doc)
		b.waitFor(`document.getElementById("editor-msg").textContent === "Saved (created)."`)
	}
	b.waitFor(`document.getElementById("item-count").dataset.count === "3"`)
	b.shot("items")

	// invalid JSON is caught before sending; a service 400 is shown
	b.click("#new-item")
	b.set("#editor", `{"id": "x", "tenant": `)
	b.click("#save-item")
	if msg := b.text("#editor-msg"); !strings.Contains(msg, "Not valid JSON") {
		t.Errorf("editor message for invalid JSON: %q", msg)
	}
	if invalid := b.eval(`document.getElementById("editor").getAttribute("aria-invalid")`); invalid != "true" {
		t.Errorf("aria-invalid on the editor = %q", invalid)
	}
	b.set("#editor", `{"id":"bad","tenant":"t1","ttl":0}`)
	b.click("#save-item")
	if got := b.errorText(); !strings.HasPrefix(got, "400 BadRequest: ") || !strings.Contains(got, "The input ttl '0' is invalid") {
		t.Errorf("error shown for ttl 0: %q", got)
	}
	b.shot("item-error")
	b.click("#error-dismiss")
	b.click("#close-editor")

	// items paging: two per page
	b.do("two items per page", chromedp.SetValue(chromedp.CSS("#items-page-size"), "2"), chromedp.Evaluate[chromedp.Void](`document.getElementById("items-page-size").dispatchEvent(new Event("change"))`), idle())
	b.waitFor(`document.querySelectorAll("#items tr").length === 2 && !document.getElementById("items-next").disabled`)
	b.click("#items-next")
	b.waitFor(`document.querySelectorAll("#items tr").length === 1 && document.getElementById("items-next").disabled && !document.getElementById("items-prev").disabled`)
	b.click("#items-prev")
	b.waitFor(`document.querySelectorAll("#items tr").length === 2`)

	// a query, paged two results at a time, with its request charge
	b.click("#tab-query")
	b.set("#query", "SELECT c.id, c.n FROM c ORDER BY c.n DESC")
	b.set("#query-page-size", "2")
	b.click(`#query-form button[type="submit"]`)
	b.noError("query")
	sum := b.text("#query-summary")
	if !strings.Contains(sum, "Page 1: 2 results, request charge ") || !strings.Contains(sum, "More results on the next page") {
		t.Errorf("query summary %q", sum)
	}
	if res := b.text("#query-results"); !strings.Contains(res, `"id": "c"`) || !strings.Contains(res, `"id": "b"`) || strings.Contains(res, `"id": "a"`) {
		t.Errorf("query page 1: %s", res)
	}
	b.shot("query")
	b.click("#query-next")
	if sum := b.text("#query-summary"); !strings.Contains(sum, "Page 2: 1 result,") || !strings.Contains(sum, "No more results") {
		t.Errorf("query summary page 2 %q", sum)
	}
	// a bad query: the service's 400 and its message
	b.set("#query", "SELECT * FORM c")
	b.click(`#query-form button[type="submit"]`)
	if got := b.errorText(); !strings.HasPrefix(got, "400 BadRequest: ") {
		t.Errorf("error shown for a bad query: %q", got)
	}
	b.shot("query-error")
	b.click("#error-dismiss")

	// the change feed from the beginning, then caught up
	b.click("#tab-feed")
	b.click("#feed-start")
	b.noError("change feed")
	if sum := b.text("#feed-summary"); !strings.Contains(sum, "Page 1: 3 changes") {
		t.Errorf("change feed summary %q", sum)
	}
	b.shot("change-feed")
	b.click("#feed-next")
	if sum := b.text("#feed-summary"); !strings.Contains(sum, "caught up") {
		t.Errorf("change feed summary after the last page %q", sum)
	}

	// TTL: stored rows and live items, then the clock moves past the TTL
	row := `#stats tr[data-db="shop"][data-coll="carts"]`
	b.click("#refresh-stats")
	b.waitFor(`document.querySelector('` + row + ` .stored')?.textContent === "3" && document.querySelector('` + row + ` .live')?.textContent === "3"`)
	b.click("#tab-items")
	b.set("#advance-seconds", "61")
	b.click("#advance-clock")
	b.noError("advance the clock")
	b.waitFor(`document.getElementById("item-count").dataset.count === "1"`)
	b.waitFor(`document.querySelector('` + row + ` .stored').textContent === "3" && document.querySelector('` + row + ` .live').textContent === "1"`)
	if rows := b.eval(`[...document.querySelectorAll("#items tr")].map((r) => r.dataset.id).join(",")`); rows != "c" {
		t.Errorf("items listed after expiry: %q, want c", rows)
	}
	if off := b.text("#clock-offset"); !strings.Contains(off, "moved 61 s ahead") {
		t.Errorf("clock offset %q", off)
	}
	b.shot("expired")
	b.click("#sweep")
	b.waitFor(`document.querySelector('` + row + ` .stored').textContent === "1"`)
	if sw := b.text("#sweeper-stats"); !strings.Contains(sw, "2 rows deleted") {
		t.Errorf("sweeper counters %q", sw)
	}
	b.shot("swept")

	// edit the remaining item, then delete it (confirmed in a dialog)
	b.click(`#items button[aria-label="Open item c"]`)
	b.noError("open item")
	doc := b.eval(`document.getElementById("editor").value`)
	if !strings.Contains(doc, `"_etag"`) || !strings.Contains(doc, `"n": 3`) {
		t.Errorf("editor holds %s", doc)
	}
	b.set("#editor", `{"id":"c","tenant":"t2","n":30,"ttl":-1}`)
	b.click("#save-item")
	b.noError("replace item")
	b.waitFor(`document.getElementById("editor-msg").textContent === "Saved (replaced)."`)
	doc = b.eval(`document.getElementById("editor").value`)
	if !strings.Contains(doc, `"n": 30`) {
		t.Errorf("editor after replace holds %s", doc)
	}
	b.do("delete item", chromedp.Click(chromedp.CSS("#delete-item")), chromedp.WaitVisible(chromedp.CSS("#confirm-ok")))
	b.shot("confirm-delete")
	b.click("#confirm-ok")
	b.noError("delete item")
	b.waitFor(`document.getElementById("item-count").dataset.count === "0"`)

	// an id and a partition key value outside ASCII (path encoding, the
	// escaped partition key header): create, open, delete
	b.click("#new-item")
	b.set("#editor", `{"id":"é x?","tenant":"ü"}`)
	b.click("#save-item")
	b.noError("create a non-ASCII item")
	b.waitFor(`document.getElementById("item-count").dataset.count === "1"`)
	b.click(`#items button[aria-label="Open item é x?"]`)
	b.noError("open a non-ASCII item")
	if doc := b.eval(`document.getElementById("editor").value`); !strings.Contains(doc, `"tenant": "ü"`) {
		t.Errorf("editor holds %s", doc)
	}
	b.do("delete the non-ASCII item", chromedp.Click(chromedp.CSS("#delete-item")), chromedp.WaitVisible(chromedp.CSS("#confirm-ok")))
	b.click("#confirm-ok")
	b.noError("delete a non-ASCII item")
	b.waitFor(`document.getElementById("item-count").dataset.count === "0"`)

	// change the container's TTL (replace the container)
	b.click("#tab-settings")
	b.set("#ttl-select", "on")
	b.click(`#ttl-form button[type="submit"]`)
	b.noError("change the TTL")
	if got := b.text("#coll-settings"); !strings.Contains(got, "on, no default (-1)") {
		t.Errorf("settings after the TTL change: %q", got)
	}

	// delete the container, then the database
	b.do("delete container", chromedp.Click(chromedp.CSS("#delete-coll")), chromedp.WaitVisible(chromedp.CSS("#confirm-ok")))
	b.click("#confirm-ok")
	b.noError("delete container")
	b.waitFor(`!document.getElementById("db-view").hidden && document.querySelector('#tree button.coll') === null`)
	b.do("delete database", chromedp.Click(chromedp.CSS("#delete-db")), chromedp.WaitVisible(chromedp.CSS("#confirm-ok")))
	b.click("#confirm-ok")
	b.noError("delete database")
	b.waitFor(`document.querySelector('#tree button.db') === null && !document.getElementById("welcome").hidden`)
	b.shot("deleted")
}

// TestExplorerEnteredKey: an emulator listening on all interfaces, over
// https and with its own key, does not hand the page the key; the page
// says why, a wrong key shows the service's 401, and the key typed in
// connects.
func TestExplorerEnteredKey(t *testing.T) {
	b := newBrowser(t)
	key := base64.StdEncoding.EncodeToString([]byte("a key that only the user knows, 48 bytes long..."))
	e := emulatortest.Start(t, emulatortest.WithKey(key), func(c *server.Config) { c.Addr = "0.0.0.0:0" })

	b.do("open the explorer", chromedp.Navigate(e.Endpoint+"_explorer/index.html"))
	b.waitFor(`document.getElementById("key-status").textContent.includes("not on a loopback address")`)
	if got := b.text("#welcome-text"); !strings.HasPrefix(got, "Connect with the account key") {
		t.Errorf("welcome text while not connected: %q", got)
	}
	if val := b.eval(`document.getElementById("key").value`); val != "" {
		t.Errorf("the key field holds %q", val)
	}
	b.click("#well-known") // not this emulator's key
	if got := b.errorText(); !strings.HasPrefix(got, "401 Unauthorized: ") {
		t.Errorf("error shown for a wrong key: %q", got)
	}
	if got := b.text("#key-status"); !strings.HasPrefix(got, "Not connected to "+e.Endpoint+": 401 Unauthorized: ") {
		t.Errorf("header for a wrong key: %q", got)
	}
	b.shot("wrong-key")
	b.set("#key", key)
	b.do("connect with Enter", chromedp.SendKeys(chromedp.CSS("#key"), "\r"), idle())
	b.noError("connect with the typed key")
	b.waitFor(`document.getElementById("key-status").textContent === "Connected to ` + e.Endpoint + `."`)
	if got := b.text("#welcome-text"); strings.Contains(got, "Connect") {
		t.Errorf("welcome text once connected still asks to connect: %q", got)
	}
	b.do("open the new database form", chromedp.Click(chromedp.CSS("#new-db-details summary")))
	b.set("#new-db-id", "typed")
	b.click(`#new-db-form button[type="submit"]`)
	b.noError("create database")
	b.waitFor(`document.querySelector('#tree button.db[data-db="typed"]') !== null`)
	b.shot("connected")
}

// TestExplorerSignatures checks the page's signing code against the
// server's (wire.Sign): WebCrypto and the script HMAC-SHA256 used where
// the page is not a secure context give the same signatures, for keys and
// payloads of the lengths that exercise SHA-256 padding.
func TestExplorerSignatures(t *testing.T) {
	b := newBrowser(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	b.do("open the explorer", chromedp.Navigate(e.Endpoint+"_explorer/index.html"), idle())
	for _, tt := range []struct {
		key     []byte
		payload string
	}{
		{[]byte("k"), ""},
		{[]byte(strings.Repeat("k", 64)), strings.Repeat("a", 55)},
		{[]byte(strings.Repeat("k", 65)), strings.Repeat("a", 56)},
		{[]byte(strings.Repeat("\xff", 100)), strings.Repeat("a", 64)},
		{[]byte("0123456789"), "get\ndocs\ndbs/d/colls/c/docs/é ü\nthu, 26 nov 2026 17:00:00 gmt\n\n"},
	} {
		want := wire.Sign(tt.key, tt.payload)
		k := base64.StdEncoding.EncodeToString(tt.key)
		for _, script := range []bool{false, true} {
			got := b.eval(fmt.Sprintf(`(async () => {
				const { sign } = await import("./hmac.js");
				const key = Uint8Array.from(atob(%s), (c) => c.charCodeAt(0));
				return btoa(String.fromCharCode(...await sign(key, %s, %v)));
			})()`, jsString(k), jsString(tt.payload), script))
			if got != want {
				t.Errorf("sign(key of %d bytes, %q, script=%v) = %s, want %s", len(tt.key), tt.payload, script, got, want)
			}
		}
	}
}

// TestExplorerOwnPort: the explorer opened at the root of its own
// listener (--explorer-port, as Microsoft's image serves it on 1234) gets
// the key on loopback and its API calls reach the gateway through that
// same origin: a database created in the page exists on the main port.
func TestExplorerOwnPort(t *testing.T) {
	b := newBrowser(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), func(c *server.Config) { c.ExplorerAddr = "127.0.0.1:0" })
	page := e.ExplorerURL()
	if page == "" {
		t.Fatal("no explorer listener")
	}
	b.do("open the explorer port's root", chromedp.Navigate(strings.TrimSuffix(page, "_explorer/index.html")))
	b.waitFor(`document.getElementById("key-status").textContent.endsWith(" with the key the emulator gave this page.")`)
	b.noError("connect")
	if got := b.eval(`location.href`); got != page {
		t.Errorf("the page is at %q, want %q", got, page)
	}
	b.eval(`(document.getElementById("new-db-details").open = true, "")`)
	b.do("type the database id", chromedp.SendKeys(chromedp.CSS("#new-db-id"), "viaport\r"), idle())
	b.noError("create database")
	b.waitFor(`document.querySelector('#tree button.db[data-db="viaport"]') !== null`)
	b.shot("explorer-port")
	db, err := e.Client(t).NewDatabase("viaport")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(context.Background(), nil); err != nil {
		t.Fatalf("the database created through the explorer port, read on the main port: %v", err)
	}
}

// TestExplorerPartitionKeyRanges: a container created in the page with
// 21,000 RU/s has four ranges, and its settings list them as GET
// .../pkranges serves them (ids, bounds as the SDK's feed ranges read
// them, no parents); its item count and a query cover every range, not
// only range "0"; after splits the refreshed list shows the children with
// their parents, and a range split behind the page's back (410 on the
// range it names) is re-read instead of failing the count.
func TestExplorerPartitionKeyRanges(t *testing.T) {
	b := newBrowser(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	ctx := context.Background()

	b.do("open the explorer", chromedp.Navigate(e.Endpoint+"_explorer/index.html"))
	b.waitFor(`document.getElementById("key-status").textContent.endsWith(" with the key the emulator gave this page.")`)
	b.eval(`(document.getElementById("new-db-details").open = true, "")`)
	b.do("type the database id", chromedp.SendKeys(chromedp.CSS("#new-db-id"), "parts\r"), idle())
	b.noError("create database")
	b.waitFor(`!document.getElementById("db-view").hidden`)
	b.set("#new-coll-id", "orders")
	b.set("#new-coll-pk", "/tenant")
	b.set("#new-coll-throughput", "21000")
	b.click(`#new-coll-form button[type="submit"]`)
	b.noError("create container")
	b.waitFor(`!document.getElementById("coll-view").hidden && document.getElementById("coll-title").textContent === "parts / orders"`)

	// the ranges as the page shows them: "id min max parents" per row
	rows := func() []string {
		t.Helper()
		var got []string
		s := b.eval(`[...document.querySelectorAll("#ranges tr")].map((r) => [...r.cells].map((c) => c.textContent).join(" ")).join("\n")`)
		if s != "" {
			got = strings.Split(s, "\n")
		}
		return got
	}
	b.click("#tab-ranges")
	b.waitFor(`document.getElementById("ranges-table").dataset.count === "4"`)
	client := e.Client(t)
	coll, err := client.NewContainer("parts", "orders")
	if err != nil {
		t.Fatal(err)
	}
	frs, err := coll.ReadFeedRanges(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, fr := range frs {
		lo := fr.MinInclusive
		if lo == "" {
			lo = `""`
		}
		want = append(want, fmt.Sprintf("%d %s %s none", i, lo, fr.MaxExclusive))
	}
	if got := rows(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ranges shown:\n%s\nwant (the SDK's feed ranges):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := b.text("#ranges-caption"); c != "4 ranges" {
		t.Errorf("ranges caption %q", c)
	}
	b.shot("ranges")

	// items of eight tenants, spread over the ranges
	const n = 8
	for i := range n {
		tenant := fmt.Sprintf("t%d", i)
		doc := fmt.Sprintf(`{"id":"o%d","tenant":%q}`, i, tenant)
		if _, err := coll.CreateItem(ctx, azcosmos.NewPartitionKeyString(tenant), []byte(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	b.click("#tab-items")
	b.click("#refresh-items")
	b.noError("refresh items")
	b.waitFor(fmt.Sprintf(`document.getElementById("item-count").dataset.count === "%d"`, n))

	// a query pages through every range in turn
	b.click("#tab-query")
	b.set("#query", "SELECT VALUE c.id FROM c")
	b.set("#query-page-size", "100")
	b.click(`#query-form button[type="submit"]`)
	ids := map[string]bool{}
	ranges := map[string]bool{}
	for page := 1; ; page++ {
		b.noError(fmt.Sprintf("query page %d", page))
		var docs []string
		if err := json.Unmarshal([]byte(b.text("#query-results")), &docs); err != nil {
			t.Fatalf("query page %d: %v", page, err)
		}
		for _, id := range docs {
			ids[id] = true
		}
		ranges[b.eval(`document.getElementById("query-summary").dataset.range`)] = true
		if sum := b.text("#query-summary"); !strings.Contains(sum, "each range answers in turn") {
			t.Errorf("query summary %q does not say the ranges answer in turn", sum)
		}
		if b.eval(`String(document.getElementById("query-next").disabled)`) == "true" || page > 4 {
			break
		}
		b.click("#query-next")
	}
	if len(ids) != n || len(ranges) < 2 {
		t.Errorf("the query returned ids %v from ranges %v, want %d ids from several ranges", ids, ranges, n)
	}

	// a split, then a refresh: the children replace range 0
	kids := e.SplitRange(t, "parts", "orders", "0", "")
	b.click("#tab-ranges")
	b.click("#refresh-ranges")
	b.noError("refresh ranges")
	b.waitFor(`document.getElementById("ranges-table").dataset.count === "5"`)
	got := rows()
	for _, k := range kids {
		lo := k.MinInclusive
		if lo == "" {
			lo = `""`
		}
		row := fmt.Sprintf("%s %s %s 0", k.ID, lo, k.MaxExclusive)
		if !strings.Contains("\n"+strings.Join(got, "\n")+"\n", "\n"+row+"\n") {
			t.Errorf("ranges after the split:\n%s\nlack %q", strings.Join(got, "\n"), row)
		}
	}
	if b.eval(`String(document.querySelector('#ranges tr[data-id="0"]') === null)`) != "true" {
		t.Errorf("the split range 0 is still listed:\n%s", strings.Join(got, "\n"))
	}
	b.shot("ranges-split")

	// range 1 split behind the page's back: the count re-reads the ranges
	e.SplitRange(t, "parts", "orders", "1", "")
	b.click("#tab-items")
	b.click("#refresh-items")
	b.noError("count after a split the page has not seen")
	b.waitFor(fmt.Sprintf(`document.getElementById("item-count").dataset.count === "%d"`, n))
	b.waitFor(`document.getElementById("ranges-table").dataset.count === "6"`)
}
