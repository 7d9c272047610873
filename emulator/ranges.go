package emulator

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A container's items are spread over partition key ranges: half-open
// intervals of the effective partition key (EPK) space ["", "FF") that tile
// it without gaps or overlaps (/work/shared/partitioning.md §10). The
// emulator keeps every item of a container in one table whatever its
// ranges; a range is only an EPK interval, so it costs nothing until a
// request names it (x-ms-documentdb-partitionkeyrangeid) or a split
// replaces it by two children.

// Partition key range statuses: a live range is RangeOnline; a range that
// was split keeps its row, with RangeStatusSplit, so that its id is never reused
// and requests naming it get 410/1002.
const (
	RangeOnline      = "online"
	RangeStatusSplit = "split"
)

// PartitionKeyRange is one partition key range of a container, as
// GET .../pkranges lists it.
type PartitionKeyRange struct {
	// ID is the range's id, a decimal integer unique in the container
	// (never reused after a split).
	ID string `json:"id"`
	// MinInclusive and MaxExclusive bound its EPKs; the first range starts
	// at "" and the last ends at "FF".
	MinInclusive string `json:"minInclusive"`
	MaxExclusive string `json:"maxExclusive"`
	// Parents are the ids of the ranges this one replaced (the split range
	// and that range's own parents); empty for a range made at creation.
	Parents []string `json:"parents"`
	// Status is RangeOnline for a live range.
	Status string `json:"status"`
	// LSN is the database's latest LSN when the range was made.
	LSN int64 `json:"lsn"`
	// RIDPrefix is the range's ridPrefix (its id as a number).
	RIDPrefix int `json:"ridPrefix"`
	// TS is when the range was made (unix seconds).
	TS int64 `json:"ts"`
}

// EPK returns the range's EPK interval.
func (r PartitionKeyRange) EPK() EPKRange { return EPKRange{Min: r.MinInclusive, Max: r.MaxExclusive} }

// Ranges above these throughputs (RU/s) make the service create a
// container with more than one physical partition: manual throughput gets
// one partition per ManualRUPerRange RU/s once above
// MaxManualRUSingleRange; autoscale one per AutoscaleRUPerRange of its
// maximum (the service's documented sizing: 18,000 RU/s manual gives three
// partitions of 6,000; an autoscale partition serves up to 10,000 RU/s).
const (
	MaxManualRUSingleRange = 10000
	ManualRUPerRange       = 6000
	AutoscaleRUPerRange    = 10000
)

// RangeCountFor returns how many partition key ranges the service gives a
// container created with its own throughput tp: ceil(RU/s / 6,000) for
// manual throughput above 10,000 RU/s, ceil(max RU/s / 10,000) for
// autoscale, otherwise one. A container without throughput of its own
// (nil, including every container of a shared-throughput database) gets
// one.
func RangeCountFor(tp *Throughput) int {
	switch {
	case tp == nil:
		return 1
	case tp.AutoscaleMax > 0:
		return max(1, (tp.AutoscaleMax+AutoscaleRUPerRange-1)/AutoscaleRUPerRange)
	case tp.Manual > MaxManualRUSingleRange:
		return (tp.Manual + ManualRUPerRange - 1) / ManualRUPerRange
	default:
		return 1
	}
}

// MaxPartitionRanges bounds the ranges a container is created with or
// split into, so that a mistaken throughput or flag cannot make a routing
// map of millions of entries (the service's own limit is far higher, but
// no test needs more).
const MaxPartitionRanges = 1024

// Splittable reports whether a container with partition key definition
// def may have several ranges. The system key of a container created
// without a partition key (a legacy non-partitioned collection, a single
// partition on the service) and the legacy kind Range (no hash: its EPKs
// are the raw binary encodings of the values, whose spread is unknown)
// keep one range.
func Splittable(def PartitionKeyDefinition) bool {
	return !def.SystemKey && !strings.EqualFold(def.Kind, "Range")
}

// maxHashV2 is the largest V2/MultiHash EPK prefix (the top two bits of a
// V2 hash are cleared): 0x3FFF...F, 128 bits.
var maxHashV2 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 126), big.NewInt(1))

// isV1 reports whether def hashes with version 1 (Hash without version 2).
func isV1(def PartitionKeyDefinition) bool {
	return !strings.EqualFold(def.Kind, "MultiHash") && def.Version != 2
}

// v2Boundary renders x (0 <= x <= maxHashV2) as a 32-hex-char EPK.
func v2Boundary(x *big.Int) string {
	s := strings.ToUpper(x.Text(16))
	return strings.Repeat("0", 32-len(s)) + s
}

// v1Boundary renders the V1 EPK prefix of hash value h: "05" and the
// order-preserving encoding of h as a number. Every V1 EPK is that
// encoding of its 32-bit hash followed by the components, and the encoding
// is prefix-free and order-preserving, so an EPK whose hash is h sorts at
// or after the boundary and one whose hash is below h sorts before it.
func v1Boundary(h uint64) string {
	return strings.ToUpper(hex.EncodeToString(appendBinaryNumber(nil, float64(h))))
}

// RangeBoundaries returns the n-1 inner boundaries that divide the EPK
// space of def evenly into n ranges (nil for n <= 1). V2 and MultiHash
// EPKs start with a 128-bit hash whose top two bits are clear: the
// boundaries are k*floor(2^126/n) as 32 hex chars, the service's (5 ranges:
// 0CCC...CC, 1999...98, 2666...64, 3333...30). V1 EPKs start with the
// encoding of a 32-bit hash: the boundaries are v1Boundary(k*2^32/n).
// (The service's own choice is not documented; these divide the hash
// space evenly, and a /name container at 21,000 RU/s holding sample1 ..
// sample4 has exactly sample3's items in its first range, as the JS SDK's
// change feed tests expect.)
func RangeBoundaries(def PartitionKeyDefinition, n int) []string {
	if n <= 1 {
		return nil
	}
	out := make([]string, 0, n-1)
	step := new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 126), big.NewInt(int64(n)))
	for k := 1; k < n; k++ {
		if isV1(def) {
			out = append(out, v1Boundary(uint64(k)<<32/uint64(n)))
			continue
		}
		out = append(out, v2Boundary(new(big.Int).Mul(step, big.NewInt(int64(k)))))
	}
	return out
}

// InitialRanges returns the n ranges (ids "0" .. n-1) a container with
// definition def is created with, made at ts with the database at lsn; a
// definition that is not Splittable gets one.
func InitialRanges(def PartitionKeyDefinition, n int, ts, lsn int64) []PartitionKeyRange {
	if !Splittable(def) {
		n = 1
	}
	n = min(max(n, 1), MaxPartitionRanges)
	bounds := append(append([]string{""}, RangeBoundaries(def, n)...), "FF")
	out := make([]PartitionKeyRange, n)
	for i := range out {
		out[i] = PartitionKeyRange{ID: strconv.Itoa(i), MinInclusive: bounds[i], MaxExclusive: bounds[i+1],
			Parents: []string{}, Status: RangeOnline, LSN: lsn, RIDPrefix: i, TS: ts}
	}
	return out
}

// epkToInt reads the first hex digits of an EPK (the hash part) as a
// number scaled to width hex digits (padded with zeros), for midpoints.
func epkToInt(epk string, width int) *big.Int {
	if len(epk) > width {
		epk = epk[:width]
	}
	epk += strings.Repeat("0", width-len(epk))
	x, _ := new(big.Int).SetString(epk, 16)
	return x
}

// SplitPoint returns the EPK at which to split r in two, for a container
// with definition def: the middle of its share of the hash space (V1: of
// the 32-bit hashes; V2/MultiHash: of the 128-bit hashes); "" when r
// cannot be split (it holds a single hash value).
func SplitPoint(def PartitionKeyDefinition, r PartitionKeyRange) string {
	if isV1(def) {
		lo, hi := v1HashBound(r.MinInclusive, 0), v1HashBound(r.MaxExclusive, 1<<32)
		if hi-lo < 2 {
			return ""
		}
		return v1Boundary(lo + (hi-lo)/2)
	}
	lo := epkToInt(r.MinInclusive, 32)
	hi := new(big.Int).Add(maxHashV2, big.NewInt(1))
	if r.MaxExclusive != "FF" && r.MaxExclusive != "" {
		hi = epkToInt(r.MaxExclusive, 32)
	}
	mid := new(big.Int).Add(lo, hi)
	mid.Rsh(mid, 1)
	if mid.Cmp(lo) <= 0 || mid.Cmp(hi) >= 0 {
		return ""
	}
	b := v2Boundary(mid)
	if b <= r.MinInclusive || (r.MaxExclusive != "FF" && b >= r.MaxExclusive) {
		return ""
	}
	return b
}

// v1HashBound returns the 32-bit hash value a V1 range bound stands for:
// dflt for "" and "FF", else the hash h whose v1Boundary is the smallest
// not below bound (found by bisection, since v1Boundary is monotonic).
func v1HashBound(bound string, dflt uint64) uint64 {
	if bound == "" || bound == "FF" {
		return dflt
	}
	lo, hi := uint64(0), uint64(1)<<32
	for lo < hi {
		m := lo + (hi-lo)/2
		if v1Boundary(m) < bound {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// RangeByID returns the live range a x-ms-documentdb-partitionkeyrangeid
// header names: "<id>" or "<collRid>,<id>" (the form .NET's parser also
// accepts). ok is false for an unknown or gone id.
func (c Container) RangeByID(header string) (PartitionKeyRange, bool) {
	id := strings.TrimSpace(header)
	if rid, rest, found := strings.Cut(id, ","); found {
		if rid != c.RID {
			return PartitionKeyRange{}, false
		}
		id = rest
	}
	for _, r := range c.liveRanges() {
		if r.ID == id {
			return r, true
		}
	}
	return PartitionKeyRange{}, false
}

// SplitRangeByID returns the former extent of a range that a split
// replaced, for a x-ms-documentdb-partitionkeyrangeid header naming it
// ("<id>" or "<collRid>,<id>"): the live ranges descended from it (those
// listing it among their parents) tile its EPK interval, so it is
// rebuilt from them with Status RangeStatusSplit. ok is false for a live,
// unknown or malformed id. The cost grows with the number of live ranges.
func (c Container) SplitRangeByID(header string) (PartitionKeyRange, bool) {
	id := strings.TrimSpace(header)
	if rid, rest, found := strings.Cut(id, ","); found {
		if rid != c.RID {
			return PartitionKeyRange{}, false
		}
		id = rest
	}
	var r PartitionKeyRange
	n := 0
	for _, lr := range c.liveRanges() {
		if !slices.Contains(lr.Parents, id) {
			continue
		}
		// the descendants are adjacent in EPK order
		if n > 0 && lr.MinInclusive != r.MaxExclusive {
			return PartitionKeyRange{}, false
		}
		if n == 0 {
			r = PartitionKeyRange{ID: id, MinInclusive: lr.MinInclusive, Parents: []string{}, Status: RangeStatusSplit}
		}
		r.MaxExclusive = lr.MaxExclusive
		n++
	}
	return r, n > 0
}

// LiveRangesWithin returns the live ranges inside the EPK interval e, in
// EPK order (all of them for the full space).
func (c Container) LiveRangesWithin(e EPKRange) []PartitionKeyRange {
	var out []PartitionKeyRange
	for _, r := range c.liveRanges() {
		if r.MinInclusive >= e.Min && r.MaxExclusive <= e.Max {
			out = append(out, r)
		}
	}
	return out
}

// liveRanges returns c.Ranges, or the one range "0" of a container made
// without any (a Container built outside the store).
func (c Container) liveRanges() []PartitionKeyRange {
	if len(c.Ranges) > 0 {
		return c.Ranges
	}
	return []PartitionKeyRange{{ID: "0", MaxExclusive: "FF", Parents: []string{}, Status: RangeOnline}}
}

// RangeForEPK returns the live range holding EPK epk (the ranges tile the
// space; a binary search, so the cost grows with log n).
func (c Container) RangeForEPK(epk string) PartitionKeyRange {
	rs := c.liveRanges()
	i := sort.Search(len(rs), func(i int) bool { return rs[i].MinInclusive > epk })
	return rs[max(i-1, 0)]
}

// RangeIDForPK returns the id of the live range holding the logical
// partition with canonical key pk. A container with one range answers
// without hashing, so point operations on it cost nothing more.
func (c Container) RangeIDForPK(pk string) string {
	rs := c.liveRanges()
	if len(rs) == 1 {
		return rs[0].ID
	}
	k, ok := decodeCanonicalPK(pk)
	if !ok {
		return rs[0].ID
	}
	return c.RangeForEPK(EffectivePartitionKey(c.PartitionKey, k)).ID
}

// RangeIDForKey returns the id of the live range holding the logical
// partition pk (a decoded header), without hashing when c has one range.
func (c Container) RangeIDForKey(pk PartitionKey) string {
	rs := c.liveRanges()
	if len(rs) == 1 || len(pk) == 0 {
		return rs[0].ID
	}
	return c.RangeForEPK(EffectivePartitionKey(c.PartitionKey, pk)).ID
}

// RangeGone is the 410/1002 (PartitionKeyRangeGone) of a request naming a
// partition key range id the container has no live range for: an unknown
// id, or a range that was split (the SDKs then re-read the container's
// ranges and retry on its children).
func RangeGone(id string) error {
	return (&Error{Kind: KindGone, Message: fmt.Sprintf("The partition key range %s is gone: it does not exist or was split; read the container's partition key ranges again.", id)}).WithSub(SubStatusPartitionKeyRangeGone)
}

// RangeScope is what a request's x-ms-documentdb-partitionkeyrangeid and
// EPK range headers (x-ms-start-epk, x-ms-end-epk) confine it to.
type RangeScope struct {
	// Range is the named live range (zero when no id was sent).
	Range PartitionKeyRange
	// Named reports that a range id was sent.
	Named bool
	// EPK is the EPK interval to read (nil: the whole container): the
	// named range, or its intersection with the EPK sub-range.
	EPK *EPKRange
}

// ResolveRangeScope resolves a request's range id header (id, "" when
// absent) and, when epkSet, its EPK sub-range [start, end) against c. An
// unknown or gone id is 410/1002. The SDKs send a sub-range only inside
// the range they name (partitioning.md §12); a sub-range that leaves the
// named range is answered 410/1002 as well, so that the client re-reads
// the ranges (the service's answer is not documented). Without a range id
// the sub-range alone confines the request. An empty sub-range is 400
// (ParseEPKRange).
func (c Container) ResolveRangeScope(id string, epkSet bool, start, end string) (RangeScope, error) {
	return c.resolveRangeScope(id, epkSet, start, end, false)
}

// ResolveRangeScopeAcrossSplits is ResolveRangeScope for a query of a
// client that cannot recover from the 410/1002 of a split range: a range
// that a split replaced is read over its former EPK interval (its
// descendants), as if it were still live; an unknown id stays 410/1002.
// The service answers 410/1002, after which .NET, Java, Python and the Go
// query engine re-read the ranges, but @azure/cosmos 4.10.1's pipelined
// queries (ORDER BY, aggregates, DISTINCT, OFFSET, GROUP BY) cannot:
// documentProducer.js bufferMore buffers the 410/1002 as an exception
// FetchResult at the head of the range's buffer, which peakNextItem never
// passes, and the only caller of the replacement path
// (parallelQueryExecutionContextBase.js _enqueueReplacementDocumentProducers)
// runs when bufferMore throws, which it then never does; the query
// resends its request or spins for ever, and the SDK's client-wide range
// cache keeps naming the split range in every later query of that
// client. Reading the split range's interval gives it the exact result:
// a query continuation is a position in the result order, valid over the
// same items.
func (c Container) ResolveRangeScopeAcrossSplits(id string, epkSet bool, start, end string) (RangeScope, error) {
	return c.resolveRangeScope(id, epkSet, start, end, true)
}

func (c Container) resolveRangeScope(id string, epkSet bool, start, end string, splitServed bool) (RangeScope, error) {
	if epkSet {
		sub, err := ParseEPKRange(start, end)
		if err != nil || id == "" {
			return RangeScope{EPK: sub}, err
		}
	}
	if id == "" {
		return RangeScope{}, nil
	}
	r, ok := c.RangeByID(id)
	if !ok && splitServed {
		r, ok = c.SplitRangeByID(id)
	}
	if !ok {
		return RangeScope{}, RangeGone(id)
	}
	sc := RangeScope{Range: r, Named: true}
	e := r.EPK()
	if epkSet {
		s, en := strings.ToUpper(start), strings.ToUpper(end)
		if en == "" {
			en = "FF"
		}
		if s < e.Min || (e.Max != "FF" && (en > e.Max || en == "FF")) {
			return sc, RangeGone(id)
		}
		e = EPKRange{Min: s, Max: en}
	}
	if len(c.liveRanges()) > 1 || !e.Full() {
		sc.EPK = &e
	}
	return sc, nil
}

// RangeSplit is one split: the live range ParentID is replaced by
// Children, which tile its EPK interval.
type RangeSplit struct {
	ParentID string
	Children [2]PartitionKeyRange
}

// SplitRangesParams are the inputs of Store.SplitRanges. Plan is
// called inside the store's transaction, with the container locked, with
// the current container (its live ranges and NextRangeID); it returns the
// splits to apply, in order (a later split may split an earlier one's
// child), or an error that aborts the transaction.
type SplitRangesParams struct {
	DatabaseRef, CollRef string
	Plan                 func(cur Container) ([]RangeSplit, error)
}

// rangeSpan returns the size of r's share of the hash space of def, in
// the hash's own units (V1: 32-bit hashes; V2/MultiHash: 126-bit), for
// choosing the largest range to split.
func rangeSpan(def PartitionKeyDefinition, r PartitionKeyRange) *big.Int {
	if isV1(def) {
		lo, hi := v1HashBound(r.MinInclusive, 0), v1HashBound(r.MaxExclusive, 1<<32)
		return new(big.Int).SetUint64(hi - lo)
	}
	hi := new(big.Int).Add(maxHashV2, big.NewInt(1))
	if r.MaxExclusive != "FF" && r.MaxExclusive != "" {
		hi = epkToInt(r.MaxExclusive, 32)
	}
	return hi.Sub(hi, epkToInt(r.MinInclusive, 32))
}

// validEPK reports whether s is a non-empty upper-case hex EPK.
func validEPK(s string) bool {
	if s == "" {
		return false
	}
	for _, ch := range s {
		if !('0' <= ch && ch <= '9' || 'A' <= ch && ch <= 'F') {
			return false
		}
	}
	return true
}

// rangePlanner splits ranges of a working copy of a container's live
// ranges, assigning new ids from its NextRangeID.
type rangePlanner struct {
	def    PartitionKeyDefinition
	live   []PartitionKeyRange
	next   int
	ts     int64
	splits []RangeSplit
}

func newRangePlanner(cur Container, ts int64) *rangePlanner {
	return &rangePlanner{def: cur.PartitionKey, live: append([]PartitionKeyRange(nil), cur.liveRanges()...), next: max(cur.NextRangeID, len(cur.liveRanges())), ts: ts}
}

// split replaces the live range at index i by two children split at at
// (strictly inside it). The children's parents are the range's id and its
// own parents: the SDKs treat every id listed in parents as gone.
func (p *rangePlanner) split(i int, at string) [2]PartitionKeyRange {
	r := p.live[i]
	parents := append([]string{r.ID}, r.Parents...)
	child := func(min, max string) PartitionKeyRange {
		id := p.next
		p.next++
		return PartitionKeyRange{ID: strconv.Itoa(id), MinInclusive: min, MaxExclusive: max,
			Parents: parents, Status: RangeOnline, RIDPrefix: id, TS: p.ts}
	}
	kids := [2]PartitionKeyRange{child(r.MinInclusive, at), child(at, r.MaxExclusive)}
	p.live = append(p.live[:i], append(kids[:], p.live[i+1:]...)...)
	p.splits = append(p.splits, RangeSplit{ParentID: r.ID, Children: kids})
	return kids
}

// SplitRange splits the live partition key range id of a container at EPK
// at ("" for the middle of its hash space: SplitPoint) into two children
// with new ids, and returns them. The split range's id then answers
// 410/1002; change feed etags (a container-wide LSN) and query
// continuations (a position in the result order) stay valid on the
// children. An unknown or gone id is 410/1002; a point not strictly
// inside the range, a range too small to split, or a partition key that
// keeps one range (Splittable) is 400.
func (s *Service) SplitRange(ctx context.Context, dbRef, collRef, id, at string) ([]PartitionKeyRange, error) {
	at = strings.ToUpper(strings.TrimSpace(at))
	var kids [2]PartitionKeyRange
	_, err := s.store.SplitRanges(ctx, SplitRangesParams{DatabaseRef: dbRef, CollRef: collRef, Plan: func(cur Container) ([]RangeSplit, error) {
		if !Splittable(cur.PartitionKey) {
			return nil, BadRequest("The partition key of this container (a system key or kind Range) keeps one partition key range.")
		}
		r, ok := cur.RangeByID(id)
		if !ok {
			return nil, RangeGone(id)
		}
		if len(cur.liveRanges()) >= MaxPartitionRanges {
			return nil, BadRequest("The container has %d partition key ranges, the most this emulator makes.", len(cur.liveRanges()))
		}
		point := at
		switch {
		case point == "":
			if point = SplitPoint(cur.PartitionKey, r); point == "" {
				return nil, BadRequest("The partition key range %s holds a single hash value and cannot be split.", r.ID)
			}
		case !validEPK(point):
			return nil, BadRequest("The split point %q is not an effective partition key (upper-case hex).", at)
		case point <= r.MinInclusive || (r.MaxExclusive != "FF" && point >= r.MaxExclusive) || point >= "FF":
			return nil, BadRequest("The split point %s is not strictly inside the partition key range %s [%s, %s).", point, r.ID, r.MinInclusive, r.MaxExclusive)
		}
		p := newRangePlanner(cur, s.now())
		for i, lr := range p.live {
			if lr.ID == r.ID {
				kids = p.split(i, point)
				break
			}
		}
		return p.splits, nil
	}})
	if err != nil {
		return nil, err
	}
	return kids[:], nil
}

// growRanges splits the largest live ranges of a container (first the one
// with the largest share of the hash space, each at its middle) until it
// has at least n, as the service does when throughput grows past what its
// partitions serve. It never merges: a lower throughput keeps the ranges.
func (s *Service) growRanges(ctx context.Context, dbRef, collRef string, n int) error {
	n = min(n, MaxPartitionRanges)
	_, err := s.store.SplitRanges(ctx, SplitRangesParams{DatabaseRef: dbRef, CollRef: collRef, Plan: func(cur Container) ([]RangeSplit, error) {
		if !Splittable(cur.PartitionKey) {
			return nil, nil
		}
		p := newRangePlanner(cur, s.now())
		for len(p.live) < n {
			best, bestSpan := -1, big.NewInt(1)
			for i, r := range p.live {
				if sp := rangeSpan(p.def, r); sp.Cmp(bestSpan) > 0 && SplitPoint(p.def, r) != "" {
					best, bestSpan = i, sp
				}
			}
			if best < 0 {
				break
			}
			p.split(best, SplitPoint(p.def, p.live[best]))
		}
		return p.splits, nil
	}})
	return err
}
