package main

import (
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseScenarios: -scenario takes a comma-separated list, "all" names
// every scenario, the default is point, durability, js, containers and batch
// (the scenarios of the Targets rows), and an unknown
// name is an error naming the known ones.
func TestParseScenarios(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want []string
		err  bool
	}{
		{"", []string{"point", "durability", "js", "containers", "batch"}, false},
		{"js", []string{"js"}, false},
		{"point, containers", []string{"point", "containers"}, false},
		{"all", scenarioNames, false},
		{"ttl,all", scenarioNames, false},
		{"point,nope", nil, true},
	} {
		args := []string{}
		if c.arg != "" {
			args = []string{"-scenario", c.arg}
		}
		cfg, err := parseFlags(args, io.Discard)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), "containers") {
				t.Errorf("%q: %v, want an error listing the scenarios", c.arg, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.arg, err)
		}
		for _, name := range scenarioNames {
			if cfg.scenarios[name] != slices.Contains(c.want, name) {
				t.Errorf("%q: %s selected: %v", c.arg, name, cfg.scenarios[name])
			}
		}
	}
}

// TestPerOp: a phase's CPU is divided by every operation that ran in it.
func TestPerOp(t *testing.T) {
	for _, tc := range []struct {
		c    phaseCPU
		ops  int
		want perOpCPU
	}{
		{phaseCPU{EmulatorMS: 100, PostgresMS: 50}, 1000, perOpCPU{Emulator: 0.1, Postgres: 0.05}},
		{phaseCPU{EmulatorMS: 3, PostgresMS: 0}, 0, perOpCPU{Emulator: 3, Postgres: 0}},
	} {
		if got := perOp(tc.c, tc.ops); got != tc.want {
			t.Errorf("perOp(%+v, %d) = %+v, want %+v", tc.c, tc.ops, got, tc.want)
		}
	}
}

// TestStatFields: the fields of /proc/<pid>/stat are counted from the state
// after "pid (comm)" (so the parent is index 1, the CPU times 11 to 14), and
// a process that does not exist reads as nothing.
func TestStatFields(t *testing.T) {
	f := statFields(os.Getpid())
	if len(f) < 15 || f[1] != strconv.Itoa(os.Getppid()) || !slices.Contains(childrenOf(os.Getppid()), os.Getpid()) {
		t.Fatalf("stat fields %q, want the parent %d at index 1", f, os.Getppid())
	}
	if statFields(1<<30) != nil || procTicks(1<<30) != 0 {
		t.Errorf("a missing process reads as %q", statFields(1<<30))
	}
}
