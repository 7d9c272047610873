package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Fault injection: rules, set at run time (PUT /_emulator/faults/{name})
// or at start (--faults-file), that make matching requests fail, slow down
// or lose their connection before they run, so that tests reach the retry
// paths production takes (429 throttling, 503, 408, 410 after a split,
// 449, ...). An injected failure happens before the operation runs: it
// never changes data. With no rule the request path pays one atomic load.

// FaultOperations are the operation names a rule's match.operation takes:
// the names the metrics use (cosmos_emulator_requests_total's operation
// label). Reads of metadata (databases, containers, partition key ranges,
// offers, scripts) are "Read" (one resource) or "ReadFeed" (a list),
// told apart from item reads by match.resourceType.
var FaultOperations = []string{
	"Read", "ReadFeed", "Create", "Upsert", "Replace", "Delete", "Patch",
	"Query", "QueryPlan", "ChangeFeed", "Batch", "ExecuteStoredProcedure",
	"DeleteAllItemsByPartitionKey", "ReadAccount",
}

// MaxFaultDelayMs bounds response.delayMs: ten minutes, past every SDK's
// request timeout.
const MaxFaultDelayMs = 600_000

// MaxFaultRules bounds how many rules a set holds.
const MaxFaultRules = 1000

// FaultMatch selects the requests a rule applies to. Every field is
// optional; present fields combine with AND, and an absent field matches
// anything.
type FaultMatch struct {
	// Operation is one of FaultOperations (exact spelling).
	Operation string `json:"operation,omitempty"`
	// ResourceType is the resource type of the path: "docs", "colls",
	// "dbs", "pkranges", "sprocs", "offers", ...
	ResourceType string `json:"resourceType,omitempty"`
	// Database and Container are the ids in the path.
	Database  string `json:"database,omitempty"`
	Container string `json:"container,omitempty"`
	// PartitionKey is the partition key the request names in
	// x-ms-documentdb-partitionkey, as JSON: ["a"], ["a", 1] or a single
	// value ("a", 1), compared as JSON values.
	PartitionKey json.RawMessage `json:"partitionKey,omitempty"`
	// ID is the id of the addressed resource (the item's for item
	// operations, the stored procedure's for an execution).
	ID string `json:"id,omitempty"`
	// RangeID is the partition key range a request names in
	// x-ms-documentdb-partitionkeyrangeid (queries, read feeds and change
	// feeds scoped to a range; point operations name none).
	RangeID string `json:"rangeId,omitempty"`
	// UserAgent matches a User-Agent containing it (case-sensitive), to
	// target one client.
	UserAgent string `json:"userAgent,omitempty"`
}

// FaultResponse is what a rule does to a matching request: wait DelayMs
// (ending early if the client goes away), then close the connection
// (CloseConnection), answer Status with SubStatus in the service's error
// shape, or serve the request normally (DelayMs alone).
type FaultResponse struct {
	// Status is the HTTP status to answer, 400-599.
	Status int `json:"status,omitempty"`
	// SubStatus is sent as x-ms-substatus (default 0).
	SubStatus int `json:"substatus,omitempty"`
	// RetryAfterMs is sent as x-ms-retry-after-ms; a 429 always carries
	// one (default 100, within the service's usual range).
	RetryAfterMs int `json:"retryAfterMs,omitempty"`
	// DelayMs delays the request, 0..MaxFaultDelayMs.
	DelayMs int `json:"delayMs,omitempty"`
	// CloseConnection drops the connection without an answer.
	CloseConnection bool `json:"closeConnection,omitempty"`
}

// FaultRule is one fault rule: what it matches, what it answers, and its
// bounds. The bounds apply in this order to each matching request: a rule
// older than DurationMs no longer applies; with EveryNth only every Nth
// match goes on; with Probability a draw from the rule's own generator
// (seeded with Seed) decides; with Count the first Count injections are
// the only ones. Equal rules with equal seeds inject on the same requests
// of the same sequence.
type FaultRule struct {
	Match    FaultMatch    `json:"match"`
	Response FaultResponse `json:"response"`
	// Count is the number of injections, 0 for unlimited.
	Count int `json:"count,omitempty"`
	// Probability of injecting on a match, in (0, 1]; absent is 1.
	Probability *float64 `json:"probability,omitempty"`
	// Seed seeds the rule's generator; absent is a random seed.
	Seed *uint64 `json:"seed,omitempty"`
	// EveryNth injects on every Nth match only (0 or 1: every match).
	EveryNth int `json:"everyNth,omitempty"`
	// DurationMs ends the rule that long after it was set (0: never).
	DurationMs int64 `json:"durationMs,omitempty"`
}

// FaultRuleStatus is a named rule with its hit count, the element of GET
// /_emulator/faults's "rules" and of a --faults-file's "rules" (where
// "hits" is ignored).
type FaultRuleStatus struct {
	Name string `json:"name"`
	FaultRule
	// Hits counts the requests the rule injected a fault into.
	Hits int64 `json:"hits"`
}

// FaultList is the body of GET /_emulator/faults and the format of a
// faults file.
type FaultList struct {
	Rules []FaultRuleStatus `json:"rules"`
}

// faultError is a rule refused by validation (answered 400).
type faultError struct{ msg string }

func (e *faultError) Error() string { return e.msg }

// Validate reports what makes r unusable, or nil.
func (r *FaultRule) Validate() error {
	bad := func(format string, args ...any) error { return &faultError{fmt.Sprintf(format, args...)} }
	p := r.Response
	if p.Status == 0 && p.DelayMs == 0 && !p.CloseConnection {
		return bad("A fault rule needs response.status, response.delayMs or response.closeConnection.")
	}
	if p.Status != 0 && (p.Status < 400 || p.Status > 599) {
		return bad("response.status must be an error status, 400 to 599; got %d.", p.Status)
	}
	if p.Status != 0 && p.CloseConnection {
		return bad("response.status and response.closeConnection exclude each other.")
	}
	if p.SubStatus < 0 || p.RetryAfterMs < 0 {
		return bad("response.substatus and response.retryAfterMs must not be negative.")
	}
	if p.DelayMs < 0 || p.DelayMs > MaxFaultDelayMs {
		return bad("response.delayMs must be 0 to %d.", MaxFaultDelayMs)
	}
	if r.Count < 0 || r.EveryNth < 0 || r.DurationMs < 0 {
		return bad("count, everyNth and durationMs must not be negative.")
	}
	if r.Probability != nil && !(*r.Probability > 0 && *r.Probability <= 1) {
		return bad("probability must be greater than 0 and at most 1.")
	}
	if op := r.Match.Operation; op != "" && !slices.Contains(FaultOperations, op) {
		return bad("match.operation %q is none of %s.", op, strings.Join(FaultOperations, ", "))
	}
	if len(r.Match.PartitionKey) > 0 {
		if _, err := canonicalPK(r.Match.PartitionKey); err != nil {
			return bad("match.partitionKey must be JSON, like [\"a\"]: %v", err)
		}
	}
	return nil
}

// ValidFaultName reports whether name can name a rule: 1 to 255
// characters, no '/', '?' or '#'.
func ValidFaultName(name string) bool {
	return name != "" && len(name) <= 255 && !strings.ContainsAny(name, "/?#")
}

// canonicalPK renders a partition key JSON value as a compact JSON array
// (a single value is a one-component key), so equal keys compare equal
// whatever their spacing.
func canonicalPK(raw []byte) (string, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	if _, ok := v.([]any); !ok {
		v = []any{v}
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// activeFault is a rule in a set, with its state.
type activeFault struct {
	name  string
	rule  FaultRule
	pk    string // canonical match.partitionKey, "" when absent
	until time.Time

	mu   sync.Mutex
	rng  *rand.Rand
	seen int64
	hits int64
}

// FaultSet holds the fault rules of a handler. It is safe for concurrent
// use; the zero value is not: use NewFaultSet.
type FaultSet struct {
	mu    sync.Mutex
	rules map[string]*activeFault
	// active is the rules in name order, nil when there are none: the
	// request path's only cost without rules is loading it.
	active atomic.Pointer[[]*activeFault]
	// injected counts injections by rule name over the set's life
	// (deleted rules included), for /_emulator/stats and the metrics.
	injected map[string]int64
	onInject func(name string)
	now      func() time.Time
}

// NewFaultSet returns an empty set.
func NewFaultSet() *FaultSet {
	return &FaultSet{rules: map[string]*activeFault{}, injected: map[string]int64{}, now: time.Now}
}

// Put validates rule and stores it as name, replacing (and resetting the
// counters of) a rule of that name; it reports whether the rule is new.
func (s *FaultSet) Put(name string, rule FaultRule) (created bool, err error) {
	if !ValidFaultName(name) {
		return false, &faultError{"A fault rule's name must be 1 to 255 characters without '/', '?' or '#'."}
	}
	if err := rule.Validate(); err != nil {
		return false, err
	}
	f := &activeFault{name: name, rule: rule}
	if len(rule.Match.PartitionKey) > 0 {
		f.pk, _ = canonicalPK(rule.Match.PartitionKey)
	}
	seed := rand.Uint64()
	if rule.Seed != nil {
		seed = *rule.Seed
	}
	f.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s.mu.Lock()
	defer s.mu.Unlock()
	if rule.DurationMs > 0 {
		f.until = s.now().Add(time.Duration(rule.DurationMs) * time.Millisecond)
	}
	_, replaced := s.rules[name]
	if !replaced && len(s.rules) >= MaxFaultRules {
		return false, &faultError{fmt.Sprintf("At most %d fault rules can be set.", MaxFaultRules)}
	}
	s.rules[name] = f
	s.publish()
	return !replaced, nil
}

// Delete removes the rule name and reports whether it existed.
func (s *FaultSet) Delete(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.rules[name]
	delete(s.rules, name)
	s.publish()
	return ok
}

// Clear removes every rule.
func (s *FaultSet) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.rules)
	s.publish()
}

// publish stores the rules in name order (s.mu held).
func (s *FaultSet) publish() {
	if len(s.rules) == 0 {
		s.active.Store(nil)
		return
	}
	rs := make([]*activeFault, 0, len(s.rules))
	for _, f := range s.rules {
		rs = append(rs, f)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].name < rs[j].name })
	s.active.Store(&rs)
}

// List returns the rules in name order with their hit counts.
func (s *FaultSet) List() FaultList {
	out := FaultList{Rules: []FaultRuleStatus{}}
	if rs := s.active.Load(); rs != nil {
		for _, f := range *rs {
			out.Rules = append(out.Rules, f.status())
		}
	}
	return out
}

// Get returns the rule name with its hit count.
func (s *FaultSet) Get(name string) (FaultRuleStatus, bool) {
	s.mu.Lock()
	f, ok := s.rules[name]
	s.mu.Unlock()
	if !ok {
		return FaultRuleStatus{}, false
	}
	return f.status(), true
}

// Injected returns how many faults each rule name injected over the set's
// life, deleted rules included.
func (s *FaultSet) Injected() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.injected)
}

func (f *activeFault) status() FaultRuleStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return FaultRuleStatus{Name: f.name, FaultRule: f.rule, Hits: f.hits}
}

// LoadFaultList parses a faults file ({"rules":[{"name":..., <rule>}]},
// the form GET /_emulator/faults answers) and puts its rules into s.
func (s *FaultSet) LoadFaultList(data []byte) error {
	var l FaultList
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&l); err != nil {
		return fmt.Errorf("faults: %w", err)
	}
	for i, r := range l.Rules {
		if _, err := s.Put(r.Name, r.FaultRule); err != nil {
			return fmt.Errorf("faults: rule %d (%q): %w", i, r.Name, err)
		}
	}
	return nil
}

// faultRequest is what rules match on, read from a request once.
type faultRequest struct {
	op, rt, db, coll, id, rangeID, userAgent string
	pkHeader                                 string
	pk                                       string // canonical, computed on first use
	pkDone                                   bool
}

// newFaultRequest reads r's operation, resource type, names and headers.
func newFaultRequest(r *http.Request) *faultRequest {
	q := &faultRequest{userAgent: r.Header.Get("User-Agent"), pkHeader: r.Header.Get("X-Ms-Documentdb-Partitionkey")}
	q.op, q.rt = classify(r)
	rid := r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid")
	if i := strings.LastIndexByte(rid, ','); i >= 0 {
		rid = rid[i+1:] // "<collection rid>,<range id>" in some SDKs
	}
	q.rangeID = rid
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	for i, s := range segs {
		if u, err := url.PathUnescape(s); err == nil {
			segs[i] = u
		}
	}
	if len(segs) >= 2 && segs[0] == "dbs" {
		q.db = segs[1]
	}
	if len(segs) >= 4 && segs[0] == "dbs" && segs[2] == "colls" {
		q.coll = segs[3]
	}
	if len(segs) >= 2 && len(segs)%2 == 0 {
		q.id = segs[len(segs)-1]
	}
	return q
}

func (q *faultRequest) canonicalPK() string {
	if !q.pkDone {
		q.pkDone = true
		if q.pkHeader != "" {
			q.pk, _ = canonicalPK([]byte(q.pkHeader))
		}
	}
	return q.pk
}

// matches reports whether the rule's match selects q.
func (f *activeFault) matches(q *faultRequest) bool {
	m := &f.rule.Match
	return (m.Operation == "" || m.Operation == q.op) &&
		(m.ResourceType == "" || m.ResourceType == q.rt) &&
		(m.Database == "" || m.Database == q.db) &&
		(m.Container == "" || m.Container == q.coll) &&
		(m.ID == "" || m.ID == q.id) &&
		(m.RangeID == "" || m.RangeID == q.rangeID) &&
		(m.UserAgent == "" || strings.Contains(q.userAgent, m.UserAgent)) &&
		(f.pk == "" || f.pk == q.canonicalPK())
}

// fire applies the rule's bounds to one matching request and reports
// whether it injects its fault into it.
func (f *activeFault) fire(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.until.IsZero() && !now.Before(f.until) {
		return false
	}
	f.seen++
	if n := int64(f.rule.EveryNth); n > 1 && f.seen%n != 0 {
		return false
	}
	if p := f.rule.Probability; p != nil && f.rng.Float64() >= *p {
		return false
	}
	if f.rule.Count > 0 && f.hits >= int64(f.rule.Count) {
		return false
	}
	f.hits++
	return true
}

// pick returns the first rule, in name order, that injects a fault into
// r, or nil. Only the rules that match see the request (and advance
// their everyNth and probability sequences); the rules after the one
// that fires do not.
func (s *FaultSet) pick(r *http.Request) *activeFault {
	if s.active.Load() == nil {
		return nil
	}
	q := newFaultRequest(r)
	if q.rt == "_emulator" || q.rt == "_explorer" {
		return nil // the control plane is never faulted
	}
	return s.pickFor(q)
}

// pickFor is pick for a request already read into q (direct mode's
// requests are, without an http.Request).
func (s *FaultSet) pickFor(q *faultRequest) *activeFault {
	rs := s.active.Load()
	if rs == nil {
		return nil
	}
	now := s.now()
	for _, f := range *rs {
		if f.matches(q) && f.fire(now) {
			s.mu.Lock()
			s.injected[f.name]++
			s.mu.Unlock()
			if s.onInject != nil {
				s.onInject(f.name)
			}
			return f
		}
	}
	return nil
}
