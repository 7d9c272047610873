// Package sysmon keeps the Go runtime's system monitor thread from parking
// and waking around every request, by running the process with
// GODEBUG=schedtrace set (Setting, Env, KeepAwake).
//
// Why: Go's system monitor thread (sysmon) parks whenever every Go
// processor is idle, and the next system call wakes it again, after which
// it polls every 20 µs until it parks once more. A request-response server
// is idle between requests and again while PostgreSQL answers, so sysmon
// parked and woke about twice per request: a futex wake-up and a few
// nanosleeps each time, thread switches that cost far more in a virtual
// machine than the work they do. perf on the 2-CPU machine of the README's
// benchmarks put 18% of the emulator's CPU in sysmon during point reads.
// With schedtrace set, sysmon never parks (so that it can print the trace
// on time): it backs off to one wake-up per 10 ms while it finds nothing
// to do. The trace period is the largest GODEBUG accepts (2^31-1 ms, 24.8
// days), and the trace clock starts at the machine's boot, so a machine up
// for longer prints one "SCHED" line on standard error at start and one
// every 24.8 days. Measured (cosmos-bench -scenario point,js, alternating
// runs): the emulator's CPU per Go SDK point read 0.17-0.21 -> 0.10 ms,
// per JS SDK mixed operation 0.345 -> 0.245-0.265 ms at one client.
//
// The runtime reads GODEBUG's schedtrace only at start, hence the
// re-execution (KeepAwake).
package sysmon

import "strings"

// Setting is the GODEBUG setting a process runs with after KeepAwake,
// unless GODEBUG already sets schedtrace.
const Setting = "schedtrace=2147483647"

// Env returns env with Setting added to GODEBUG, and true, unless GODEBUG
// already sets schedtrace (any value: schedtrace=0 is the way to opt out),
// when it returns env and false. env itself is not modified.
func Env(env []string) ([]string, bool) {
	for i, kv := range env {
		v, ok := strings.CutPrefix(kv, "GODEBUG=")
		if !ok {
			continue
		}
		for _, s := range strings.Split(v, ",") {
			if strings.HasPrefix(strings.TrimSpace(s), "schedtrace=") {
				return env, false
			}
		}
		out := append([]string(nil), env...)
		if strings.TrimSpace(v) == "" {
			out[i] = "GODEBUG=" + Setting
		} else {
			out[i] = kv + "," + Setting
		}
		return out, true
	}
	return append(env[:len(env):len(env)], "GODEBUG="+Setting), true
}
