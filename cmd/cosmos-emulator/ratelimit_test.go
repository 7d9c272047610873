package main

import (
	"io"
	"testing"
)

// TestParseFlagsRateLimit: throttling is off by default and turned on by
// --rate-limit, COSMOS_EMULATOR_RATE_LIMIT or the classic emulator's name
// --enable-rate-limiting; a flag beats the variable.
func TestParseFlagsRateLimit(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want bool
	}{
		{"default", nil, nil, false},
		{"flag", []string{"--rate-limit"}, nil, true},
		{"classic name", []string{"--enable-rate-limiting"}, nil, true},
		{"environment", nil, map[string]string{"COSMOS_EMULATOR_RATE_LIMIT": "true"}, true},
		{"flag wins", []string{"--rate-limit=false"}, map[string]string{"COSMOS_EMULATOR_RATE_LIMIT": "true"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RateLimit != tt.want {
				t.Fatalf("RateLimit = %v, want %v", cfg.RateLimit, tt.want)
			}
		})
	}
}
