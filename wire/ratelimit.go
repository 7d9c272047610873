package wire

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// Throttling (Config.RateLimit), as the service does it: each container
// with throughput of its own gets its provisioned RU/s (manual, or the
// maximum of autoscale) per second, divided evenly among its partition key
// ranges as the service divides it among physical partitions; the
// containers of a shared-throughput database share the database's RU/s
// in one budget. A request over its range's budget is answered 429 with
// sub-status 3200 and x-ms-retry-after-ms, and does nothing.
//
// Which range pays: the one the request names (x-ms-documentdb-
// partitionkeyrangeid), else the one holding its partition key (point
// operations, batches, single-partition queries); a request that names
// neither (a cross-partition query or read feed through the gateway) pays
// an equal share on every range and needs room on each.
//
// When it is charged: before it runs, a request reserves its estimate
// (a write: the emulator's charge for its body size; anything else: 1
// RU) and is admitted only if that fits in the range's budget for the
// current second, or the range has spent nothing of it (so a request
// dearer than a whole second's budget still runs, once). After it ran,
// the charge it answered with (x-ms-request-charge, known only then for
// queries and reads) replaces the estimate: a dear query puts its range in
// debt, and the next requests wait for the budgets of the seconds that
// pay it off. Budgets refill at each second boundary, so a burst within a
// second may use the whole budget at once; x-ms-retry-after-ms is the
// time until the boundary that leaves room.
//
// Budgets are cached per container and forgotten on any request that may
// change them (a write that is not an item operation: offer replace,
// container delete, split, ...), so an offer replace takes effect on the
// next request. Only data-plane requests (items, stored procedure
// executions) are throttled; the service limits metadata requests
// separately and far above what tests send.

// rateLimiter holds the budgets. It is safe for concurrent use.
type rateLimiter struct {
	svc *emulator.Service
	now func() time.Time

	mu      sync.Mutex
	targets map[string]*limitTarget // by the path's escaped "db/coll"
	buckets map[string]*ruBucket    // by budget owner RID "/" range id
}

// limitTarget is what a container's requests are charged to.
type limitTarget struct {
	c emulator.Container
	// owner is the RID whose offer sets the budget: the container's, or
	// its database's (shared, one bucket); "" when nothing limits it.
	owner  string
	shared bool
	// perRange is each bucket's RU/s.
	perRange float64
	// all are the keys of every range's bucket (the one of a shared
	// database), made once.
	all []string
}

// ruBucket is one budget: used request units counted from the start of
// second sec (Unix), refilled by budget at each second boundary.
type ruBucket struct {
	sec    int64
	used   float64
	budget float64
}

func newRateLimiter(svc *emulator.Service, now func() time.Time) *rateLimiter {
	return &rateLimiter{svc: svc, now: now, targets: map[string]*limitTarget{}, buckets: map[string]*ruBucket{}}
}

// roll moves b to second s: each second that passed pays off one budget.
func (b *ruBucket) roll(s int64) {
	if s > b.sec {
		b.used = math.Max(0, b.used-b.budget*float64(s-b.sec))
		b.sec = s
	}
}

// fits reports whether a request of estimate est may run at now; if not,
// wait is the time until the second boundary after which it fits (or the
// bucket has paid off its debt).
func (b *ruBucket) fits(now time.Time, est float64) (wait time.Duration, ok bool) {
	b.roll(now.Unix())
	if b.used <= 0 || b.used+est <= b.budget {
		return 0, true
	}
	k := math.Ceil(b.used / b.budget)                          // seconds until nothing is spent
	k = math.Min(k, math.Ceil((b.used+est-b.budget)/b.budget)) // seconds until est fits
	boundary := time.Unix(b.sec+int64(math.Max(1, k)), 0)
	return max(boundary.Sub(now), time.Millisecond), false
}

// limitedPath returns the escaped database and container of a request the
// limiter charges: item operations and stored procedure executions.
func limitedPath(r *http.Request) (db, coll string, ok bool) {
	p := r.URL.EscapedPath()
	rest, found := strings.CutPrefix(p, "/dbs/")
	if !found {
		return "", "", false
	}
	seg := strings.SplitN(rest, "/", 6) // db colls coll kind [id] [more]
	if len(seg) < 4 || seg[1] != "colls" || len(seg) == 6 {
		return "", "", false
	}
	switch {
	case seg[3] == "docs":
	case seg[3] == "sprocs" && len(seg) == 5 && r.Method == http.MethodPost:
	default:
		return "", "", false
	}
	return seg[0], seg[2], true
}

// estimate is what a request reserves before it runs: a write the
// emulator's charge for its body, anything else 1 RU.
func estimate(r *http.Request) float64 {
	n := int(max(r.ContentLength, 0))
	switch r.Method {
	case http.MethodPut, http.MethodPatch:
		return chargeRU(true, n)
	case http.MethodDelete:
		return chargeRU(true, 0)
	case http.MethodPost:
		if strings.Contains(r.URL.EscapedPath(), "/sprocs/") || isQuery(r) {
			return 1
		}
		return chargeRU(true, n)
	}
	return 1
}

// target returns the cached limit target of db/coll, resolving it on a
// miss; nil when the container cannot be read (the handler answers that)
// or has no offer.
func (l *rateLimiter) target(ctx context.Context, db, coll string) *limitTarget {
	key := db + "/" + coll
	l.mu.Lock()
	t := l.targets[key]
	l.mu.Unlock()
	if t != nil {
		return t
	}
	c, err := l.svc.GetContainer(ctx, unescape(db), unescape(coll))
	if err != nil {
		return nil
	}
	ru, owner, err := l.svc.ProvisionedThroughput(ctx, c)
	if err != nil {
		return nil
	}
	t = &limitTarget{c: c, owner: owner}
	if ru > 0 {
		t.shared = owner != c.RID
		n := 1
		if !t.shared {
			n = len(c.LiveRanges())
		}
		t.perRange = float64(ru) / float64(n)
		t.all = t.allKeys()
	} else {
		t.owner = ""
	}
	l.mu.Lock()
	l.targets[key] = t
	l.mu.Unlock()
	return t
}

// unescape unescapes a path segment as pathVar does.
func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// bucketKeys returns the buckets a request on t pays into, by the range
// id and partition key header it names ("": none): a request
// naming a range that a split replaced pays on every range that replaced
// it (a query reads them all; a change feed's 410/1002 repeated by a
// client counts against them like any request); nil when the range it
// names is unknown (the handler answers 410).
func (t *limitTarget) bucketKeys(rangeID, pkHeader string) []string {
	if t.shared {
		return t.all
	}
	if h := rangeID; h != "" {
		if rg, ok := t.c.RangeByID(h); ok {
			return []string{t.owner + "/" + rg.ID}
		}
		old, ok := t.c.SplitRangeByID(h)
		if !ok {
			return nil
		}
		var keys []string
		for _, rg := range t.c.LiveRangesWithin(old.EPK()) {
			keys = append(keys, t.owner+"/"+rg.ID)
		}
		return keys
	}
	if len(t.all) == 1 {
		return t.all // one range pays for everything: no key to hash
	}
	if h := pkHeader; h != "" {
		if pk, err := ParsePartitionKeyHeader(h); err == nil && pk != nil &&
			(len(pk) >= len(t.c.PartitionKey.Paths) || t.c.PartitionKey.SystemKey) {
			return []string{t.owner + "/" + t.c.RangeIDForKey(pk)}
		}
	}
	return t.all
}

// allKeys returns the keys of t's buckets: the shared database's one, or
// one per live range of the container.
func (t *limitTarget) allKeys() []string {
	if t.shared {
		return []string{t.owner}
	}
	rs := t.c.LiveRanges()
	keys := make([]string, len(rs))
	for i, rg := range rs {
		keys[i] = t.owner + "/" + rg.ID
	}
	return keys
}

// admit reserves est, shared evenly, in every bucket of keys, or reserves
// nothing and returns how long to wait when one has no room.
func (l *rateLimiter) admit(keys []string, budget, est float64) (time.Duration, bool) {
	now := l.now()
	share := est / float64(len(keys))
	l.mu.Lock()
	defer l.mu.Unlock()
	var wait time.Duration
	for _, k := range keys {
		b := l.buckets[k]
		if b == nil {
			b = &ruBucket{sec: now.Unix()}
			l.buckets[k] = b
		}
		b.budget = budget // an offer replace applies at once
		if w, ok := b.fits(now, share); !ok {
			wait = max(wait, w)
		}
	}
	if wait > 0 {
		return wait, false
	}
	for _, k := range keys {
		l.buckets[k].used += share
	}
	return 0, true
}

// settle replaces the estimate est reserved in keys by the charge the
// request answered with.
func (l *rateLimiter) settle(keys []string, est, charge float64) {
	now := l.now().Unix()
	share := (charge - est) / float64(len(keys))
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if b := l.buckets[k]; b != nil {
			b.roll(now)
			b.used = math.Max(0, b.used+share)
		}
	}
}

// forget drops the cached targets (their offers or ranges may have
// changed) and the buckets that have nothing left to pay off.
func (l *rateLimiter) forget() {
	now := l.now().Unix()
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.targets)
	for k, b := range l.buckets {
		if b.roll(now); b.used <= 0 {
			delete(l.buckets, k)
		}
	}
}

// reset drops every cached target and budget, debts included (a reset
// removed the containers they belonged to).
func (l *rateLimiter) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.targets)
	clear(l.buckets)
}

// rateLimit wraps next with the limiter; without Config.RateLimit it is
// next itself, so requests cost nothing more.
func (h *handler) rateLimit(next http.Handler) http.Handler {
	l := h.limiter
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		db, coll, limited := limitedPath(r)
		if !limited {
			next.ServeHTTP(w, r)
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				l.forget()
			}
			return
		}
		t := l.target(r.Context(), db, coll)
		var keys []string
		if t != nil && t.owner != "" {
			keys = t.bucketKeys(r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid"), r.Header.Get("X-Ms-Documentdb-Partitionkey"))
		}
		if len(keys) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		est := estimate(r)
		if wait, ok := l.admit(keys, t.perRange, est); !ok {
			// the same answer as an injected 429: one shape for every
			// throttle a client can meet
			ms := max(int((wait+time.Millisecond-1)/time.Millisecond), 1)
			writeInjected(w, FaultResponse{Status: http.StatusTooManyRequests, SubStatus: emulator.SubStatusRUBudgetExceeded, RetryAfterMs: ms})
			return
		}
		next.ServeHTTP(w, r)
		charge, err := strconv.ParseFloat(responseHeader(w.Header(), "X-Ms-Request-Charge"), 64)
		if err != nil {
			charge = est
		}
		l.settle(keys, est, charge)
	})
}
