package compat_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// wireExchange is one request a wire recorder (startWireRecorder) saw, reduced to what decides
// how a request is routed across ranges, and its answer's status.
type wireExchange struct {
	mark, method, path string
	rangeID, epk, pk   string // x-ms-documentdb-partitionkeyrangeid, x-ms-start-epk..x-ms-end-epk, partition key
	kind               string // query, plan, batch, changefeed, read
	status             int
	substatus          string
	cont               bool // the request carried a continuation or change feed etag
}

func (x wireExchange) String() string {
	s := fmt.Sprintf("%s %s %s range=%q", x.kind, x.method, x.path, x.rangeID)
	if x.epk != "" {
		s += " epk=" + x.epk
	}
	if x.pk != "" {
		s += " pk=" + x.pk
	}
	if x.cont {
		s += " cont"
	}
	s += fmt.Sprintf(" -> %d", x.status)
	if x.substatus != "" && x.substatus != "0" {
		s += "/" + x.substatus
	}
	return s
}

// byMark groups what a wire recorder saw by scenario.
func byMark(xs []wireExchange) map[string][]wireExchange {
	m := map[string][]wireExchange{}
	for _, x := range xs {
		m[x.mark] = append(m[x.mark], x)
	}
	return m
}

// startWireRecorder starts a markingProxy to target recording every
// request with its answer.
func startWireRecorder(t *testing.T, target string) (*markingProxy[wireExchange], string) {
	t.Helper()
	return startMarkingProxy(t, target, func(res *http.Response, mark string) (wireExchange, bool) {
		r, h := res.Request, res.Request.Header
		x := wireExchange{method: r.Method, path: r.URL.EscapedPath(), rangeID: h.Get("x-ms-documentdb-partitionkeyrangeid"),
			pk: h.Get("x-ms-documentdb-partitionkey"), status: res.StatusCode, substatus: res.Header.Get("x-ms-substatus"),
			cont: h.Get("x-ms-continuation") != "" || (h.Get("If-None-Match") != "" && h.Get("A-IM") != "")}
		if s, e := h.Get("x-ms-start-epk"), h.Get("x-ms-end-epk"); s != "" || e != "" {
			x.epk = s + ".." + e
		}
		switch {
		case strings.EqualFold(h.Get("x-ms-cosmos-is-query-plan-request"), "true"):
			x.kind = "plan"
		case h.Get("x-ms-documentdb-isquery") != "" || h.Get("x-ms-documentdb-query") != "":
			x.kind = "query"
		case h.Get("x-ms-cosmos-is-batch-request") != "":
			x.kind = "batch"
		case h.Get("A-IM") != "":
			x.kind = "changefeed"
		default:
			x.kind = strings.ToLower(r.Method)
		}
		x.mark = mark
		return x, true
	})
}

// TestJSSplitInFlight runs compat_test/js/split_inflight.mjs behind a
// recording proxy on an emulator whose containers have two ranges, and
// splits range "0" (or "1") in the middle of paged cross-partition
// queries, change feed reads over the container and over a feed range,
// and a bulk load. Each finishes with exact results (no loss, no
// duplicate). The change feed readers meet the split as on the service:
// 410/1002 for the gone range, a pkranges read, then the children. The
// queries on 4.10.1's pipelined path (ORDER BY; a plain query with
// forceQueryPlan) keep naming the split range, which the emulator answers
// over its former interval (they cannot recover from a 410/1002:
// TestJSSplitPipelined); a plain query without a plan names no range.
func TestJSSplitInFlight(t *testing.T) {
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(2))
	rec, endpoint := startWireRecorder(t, e.Endpoint)
	// what the SDK sent around each split, also when the script fails
	t.Cleanup(func() {
		marks := byMark(rec.all())
		for _, m := range []string{"query-orderby-split", "query-plain-split", "query-plain-plan-split", "cf-whole-split", "cf-range-split", "bulk", "bulk-split"} {
			t.Logf("%s:", m)
			xs := marks[m]
			if len(xs) > 40 {
				t.Logf("  (%d requests, the first 40)", len(xs))
				xs = xs[:40]
			}
			for _, x := range xs {
				t.Logf("  %s", x)
			}
		}
	})
	start := time.Now()
	out, stderr := runJS(t, node, dir, "split_inflight.mjs", 90*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=split")
	t.Logf("split_inflight.mjs ran in %v %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr))
	marks := byMark(rec.all())
	want := `CHANGEFEED whole split=0->2+3 25 once
CHANGEFEED range split=0->2+3 17 once fresh+other=once
BULK split=0->2+3 created=100 other= stored=100 once
QUERY orderby split=0->2+3 24 once ordered=true
QUERY plain split=1->4+5 24 once
QUERY plain-plan split=0->2+3 24 once
QUERY fresh-client 24 once ordered=true
`
	if got := string(out); got != want {
		t.Fatalf("splits in flight:\n%s\nwant:\n%s", got, want)
	}
	// the change feed readers met the split as on the service: 410/1002
	// for the gone range, then a pkranges read, then the children
	for _, m := range []string{"cf-whole-split", "cf-range-split"} {
		var seq []string
		for _, x := range marks[m] {
			switch {
			case x.status == http.StatusGone:
				if s := "gone:" + x.rangeID + "/" + x.substatus; len(seq) == 0 || seq[len(seq)-1] != s {
					seq = append(seq, s)
				}
			case strings.HasSuffix(x.path, "/pkranges") && x.method == http.MethodGet:
				seq = append(seq, "pkranges")
			case x.kind == "changefeed" && (x.rangeID == "2" || x.rangeID == "3"):
				seq = append(seq, "child")
			}
		}
		if got := strings.Join(seq, " "); !strings.HasPrefix(got, "gone:0/1002 pkranges child") {
			t.Errorf("%s: %s, want 410/1002 on range 0, a pkranges read, then the children", m, got)
		}
	}
	// the pipelined queries kept naming the split range "0" and were
	// answered, never 410
	for _, m := range []string{"query-orderby-split", "query-plain-plan-split"} {
		named := 0
		for _, x := range marks[m] {
			if x.status == http.StatusGone {
				t.Errorf("%s: %s", m, x)
			}
			if x.kind == "query" && x.rangeID == "0" && x.status == http.StatusOK {
				named++
			}
		}
		if named == 0 {
			t.Errorf("%s: no query named the split range 0", m)
		}
	}
	// a plain query without a plan never names a range: the emulator
	// answers it across ranges, as the gateway does
	for _, x := range marks["query-plain-split"] {
		if x.kind == "query" && x.rangeID != "" {
			t.Errorf("query-plain-split: %s, want no range id on a plain query", x)
		}
	}
}
