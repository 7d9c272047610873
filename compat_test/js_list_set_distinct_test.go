package compat_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

// runListSetDistinct runs compat_test/js/list_set_distinct.mjs against a
// fresh emulator (with opts) over the containers spec ("id:throughput,...")
// and returns its output lines by their first two fields.
func runListSetDistinct(t *testing.T, containers string, opts ...emulatortest.Option) map[string]string {
	t.Helper()
	node, dir := jsSDK(t)
	e := emulatortest.Start(t, append([]emulatortest.Option{emulatortest.WithProtocol("http")}, opts...)...)
	start := time.Now()
	out, stderr := runJS(t, node, dir, "list_set_distinct.mjs", 200*time.Second, "COSMOS_ENDPOINT="+e.Endpoint, "COSMOS_DB=lsd",
		"CONTAINERS="+containers)
	t.Logf("list_set_distinct.mjs (%s) ran in %v", containers, time.Since(start).Round(time.Millisecond))
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(l, " ", 3)
		if len(f) == 3 {
			lines[f[0]+" "+f[1]] = f[2]
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no output; stderr:\n%s", stderr)
	}
	return lines
}

// TestJSListSetDistinct: the scenarios through @azure/cosmos
// 4.10.1 with maxItemCount 2 (fetchNext loop, fetchAll, async iterator),
// on a container of 30 items (names A, B, C with ages 1..10 each) with one
// partition key range (400 RU/s), with three (13,000 RU/s, as the
// service sizes it) and with five (13,000 RU/s on an emulator whose
// containers get at least five ranges):
//   - SELECT VALUE MAKELIST(c.age) / MAKESET(c.age): every age, duplicates
//     kept or dropped; with one range in input order (the service's order
//     for one range), with several in the order the SDK merges the ranges'
//     lists (MakeListAggregator, MakeSetAggregator), the same values;
//   - SELECT c.name, MakeSet(c.age) AS ages ... GROUP BY c.name: one group
//     per name with its ten ages;
//   - SELECT DISTINCT c.age ... ORDER BY c.age ASC OFFSET 0 LIMIT 10 and
//     SELECT DISTINCT TOP 10 c.age ... ORDER BY c.age ASC: ages 1..10 in
//     order (the ranges' rewritten query carries no LIMIT or TOP to count
//     duplicate rows; the SDK applies DISTINCT, then them).
func TestJSListSetDistinct(t *testing.T) {
	runs := runListSetDistinct(t, "one:400,three:13000")
	for k, v := range runListSetDistinct(t, "five:13000", emulatortest.WithMinPartitionRanges(5)) {
		runs[k] = v
	}
	for c, n := range map[string]string{"one": "1", "three": "3", "five": "5"} {
		if got := runs["RANGES "+c]; got != n {
			t.Errorf("container %s: %s ranges, want %s", c, got, n)
		}
	}
	ages := "1,2,3,4,5,6,7,8,9,10"
	objs := func(from, to int) string {
		var s []string
		for i := from; i <= to; i++ {
			s = append(s, fmt.Sprintf(`{"age":%d}`, i))
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		name string
		// want: every container's results (fetchNext, fetchAll, iterator);
		// oneRange, when set: the one-range results, in input order, and
		// want is then the several-range results with their arrays sorted
		want, oneRange string
	}{
		{name: "makelist", want: "[1,1,1,2,2,2,3,3,3,4,4,4,5,5,5,6,6,6,7,7,7,8,8,8,9,9,9,10,10,10]",
			oneRange: "[" + ages + "," + ages + "," + ages + "]"},
		{name: "makeset", want: "[" + ages + "]", oneRange: "[" + ages + "]"},
		{name: "makesetgroupby", want: `{"name":"A","ages":[` + ages + `]} {"name":"B","ages":[` + ages + `]} {"name":"C","ages":[` + ages + `]}`,
			oneRange: `{"name":"A","ages":[` + ages + `]} {"name":"B","ages":[` + ages + `]} {"name":"C","ages":[` + ages + `]}`},
		{name: "makelistgroupby", want: `{"name":"A","ages":[8,9,10]} {"name":"B","ages":[8,9,10]} {"name":"C","ages":[8,9,10]}`,
			oneRange: `{"name":"A","ages":[8,9,10]} {"name":"B","ages":[8,9,10]} {"name":"C","ages":[8,9,10]}`},
		{name: "distinctoffsetlimit", want: objs(1, 10)},
		{name: "distincttop", want: objs(1, 10)},
		{name: "distinctvaluedesc", want: "8 7 6 5 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []string{"one", "three", "five"} {
				label := c + "/" + tt.name
				if e := runs["ERR "+label]; e != "" {
					t.Errorf("%s: refused: %s", c, e)
					continue
				}
				for _, how := range []string{"NEXT", "ALL", "ITER"} {
					got := runs[how+" "+label]
					switch {
					case tt.oneRange == "":
						if got != tt.want {
							t.Errorf("%s, %s:\n got %s\nwant %s", c, how, got, tt.want)
						}
					case c == "one":
						if got != tt.oneRange {
							t.Errorf("%s, %s:\n got %s\nwant %s", c, how, got, tt.oneRange)
						}
					case runs["S"+how+" "+label] != tt.want:
						t.Errorf("%s, %s sorted:\n got %s\nwant %s", c, how, runs["S"+how+" "+label], tt.want)
					}
				}
			}
		})
	}
}
