package main

import (
	"io"
	"testing"
)

// TestParseFlagsConsistency: --consistency (or COSMOS_EMULATOR_CONSISTENCY)
// picks the account's default consistency, spelled as the service does;
// an unknown level is an error.
func TestParseFlagsConsistency(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want string
		err  bool
	}{
		{"default", nil, "", "Session", false},
		{"flag", []string{"--consistency", "Strong"}, "", "Strong", false},
		{"flag any case", []string{"--consistency", "boundedstaleness"}, "", "BoundedStaleness", false},
		{"environment", nil, "Eventual", "Eventual", false},
		{"flag wins", []string{"--consistency", "ConsistentPrefix"}, "Strong", "ConsistentPrefix", false},
		{"unknown", []string{"--consistency", "Linearizable"}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"COSMOS_EMULATOR_CONSISTENCY": tt.env}
			cfg, err := ParseFlags(tt.args, func(k string) string { return env[k] }, io.Discard)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if err == nil && cfg.Consistency != tt.want {
				t.Fatalf("Consistency = %q, want %q", cfg.Consistency, tt.want)
			}
		})
	}
}
