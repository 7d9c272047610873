package sysmon

import (
	"slices"
	"testing"
)

// TestEnv: the setting is added to GODEBUG (created, appended
// to), never twice, and never over a schedtrace the environment sets.
func TestEnv(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		want   []string
		reexec bool
	}{
		{"no GODEBUG", []string{"A=1"}, []string{"A=1", "GODEBUG=" + Setting}, true},
		{"empty GODEBUG", []string{"GODEBUG=", "A=1"}, []string{"GODEBUG=" + Setting, "A=1"}, true},
		{"other settings", []string{"GODEBUG=http2client=0", "A=1"}, []string{"GODEBUG=http2client=0," + Setting, "A=1"}, true},
		{"already ours", []string{"GODEBUG=" + Setting}, []string{"GODEBUG=" + Setting}, false},
		{"opted out", []string{"GODEBUG=x=1,schedtrace=0"}, []string{"GODEBUG=x=1,schedtrace=0"}, false},
		{"a trace asked for", []string{"GODEBUG=schedtrace=1000"}, []string{"GODEBUG=schedtrace=1000"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.env)
			got, reexec := Env(in)
			if reexec != tc.reexec || !slices.Equal(got, tc.want) {
				t.Errorf("Env(%q) = %q, %v; want %q, %v", tc.env, got, reexec, tc.want, tc.reexec)
			}
			if !slices.Equal(in, tc.env) {
				t.Errorf("the input was modified: %q", in)
			}
		})
	}
}
