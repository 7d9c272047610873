package compat_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// rangesQueriesRun is one run of compat_test/js/ranges_queries.mjs: its
// output lines by "<NEXT|ALL|ERR> <name>" and the query requests the
// recording proxy saw, by mark ("<name>/next").
type rangesQueriesRun struct {
	lines  map[string]string
	byMark map[string][]queryExchange
}

func runRangesQueries(t *testing.T, ranges int) rangesQueriesRun {
	t.Helper()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, emulatortest.WithProtocol("http"), emulatortest.WithMinPartitionRanges(ranges))
	proxy, endpoint := startRecordingProxy(t, e.Endpoint)
	start := time.Now()
	out, _ := runJS(t, node, dir, "ranges_queries.mjs", 300*time.Second, "COSMOS_ENDPOINT="+endpoint, "COSMOS_DB=rq")
	t.Logf("ranges_queries.mjs with %d ranges ran in %v", ranges, time.Since(start).Round(time.Millisecond))
	run := rangesQueriesRun{lines: map[string]string{}, byMark: map[string][]queryExchange{}}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(l, " ", 3)
		if len(f) == 3 {
			run.lines[f[0]+" "+f[1]] = f[2]
		}
	}
	for _, x := range proxy.all() {
		run.byMark[x.mark] = append(run.byMark[x.mark], x)
	}
	return run
}

// TestJSRangesQueries runs compat_test/js/ranges_queries.mjs (48 items over
// 24 partition keys, maxItemCount 2) against emulators whose containers
// have 1, 4 and 7 partition key ranges. @azure/cosmos fans each query out
// over the ranges following the query plan and merges ORDER BY, TOP,
// OFFSET/LIMIT, DISTINCT, aggregates and GROUP BY itself: with 4 and 7
// ranges every shape gives exactly the one-range results (in order where
// there is an ORDER BY), through a fetchNext loop and through fetchAll,
// and every pipelined query reads every range. Shapes the pipeline cannot
// merge (an expression over aggregates, an object of aggregates under
// VALUE with GROUP BY) are refused (400) with several ranges, and served
// whole with one. The requests per query of the 4-range run are logged.
func TestJSRangesQueries(t *testing.T) {
	one := runRangesQueries(t, 1)
	multi := map[int]rangesQueriesRun{4: runRangesQueries(t, 4), 7: runRangesQueries(t, 7)}
	const aggErr = "400 " + crossPartitionAggregateMessage
	tests := []struct {
		name string
		// want: the one-range results when given ("" = not pinned here)
		want string
		// refused: the multi-range answer is this refusal instead
		refused string
		// direct: served by the optimistic request (no plan, no range id)
		direct bool
	}{
		{name: "select", direct: true},
		{name: "orderby"},
		{name: "orderbydesc"},
		{name: "orderbyvalue"},
		{name: "orderbytwo"},
		{name: "orderbytwomixed"},
		{name: "orderbyfilter", want: `{"id":"i11"} {"id":"i04"} {"id":"i45"} {"id":"i38"} {"id":"i31"} {"id":"i24"} {"id":"i17"} {"id":"i10"} {"id":"i03"} {"id":"i44"} {"id":"i37"} {"id":"i30"} {"id":"i23"} {"id":"i16"} {"id":"i09"} {"id":"i02"} {"id":"i43"} {"id":"i36"} {"id":"i29"} {"id":"i22"}`},
		{name: "top", want: "SUBSET 9 ok"},
		{name: "topall"},
		{name: "orderbytop", want: `{"id":"i00","n":0} {"id":"i07","n":1} {"id":"i14","n":2} {"id":"i21","n":3} {"id":"i28","n":4} {"id":"i35","n":5} {"id":"i42","n":6}`},
		{name: "orderbytopparam", want: "47 46 45 44 43"},
		{name: "orderbytwotop"},
		{name: "offsetlimit", want: "4 5 6 7 8"},
		{name: "offsetlimitpast", want: "7 6 5 4 3 2 1 0"},
		{name: "offsetlimittwo"},
		{name: "offsetlimitplain", want: "SUBSET 4 ok"},
		{name: "distinct", want: "1 2 3 4 5"},
		{name: "distinctobjects"},
		{name: "distinctordered", want: "1 2 3 4 5"},
		{name: "distinctordereddesc", want: `"z" "y" "x"`},
		{name: "distinctorderedobjects", want: `{"g":5} {"g":4} {"g":3} {"g":2} {"g":1}`},
		{name: "count", want: "48"},
		{name: "countfield", want: "42"},
		{name: "sum", want: "1128"},
		{name: "avg", want: "23.5"},
		{name: "min", want: "0"},
		{name: "maxstring", want: `"s9"`},
		{name: "countnone", want: "0"},
		{name: "countwhere"},
		{name: "nvcount", want: `{"n":48}`},
		{name: "nvcountnoalias", want: `{"$1":48}`},
		{name: "nvseveral"},
		{name: "nvnone", want: `{"n":0,"s":0}`},
		{name: "groupby", want: `{"g":1,"k":10} {"g":2,"k":10} {"g":3,"k":10} {"g":4,"k":9} {"g":5,"k":9}`},
		{name: "groupbytwo"},
		{name: "groupbykeyonly", want: `{"h":"x"} {"h":"y"} {"h":"z"} {}`},
		{name: "groupbyvalue", want: "1 2 3 4 5"},
		{name: "groupbyvalueagg", want: "14 14 14 6"},
		{name: "groupbyvaluemax"},
		{name: "groupbywhere"},
		{name: "groupbyconst"},
		{name: "groupbyvalueconst", want: `"X" "Y" "Z"`},
		{name: "groupbydistinct", want: "14 6"},
		{name: "groupbytop", want: "COUNT 3"},
		{name: "aggobject", want: `{"n":48,"s":1128}`, refused: aggErr},
		{name: "aggobjectnonvalue", want: `{"o":{"n":48}}`, refused: aggErr},
		{name: "aggfunction", refused: aggErr},
		{name: "aggobjectgroupby", refused: aggErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, all := one.lines["NEXT "+tt.name], one.lines["ALL "+tt.name]
			if e := one.lines["ERR "+tt.name]; e != "" || next == "" {
				t.Fatalf("one range: refused (%q) or no results", e)
			}
			if all != next {
				t.Errorf("one range: fetchAll %q, fetchNext %q", all, next)
			}
			if tt.want != "" && next != tt.want {
				t.Errorf("one range: %q, want %q", next, tt.want)
			}
			for _, n := range []int{4, 7} {
				run := multi[n]
				if tt.refused != "" {
					if got := run.lines["ERR "+tt.name]; got != tt.refused {
						t.Errorf("%d ranges: answer %q (results %q), want the refusal %q", n, got, run.lines["NEXT "+tt.name], tt.refused)
					}
					continue
				}
				if got := run.lines["ERR "+tt.name]; got != "" {
					t.Errorf("%d ranges: refused: %s", n, got)
					continue
				}
				if got := run.lines["NEXT "+tt.name]; got != next {
					t.Errorf("%d ranges, fetchNext:\n got %s\nwant %s", n, got, next)
				}
				if got := run.lines["ALL "+tt.name]; got != next {
					t.Errorf("%d ranges, fetchAll:\n got %s\nwant %s", n, got, next)
				}
				for _, how := range []string{"next", "all"} {
					xs := run.byMark[tt.name+"/"+how]
					reqs, ranges := rangeRequests(xs)
					if n == 4 {
						t.Logf("4 ranges, %s %s: %d requests: %s", tt.name, how, len(xs), reqs)
					}
					if !tt.direct && len(ranges) != n {
						t.Errorf("%d ranges, %s: the pipeline read ranges %v", n, how, ranges)
					}
				}
			}
		})
	}
}

// rangeRequests describes a query's requests ("plan", "400", else
// "<range id or ->:<items>" with "+" when a continuation came back) and
// the range ids its queries named.
func rangeRequests(xs []queryExchange) (string, []string) {
	var parts []string
	seen := map[string]bool{}
	var ranges []string
	for _, x := range xs {
		switch {
		case x.plan:
			parts = append(parts, "plan")
		case x.status != http.StatusOK:
			parts = append(parts, fmt.Sprint(x.status))
		default:
			r := x.rangeID
			if r == "" {
				r = "-"
			} else if !seen[r] {
				seen[r] = true
				ranges = append(ranges, r)
			}
			p := r + ":" + x.itemCount
			if x.respCont != "" {
				p += "+"
			}
			parts = append(parts, p)
		}
	}
	sort.Strings(ranges)
	return strings.Join(parts, " "), ranges
}
