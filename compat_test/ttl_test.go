package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// ttlEnv is one emulator with a frozen clock and one database.
type ttlEnv struct {
	e   *emulatortest.Emulator
	db  *azcosmos.DatabaseClient
	ctx context.Context
}

func newTTLEnv(t *testing.T, opts ...emulatortest.Option) *ttlEnv {
	t.Helper()
	opts = append([]emulatortest.Option{emulatortest.WithFrozenClock(time.Unix(1_800_000_000, 0))}, opts...)
	e := emulatortest.Start(t, opts...)
	ctx := context.Background()
	c := e.Client(t)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "ttl"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("ttl")
	return &ttlEnv{e: e, db: db, ctx: ctx}
}

func (env *ttlEnv) container(t *testing.T, id string, defaultTTL *int32) *azcosmos.ContainerClient {
	t.Helper()
	props := azcosmos.ContainerProperties{ID: id, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: defaultTTL}
	if _, err := env.db.CreateContainer(env.ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := env.db.NewContainer(id)
	return c
}

func (env *ttlEnv) advance(t *testing.T, seconds int64) {
	t.Helper()
	if err := env.e.Clock().Advance(time.Duration(seconds) * time.Second); err != nil {
		t.Fatal(err)
	}
}

func i32(v int32) *int32 { return &v }

func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	if err == nil {
		return 200
	}
	return -1
}

func doc(id string, ttl *int32, extra ...any) []byte {
	m := map[string]any{"id": id, "pk": "p"}
	if ttl != nil {
		m["ttl"] = *ttl
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

var pk = azcosmos.NewPartitionKeyString("p")

// readFeedIDs lists the ids a raw read feed returns.
func readFeedIDs(t *testing.T, e *emulatortest.Emulator, db, coll string) []string {
	t.Helper()
	r := newRaw(t, e).do(http.MethodGet, "/dbs/"+db+"/colls/"+coll+"/docs", nil)
	status, body := r.Status, r.Body
	if status != 200 {
		t.Fatalf("read feed: %d %s", status, body)
	}
	var feed struct {
		Documents []struct {
			ID string `json:"id"`
		}
		Count int `json:"_count"`
	}
	if err := json.Unmarshal(body, &feed); err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, d := range feed.Documents {
		ids = append(ids, d.ID)
	}
	return ids
}

// TestTTLContract is the TTL matrix of the reference (§5.3) and the issue,
// with the clock moved instead of sleeping: one second before expiry the
// item is readable and listed, at expiry it is gone for every read and write
// path (read 404, replace 404, patch 404, delete 404, read feed, create and
// upsert 201 as a new item).
func TestTTLContract(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t)
	const never = -1
	tests := []struct {
		name       string
		defaultTTL *int32
		itemTTL    *int32
		expiresIn  int64 // seconds after the write, or never
	}{
		{"container TTL off, no item ttl: never", nil, nil, never},
		{"container TTL off, item ttl -1: never", nil, i32(-1), never},
		{"container TTL off, item ttl 10: ignored, never", nil, i32(10), never},
		{"default -1, no item ttl: never", i32(-1), nil, never},
		{"default -1, item ttl -1: never", i32(-1), i32(-1), never},
		{"default -1, item ttl 10: 10 s", i32(-1), i32(10), 10},
		{"default 100, no item ttl: 100 s", i32(100), nil, 100},
		{"default 100, item ttl -1: never", i32(100), i32(-1), never},
		{"default 100, item ttl 10: 10 s", i32(100), i32(10), 10},
		{"default 10, item ttl 100: 100 s", i32(10), i32(100), 100},
		// reference §5.3 worked examples
		{"reference example: container 2000, item absent", i32(2000), nil, 2000},
		{"reference example: container -1, item 1000", i32(-1), i32(1000), 1000},
		{"reference example: container absent, item 1000", nil, i32(1000), never},
	}
	for i, tt := range tests {
		coll := fmt.Sprintf("c%d", i)
		c := env.container(t, coll, tt.defaultTTL)
		if _, err := c.CreateItem(env.ctx, pk, doc("a", tt.itemTTL), nil); err != nil {
			t.Fatalf("%s: create: %v", tt.name, err)
		}
		if _, err := c.CreateItem(env.ctx, pk, doc("b", tt.itemTTL), nil); err != nil {
			t.Fatalf("%s: create: %v", tt.name, err)
		}
		tests[i].name = coll + ": " + tt.name
	}
	// Every container's items were written at the same frozen instant, so
	// one timeline serves all cases: step through the interesting moments.
	elapsed := int64(0)
	for _, at := range []int64{9, 10, 99, 100, 999, 1000, 1999, 2000, 100000} {
		env.advance(t, at-elapsed)
		elapsed = at
		for i, tt := range tests {
			coll := fmt.Sprintf("c%d", i)
			c, _ := env.db.NewContainer(coll)
			live := tt.expiresIn == never || elapsed < tt.expiresIn
			t.Run(fmt.Sprintf("t+%d/%s", at, tt.name), func(t *testing.T) {
				_, err := c.ReadItem(env.ctx, pk, "a", nil)
				if live && err != nil {
					t.Fatalf("read at t+%d: %v, want 200 (expires at t+%d)", elapsed, err, tt.expiresIn)
				}
				if !live && statusOf(err) != 404 {
					t.Fatalf("read at t+%d: status %d, want 404 (expired at t+%d)", elapsed, statusOf(err), tt.expiresIn)
				}
				ids := readFeedIDs(t, env.e, "ttl", coll)
				if live && len(ids) != 2 || !live && len(ids) != 0 {
					t.Fatalf("read feed at t+%d lists %v (live=%v)", elapsed, ids, live)
				}
			})
		}
	}
	// Every write path treats the expired items as gone.
	for i, tt := range tests {
		if tt.expiresIn == never {
			continue
		}
		c, _ := env.db.NewContainer(fmt.Sprintf("c%d", i))
		t.Run("writes after expiry/"+tt.name, func(t *testing.T) {
			if _, err := c.ReplaceItem(env.ctx, pk, "a", doc("a", nil), nil); statusOf(err) != 404 {
				t.Errorf("replace: %d, want 404", statusOf(err))
			}
			ops := azcosmos.PatchOperations{}
			ops.AppendSet("/x", 1)
			if _, err := c.PatchItem(env.ctx, pk, "a", ops, nil); statusOf(err) != 404 {
				t.Errorf("patch: %d, want 404", statusOf(err))
			}
			if _, err := c.DeleteItem(env.ctx, pk, "a", nil); statusOf(err) != 404 {
				t.Errorf("delete: %d, want 404", statusOf(err))
			}
			r, err := c.CreateItem(env.ctx, pk, doc("a", tt.itemTTL, "generation", 2), nil)
			if err != nil || r.RawResponse.StatusCode != 201 {
				t.Errorf("create of an expired item's id: %v, want 201", err)
			}
			r, err = c.UpsertItem(env.ctx, pk, doc("b", tt.itemTTL), nil)
			if err != nil || r.RawResponse.StatusCode != 201 {
				t.Errorf("upsert of an expired item: %v, want 201 (a new item)", err)
			}
			got, err := c.ReadItem(env.ctx, pk, "a", nil)
			if err != nil {
				t.Fatalf("read of the re-created item: %v", err)
			}
			var m map[string]any
			_ = json.Unmarshal(got.Value, &m)
			if m["generation"] != float64(2) {
				t.Errorf("re-created item is %s", got.Value)
			}
			if tt.itemTTL != nil && m["ttl"] != float64(*tt.itemTTL) {
				t.Errorf("the item's ttl property must stay as written: %s", got.Value)
			}
		})
	}
}

// TestTTLWritesRestartTheClock: every write refreshes _ts; reads do not.
func TestTTLWritesRestartTheClock(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t)
	c := env.container(t, "c", i32(10))
	if _, err := c.CreateItem(env.ctx, pk, doc("a", nil), nil); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		write func() error
	}{
		{"replace", func() error { _, err := c.ReplaceItem(env.ctx, pk, "a", doc("a", nil), nil); return err }},
		{"upsert", func() error { _, err := c.UpsertItem(env.ctx, pk, doc("a", nil), nil); return err }},
		{"patch", func() error {
			ops := azcosmos.PatchOperations{}
			ops.AppendIncrement("/n", 1)
			_, err := c.PatchItem(env.ctx, pk, "a", ops, nil)
			return err
		}},
	}
	for _, s := range steps {
		env.advance(t, 9)
		if _, err := c.ReadItem(env.ctx, pk, "a", nil); err != nil { // a read does not refresh
			t.Fatalf("before %s: %v", s.name, err)
		}
		if err := s.write(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	env.advance(t, 9)
	if _, err := c.ReadItem(env.ctx, pk, "a", nil); err != nil {
		t.Fatalf("9 s after the last write: %v", err)
	}
	env.advance(t, 1)
	if _, err := c.ReadItem(env.ctx, pk, "a", nil); statusOf(err) != 404 {
		t.Fatalf("10 s after the last write: status %d, want 404", statusOf(err))
	}
}

// TestTTLContainerSettingChanges: removing an item's ttl inherits the
// default; turning container TTL off stops all expiry (also for items that
// carry ttl); turning it on expires old items by their existing _ts;
// shortening the default expires items at once.
func TestTTLContainerSettingChanges(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t)
	c := env.container(t, "c", i32(1000))
	replaceTTL := func(v *int32) {
		t.Helper()
		r, err := c.Read(env.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := *r.ContainerProperties
		p.DefaultTimeToLive = v
		if _, err := c.Replace(env.ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	read := func(id string) int {
		_, err := c.ReadItem(env.ctx, pk, id, nil)
		return statusOf(err)
	}
	for _, d := range [][]byte{doc("own", i32(5)), doc("inherit", nil), doc("never", i32(-1))} {
		if _, err := c.CreateItem(env.ctx, pk, d, nil); err != nil {
			t.Fatal(err)
		}
	}
	env.advance(t, 5)
	if read("own") != 404 || read("inherit") != 200 || read("never") != 200 {
		t.Fatalf("at t+5: own %d inherit %d never %d", read("own"), read("inherit"), read("never"))
	}
	// TTL off: nothing expires, not even items with their own ttl.
	replaceTTL(nil)
	if read("own") != 200 {
		t.Fatalf("turning TTL off must revive the unswept item with ttl 5: %d", read("own"))
	}
	env.advance(t, 5000)
	if read("own") != 200 || read("inherit") != 200 {
		t.Fatal("with TTL off nothing expires")
	}
	// TTL back on with 100: items expire by their existing _ts (t+0).
	replaceTTL(i32(100))
	if read("own") != 404 || read("inherit") != 404 || read("never") != 200 {
		t.Fatalf("turning TTL on: own %d inherit %d never %d", read("own"), read("inherit"), read("never"))
	}
	// A fresh item with ttl that is removed on replace inherits the default.
	if _, err := c.CreateItem(env.ctx, pk, doc("x", i32(5)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReplaceItem(env.ctx, pk, "x", doc("x", nil), nil); err != nil {
		t.Fatal(err)
	}
	env.advance(t, 50)
	if read("x") != 200 {
		t.Fatal("after removing ttl the item inherits defaultTtl 100: it must live at t+50")
	}
	// Shortening the default expires it at once.
	replaceTTL(i32(20))
	if read("x") != 404 {
		t.Fatal("shortening defaultTtl to 20 must expire a 50 s old item at once")
	}
}

// TestTTLRealTime proves wall-clock expiry without the control endpoint.
func TestTTLRealTime(t *testing.T) {
	t.Parallel()
	e := emulatortest.Start(t)
	ctx := context.Background()
	cl := e.Client(t)
	if _, err := cl.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "rt"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := cl.NewDatabase("rt")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}, DefaultTimeToLive: i32(1)}, nil); err != nil {
		t.Fatal(err)
	}
	c, _ := db.NewContainer("c")
	start := time.Now()
	for _, d := range [][]byte{doc("default", nil), doc("two", i32(2)), doc("never", i32(-1))} {
		if _, err := c.CreateItem(ctx, pk, d, nil); err != nil {
			t.Fatal(err)
		}
	}
	// _ts is whole seconds: an item with ttl n is gone at most n+1 s after
	// its write and certainly not before n-1 s; sample until 3.5 s.
	gone := map[string]time.Duration{}
	for time.Since(start) < 3500*time.Millisecond {
		for _, id := range []string{"default", "two", "never"} {
			if _, ok := gone[id]; ok {
				continue
			}
			if _, err := c.ReadItem(ctx, pk, id, nil); statusOf(err) == 404 {
				gone[id] = time.Since(start)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, ok := gone["never"]; ok {
		t.Fatal("the ttl -1 item expired")
	}
	if d, ok := gone["default"]; !ok || d > 2200*time.Millisecond {
		t.Fatalf("defaultTtl 1: gone after %v (ok=%v), want within ~2 s", d, ok)
	}
	if d, ok := gone["two"]; !ok || d < 900*time.Millisecond {
		t.Fatalf("ttl 2: gone after %v (ok=%v), want between 1 and 3 s", d, ok)
	}
}

// TestTTLSweeper: expired rows are physically deleted; a sweep never
// deletes a live item, not even one written during the sweep; two emulators
// on one database sweep cleanly together.
func TestTTLSweeper(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t, emulatortest.WithoutBackgroundSweeper(), emulatortest.WithSweeper(-1, 100))
	c := env.container(t, "c", i32(10))
	const n = 600
	for i := 0; i < n; i++ {
		if _, err := c.CreateItem(env.ctx, pk, doc(fmt.Sprintf("old%d", i), nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	env.advance(t, 10)
	stats := func() (stored, live int64) {
		cs, err := env.e.ContainerStats(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range cs {
			if s.Container == "c" {
				return s.StoredRows, s.LiveItems
			}
		}
		t.Fatal("container c missing from stats")
		return 0, 0
	}
	if stored, live := stats(); stored != n || live != 0 {
		t.Fatalf("before the sweep: stored %d live %d, want %d and 0", stored, live, n)
	}
	// A second emulator process on the same database, sweeping concurrently,
	// while live items are written.
	e2 := emulatortest.StartOn(t, env.e.PG, emulatortest.WithFrozenClock(env.e.Clock().Now()), emulatortest.WithoutBackgroundSweeper(), emulatortest.WithSweeper(-1, 100))
	var wg sync.WaitGroup
	var deleted [2]int
	var errs [2]error
	for i, srv := range []*emulatortest.Emulator{env.e, e2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			deleted[i], errs[i] = srv.Sweep(env.ctx)
		}()
	}
	for i := 0; i < 50; i++ {
		if _, err := c.CreateItem(env.ctx, pk, doc(fmt.Sprintf("new%d", i), nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("sweep errors: %v / %v", errs[0], errs[1])
	}
	if deleted[0]+deleted[1] != n {
		t.Fatalf("the two sweepers deleted %d + %d rows, want %d in total (no double work)", deleted[0], deleted[1], n)
	}
	if stored, live := stats(); stored != 50 || live != 50 {
		t.Fatalf("after the sweep: stored %d live %d, want 50 and 50", stored, live)
	}
	if s1, s2 := env.e.SweeperStats(), e2.SweeperStats(); s1.Errors != 0 || s2.Errors != 0 || s1.Deleted+s2.Deleted != n {
		t.Fatalf("sweeper stats %+v %+v", s1, s2)
	}
	// The control endpoint runs the same sweep.
	env.advance(t, 10)
	status, body, _ := rawCall(t, env.e, http.MethodPost, "/_emulator/ttl/sweep", nil)
	if status != 200 || string(body) != `{"deleted":50}` {
		t.Fatalf("POST /_emulator/ttl/sweep: %d %s", status, body)
	}
}

// TestTTLBackgroundSweeper: with the default settings the sweeper deletes
// expired rows within a few intervals, without any request.
func TestTTLBackgroundSweeper(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t, emulatortest.WithSweeper(100*time.Millisecond, 50))
	c := env.container(t, "c", i32(5))
	for i := 0; i < 120; i++ {
		if _, err := c.CreateItem(env.ctx, pk, doc(fmt.Sprintf("i%d", i), nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	env.advance(t, 5)
	deadline := time.Now().Add(10 * time.Second)
	for {
		cs, err := env.e.ContainerStats(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		// the counters are updated when a sweep ends, just after its last
		// delete: wait for both
		if len(cs) == 1 && cs[0].StoredRows == 0 && env.e.SweeperStats().Deleted == 120 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %+v, sweeper %+v", cs, env.e.SweeperStats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := env.e.SweeperStats(); st.Deleted != 120 || st.Sweeps == 0 {
		t.Fatalf("sweeper stats %+v, want 120 deleted", st)
	}
}

// TestControlClockEndpoint: the clock endpoint is authenticated and moves
// time forward only.
func TestControlClockEndpoint(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t)
	status, body, _ := rawCall(t, env.e, http.MethodGet, "/_emulator/clock", nil)
	if status != 200 || string(body) != `{"now":1800000000,"offsetSeconds":0}` {
		t.Fatalf("GET clock: %d %s", status, body)
	}
	status, body, _ = rawCall(t, env.e, http.MethodPost, "/_emulator/clock", []byte(`{"advanceSeconds":60}`))
	if status != 200 || string(body) != `{"now":1800000060,"offsetSeconds":60}` {
		t.Fatalf("advance: %d %s", status, body)
	}
	for _, bad := range []string{`{"advanceSeconds":-1}`, `{"offsetSeconds":10}`, `{}`, `nope`} {
		if status, body, _ = rawCall(t, env.e, http.MethodPost, "/_emulator/clock", []byte(bad)); status != 400 {
			t.Errorf("POST clock %s: %d %s, want 400", bad, status, body)
		}
	}
	status, body, _ = rawCall(t, env.e, http.MethodPost, "/_emulator/clock", []byte(`{"offsetSeconds":0,"reset":true}`))
	if status != 200 || string(body) != `{"now":1800000000,"offsetSeconds":0}` {
		t.Fatalf("reset: %d %s", status, body)
	}
	req, _ := http.NewRequest(http.MethodGet, env.e.Endpoint+"_emulator/clock", nil)
	resp, err := emulatortest.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("unsigned GET clock: %d, want 401", resp.StatusCode)
	}
	status, body, _ = rawCall(t, env.e, http.MethodGet, "/_emulator/stats", nil)
	var st struct {
		Containers []any          `json:"containers"`
		Sweeper    map[string]any `json:"sweeper"`
	}
	if status != 200 || json.Unmarshal(body, &st) != nil || st.Containers == nil || st.Sweeper == nil {
		t.Fatalf("GET stats: %d %s", status, body)
	}
}

// rawCall sends a signed request and returns status and body.
func rawCall(t *testing.T, e *emulatortest.Emulator, method, path string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	r := newRaw(t, e).do(method, path, body)
	return r.Status, r.Body, r.Header
}

// TestQueryCurrentTimeIsEmulatorTime: GetCurrentTimestamp() and friends
// read the emulator clock, so tests that move time see it in queries too.
func TestQueryCurrentTimeIsEmulatorTime(t *testing.T) {
	t.Parallel()
	env := newTTLEnv(t)
	c := env.container(t, "c", nil)
	query := func() string {
		resp, err := c.NewQueryItemsPager("SELECT VALUE [GetCurrentTimestampStatic(), GetCurrentDateTimeStatic()]", pk, nil).NextPage(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(resp.Items[0])
	}
	if got := query(); !strings.HasPrefix(got, "[1800000000000,\"2027-01-15T08:00:00.0000000Z\"") {
		t.Fatalf("at the frozen start: %s", got)
	}
	env.advance(t, 3600)
	if got := query(); !strings.HasPrefix(got, "[1800003600000,\"2027-01-15T09:00:00.0000000Z\"") {
		t.Fatalf("an hour later: %s", got)
	}
}
