//lint:file-ignore SA1019 this file tests the deprecated forwarding package itself

package cosmoscontainer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/cosmoscontainer"
	old "github.com/cosmos-emulator/cosmos-emulator/emulator/cosmoscontainer"
)

// TestFormerPathForwards: code written against the former import path
// still builds and runs: its types are the new package's, its constants
// equal, and Run applies its options (a bad one fails before any container
// starts, so no Docker engine is needed).
func TestFormerPathForwards(t *testing.T) {
	var _ *cosmoscontainer.Container = (*old.Container)(nil)
	var _ cosmoscontainer.Option = old.Option(nil)
	var _ *cosmoscontainer.ControlError = (*old.ControlError)(nil)
	var _ cosmoscontainer.Stats = old.Stats{}
	var _ cosmoscontainer.Clock = old.Clock{}
	if old.Port != cosmoscontainer.Port || old.Key != cosmoscontainer.Key || old.HealthPath != cosmoscontainer.HealthPath ||
		old.DefaultStartupTimeout != cosmoscontainer.DefaultStartupTimeout || old.DurabilityNone != cosmoscontainer.DurabilityNone {
		t.Error("the former path's constants differ from the new package's")
	}
	for _, tc := range []struct {
		name string
		opt  old.Option
		want string
	}{
		{"protocol", old.WithProtocol("ftp"), "protocol"},
		{"key", old.WithKey("not base64!"), "base64"},
		{"durability", old.WithDurability("sometimes"), "durability"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := old.Run(context.Background(), "cosmos-emulator:local", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run with a bad %s: %v, want an error about it", tc.name, err)
			}
		})
	}
}
