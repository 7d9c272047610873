package emulator

import (
	"context"
	"encoding/base64"
	"encoding/json"
)

// The gateway's own fan-out. A cross-partition query the gateway serves
// itself (no partition key, no range id, nothing the SDK pipelines must
// merge: see crossPartitionServable) is run as the service's gateway runs
// it: over the container's partition key ranges one at a time, in EPK
// order, a page never spanning two ranges, and each range answering as a
// backend partition does, with a continuation after every full page (it
// does not look ahead: emulator.QueryItemsParams.GatewayFanOut). A range
// that answers an empty page without a continuation hands over to the
// next range within the same request, so that empty pages only come last.
// The rule is the one that serves both pages the SDKs' tests pin against
// the service:
//   - one range, 20 items, page size 5: pages of 5, 5, 5, 5 and a trailing
//     empty page (azcosmos TestCrossPartitionQuery);
//   - five ranges (25,100 RU/s), 20 items with ids "sample document0..19"
//     under /id, page size 2: no page after the one holding the last item
//     (@azure/cosmos crossPartition.spec's async-iterator check "iterator
//     called after all results returned"): the last range holds an odd
//     number of those items, so its last page is not full.
//
// Filling a page across ranges (what this emulator did before) answers the
// second scenario with an eleventh, empty page.

// fanOutToken is the continuation of a gateway fan-out page: the EPK span
// being read (a live range when the token was issued, or its share of the
// request's EPK sub-range) and the store's continuation within it. After a
// split the span still names the parent's EPKs, which its children tile,
// so the read goes on over them without a loss or a repeat.
type fanOutToken struct {
	Min   string `json:"min"`
	Max   string `json:"max"`
	Inner string `json:"t,omitempty"`
}

func encodeFanOutToken(t fanOutToken) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeFanOutToken(s string) (*fanOutToken, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var t fanOutToken
	if err != nil || json.Unmarshal(b, &t) != nil || (t.Max != "" && t.Max <= t.Min) || !validSpanBound(t.Min) || !validSpanBound(t.Max) {
		return nil, BadRequest("%s", MsgInvalidContinuation)
	}
	return &t, nil
}

// validSpanBound accepts "" and upper-case hexadecimal EPKs (and "FF").
func validSpanBound(s string) bool {
	return s == "" || validEPK(s)
}

// fanOutSpan returns the EPK span that starts at at: from at to the end of
// the live range holding it, cut to within (nil: the whole container). ok
// is false when at is at or past the end of within.
func fanOutSpan(c Container, at string, within *EPKRange) (EPKRange, bool) {
	end := "FF"
	if within != nil && within.Max != "" {
		end = within.Max
	}
	if at >= end || at == "FF" {
		return EPKRange{}, false
	}
	r := c.RangeForEPK(at)
	span := EPKRange{Min: at, Max: r.MaxExclusive}
	if span.Max == "" || span.Max > end {
		span.Max = end
	}
	return span, true
}

// fanOutPage runs one page of a gateway fan-out over c (see the comment at
// the top of this file); p is the store request without its EPK scope,
// within the request's EPK sub-range (nil: none).
func (s *Service) fanOutPage(ctx context.Context, c Container, within *EPKRange, p QueryItemsParams) (QueryPage, error) {
	tok, err := decodeFanOutToken(p.Page.Continuation)
	if err != nil {
		return QueryPage{}, err
	}
	var span EPKRange
	inner := ""
	if tok != nil {
		span, inner = EPKRange{Min: tok.Min, Max: tok.Max}, tok.Inner
	} else {
		start := ""
		if within != nil {
			start = within.Min
		}
		var ok bool
		if span, ok = fanOutSpan(c, start, within); !ok {
			return QueryPage{Docs: [][]byte{}}, nil
		}
	}
	for {
		run := p
		run.Page.Continuation = inner
		run.EPK = nil
		if !span.Full() {
			scoped := span
			run.EPK = &scoped
		}
		page, err := s.store.QueryItems(ctx, run)
		if err != nil {
			return QueryPage{}, err
		}
		if page.Continuation != "" {
			page.Continuation = encodeFanOutToken(fanOutToken{Min: span.Min, Max: span.Max, Inner: page.Continuation})
			return page, nil
		}
		next, more := fanOutSpan(c, span.Max, within)
		if !more {
			return page, nil
		}
		if len(page.Docs) > 0 {
			page.Continuation = encodeFanOutToken(fanOutToken{Min: next.Min, Max: next.Max})
			return page, nil
		}
		if err := ctx.Err(); err != nil {
			return QueryPage{}, err
		}
		span, inner = next, ""
	}
}
