package cosmoscontainer

import (
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"
)

// TestRequestDurability: a container that mounts nothing runs at process
// durability (its data is removed with it); a chosen level, the alias
// variable, or a mounted volume or host directory keep the choice or the
// image's default. No Docker needed: it checks the request Run sends.
func TestRequestDurability(t *testing.T) {
	t.Parallel()
	bindsOption := testcontainers.CustomizeRequestOption(func(req *testcontainers.GenericContainerRequest) error {
		req.Binds = []string{"/srv/cosmos:/data"} //nolint:staticcheck // the deprecated field callers may still set
		return nil
	})
	for _, tt := range []struct {
		name string
		opts []testcontainers.ContainerCustomizer
		want string // "" : the variable is not set (the image's default, full)
	}{
		{"nothing mounted", nil, DurabilityProcess},
		{"WithDurability full", []testcontainers.ContainerCustomizer{WithDurability(DurabilityFull)}, DurabilityFull},
		{"WithDurability none", []testcontainers.ContainerCustomizer{WithDurability(DurabilityNone)}, DurabilityNone},
		{"the variable through WithEnv", []testcontainers.ContainerCustomizer{testcontainers.WithEnv(map[string]string{durabilityEnv: "none"})}, "none"},
		{"the alias variable", []testcontainers.ContainerCustomizer{testcontainers.WithEnv(map[string]string{"COSMOS_EMULATOR_FAST_UNSAFE_COMMIT": "true"})}, ""},
		{"a named volume", []testcontainers.ContainerCustomizer{testcontainers.WithMounts(testcontainers.VolumeMount("cosmos-data", "/data"))}, ""},
		//lint:ignore SA1019 callers may still mount with the deprecated BindMount; Run must see it
		{"a host directory", []testcontainers.ContainerCustomizer{testcontainers.WithMounts(testcontainers.BindMount("/srv/cosmos", "/data"))}, ""},
		{"Binds", []testcontainers.ContainerCustomizer{bindsOption}, ""},
		{"a volume and an explicit level", []testcontainers.ContainerCustomizer{WithDurability(DurabilityProcess), testcontainers.WithMounts(testcontainers.VolumeMount("v", "/data"))}, DurabilityProcess},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req, _, _, err := newRequest("cosmos-emulator:local", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := req.Env[durabilityEnv]; got != tt.want {
				t.Errorf("%s = %q, want %q", durabilityEnv, got, tt.want)
			}
		})
	}
	if _, _, _, err := newRequest("cosmos-emulator:local", []testcontainers.ContainerCustomizer{WithDurability("fast")}); err == nil || !strings.Contains(err.Error(), "full, process, none") {
		t.Errorf("WithDurability(\"fast\"): %v, want an error naming the accepted values", err)
	}
}
