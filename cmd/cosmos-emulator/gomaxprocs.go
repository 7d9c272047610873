package main

import (
	"strconv"
	"strings"
)

// goMaxProcs chooses how many CPUs the emulator runs Go code on at once
// (server.Config.GoMaxProcs; 0 leaves Go's own setting):
//
//   - flagValue > 0 (--gomaxprocs, COSMOS_EMULATOR_GOMAXPROCS): that;
//   - flagValue < 0: Go's own choice (a GOMAXPROCS variable, else every
//     CPU available to the process);
//   - flagValue 0 (the default): a valid GOMAXPROCS environment variable is
//     left to Go; otherwise half of goDefault (the CPUs Go would use),
//     at least 1.
//
// Why half: a request is served by the emulator and by PostgreSQL in turn,
// and the clients of an emulator usually run on the same machine. With as
// many Go threads as CPUs, every hand-off between goroutines woke an idle
// thread on another CPU that then spun looking for work: on the 2-CPU
// machine of the README's benchmarks, GOMAXPROCS=1 took the emulator's CPU
// time per JS SDK operation from 0.45 to 0.32 ms at one client and from
// 0.38 to 0.25 ms at sixteen, and raised throughput at sixteen clients by
// a third, since PostgreSQL's backends got the other CPU.
func goMaxProcs(flagValue int, getenv func(string) string, goDefault int) int {
	switch {
	case flagValue > 0:
		return flagValue
	case flagValue < 0:
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(getenv("GOMAXPROCS"))); err == nil && n > 0 {
		return 0
	}
	return max(1, goDefault/2)
}
