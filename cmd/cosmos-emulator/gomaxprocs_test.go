package main

import (
	"io"
	"runtime"
	"testing"
)

// TestGoMaxProcs: the emulator takes half the CPUs by default, leaves a
// GOMAXPROCS variable to Go, and obeys --gomaxprocs (positive: that many;
// negative: Go's own choice).
func TestGoMaxProcs(t *testing.T) {
	for _, c := range []struct {
		flag, goDefault int
		env             string
		want            int
	}{
		{0, 2, "", 1},
		{0, 1, "", 1},
		{0, 8, "", 4},
		{0, 7, "", 3},
		{0, 8, "6", 0},
		{0, 8, " 3 ", 0},
		{0, 8, "nonsense", 4}, // Go ignores an invalid GOMAXPROCS too
		{0, 8, "0", 4},
		{3, 8, "6", 3},
		{-1, 8, "", 0},
		{-1, 8, "6", 0},
	} {
		got := goMaxProcs(c.flag, func(k string) string {
			if k == "GOMAXPROCS" {
				return c.env
			}
			return ""
		}, c.goDefault)
		if got != c.want {
			t.Errorf("flag %d, %d CPUs, GOMAXPROCS=%q: %d, want %d", c.flag, c.goDefault, c.env, got, c.want)
		}
	}
}

// TestParseFlagsGoMaxProcs: --gomaxprocs and COSMOS_EMULATOR_GOMAXPROCS reach
// server.Config, the flag winning; without either the default is half of
// what Go chose for this process.
func TestParseFlagsGoMaxProcs(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want int
	}{
		{nil, nil, max(1, runtime.GOMAXPROCS(0)/2)},
		{[]string{"--gomaxprocs", "5"}, nil, 5},
		{nil, map[string]string{"COSMOS_EMULATOR_GOMAXPROCS": "3"}, 3},
		{[]string{"--gomaxprocs=2"}, map[string]string{"COSMOS_EMULATOR_GOMAXPROCS": "3"}, 2},
		{[]string{"--gomaxprocs=-1"}, nil, 0},
		{nil, map[string]string{"GOMAXPROCS": "2"}, 0},
	} {
		cfg, err := ParseFlags(c.args, func(k string) string { return c.env[k] }, io.Discard)
		if err != nil || cfg.GoMaxProcs != c.want {
			t.Errorf("%v %v: GoMaxProcs %d, %v; want %d", c.args, c.env, cfg.GoMaxProcs, err, c.want)
		}
	}
}
