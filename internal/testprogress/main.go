// Command testprogress runs go test -json and reports while the suite runs,
// for make test: a line per package when it ends (its wall time and test
// counts), the output of a failed test as soon as it fails, a line at a
// fixed interval naming the packages still running, and at the end the
// slowest packages and tests, every skipped test with its reason, the failed tests,
// the wall time and a closing line "test: N passed, N failed, N skipped".
//
//	go run ./internal/testprogress [-every 30s] [-go go] -- [go test flags] [packages]
//
// The arguments after -- go to go test as they are (-json is added). The
// exit status is 0 when go test succeeded and no test failed, 1 otherwise
// (a build failure, a failed test, a panic or a timeout of the test binary).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxLines bounds the output kept for one running test (and one package's
// own output); the last lines are kept.
const maxLines = 400

func main() {
	every := flag.Duration("every", 30*time.Second, "interval of the lines naming the packages still running (0: none)")
	goCmd := flag.String("go", "go", "the go command")
	flag.Parse()
	os.Exit(run(*goCmd, *every, flag.Args(), "", os.Stdout))
}

// run runs goCmd test -json args in dir ("": the current directory),
// reporting to w, and returns the exit status: 0 when go test succeeded and
// no test failed, 1 otherwise.
func run(goCmd string, every time.Duration, args []string, dir string, w io.Writer) int {
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		return 1
	}
	r := newReport(w, time.Now())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if every > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case now := <-t.C:
					r.heartbeat(now)
				}
			}
		}()
	}
	readOK := r.read(stdout)
	runErr := cmd.Wait()
	close(stop)
	wg.Wait()
	failed := r.finish(time.Now())
	if runErr != nil || failed || !readOK {
		return 1
	}
	return 0
}

// event is one line of go test -json (cmd/test2json's TestEvent, with the
// build events of go 1.24 and later).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail
	Test       string
	Output     string
	Elapsed    float64
}

// pkgState is what the report knows of one package.
type pkgState struct {
	name                    string
	start                   time.Time
	passed, failed, skipped int
	done                    bool
	pkgFailed               bool     // its end event was a fail
	elapsed                 float64  // seconds, from the package's end event
	output                  []string // the package's own output (no test)
}

// testTime is how long one top-level test ran.
type testTime struct {
	name    string // "pkg Test"
	elapsed float64
}

// skip is one skipped test and the reason it gave.
type skip struct{ pkg, test, reason string }

// report accumulates the events and writes the progress lines.
type report struct {
	mu       sync.Mutex
	w        io.Writer
	start    time.Time
	pkgs     map[string]*pkgState
	order    []string            // packages in the order they started
	running  map[string][]string // package + "\x00" + test: its output so far
	skips    []skip
	failures []string   // "pkg Test"
	tests    []testTime // top-level tests that passed or failed
	ended    []*pkgState
}

// newReport returns a report writing to w for a run that started at start.
func newReport(w io.Writer, start time.Time) *report {
	return &report{w: w, start: start, pkgs: map[string]*pkgState{}, running: map[string][]string{}}
}

// short trims the module path from a package name.
func short(pkg string) string {
	const mod = "github.com/cosmos-emulator/cosmos-emulator/"
	if s := strings.TrimPrefix(pkg, mod); s != "" {
		return s
	}
	return pkg
}

// appendLine appends s to lines, keeping the last maxLines.
func appendLine(lines []string, s string) []string {
	lines = append(lines, s)
	if len(lines) > maxLines {
		lines = append(lines[:0], lines[len(lines)-maxLines:]...)
	}
	return lines
}

// read consumes the go test -json stream; a line that is not an event is
// copied as it is. On a read error (a line over 16 MiB) it reports the
// error, drains the rest so that go test can finish, and returns false.
func (r *report) read(in io.Reader) bool {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			r.mu.Lock()
			fmt.Fprintf(r.w, "%s\n", line)
			r.mu.Unlock()
			continue
		}
		r.event(e)
	}
	if err := sc.Err(); err != nil {
		r.mu.Lock()
		fmt.Fprintln(r.w, "testprogress: reading go test's output:", err)
		r.mu.Unlock()
		_, _ = io.Copy(io.Discard, in)
		return false
	}
	return true
}

// pkg returns the state of package name, first seen at t.
func (r *report) pkg(name string, t time.Time) *pkgState {
	p := r.pkgs[name]
	if p == nil {
		p = &pkgState{name: name, start: t}
		r.pkgs[name] = p
		r.order = append(r.order, name)
	}
	return p
}

// skipReason is the reason a skipped test gave: its output without the
// lines go test writes itself.
func skipReason(lines []string) string {
	var kept []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return "(no reason given)"
	}
	return strings.Join(kept, " | ")
}

// event takes one event: it counts tests, keeps the output of running
// tests, and writes a failed test's output and a package's line when they
// end.
func (r *report) event(e event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.w, e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	p := r.pkg(e.Package, e.Time)
	if e.Test == "" {
		switch e.Action {
		case "output":
			p.output = appendLine(p.output, e.Output)
		case "pass", "fail", "skip":
			p.done = true
			p.pkgFailed = e.Action == "fail"
			p.elapsed = e.Elapsed
			r.ended = append(r.ended, p)
			r.packageEnded(p, e)
		}
		return
	}
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "run":
		r.running[key] = nil
	case "output":
		r.running[key] = appendLine(r.running[key], e.Output)
	case "pass":
		p.passed++
		r.timeTest(e)
		delete(r.running, key)
	case "skip":
		p.skipped++
		r.skips = append(r.skips, skip{short(e.Package), e.Test, skipReason(r.running[key])})
		delete(r.running, key)
	case "fail":
		p.failed++
		r.timeTest(e)
		r.failures = append(r.failures, short(e.Package)+" "+e.Test)
		fmt.Fprintf(r.w, "--- FAIL: %s %s (%.2fs)\n", short(e.Package), e.Test, e.Elapsed)
		for _, l := range r.running[key] {
			fmt.Fprint(r.w, "    ", l)
		}
		delete(r.running, key)
	}
}

// timeTest records the time of a top-level test (subtests are part of
// their parent's).
func (r *report) timeTest(e event) {
	if !strings.Contains(e.Test, "/") {
		r.tests = append(r.tests, testTime{short(e.Package) + " " + e.Test, e.Elapsed})
	}
}

// packageEnded writes the line of a package that ended (and its own
// output when it failed: a build error, a panic, TestMain's failure).
func (r *report) packageEnded(p *pkgState, e event) {
	switch e.Action {
	case "skip":
		return // no test files
	case "fail":
		for _, l := range p.output {
			fmt.Fprint(r.w, "    ", l)
		}
		fmt.Fprintf(r.w, "FAIL %-40s %7.1fs  %d passed, %d failed, %d skipped\n", short(p.name), e.Elapsed, p.passed, p.failed, p.skipped)
		return
	}
	fmt.Fprintf(r.w, "ok   %-40s %7.1fs  %d passed, %d skipped  (%s into the run)\n", short(p.name), e.Elapsed, p.passed, p.skipped, e.Time.Sub(r.start).Round(time.Second))
}

// heartbeat names the packages still running and how far each is.
func (r *report) heartbeat(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var running []string
	for _, name := range r.order {
		p := r.pkgs[name]
		if p.done {
			continue
		}
		running = append(running, fmt.Sprintf("%s (%d tests done, %s)", short(name), p.passed+p.failed+p.skipped, now.Sub(p.start).Round(time.Second)))
	}
	if len(running) == 0 {
		return
	}
	fmt.Fprintf(r.w, "... %s: running %s\n", now.Sub(r.start).Round(time.Second), strings.Join(running, ", "))
}

// finish writes the summary and reports whether anything failed.
func (r *report) finish(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var passed, failed, skipped int
	var brokenPkgs []string // failed with no failed test: build, TestMain, a panic
	for _, p := range r.pkgs {
		passed += p.passed
		failed += p.failed
		skipped += p.skipped
	}
	for _, p := range r.ended {
		if p.pkgFailed && p.failed == 0 {
			brokenPkgs = append(brokenPkgs, short(p.name))
		}
	}
	slow := append([]*pkgState(nil), r.ended...)
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].elapsed > slow[j].elapsed })
	if len(slow) > 0 {
		fmt.Fprintln(r.w, "\nSlowest packages (wall time):")
		for i, p := range slow {
			if i == 5 {
				break
			}
			fmt.Fprintf(r.w, "  %7.1fs  %s\n", p.elapsed, short(p.name))
		}
	}
	sort.SliceStable(r.tests, func(i, j int) bool { return r.tests[i].elapsed > r.tests[j].elapsed })
	if len(r.tests) > 0 {
		fmt.Fprintln(r.w, "\nSlowest tests (parallel tests overlap):")
		for i, tt := range r.tests {
			if i == 10 {
				break
			}
			fmt.Fprintf(r.w, "  %7.1fs  %s\n", tt.elapsed, tt.name)
		}
	}
	if len(r.skips) > 0 {
		fmt.Fprintf(r.w, "\nSkipped tests (%d):\n", len(r.skips))
		for _, s := range r.skips {
			fmt.Fprintf(r.w, "  %s %s: %s\n", s.pkg, s.test, s.reason)
		}
	}
	if len(r.failures) > 0 {
		fmt.Fprintf(r.w, "\nFailed tests (%d):\n", len(r.failures))
		for _, f := range r.failures {
			fmt.Fprintf(r.w, "  %s\n", f)
		}
	}
	if len(brokenPkgs) > 0 {
		fmt.Fprintf(r.w, "\nPackages that failed outside any test (build, TestMain, panic; output above) (%d):\n", len(brokenPkgs))
		for _, p := range brokenPkgs {
			fmt.Fprintf(r.w, "  %s\n", p)
		}
	}
	fmt.Fprintf(r.w, "\nWall time: %d s\n", int(now.Sub(r.start).Seconds()))
	// the closing line, alone: the form CI reads as a test count
	fmt.Fprintf(r.w, "test: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	return failed > 0 || len(brokenPkgs) > 0
}
