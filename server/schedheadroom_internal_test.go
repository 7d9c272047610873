package server

import (
	"runtime"
	"testing"
)

// TestEnsureSchedulerHeadroom: the headroom is the default plus the
// scripts, computed from the default (so a second server does not add
// more), never lowers GOMAXPROCS, and a GOMAXPROCS in the environment
// stands.
func TestEnsureSchedulerHeadroom(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	tests := []struct {
		name    string
		env     string
		start   int
		scripts int
		want    int
	}{
		{"raised to default plus scripts", "", defaultProcs, 4, defaultProcs + 4},
		{"a second server adds nothing", "", defaultProcs + 4, 4, defaultProcs + 4},
		{"never lowered", "", defaultProcs + 10, 4, defaultProcs + 10},
		{"no scripts, no change", "", defaultProcs, 0, defaultProcs},
		{"the environment's value stands", "3", 3, 4, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tc.env)
			runtime.GOMAXPROCS(tc.start)
			if got := ensureSchedulerHeadroom(tc.scripts); got != tc.want {
				t.Errorf("ensureSchedulerHeadroom(%d) = %d, want %d", tc.scripts, got, tc.want)
			}
			if got := runtime.GOMAXPROCS(0); got != tc.want {
				t.Errorf("GOMAXPROCS = %d, want %d", got, tc.want)
			}
		})
	}
}
