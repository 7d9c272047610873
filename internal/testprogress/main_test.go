package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestRunReports runs real go test -json on the fixture modules under
// testdata and checks the exit status and the report: a failed test's
// output at once, each skipped test with its reason, the closing count
// line, and a build failure's compiler message.
func TestRunReports(t *testing.T) {
	cases := []struct {
		dir      string
		status   int
		contains []string
	}{
		{"testdata/failing", 1, []string{
			"--- FAIL: fixture TestFails",
			"the answer was 41",
			"FAIL fixture",
			"Skipped tests (1):\n  fixture TestSkips: fixture_test.go:7: needs a unicorn\n",
			"Failed tests (1):\n  fixture TestFails\n",
			"Slowest tests (parallel tests overlap):\n",
			"\ntest: 3 passed, 1 failed, 1 skipped\n",
		}},
		{"testdata/passing", 0, []string{
			"ok   fixture",
			"Skipped tests (1):\n  fixture TestSkipsTooWithoutAWord: (no reason given)\n",
			"\ntest: 1 passed, 0 failed, 1 skipped\n",
		}},
		{"testdata/broken", 1, []string{
			"undefined: undefinedName",
			"Packages that failed outside any test (build, TestMain, panic; output above) (1):\n  fixture\n",
			"\ntest: 0 passed, 0 failed, 0 skipped\n",
		}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			var out bytes.Buffer
			status := run("go", 0, []string{"-count=1", "./..."}, c.dir, &out)
			if status != c.status {
				t.Errorf("exit status %d, want %d", status, c.status)
			}
			for _, want := range c.contains {
				if !strings.Contains(out.String(), want) {
					t.Errorf("report lacks %q", want)
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s", out.String())
			}
		})
	}
}

// TestHeartbeatNamesRunningPackages: the interval line names the packages
// that have started and not ended, with their count of finished tests, and
// nothing once all have ended.
func TestHeartbeatNamesRunningPackages(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	r := newReport(&out, t0)
	const a, b = "github.com/cosmos-emulator/cosmos-emulator/compat_test", "example.com/other"
	for _, e := range []event{
		{Time: t0, Action: "start", Package: a},
		{Time: t0.Add(time.Second), Action: "start", Package: b},
		{Time: t0.Add(2 * time.Second), Action: "run", Package: a, Test: "TestX"},
		{Time: t0.Add(3 * time.Second), Action: "pass", Package: a, Test: "TestX"},
		{Time: t0.Add(4 * time.Second), Action: "pass", Package: b, Elapsed: 3},
	} {
		r.event(e)
	}
	out.Reset()
	r.heartbeat(t0.Add(90 * time.Second))
	if got, want := out.String(), "... 1m30s: running compat_test (1 tests done, 1m30s)\n"; got != want {
		t.Errorf("heartbeat wrote %q, want %q", got, want)
	}
	r.event(event{Time: t0.Add(95 * time.Second), Action: "pass", Package: a, Elapsed: 95})
	out.Reset()
	r.heartbeat(t0.Add(120 * time.Second))
	if out.Len() != 0 {
		t.Errorf("heartbeat after every package ended wrote %q", out.String())
	}
}
