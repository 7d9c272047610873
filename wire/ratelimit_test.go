package wire

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// TestRUBucketFits: a bucket admits a request whose estimate fits in what
// is left of the current second's budget, or any request when nothing of
// it is spent; otherwise the wait is the time to the second boundary that
// leaves room, past a debt of several seconds when a dear request left
// one.
func TestRUBucketFits(t *testing.T) {
	t.Parallel()
	base := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	for _, tt := range []struct {
		name     string
		used     float64 // spent in second base
		now      time.Time
		est      float64
		wantOK   bool
		wantWait time.Duration
	}{
		{"empty admits", 0, at(10), 6, true, 0},
		{"empty admits more than the budget", 0, at(10), 2000, true, 0},
		{"fits exactly", 394, at(10), 6, true, 0},
		{"over: wait to the boundary", 395, at(250), 6, false, 750 * time.Millisecond},
		{"next second refilled", 400, at(1001), 6, true, 0},
		{"debt of 1000 RU: one second paid, one more to wait", 1000, at(1000), 6, false, time.Second},
		{"debt paid off after two seconds", 1000, at(2500), 6, true, 0},
		{"a dear request waits until nothing is spent", 390, at(900), 500, false, 100 * time.Millisecond},
	} {
		b := &ruBucket{sec: base.Unix(), used: tt.used, budget: 400}
		wait, ok := b.fits(tt.now, tt.est)
		if ok != tt.wantOK || wait != tt.wantWait {
			t.Errorf("%s: fits = %v, %v; want %v, %v", tt.name, wait, ok, tt.wantWait, tt.wantOK)
		}
	}
}

// testLimiter returns a limiter whose clock stands at now, with container
// d/c (partition key /pk) of the given ranges and RU/s already resolved.
func testLimiter(now time.Time, ranges, ru int) (*rateLimiter, *limitTarget) {
	def := emulator.PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	c := emulator.Container{RID: "cRID", DatabaseRID: "dRID", PartitionKey: def, Ranges: emulator.InitialRanges(def, ranges, 0, 0)}
	l := newRateLimiter(nil, func() time.Time { return now })
	tg := &limitTarget{c: c, owner: c.RID, perRange: float64(ru) / float64(ranges)}
	tg.all = tg.allKeys()
	l.targets["d/c"] = tg
	return l, tg
}

// TestRateLimitRanges: a container's budget is divided evenly among its
// ranges and a request pays to the range it is served from: 400 RU/s over
// two ranges admits 33 creates of 6 RU on one partition key's range, the
// other range still has its own 200, and a request naming no range needs
// a share on each.
func TestRateLimitRanges(t *testing.T) {
	t.Parallel()
	l, tg := testLimiter(time.Unix(1_700_000_000, 0), 2, 400)
	var a string
	for _, pk := range []string{`["a"]`, `["b"]`, `["c"]`, `["d"]`} {
		if k := tg.bucketKeys("", pk); len(k) != 1 {
			t.Fatalf("%s pays to %v, want one range", pk, k)
		} else if a == "" {
			a = k[0]
		}
	}
	var other []string
	for _, pk := range []string{`["b"]`, `["c"]`, `["d"]`, `["e"]`, `["f"]`, `["g"]`} {
		if k := tg.bucketKeys("", pk); k[0] != a {
			other = k
			break
		}
	}
	if other == nil {
		t.Fatal("no partition key of seven falls in the second range")
	}
	n := 0
	for ; n < 100; n++ {
		if _, ok := l.admit([]string{a}, tg.perRange, 6); !ok {
			break
		}
	}
	if n != 33 {
		t.Errorf("one range of 400 RU/s over 2 admitted %d creates of 6 RU, want 33", n)
	}
	if _, ok := l.admit(other, tg.perRange, 6); !ok {
		t.Error("the other range was throttled by the first's load")
	}
	if k := tg.bucketKeys("1", ""); len(k) != 1 || k[0] != "cRID/1" {
		t.Errorf("a request naming range 1 pays to %v", k)
	}
	if k := tg.bucketKeys("7", ""); k != nil {
		t.Errorf("a request naming an unknown range pays to %v, want none (the handler answers 410)", k)
	}
	// a request naming a range that a split replaced pays on the ranges
	// that replaced it
	split := *tg
	split.c.Ranges = []emulator.PartitionKeyRange{
		{ID: "2", MinInclusive: "", MaxExclusive: "10", Parents: []string{"0"}, Status: emulator.RangeOnline},
		{ID: "3", MinInclusive: "10", MaxExclusive: tg.c.Ranges[1].MinInclusive, Parents: []string{"0"}, Status: emulator.RangeOnline},
		tg.c.Ranges[1],
	}
	if k := split.bucketKeys("0", ""); len(k) != 2 || k[0] != "cRID/2" || k[1] != "cRID/3" {
		t.Errorf("a request naming split range 0 pays to %v, want its children 2 and 3", k)
	}
	all := tg.bucketKeys("", "")
	if len(all) != 2 {
		t.Fatalf("a cross-partition request pays to %v, want both ranges", all)
	}
	if _, ok := l.admit(all, tg.perRange, 6); ok {
		t.Error("a cross-partition request was admitted although one of its ranges is spent")
	}
	// settle replaces the estimate by the charge: a request that reserved
	// 1 RU and cost 151 leaves the other range 6+150 spent.
	l.settle(other, 1, 151)
	if b := l.buckets[other[0]]; b.used != 156 {
		t.Errorf("after settling, the other range spent %v, want 156", b.used)
	}
}

// TestRateLimitOff: without Config.RateLimit the chain holds the router
// itself, so a request costs what it cost before.
func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	h := &handler{}
	if got := h.rateLimit(inner); reflect.ValueOf(got).Pointer() != reflect.ValueOf(inner).Pointer() {
		t.Error("rateLimit wrapped the handler although no limiter is configured")
	}
}

// BenchmarkRateLimit measures what the limiter adds to a create: off (the
// chain without it), on and admitted, on and throttled (the 429 written).
//
//	go test -run '^$' -bench BenchmarkRateLimit ./wire/
func BenchmarkRateLimit(b *testing.B) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ms-Request-Charge", "5.71")
		w.WriteHeader(http.StatusCreated)
	})
	now := time.Unix(1_700_000_000, 0)
	for _, c := range []struct {
		name string
		ru   int
	}{{"off", 0}, {"admitted", 1 << 40}, {"throttled", 400}} {
		h := &handler{}
		if c.ru > 0 {
			h.limiter, _ = testLimiter(now, 1, c.ru)
			h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
		}
		hh := h.rateLimit(inner)
		req := httptest.NewRequest(http.MethodPost, "/dbs/d/colls/c/docs", nil)
		req.Header.Set("X-Ms-Documentdb-Partitionkey", `["a"]`)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hh.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
