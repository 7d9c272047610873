package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// retryingClient is an azcosmos client with the SDK's default retry policy
// (emulatortest.Client turns retries off), as production code has it;
// timeout, when positive, bounds each try.
func retryingClient(t *testing.T, e *emulatortest.Emulator, timeout time.Duration) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(emulatortest.Key)
	if err != nil {
		t.Fatal(err)
	}
	opts := policy.RetryOptions{RetryDelay: 10 * time.Millisecond, TryTimeout: timeout}
	c, err := azcosmos.NewClientWithKey(e.Endpoint, cred, &azcosmos.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: emulatortest.HTTPClient(), Retry: opts},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// faultsFixture: an emulator, a retrying azcosmos client and container
// f/c1 (partition key /pk) holding item "item1" in partition "a".
func faultsFixture(t *testing.T) (*emulatortest.Emulator, *azcosmos.ContainerClient) {
	t.Helper()
	e := emulatortest.Start(t)
	db := mustDB(t, retryingClient(t, e, 0), "f")
	cc := mustContainer(t, db, "c1")
	if _, err := cc.CreateItem(bg, azcosmos.NewPartitionKeyString("a"), []byte(`{"id":"item1","pk":"a","v":1}`), nil); err != nil {
		t.Fatal(err)
	}
	return e, cc
}

// TestFaultsGoSDKRetries: what azcosmos (default retry policy: 3 retries)
// does with injected faults. 429/3200 twice is retried and the read
// succeeds after three tries; 429 on every try surfaces 429 after four
// (the rule's hits count them); 408 on a read is retried; 503 and 449
// on a write are surfaced and the item is unchanged; 503 on a read is
// surfaced too: azcosmos retries a 503 only in another preferred region,
// and an account with one region has none (its clientRetryPolicy).
func TestFaultsGoSDKRetries(t *testing.T) {
	e, cc := faultsFixture(t)
	pk := azcosmos.NewPartitionKeyString("a")
	for _, c := range []struct {
		name     string
		rule     emulatortest.FaultRule
		write    bool
		status   int // 0: success
		wantHits int64
	}{
		{"429 twice, retried", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Read", ID: "item1"}, Response: emulatortest.FaultResponse{Status: 429, SubStatus: 3200, RetryAfterMs: 20}, Count: 2}, false, 0, 2},
		{"429 past the retry budget", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Read", ID: "item1"}, Response: emulatortest.FaultResponse{Status: 429, SubStatus: 3200, RetryAfterMs: 10}, Count: 100}, false, 429, 4},
		{"503 on a read, surfaced in one region", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Read"}, Response: emulatortest.FaultResponse{Status: 503}, Count: 1}, false, 503, 1},
		{"408 on a read, retried", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Read"}, Response: emulatortest.FaultResponse{Status: 408}, Count: 1}, false, 0, 1},
		{"503 on a replace, surfaced", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Replace"}, Response: emulatortest.FaultResponse{Status: 503}, Count: 1}, true, 503, 1},
		{"449 on a replace, surfaced", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Replace"}, Response: emulatortest.FaultResponse{Status: 449}, Count: 1}, true, 449, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.InjectFault(t, "rule", c.rule)
			start := time.Now()
			var err error
			if c.write {
				_, err = cc.ReplaceItem(bg, pk, "item1", []byte(`{"id":"item1","pk":"a","v":2}`), nil)
			} else {
				_, err = cc.ReadItem(bg, pk, "item1", nil)
			}
			t.Logf("%s: %v after %v", c.name, err, time.Since(start).Round(time.Millisecond))
			if c.status == 0 && err != nil {
				t.Fatalf("want success after retries: %v", err)
			}
			if c.status != 0 {
				var re *azcore.ResponseError
				if !errors.As(err, &re) || re.StatusCode != c.status {
					t.Fatalf("want %d surfaced, got %v", c.status, err)
				}
			}
			if got := e.FaultHits("rule"); got != c.wantHits {
				t.Errorf("the rule injected %d faults, want %d", got, c.wantHits)
			}
		})
	}
	// the surfaced 503 and 449 never reached the item
	r, err := cc.ReadItem(bg, pk, "item1", nil)
	if err != nil || !strings.Contains(string(r.Value), `"v":1`) {
		t.Errorf("item after the faulted replace: %s, %v", r.Value, err)
	}
}

// TestFaultsAnswers: every injected status arrives in the service's
// shape (code, message, x-ms-substatus, activity id, retry-after where the
// SDKs read it), and a faulted create writes nothing.
func TestFaultsAnswers(t *testing.T) {
	e, _ := faultsFixture(t)
	raw := newRaw(t, e)
	for _, c := range []struct {
		status, sub int
		retryAfter  int
		code        string
		wantRetry   string
	}{
		{429, 3200, 0, "TooManyRequests", "100"},
		{429, 3200, 250, "TooManyRequests", "250"},
		{503, 0, 0, "ServiceUnavailable", ""},
		{408, 0, 0, "RequestTimeout", ""},
		{410, 1002, 0, "Gone", ""},
		{449, 0, 0, "RetryWith", ""},
		{500, 0, 0, "InternalServerError", ""},
		{404, 1002, 0, "NotFound", ""},
		{403, 3, 0, "Forbidden", ""},
	} {
		t.Run(strconv.Itoa(c.status)+"/"+strconv.Itoa(c.sub), func(t *testing.T) {
			e.InjectFault(t, "answer", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Create"},
				Response: emulatortest.FaultResponse{Status: c.status, SubStatus: c.sub, RetryAfterMs: c.retryAfter}})
			id := "new-" + strconv.Itoa(c.status) + "-" + strconv.Itoa(c.sub)
			r := raw.do("POST", docsPath("f", "c1"), []byte(`{"id":"`+id+`","pk":"a"}`), pkHeader, `["a"]`)
			msg := wantError(t, r, c.status, c.code)
			wantSubStatus(t, r, c.sub)
			if got := r.Header.Get("x-ms-retry-after-ms"); got != c.wantRetry {
				t.Errorf("x-ms-retry-after-ms = %q, want %q", got, c.wantRetry)
			}
			act := r.Header.Get("x-ms-activity-id")
			if act == "" || !strings.Contains(msg, "ActivityId: "+act) {
				t.Errorf("activity id %q not in the message %q", act, msg)
			}
			if c.status == 429 && !strings.Contains(msg, "Request rate is large") {
				t.Errorf("429 message %q", msg)
			}
			wantStatus(t, raw.do("GET", docPath("f", "c1", id), nil, pkHeader, `["a"]`), http.StatusNotFound)
		})
	}
}

// TestFaultsDelayTripsTimeout: a delay rule holds a read past the SDK's
// per-try timeout (azcore's TryTimeout), so the SDK reports the timeout
// instead of the item; the same read succeeds once the rule is gone.
func TestFaultsDelayTripsTimeout(t *testing.T) {
	e, _ := faultsFixture(t)
	cred, _ := azcosmos.NewKeyCredential(emulatortest.Key)
	c, err := azcosmos.NewClientWithKey(e.Endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: emulatortest.HTTPClient(), Retry: policy.RetryOptions{MaxRetries: 1, TryTimeout: 200 * time.Millisecond, RetryDelay: time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	cc, _ := c.NewContainer("f", "c1")
	e.InjectFault(t, "slow", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Read", ID: "item1"}, Response: emulatortest.FaultResponse{DelayMs: 5000}})
	start := time.Now()
	_, err = cc.ReadItem(bg, azcosmos.NewPartitionKeyString("a"), "item1", nil)
	t.Logf("delayed read: %v after %v", err, time.Since(start).Round(time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the try timeout, got %v", err)
	}
	if hits := e.FaultHits("slow"); hits < 1 {
		t.Errorf("the delay rule saw %d tries", hits)
	}
	t.Logf("delayed tries: %d", e.FaultHits("slow"))
	e.Faults().Delete("slow")
	if _, err := cc.ReadItem(bg, azcosmos.NewPartitionKeyString("a"), "item1", nil); err != nil {
		t.Errorf("read without the rule: %v", err)
	}
}

// TestFaultsCloseConnection: a closeConnection rule drops the connection
// without an answer, the create it dropped wrote nothing, and the metrics
// count it as dropped (444), not as answered.
func TestFaultsCloseConnection(t *testing.T) {
	e, _ := faultsFixture(t)
	raw := newRaw(t, e)
	e.InjectFault(t, "drop", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Create"}, Response: emulatortest.FaultResponse{CloseConnection: true}, Count: 1})
	_, err := raw.hc.Do(raw.req("POST", docsPath("f", "c1"), []byte(`{"id":"dropped","pk":"a"}`)))
	if err == nil {
		t.Fatal("the dropped request got an answer")
	}
	t.Logf("dropped: %v", err)
	wantStatus(t, raw.do("GET", docPath("f", "c1", "dropped"), nil, pkHeader, `["a"]`), http.StatusNotFound)
	// the metrics record the dropped request as 444 (no response), not 200
	metrics := emulatortest.ScrapeMetrics(t, emulatortest.HTTPClient(), e.Endpoint+"_emulator/metrics")
	for sample, want := range map[string]float64{
		`cosmos_emulator_requests_total{operation="Create",resource_type="docs",status="444"}`: 1,
		`cosmos_emulator_requests_total{operation="Create",resource_type="docs",status="200"}`: 0,
	} {
		if got := metrics[sample]; got != want {
			t.Errorf("%s = %v, want %v", sample, got, want)
		}
	}
}

// TestFaultsScopedUnderLoad: a rule on one container and partition key
// (a 503, which azcosmos surfaces in a one-region account; a 403/3 it
// would retry for two minutes) fails exactly the requests addressed there while concurrent requests to
// another partition key and another container all succeed.
func TestFaultsScopedUnderLoad(t *testing.T) {
	e, c1 := faultsFixture(t)
	client := retryingClient(t, e, 0)
	db, _ := client.NewDatabase("f")
	c2 := mustContainer(t, db, "c2")
	for _, it := range []struct {
		cc *azcosmos.ContainerClient
		pk string
	}{{c1, "b"}, {c2, "a"}} {
		if _, err := it.cc.CreateItem(bg, azcosmos.NewPartitionKeyString(it.pk), []byte(`{"id":"item1","pk":"`+it.pk+`"}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	e.InjectFault(t, "c1a", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Container: "c1", PartitionKey: json.RawMessage(`["a"]`)}, Response: emulatortest.FaultResponse{Status: 503}})
	noRetry := e.Client(t)
	targets := []struct {
		coll, pk string
		fail     bool
	}{{"c1", "a", true}, {"c1", "b", false}, {"c2", "a", false}}
	const perTarget = 40
	var mu sync.Mutex
	got := map[string][2]int{} // ok, failed
	var wg sync.WaitGroup
	start := time.Now()
	for _, tg := range targets {
		cc, _ := noRetry.NewContainer("f", tg.coll)
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perTarget / 4 {
					_, err := cc.ReadItem(bg, azcosmos.NewPartitionKeyString(tg.pk), "item1", nil)
					var re *azcore.ResponseError
					mu.Lock()
					n := got[tg.coll+"/"+tg.pk]
					if err == nil {
						n[0]++
					} else if errors.As(err, &re) && re.StatusCode == 503 {
						n[1]++
					} else {
						t.Errorf("worker %d %s/%s: %v", w, tg.coll, tg.pk, err)
					}
					got[tg.coll+"/"+tg.pk] = n
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("%d reads in %v: %v", perTarget*len(targets), time.Since(start).Round(time.Millisecond), got)
	for _, tg := range targets {
		want := [2]int{perTarget, 0}
		if tg.fail {
			want = [2]int{0, perTarget}
		}
		if n := got[tg.coll+"/"+tg.pk]; n != want {
			t.Errorf("%s/%s: ok/failed %v, want %v", tg.coll, tg.pk, n, want)
		}
	}
	if hits := e.FaultHits("c1a"); hits != perTarget {
		t.Errorf("hits %d, want %d", hits, perTarget)
	}
}

// TestFaultsControlEndpoints: PUT creates (201) then replaces (200), GET
// lists rules with hits, an invalid rule is a 400, DELETE of an absent
// rule a 404, and /_emulator/stats and the metrics count the injections.
func TestFaultsControlEndpoints(t *testing.T) {
	e, _ := faultsFixture(t)
	raw := newRaw(t, e)
	rule := `{"match":{"operation":"Read","database":"f","container":"c1","partitionKey":["a"],"id":"item1"},"response":{"status":429,"substatus":3200,"retryAfterMs":50},"count":2}`
	wantStatus(t, raw.do("PUT", "/_emulator/faults/throttle", []byte(rule)), http.StatusCreated)
	r := raw.do("PUT", "/_emulator/faults/throttle", []byte(rule))
	wantStatus(t, r, http.StatusOK)
	if m := object(t, r.Body); m["name"] != "throttle" || m["count"] != json.Number("2") || m["hits"] != json.Number("0") {
		t.Errorf("stored rule %s", r.Body)
	}
	for range 3 {
		raw.do("GET", docPath("f", "c1", "item1"), nil, pkHeader, `["a"]`)
	}
	r = raw.do("GET", "/_emulator/faults", nil)
	wantStatus(t, r, http.StatusOK)
	var l struct {
		Rules []struct {
			Name     string          `json:"name"`
			Hits     int             `json:"hits"`
			Match    json.RawMessage `json:"match"`
			Response json.RawMessage `json:"response"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(r.Body, &l); err != nil || len(l.Rules) != 1 || l.Rules[0].Name != "throttle" || l.Rules[0].Hits != 2 {
		t.Errorf("GET /_emulator/faults: %s (%v)", r.Body, err)
	}
	for _, bad := range []string{`{"count":1}`, `{"response":{"status":200}}`, `{"response":{"status":429},"cout":1}`, `{"match":{"operation":"Reed"},"response":{"status":429}}`, `not json`} {
		wantError(t, raw.do("PUT", "/_emulator/faults/bad", []byte(bad)), http.StatusBadRequest, "BadRequest")
	}
	r = raw.do("GET", "/_emulator/stats", nil)
	if inj := object(t, r.Body)["faults"]; !strings.Contains(string(mustJSON(t, inj)), `"throttle":2`) {
		t.Errorf("stats faults: %s", mustJSON(t, inj))
	}
	metrics := emulatortest.ScrapeMetrics(t, emulatortest.HTTPClient(), e.Endpoint+"_emulator/metrics")
	if v := metrics[`cosmos_emulator_faults_injected_total{rule="throttle"}`]; v != 2 {
		t.Errorf("cosmos_emulator_faults_injected_total{rule=\"throttle\"} = %v, want 2", v)
	}
	wantStatus(t, raw.do("DELETE", "/_emulator/faults/throttle", nil), http.StatusNoContent)
	wantError(t, raw.do("DELETE", "/_emulator/faults/throttle", nil), http.StatusNotFound, "NotFound")
	wantStatus(t, raw.do("PUT", "/_emulator/faults/x", []byte(rule)), http.StatusCreated)
	wantStatus(t, raw.do("DELETE", "/_emulator/faults", nil), http.StatusNoContent)
	if r := raw.do("GET", "/_emulator/faults", nil); string(r.Body) != `{"rules":[]}` {
		t.Errorf("after DELETE /_emulator/faults: %s", r.Body)
	}
	// unsigned control requests are refused like any other
	req := raw.req("DELETE", "/_emulator/faults", nil)
	req.Header.Del("Authorization")
	wantStatus(t, raw.send(req), http.StatusUnauthorized)
}

// TestReadmeFaultsJSSnippet runs the documented fault injection JavaScript
// (fetch with the master-key signature) as written against an http
// emulator: its PUT, GET and DELETE are accepted, it prints the rule with
// no hits, and the rule is gone afterwards.
func TestReadmeFaultsJSSnippet(t *testing.T) {
	node, dir := jsSDK(t)
	snippets := docSnippets(t, "docs/faults-and-throttling.md", "Fault injection", "js")
	if len(snippets) != 1 {
		t.Fatalf("the Fault injection section has %d JavaScript snippets, want 1", len(snippets))
	}
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	script := writeTempScript(t, dir, "_readme_faults_*.mjs", snippets[0])
	out, stderr := runJS(t, node, dir, script, 60*time.Second, "COSMOS_ENDPOINT="+e.Endpoint)
	if got := strings.TrimSpace(string(out)); got != "throttle-reads hits=0" {
		t.Fatalf("README faults snippet printed %q; stderr:\n%s", got, stderr)
	}
	if l := e.Faults().List(); len(l.Rules) != 0 {
		t.Errorf("rules left: %+v", l.Rules)
	}
}

// TestFaultsDelayedWriteAbandoned: a create held by a delay rule whose
// client closes its connection during the delay never runs, while the
// same create whose client waits runs after the delay. (This raw client's
// close is seen by the server here even without the body read the fault
// hook now does first; @azure/cosmos's abort was not, and its abandoned
// create was stored once the delay ended: TestJSFaults' "timeout create"
// line catches that.)
func TestFaultsDelayedWriteAbandoned(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"))
	raw := newRaw(t, e)
	wantStatus(t, raw.do("POST", "/dbs", []byte(`{"id":"f"}`)), http.StatusCreated)
	wantStatus(t, raw.do("POST", "/dbs/f/colls", []byte(`{"id":"c1","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	e.InjectFault(t, "slow-create", emulatortest.FaultRule{Match: emulatortest.FaultMatch{Operation: "Create"}, Response: emulatortest.FaultResponse{DelayMs: 1500}})
	// the client: the whole request on a raw connection, closed 200 ms
	// later without waiting for the answer, as an SDK's request timeout
	// does
	req := raw.req("POST", docsPath("f", "c1"), []byte(`{"id":"abandoned","pk":"a"}`))
	req.Header.Set(pkHeader, `["a"]`)
	conn, err := net.Dial("tcp", req.URL.Host)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	conn.Close()
	time.Sleep(2 * time.Second) // past the delay: had it run, it would be stored now
	wantStatus(t, raw.do("GET", docPath("f", "c1", "abandoned"), nil, pkHeader, `["a"]`), http.StatusNotFound)
	start := time.Now()
	wantStatus(t, raw.do("POST", docsPath("f", "c1"), []byte(`{"id":"waited","pk":"a"}`), pkHeader, `["a"]`), http.StatusCreated)
	t.Logf("the patient create answered after %v", time.Since(start).Round(time.Millisecond))
	if hits := e.FaultHits("slow-create"); hits != 2 {
		t.Errorf("the delay rule saw %d creates, want 2", hits)
	}
}
