package compat_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// loadTally is what one target answered under loadFor.
type loadTally struct {
	mu        sync.Mutex
	ok        []string // ids (or sproc arguments) answered with success
	throttled int
	ru        float64 // summed x-ms-request-charge of the successes
	other     []string
}

// loadFor sends requests built by send(n) from writers goroutines until d
// has passed, without retries, and tallies the answers: okStatus counts as
// success, 429 must carry sub-status 3200 and a retry-after.
func loadFor(t *testing.T, d time.Duration, writers, okStatus int, send func(n int) rawResp) *loadTally {
	t.Helper()
	tally := &loadTally{}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var next int64
	var nmu sync.Mutex
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				nmu.Lock()
				n := int(next)
				next++
				nmu.Unlock()
				r := send(n)
				tally.mu.Lock()
				switch {
				case r.Status == okStatus:
					tally.ok = append(tally.ok, strconv.Itoa(n))
					charge, _ := strconv.ParseFloat(r.Header.Get("x-ms-request-charge"), 64)
					tally.ru += charge
				case r.Status == http.StatusTooManyRequests && r.Header.Get("x-ms-substatus") == "3200" && r.Header.Get("x-ms-retry-after-ms") != "":
					tally.throttled++
				default:
					tally.other = append(tally.other, fmt.Sprintf("%d %s %s", r.Status, r.Header.Get("x-ms-substatus"), r.Body))
				}
				tally.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, o := range tally.other {
		t.Errorf("unexpected answer: %s", o)
	}
	return tally
}

// countPartition counts the documents of partition "p" of db/coll,
// retrying while the query is throttled (the load may have left the range
// in debt).
func countPartition(t *testing.T, raw *rawClient, db, coll string) int {
	t.Helper()
	var r rawResp
	for range 20 {
		r = raw.do(http.MethodPost, docsPath(db, coll), []byte(`{"query":"SELECT VALUE COUNT(1) FROM c"}`),
			"x-ms-documentdb-isquery", "true", "Content-Type", "application/query+json", pkHeader, `["p"]`)
		if r.Status != http.StatusTooManyRequests {
			break
		}
		ms, _ := strconv.Atoi(r.Header.Get("x-ms-retry-after-ms"))
		time.Sleep(time.Duration(ms+1) * time.Millisecond)
	}
	wantStatus(t, r, http.StatusOK)
	var page struct{ Documents []int }
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Documents) != 1 {
		t.Fatalf("count %s/%s: %s (%v)", db, coll, r.Body, err)
	}
	return page.Documents[0]
}

// TestRateLimitSharedDatabase: with --rate-limit, the containers of a
// 400 RU/s shared-throughput database draw on one budget. Both are
// written at once, without retries, for 2.5 s; both see 429/3200, the
// creates they accepted together cost at most 400 RU in each second the
// load spanned (two containers with budgets of their own would accept up
// to twice that), and each holds exactly the writes answered 201.
func TestRateLimitSharedDatabase(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithRateLimit())
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"shared"}`), "x-ms-offer-throughput", "400"), http.StatusCreated)
	for _, c := range []string{"a", "b"} {
		wantStatus(t, raw.do(http.MethodPost, "/dbs/shared/colls", []byte(`{"id":"`+c+`","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`)), http.StatusCreated)
	}
	start := time.Now()
	tallies := map[string]*loadTally{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, c := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tl := loadFor(t, 2500*time.Millisecond, 8, http.StatusCreated, func(n int) rawResp {
				return raw.do(http.MethodPost, docsPath("shared", c), []byte(fmt.Sprintf(`{"id":"%d","pk":"p"}`, n)), pkHeader, `["p"]`)
			})
			mu.Lock()
			tallies[c] = tl
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	seconds := math.Ceil(elapsed.Seconds()) + 1 // the Unix seconds the load may have touched
	a, b := tallies["a"], tallies["b"]
	t.Logf("in %v: a %d created (%.1f RU), %d throttled; b %d created (%.1f RU), %d throttled; together %.1f RU over at most %.0f budget seconds",
		elapsed.Round(time.Millisecond), len(a.ok), a.ru, a.throttled, len(b.ok), b.ru, b.throttled, a.ru+b.ru, seconds)
	if a.throttled == 0 || b.throttled == 0 {
		t.Errorf("both containers must be throttled: a %d, b %d", a.throttled, b.throttled)
	}
	if limit := 400 * seconds; a.ru+b.ru > limit {
		t.Errorf("the shared database accepted %.1f RU in %v, more than its 400 RU/s allow (%.0f)", a.ru+b.ru, elapsed, limit)
	}
	for c, tl := range tallies {
		if got := countPartition(t, raw, "shared", c); got != len(tl.ok) {
			t.Errorf("container %s holds %d documents, %d creates were answered 201", c, got, len(tl.ok))
		}
	}
}

// TestRateLimitStoredProcedure: with --rate-limit, stored procedure
// executions are throttled on the container's 400 RU/s like item writes:
// concurrent executions of a procedure that creates one document each get
// 429/3200 once the budget is spent, and the container holds exactly the
// documents of the executions answered 200 (a throttled execution never
// ran).
func TestRateLimitStoredProcedure(t *testing.T) {
	e := emulatortest.Start(t, emulatortest.WithRateLimit())
	raw := newRaw(t, e)
	wantStatus(t, raw.do(http.MethodPost, "/dbs", []byte(`{"id":"sp"}`)), http.StatusCreated)
	wantStatus(t, raw.do(http.MethodPost, "/dbs/sp/colls", []byte(`{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`), "x-ms-offer-throughput", "400"), http.StatusCreated)
	body := `function (id) {
  var coll = getContext().getCollection();
  var ok = coll.createDocument(coll.getSelfLink(), { id: id, pk: "p" }, function (err) {
    if (err) throw err;
    getContext().getResponse().setBody(id);
  });
  if (!ok) throw new Error("not accepted");
}`
	wantStatus(t, raw.do(http.MethodPost, scriptsPath("sp", "c", "sprocs"), []byte(`{"id":"one","body":`+string(mustJSON(t, body))+`}`)), http.StatusCreated)
	start := time.Now()
	tl := loadFor(t, 2*time.Second, 8, http.StatusOK, func(n int) rawResp {
		return raw.do(http.MethodPost, scriptsPath("sp", "c", "sprocs")+"/one", []byte(fmt.Sprintf(`["%d"]`, n)), pkHeader, `["p"]`)
	})
	t.Logf("in %v: %d executions ran (%.1f RU), %d throttled", time.Since(start).Round(time.Millisecond), len(tl.ok), tl.ru, tl.throttled)
	if tl.throttled == 0 {
		t.Errorf("no execution was throttled: %d ran for %.1f RU on a 400 RU/s container", len(tl.ok), tl.ru)
	}
	if got := countPartition(t, raw, "sp", "c"); got != len(tl.ok) {
		t.Errorf("the container holds %d documents, %d executions were answered 200", got, len(tl.ok))
	}
}
