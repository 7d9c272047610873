package emulator

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestRangeCountFor checks the service's sizing rule (issue facts: 21,000
// RU/s gives 4 ranges, 18,000 gives 3, 11,000 gives 2, 400 gives 1).
func TestRangeCountFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tp   *Throughput
		want int
	}{
		{&Throughput{Manual: 21000}, 4},
		{&Throughput{Manual: 18000}, 3},
		{&Throughput{Manual: 11000}, 2},
		{&Throughput{Manual: 10000}, 1}, // not above 10,000
		{&Throughput{Manual: 400}, 1},
		{nil, 1}, // shared database throughput, or none of its own
		{&Throughput{AutoscaleMax: 1000}, 1},
		{&Throughput{AutoscaleMax: 10000}, 1},
		{&Throughput{AutoscaleMax: 20000}, 2},
		{&Throughput{AutoscaleMax: 21000}, 3},
	} {
		if got := RangeCountFor(tc.tp); got != tc.want {
			t.Errorf("RangeCountFor(%+v) = %d, want %d", tc.tp, got, tc.want)
		}
	}
}

// checkTiling fails unless rs tile ["", "FF") in order, with ids 0..n-1.
func checkTiling(t *testing.T, rs []PartitionKeyRange) {
	t.Helper()
	if len(rs) == 0 || rs[0].MinInclusive != "" || rs[len(rs)-1].MaxExclusive != "FF" {
		t.Fatalf("ranges do not cover the space: %+v", rs)
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].MinInclusive != rs[i-1].MaxExclusive || rs[i].MinInclusive <= rs[i-1].MinInclusive {
			t.Fatalf("ranges %d and %d do not meet in order: %+v", i-1, i, rs)
		}
	}
}

// TestInitialRanges checks the boundaries of each EPK form: V2 and
// MultiHash divide 0..2^126 evenly as 32 hex chars, V1 divides the 32-bit
// hash space ("05" + the number encoding of the hash), the system key and
// kind Range keep one range.
func TestInitialRanges(t *testing.T) {
	t.Parallel()
	v1 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}
	v2 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	mh := PartitionKeyDefinition{Paths: []string{"/a", "/b"}, Kind: "MultiHash", Version: 2}
	rk := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Range"}
	for _, tc := range []struct {
		name  string
		def   PartitionKeyDefinition
		n     int
		inner []string
	}{
		{"v2 x2", v2, 2, []string{"20000000000000000000000000000000"}},
		{"v2 x4", v2, 4, []string{"10000000000000000000000000000000", "20000000000000000000000000000000", "30000000000000000000000000000000"}},
		// The service's five ranges are k times floor(2^126/5): the Python
		// SDK's test_circuit_breaker_emulator.py test_pk_range_wrapper
		// expects range 0 to end at 0CCC...CC and the range holding
		// "pk-8584" to be [2666...64, 3333...30) in a 30,000 RU/s container.
		{"v2 x5", v2, 5, []string{"0CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC", "19999999999999999999999999999998", "26666666666666666666666666666664", "33333333333333333333333333333330"}},
		{"multihash x5", mh, 5, []string{"0CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC", "19999999999999999999999999999998", "26666666666666666666666666666664", "33333333333333333333333333333330"}},
		{"multihash x2", mh, 2, []string{"20000000000000000000000000000000"}},
		{"v1 x2", v1, 2, []string{"05C1E0"}},
		{"v1 x4", v1, 4, []string{"05C1D0", "05C1E0", "05C1E8"}},
		{"v1 x1", v1, 1, nil},
		{"system key", SystemPartitionKey, 4, nil},
		{"kind Range", rk, 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := InitialRanges(tc.def, tc.n, 1, 1)
			checkTiling(t, rs)
			var inner []string
			for _, r := range rs[1:] {
				inner = append(inner, r.MinInclusive)
			}
			if strings.Join(inner, ",") != strings.Join(tc.inner, ",") {
				t.Fatalf("boundaries %v, want %v", inner, tc.inner)
			}
			for i, r := range rs {
				if r.ID != string(rune('0'+i)) || r.Status != RangeOnline || len(r.Parents) != 0 {
					t.Fatalf("range %d: %+v", i, r)
				}
			}
		})
	}
}

// TestSampleNamesFirstRange checks the JS SDK's change feed expectation: a
// /name (hash V1) container at 21,000 RU/s holding sample1..sample4 has
// exactly one name's items in its first range.
func TestSampleNamesFirstRange(t *testing.T) {
	t.Parallel()
	def := PartitionKeyDefinition{Paths: []string{"/name"}, Kind: "Hash"}
	c := Container{PartitionKey: def, Ranges: InitialRanges(def, RangeCountFor(&Throughput{Manual: 21000}), 1, 1)}
	if len(c.Ranges) != 4 {
		t.Fatalf("%d ranges, want 4", len(c.Ranges))
	}
	var first []string
	for _, name := range []string{"sample1", "sample2", "sample3", "sample4"} {
		epk := EffectivePartitionKey(def, PartitionKey{name})
		r := c.RangeForEPK(epk)
		if !r.EPK().Contains(epk) {
			t.Fatalf("%s (%s) routed to %+v, which does not contain it", name, epk, r)
		}
		if r.ID == "0" {
			first = append(first, name)
		}
		t.Logf("%s: EPK %s in range %s [%s, %s)", name, epk, r.ID, r.MinInclusive, r.MaxExclusive)
	}
	if len(first) != 1 {
		t.Fatalf("first range holds %v, want exactly one name", first)
	}
}

// TestSplitPoint checks that a split point lies strictly inside its range
// and that the two halves route every key like the parent's EPK order.
func TestSplitPoint(t *testing.T) {
	t.Parallel()
	v1 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash"}
	v2 := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	for _, tc := range []struct {
		name string
		def  PartitionKeyDefinition
		r    PartitionKeyRange
		want string
	}{
		{"v2 whole", v2, PartitionKeyRange{MinInclusive: "", MaxExclusive: "FF"}, "20000000000000000000000000000000"},
		{"v2 upper half", v2, PartitionKeyRange{MinInclusive: "20000000000000000000000000000000", MaxExclusive: "FF"}, "30000000000000000000000000000000"},
		{"v2 lower quarter", v2, PartitionKeyRange{MinInclusive: "", MaxExclusive: "10000000000000000000000000000000"}, "08000000000000000000000000000000"},
		{"v1 whole", v1, PartitionKeyRange{MinInclusive: "", MaxExclusive: "FF"}, "05C1E0"},
		{"v1 upper half", v1, PartitionKeyRange{MinInclusive: "05C1E0", MaxExclusive: "FF"}, "05C1E8"},
		{"v1 second quarter", v1, PartitionKeyRange{MinInclusive: "05C1D0", MaxExclusive: "05C1E0"}, "05C1D8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitPoint(tc.def, tc.r)
			if got != tc.want {
				t.Fatalf("SplitPoint = %q, want %q", got, tc.want)
			}
			if got <= tc.r.MinInclusive || (tc.r.MaxExclusive != "FF" && got >= tc.r.MaxExclusive) {
				t.Fatalf("split point %q outside (%q, %q)", got, tc.r.MinInclusive, tc.r.MaxExclusive)
			}
		})
	}
}

// TestResolveRangeScope checks range id resolution: live ids (plain and
// "collRid,id") give their EPK range, unknown and split ids and sub-ranges
// outside the named range are 410/1002, and a sub-range inside is kept.
func TestResolveRangeScope(t *testing.T) {
	t.Parallel()
	def := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	c := Container{RID: "AAAAAIAAAAE=", PartitionKey: def, Ranges: InitialRanges(def, 2, 1, 1)}
	mid := "20000000000000000000000000000000"
	for _, tc := range []struct {
		name       string
		id         string
		epk        bool
		start, end string
		want       *EPKRange
		gone       bool
	}{
		{"none", "", false, "", "", nil, false},
		{"first", "0", false, "", "", &EPKRange{"", mid}, false},
		{"second with rid", c.RID + ",1", false, "", "", &EPKRange{mid, "FF"}, false},
		{"other rid", "AAAAAIAAAAI=,1", false, "", "", nil, true},
		{"unknown", "7", false, "", "", nil, true},
		{"sub-range inside", "1", true, "25", "30", &EPKRange{"25", "30"}, false},
		{"sub-range outside", "0", true, "10", "30", nil, true},
		{"sub-range to the end of the last", "1", true, "28", "FF", &EPKRange{"28", "FF"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := c.ResolveRangeScope(tc.id, tc.epk, tc.start, tc.end)
			if tc.gone {
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindGone || e.SubStatus != SubStatusPartitionKeyRangeGone {
					t.Fatalf("err = %v, want 410/1002", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (sc.EPK == nil) != (tc.want == nil) || (sc.EPK != nil && *sc.EPK != *tc.want) {
				t.Fatalf("EPK = %v, want %v", sc.EPK, tc.want)
			}
		})
	}
}

// TestResolveRangeScopeAcrossSplits: a query naming a range that a split replaced
// (once or twice: "0" into "2" and "3", then "3" into "4" and "5") reads
// that range's former interval, with or without the collection rid and
// narrowed by an EPK sub-range inside it; an unknown id, a sub-range
// leaving the former interval, and ResolveRangeScope (change feeds, read
// feeds, queries of the other clients) naming a split range get 410/1002.
func TestResolveRangeScopeAcrossSplits(t *testing.T) {
	t.Parallel()
	def := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	c := Container{RID: "AAAAAIAAAAE=", PartitionKey: def, Ranges: InitialRanges(def, 2, 1, 1)}
	mid, q, e := "20000000000000000000000000000000", "10000000000000000000000000000000", "18000000000000000000000000000000"
	p := newRangePlanner(c, 1)
	p.split(0, q)
	p.split(1, e)
	c.Ranges = p.live
	if got := len(c.Ranges); got != 4 {
		t.Fatalf("%d live ranges, want 4", got)
	}
	for _, tc := range []struct {
		name       string
		id         string
		query      bool
		epk        bool
		start, end string
		want       *EPKRange
		wantID     string
	}{
		{"split once", "3", true, false, "", "", &EPKRange{q, mid}, "3"},
		{"split twice", "0", true, false, "", "", &EPKRange{"", mid}, "0"},
		{"split twice with rid", c.RID + ",0", true, false, "", "", &EPKRange{"", mid}, "0"},
		{"live child", "5", true, false, "", "", &EPKRange{e, mid}, "5"},
		{"live untouched", "1", true, false, "", "", &EPKRange{mid, "FF"}, "1"},
		{"sub-range inside a split range", "0", true, true, "12", "1A", &EPKRange{"12", "1A"}, "0"},
		{"sub-range leaving a split range", "3", true, true, "08", "1A", nil, ""},
		{"unknown", "9", true, false, "", "", nil, ""},
		{"other rid", "AAAAAIAAAAI=,0", true, false, "", "", nil, ""},
		{"not across splits: split range", "0", false, false, "", "", nil, ""},
		{"not across splits: live range", "4", false, false, "", "", &EPKRange{q, e}, "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolve := c.ResolveRangeScope
			if tc.query {
				resolve = c.ResolveRangeScopeAcrossSplits
			}
			sc, err := resolve(tc.id, tc.epk, tc.start, tc.end)
			if tc.want == nil {
				var ee *Error
				if !errors.As(err, &ee) || ee.Kind != KindGone || ee.SubStatus != SubStatusPartitionKeyRangeGone {
					t.Fatalf("err = %v, want 410/1002", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.EPK == nil || *sc.EPK != *tc.want || sc.Range.ID != tc.wantID || !sc.Named {
				t.Fatalf("scope = %+v (EPK %v), want range %s over %v", sc, sc.EPK, tc.wantID, tc.want)
			}
		})
	}
}

// BenchmarkRangeIDForPK measures what finding a point operation's range
// adds to it, at 1 and 16 ranges (decode the canonical key, hash it,
// binary search; nothing at one range).
//
//	go test -run '^$' -bench BenchmarkRangeIDForPK ./emulator/
func BenchmarkRangeIDForPK(b *testing.B) {
	def := PartitionKeyDefinition{Paths: []string{"/pk"}, Kind: "Hash", Version: 2}
	for _, n := range []int{1, 16} {
		c := Container{PartitionKey: def, Ranges: InitialRanges(def, n, 1, 1)}
		pk := PartitionKey{"tenant-42"}.Canonical()
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_ = c.RangeIDForPK(pk)
			}
		})
	}
}
