package wire

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// faultReq builds a request as the SDKs send it: method, path, headers.
func faultReq(method, path string, hdr ...string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

// TestFaultMatch: each match field selects exactly the requests it names,
// operations are derived from method, path and headers, and the control
// plane is never faulted.
func TestFaultMatch(t *testing.T) {
	t.Parallel()
	read := faultReq("GET", "/dbs/db1/colls/c1/docs/item1", "X-Ms-Documentdb-Partitionkey", `["a"]`, "User-Agent", "azsdk-go my-service/1")
	for _, c := range []struct {
		name  string
		match FaultMatch
		req   *http.Request
		want  bool
	}{
		{"empty match: everything", FaultMatch{}, read, true},
		{"operation Read", FaultMatch{Operation: "Read"}, read, true},
		{"operation Create is not a read", FaultMatch{Operation: "Create"}, read, false},
		{"create", FaultMatch{Operation: "Create"}, faultReq("POST", "/dbs/db1/colls/c1/docs"), true},
		{"upsert header", FaultMatch{Operation: "Upsert"}, faultReq("POST", "/dbs/db1/colls/c1/docs", "X-Ms-Documentdb-Is-Upsert", "True"), true},
		{"query header", FaultMatch{Operation: "Query"}, faultReq("POST", "/dbs/db1/colls/c1/docs", "X-Ms-Documentdb-Isquery", "True"), true},
		{"batch header", FaultMatch{Operation: "Batch"}, faultReq("POST", "/dbs/db1/colls/c1/docs", "X-Ms-Cosmos-Is-Batch-Request", "True"), true},
		{"change feed: A-IM", FaultMatch{Operation: "ChangeFeed"}, faultReq("GET", "/dbs/db1/colls/c1/docs", "A-Im", "Incremental feed"), true},
		{"read feed", FaultMatch{Operation: "ReadFeed", ResourceType: "docs"}, faultReq("GET", "/dbs/db1/colls/c1/docs"), true},
		{"replace", FaultMatch{Operation: "Replace"}, faultReq("PUT", "/dbs/db1/colls/c1/docs/item1"), true},
		{"patch", FaultMatch{Operation: "Patch"}, faultReq("PATCH", "/dbs/db1/colls/c1/docs/item1"), true},
		{"delete", FaultMatch{Operation: "Delete"}, faultReq("DELETE", "/dbs/db1/colls/c1/docs/item1"), true},
		{"sproc execution", FaultMatch{Operation: "ExecuteStoredProcedure", ID: "sp1"}, faultReq("POST", "/dbs/db1/colls/c1/sprocs/sp1"), true},
		{"metadata read: container", FaultMatch{Operation: "Read", ResourceType: "colls"}, faultReq("GET", "/dbs/db1/colls/c1"), true},
		{"metadata read: pkranges", FaultMatch{Operation: "ReadFeed", ResourceType: "pkranges"}, faultReq("GET", "/dbs/db1/colls/c1/pkranges"), true},
		{"resource type docs is not colls", FaultMatch{ResourceType: "docs"}, faultReq("GET", "/dbs/db1/colls/c1"), false},
		{"database", FaultMatch{Database: "db1"}, read, true},
		{"other database", FaultMatch{Database: "db2"}, read, false},
		{"container", FaultMatch{Database: "db1", Container: "c1"}, read, true},
		{"other container", FaultMatch{Container: "c2"}, read, false},
		{"escaped names", FaultMatch{Container: "c 1", ID: "a/b"}, faultReq("GET", "/dbs/db1/colls/c%201/docs/a%2Fb"), true},
		{"id", FaultMatch{ID: "item1"}, read, true},
		{"other id", FaultMatch{ID: "item2"}, read, false},
		{"partition key array", FaultMatch{PartitionKey: json.RawMessage(`["a"]`)}, read, true},
		{"partition key single value, spaced", FaultMatch{PartitionKey: json.RawMessage(` "a" `)}, read, true},
		{"other partition key", FaultMatch{PartitionKey: json.RawMessage(`["b"]`)}, read, false},
		{"partition key 1 is not \"1\"", FaultMatch{PartitionKey: json.RawMessage(`[1]`)}, faultReq("GET", "/dbs/d/colls/c/docs/x", "X-Ms-Documentdb-Partitionkey", `["1"]`), false},
		{"no partition key header", FaultMatch{PartitionKey: json.RawMessage(`["a"]`)}, faultReq("GET", "/dbs/db1/colls/c1/docs"), false},
		{"range id", FaultMatch{RangeID: "1"}, faultReq("POST", "/dbs/d/colls/c/docs", "X-Ms-Documentdb-Partitionkeyrangeid", "1"), true},
		{"range id with collection rid", FaultMatch{RangeID: "1"}, faultReq("POST", "/dbs/d/colls/c/docs", "X-Ms-Documentdb-Partitionkeyrangeid", "abc=,1"), true},
		{"other range id", FaultMatch{RangeID: "2"}, faultReq("POST", "/dbs/d/colls/c/docs", "X-Ms-Documentdb-Partitionkeyrangeid", "1"), false},
		{"user agent substring", FaultMatch{UserAgent: "my-service"}, read, true},
		{"other user agent", FaultMatch{UserAgent: "other-service"}, read, false},
		{"all fields", FaultMatch{Operation: "Read", ResourceType: "docs", Database: "db1", Container: "c1", PartitionKey: json.RawMessage(`["a"]`), ID: "item1", UserAgent: "my-service"}, read, true},
		{"control plane never", FaultMatch{}, faultReq("GET", "/_emulator/faults"), false},
		{"explorer never", FaultMatch{}, faultReq("GET", "/_explorer/index.html"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewFaultSet()
			if _, err := s.Put("r", FaultRule{Match: c.match, Response: FaultResponse{Status: 503}}); err != nil {
				t.Fatal(err)
			}
			if got := s.pick(c.req) != nil; got != c.want {
				t.Errorf("picked = %v, want %v", got, c.want)
			}
		})
	}
}

// pattern runs n matching requests through a one-rule set and returns
// which of them the rule injected into ('x') or let through ('.').
func pattern(t *testing.T, s *FaultSet, n int) string {
	t.Helper()
	var b strings.Builder
	for range n {
		if s.pick(faultReq("GET", "/dbs/d/colls/c/docs/x")) != nil {
			b.WriteByte('x')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// TestFaultBounds: count, everyNth and durationMs bound a rule exactly,
// and probability with a seed gives the same pattern for the same seed.
func TestFaultBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		rule FaultRule
		want string
	}{
		{"unbounded", FaultRule{}, "xxxxxxxx"},
		{"count 3", FaultRule{Count: 3}, "xxx....."},
		{"every 3rd", FaultRule{EveryNth: 3}, "..x..x.."},
		{"every 2nd, count 2", FaultRule{EveryNth: 2, Count: 2}, ".x.x...."},
		{"probability 1", FaultRule{Probability: ptr(1.0)}, "xxxxxxxx"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := NewFaultSet()
			c.rule.Response.Status = 429
			if _, err := s.Put("r", c.rule); err != nil {
				t.Fatal(err)
			}
			if got := pattern(t, s, len(c.want)); got != c.want {
				t.Errorf("pattern %s, want %s", got, c.want)
			}
			hits := int64(strings.Count(c.want, "x"))
			if st, _ := s.Get("r"); st.Hits != hits {
				t.Errorf("hits %d, want %d", st.Hits, hits)
			}
			if got := s.Injected()["r"]; got != hits {
				t.Errorf("injected %d, want %d", got, hits)
			}
		})
	}
	t.Run("probability with seed is reproducible", func(t *testing.T) {
		t.Parallel()
		run := func(seed uint64) string {
			s := NewFaultSet()
			if _, err := s.Put("r", FaultRule{Response: FaultResponse{Status: 503}, Probability: ptr(0.5), Seed: &seed}); err != nil {
				t.Fatal(err)
			}
			return pattern(t, s, 64)
		}
		a, b, other := run(7), run(7), run(8)
		t.Logf("seed 7: %s\nseed 8: %s", a, other)
		if a != b {
			t.Errorf("seed 7 gave %s then %s", a, b)
		}
		if a == other {
			t.Errorf("seeds 7 and 8 gave the same 64 draws %s", a)
		}
		if n := strings.Count(a, "x"); n == 0 || n == 64 {
			t.Errorf("probability 0.5 injected %d of 64", n)
		}
	})
	t.Run("durationMs ends the rule", func(t *testing.T) {
		t.Parallel()
		s := NewFaultSet()
		now := time.Unix(1000, 0)
		s.now = func() time.Time { return now }
		if _, err := s.Put("r", FaultRule{Response: FaultResponse{Status: 503}, DurationMs: 1000}); err != nil {
			t.Fatal(err)
		}
		if got := pattern(t, s, 2); got != "xx" {
			t.Errorf("within the window: %s", got)
		}
		now = now.Add(time.Second)
		if got := pattern(t, s, 2); got != ".." {
			t.Errorf("after the window: %s", got)
		}
	})
	t.Run("first rule in name order wins; the others do not count", func(t *testing.T) {
		t.Parallel()
		s := NewFaultSet()
		for _, n := range []string{"b", "a"} {
			if _, err := s.Put(n, FaultRule{Response: FaultResponse{Status: 503}, Count: 1}); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for range 3 {
			if f := s.pick(faultReq("GET", "/dbs/d/colls/c/docs/x")); f != nil {
				got = append(got, f.name)
			} else {
				got = append(got, "-")
			}
		}
		if strings.Join(got, "") != "ab-" {
			t.Errorf("picked %v, want a, b, none", got)
		}
	})
	t.Run("replace resets, delete and clear remove", func(t *testing.T) {
		t.Parallel()
		s := NewFaultSet()
		rule := FaultRule{Response: FaultResponse{Status: 503}, Count: 1}
		if created, _ := s.Put("r", rule); !created {
			t.Error("first put: not created")
		}
		pattern(t, s, 2)
		if created, _ := s.Put("r", rule); created {
			t.Error("second put: created")
		}
		if got := pattern(t, s, 2); got != "x." {
			t.Errorf("after replace: %s", got)
		}
		if !s.Delete("r") || s.Delete("r") {
			t.Error("delete: want true then false")
		}
		if s.active.Load() != nil {
			t.Error("rules remain after the last delete")
		}
		s.Put("a", rule)
		s.Clear()
		if len(s.List().Rules) != 0 || s.active.Load() != nil {
			t.Error("rules remain after clear")
		}
		if s.Injected()["r"] != 2 {
			t.Errorf("injected by r over the set's life: %d, want 2", s.Injected()["r"])
		}
	})
}

// TestFaultRuleValidation: a rule needs an effect; bounds and statuses
// outside their ranges, unknown operations and bad names are refused.
func TestFaultRuleValidation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		rule FaultRule
		ok   bool
	}{
		{"status", FaultRule{Response: FaultResponse{Status: 429, SubStatus: 3200, RetryAfterMs: 50}}, true},
		{"delay only", FaultRule{Response: FaultResponse{DelayMs: 10}}, true},
		{"close only", FaultRule{Response: FaultResponse{CloseConnection: true}}, true},
		{"no effect", FaultRule{Count: 1}, false},
		{"status 200", FaultRule{Response: FaultResponse{Status: 200}}, false},
		{"status 600", FaultRule{Response: FaultResponse{Status: 600}}, false},
		{"status and close", FaultRule{Response: FaultResponse{Status: 503, CloseConnection: true}}, false},
		{"negative delay", FaultRule{Response: FaultResponse{DelayMs: -1}}, false},
		{"delay past the bound", FaultRule{Response: FaultResponse{DelayMs: MaxFaultDelayMs + 1}}, false},
		{"negative count", FaultRule{Response: FaultResponse{Status: 503}, Count: -1}, false},
		{"probability 0", FaultRule{Response: FaultResponse{Status: 503}, Probability: ptr(0.0)}, false},
		{"probability 1.5", FaultRule{Response: FaultResponse{Status: 503}, Probability: ptr(1.5)}, false},
		{"unknown operation", FaultRule{Match: FaultMatch{Operation: "read"}, Response: FaultResponse{Status: 503}}, false},
		{"bad partition key", FaultRule{Match: FaultMatch{PartitionKey: json.RawMessage(`[a`)}, Response: FaultResponse{Status: 503}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewFaultSet().Put("r", c.rule)
			if (err == nil) != c.ok {
				t.Errorf("Put: %v, want ok=%v", err, c.ok)
			}
		})
	}
	for _, n := range []string{"", "a/b", strings.Repeat("x", 256)} {
		if _, err := NewFaultSet().Put(n, FaultRule{Response: FaultResponse{Status: 503}}); err == nil {
			t.Errorf("name %q accepted", n)
		}
	}
}

// TestFaultListLoad: a faults file in the form GET /_emulator/faults
// answers loads; a misspelt member is refused rather than ignored.
func TestFaultListLoad(t *testing.T) {
	t.Parallel()
	s := NewFaultSet()
	if err := s.LoadFaultList([]byte(`{"rules":[{"name":"throttle","match":{"operation":"Read"},"response":{"status":429,"substatus":3200},"count":2,"hits":5}]}`)); err != nil {
		t.Fatal(err)
	}
	l := s.List()
	if len(l.Rules) != 1 || l.Rules[0].Name != "throttle" || l.Rules[0].Count != 2 || l.Rules[0].Hits != 0 {
		t.Errorf("loaded %+v", l)
	}
	if err := NewFaultSet().LoadFaultList([]byte(`{"rules":[{"name":"x","response":{"status":429},"cout":2}]}`)); err == nil {
		t.Error("a misspelt bound was accepted")
	}
}

// BenchmarkFaultHookNoRules measures the hook's cost on a request when no
// rule is set (one atomic load), against a handler without it, and with
// one non-matching rule.
func BenchmarkFaultHookNoRules(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	req := faultReq("GET", "/dbs/db1/colls/c1/docs/item1", "X-Ms-Documentdb-Partitionkey", `["a"]`)
	w := httptest.NewRecorder()
	b.Run("without hook", func(b *testing.B) {
		for range b.N {
			next.ServeHTTP(w, req)
		}
	})
	b.Run("no rules", func(b *testing.B) {
		h := (&handler{faults: NewFaultSet()}).faultHook(next)
		for range b.N {
			h.ServeHTTP(w, req)
		}
	})
	b.Run("one rule, other container", func(b *testing.B) {
		h := &handler{faults: NewFaultSet()}
		h.faults.Put("r", FaultRule{Match: FaultMatch{Container: "c2"}, Response: FaultResponse{Status: 503}})
		hh := h.faultHook(next)
		for range b.N {
			hh.ServeHTTP(w, req)
		}
	})
}

// TestFaultRuleIssueExample decodes the rule format exactly as documented
// (every field, as the README and the helpers rely on it) with unknown
// members refused, and stores it.
func TestFaultRuleIssueExample(t *testing.T) {
	t.Parallel()
	const example = `{"match": {"operation": "Read", "resourceType": "docs", "database": "db1", "container": "c1",
    "partitionKey": ["a"], "id": "item1", "rangeId": "0", "userAgent": "my-service"},
    "response": {"status": 429, "substatus": 3200, "retryAfterMs": 50, "delayMs": 0,
    "closeConnection": false}, "count": 2, "probability": 0.5, "seed": 7, "everyNth": 3,
    "durationMs": 60000}`
	dec := json.NewDecoder(strings.NewReader(example))
	dec.DisallowUnknownFields()
	var r FaultRule
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	m, resp := r.Match, r.Response
	if m.Operation != "Read" || m.ResourceType != "docs" || m.Database != "db1" || m.Container != "c1" || string(m.PartitionKey) != `["a"]` ||
		m.ID != "item1" || m.RangeID != "0" || m.UserAgent != "my-service" {
		t.Errorf("match = %+v", m)
	}
	if resp.Status != 429 || resp.SubStatus != 3200 || resp.RetryAfterMs != 50 || resp.DelayMs != 0 || resp.CloseConnection {
		t.Errorf("response = %+v", resp)
	}
	if r.Count != 2 || r.Probability == nil || *r.Probability != 0.5 || r.Seed == nil || *r.Seed != 7 || r.EveryNth != 3 || r.DurationMs != 60000 {
		t.Errorf("bounds = %+v", r)
	}
	if _, err := NewFaultSet().Put("example", r); err != nil {
		t.Errorf("Put: %v", err)
	}
}
