//go:build ignore

// report.go reads the `go test -json` stream of the azcosmos emulator tests
// on stdin, prints one progress line per finished test (with the output of
// failing tests), then a PASS/FAIL/SKIP table and a summary, and compares
// the result with the baseline. It is a helper of run.sh, built with
// `go build -o … report.go` (the ignore build tag keeps it out of the
// module's packages).
//
// Exit status: 0 when every baseline test passed, 1 on a regression,
// 2 when the test binary did not build or no emulator test ran.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

type result struct {
	name    string
	status  string // PASS, FAIL, SKIP, NORUN
	elapsed float64
	output  []string
	// skipReason is the t.Skip message, when status is SKIP.
	skipReason string
}

func main() {
	testsFile := flag.String("tests", "", "file with the expected test names, one per line")
	baselineFile := flag.String("baseline", "", "baseline file: tests expected to pass")
	expectedFile := flag.String("expected-failures", "", "markdown table `| TestName | reason |` of known failures")
	update := flag.Bool("update-baseline", false, "rewrite -baseline from this run's passing tests")
	tsvFile := flag.String("tsv", "", "write name<TAB>status<TAB>seconds to this file")
	failLines := flag.Int("fail-lines", 25, "lines of output shown per failing test")
	flag.Parse()

	names, err := readList(*testsFile)
	if err != nil {
		fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	results := map[string]*result{}
	get := func(name string) *result {
		r := results[name]
		if r == nil {
			r = &result{name: name}
			results[name] = r
		}
		return r
	}
	var pkgOutput []string
	buildFailed := false

	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// Not JSON: go command diagnostics (download errors, ...).
			pkgOutput = append(pkgOutput, string(line))
			continue
		}
		switch ev.Action {
		case "build-output":
			pkgOutput = append(pkgOutput, strings.TrimRight(ev.Output, "\n"))
			continue
		case "build-fail":
			buildFailed = true
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		if top == "" {
			if ev.Action == "output" {
				pkgOutput = append(pkgOutput, strings.TrimRight(ev.Output, "\n"))
			}
			continue
		}
		r := get(top)
		switch ev.Action {
		case "output":
			out := strings.TrimRight(ev.Output, "\n")
			r.output = append(r.output, out)
			if ev.Test == top {
				if s := strings.TrimSpace(out); strings.HasPrefix(s, "emulator_") && r.skipReason == "" {
					r.skipReason = s
				}
			}
		case "pass", "fail", "skip":
			if ev.Test != top {
				continue
			}
			r.status = strings.ToUpper(ev.Action)
			r.elapsed = ev.Elapsed
			progress(r, *failLines)
		}
	}
	if err := sc.Err(); err != nil {
		fatal(err)
	}

	for _, n := range names {
		r := get(n)
		if r.status == "" {
			r.status = "NORUN"
		}
	}
	var all []*result
	for _, r := range results {
		if want[r.name] || len(want) == 0 {
			if r.status == "" {
				r.status = "NORUN"
			}
			all = append(all, r)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })

	ran := 0
	for _, r := range all {
		if r.status != "NORUN" {
			ran++
		}
	}
	if buildFailed || ran == 0 {
		fmt.Println()
		fmt.Println("sdk-tests: the test binary did not build or no emulator test ran; go test said:")
		for _, l := range tail(pkgOutput, 60) {
			fmt.Println("    " + l)
		}
		os.Exit(2)
	}

	baseline := map[string]bool{}
	if *baselineFile != "" && !*update {
		b, err := readList(*baselineFile)
		if err != nil && !os.IsNotExist(err) {
			fatal(err)
		}
		for _, n := range b {
			baseline[n] = true
		}
	}
	reasons := map[string]string{}
	if *expectedFile != "" {
		reasons = readReasons(*expectedFile)
	}

	var regressions, newPasses, unexplained []string
	counts := map[string]int{}
	w := len("TEST")
	for _, r := range all {
		w = max(w, len(r.name))
	}
	fmt.Println()
	fmt.Printf("%-*s %-6s %8s  %s\n", w, "TEST", "RESULT", "TIME", "NOTE")
	fmt.Printf("%-*s %-6s %8s  %s\n", w, strings.Repeat("-", w), "------", "--------", strings.Repeat("-", 40))
	for _, r := range all {
		counts[r.status]++
		note := ""
		switch {
		case r.status == "PASS" && !baseline[r.name] && !*update:
			note = "NEW PASS: add to baseline.txt (run.sh --update-baseline)"
			newPasses = append(newPasses, r.name)
		case r.status != "PASS" && baseline[r.name]:
			note = "REGRESSION: in baseline.txt"
			regressions = append(regressions, r.name)
		case r.status == "SKIP":
			note = r.skipReason
		case r.status == "NORUN":
			note = "did not run: the test binary stopped before it (crash or -timeout; see go-test.json)"
			unexplained = append(unexplained, r.name)
		case r.status != "PASS":
			if reason, ok := reasons[r.name]; ok {
				note = "expected: " + reason
			} else {
				note = "not in expected-failures.md"
				unexplained = append(unexplained, r.name)
			}
		}
		fmt.Printf("%-*s %-6s %7.2fs  %s\n", w, r.name, r.status, r.elapsed, note)
	}
	if counts["NORUN"] > 0 && len(pkgOutput) > 0 {
		fmt.Println()
		fmt.Println("sdk-tests: some tests did not run; the last lines go test printed outside any test:")
		for _, l := range tail(pkgOutput, 30) {
			fmt.Println("    " + l)
		}
	}
	fmt.Println()
	fmt.Printf("sdk-tests summary: %d tests: PASS %d, FAIL %d, SKIP %d, NORUN %d\n",
		len(all), counts["PASS"], counts["FAIL"], counts["SKIP"], counts["NORUN"])

	if *tsvFile != "" {
		var b strings.Builder
		for _, r := range all {
			fmt.Fprintf(&b, "%s\t%s\t%.2f\n", r.name, r.status, r.elapsed)
		}
		if err := os.WriteFile(*tsvFile, []byte(b.String()), 0o644); err != nil {
			fatal(err)
		}
	}

	if *update {
		var b strings.Builder
		b.WriteString("# azcosmos emulator tests expected to PASS against cosmos-emulator.\n")
		b.WriteString("# One test name per line; scripts/sdk-tests/run.sh fails when one of them\n")
		b.WriteString("# does not pass. Regenerate with: scripts/sdk-tests/run.sh --update-baseline\n")
		for _, r := range all {
			if r.status == "PASS" {
				b.WriteString(r.name + "\n")
			}
		}
		if err := os.WriteFile(*baselineFile, []byte(b.String()), 0o644); err != nil {
			fatal(err)
		}
		fmt.Printf("sdk-tests: wrote %s with %d passing tests (%s)\n", *baselineFile, counts["PASS"], time.Now().UTC().Format(time.RFC3339))
		return
	}

	fmt.Printf("sdk-tests baseline: %d expected to pass, %d regressions, %d newly passing\n",
		len(baseline), len(regressions), len(newPasses))
	if len(newPasses) > 0 {
		fmt.Println("sdk-tests: newly passing (not in baseline.txt); add them with run.sh --update-baseline:")
		for _, n := range newPasses {
			fmt.Println("    " + n)
		}
	}
	if len(unexplained) > 0 {
		fmt.Println("sdk-tests: failing tests without a reason in expected-failures.md (add one, or fix the emulator):")
		for _, n := range unexplained {
			fmt.Println("    " + n)
		}
	}
	for n := range baseline {
		if !want[n] && len(want) > 0 {
			fmt.Printf("sdk-tests: baseline test %s is not an emulator test of this module version\n", n)
			regressions = append(regressions, n)
		}
	}
	if len(regressions) > 0 {
		sort.Strings(regressions)
		fmt.Println("sdk-tests: REGRESSION: baseline tests that did not pass:")
		for _, n := range regressions {
			fmt.Println("    " + n)
		}
		os.Exit(1)
	}
}

// progress prints one line for a finished test, and the (trimmed) output of
// a failing one.
func progress(r *result, maxLines int) {
	fmt.Printf("%-4s %s (%.2fs)\n", r.status, r.name, r.elapsed)
	if r.status != "FAIL" {
		return
	}
	var lines []string
	for _, l := range r.output {
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "=== ") {
			continue
		}
		if len(l) > 400 {
			l = l[:400] + " …"
		}
		lines = append(lines, l)
	}
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("    … %d more lines in the JSON log", len(lines)-maxLines))
	}
	for _, l := range lines {
		fmt.Println("    | " + l)
	}
}

func readList(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

var reasonRow = regexp.MustCompile("^\\|\\s*`?(Test\\w+)`?\\s*\\|\\s*(.*?)\\s*\\|")

func readReasons(path string) map[string]string {
	m := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return m
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	for _, l := range strings.Split(string(b), "\n") {
		if sm := reasonRow.FindStringSubmatch(strings.TrimSpace(l)); sm != nil {
			m[sm[1]] = sm[2]
		}
	}
	return m
}

func tail(s []string, n int) []string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "sdk-tests report:", err)
	os.Exit(2)
}
