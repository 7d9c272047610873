//lint:file-ignore SA1019 this file tests the deprecated forwarding package itself

package emulatortest_test

import (
	"os"
	"testing"

	old "github.com/cosmos-emulator/cosmos-emulator/emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
	"github.com/cosmos-emulator/cosmos-emulator/server"
)

func TestMain(m *testing.M) { os.Exit(old.Main(m)) }

// TestFormerPathForwards: code written against the former import path
// still builds and runs: its types are the new package's (an *Emulator of
// one is an *Emulator of the other), its constants equal, its options set
// the same configuration, and Start starts a real emulator.
func TestFormerPathForwards(t *testing.T) {
	var _ *emulatortest.Emulator = (*old.Emulator)(nil)
	var _ emulatortest.Option = old.Option(nil)
	var _ emulatortest.FaultRule = old.FaultRule{}
	if old.Key != emulatortest.Key || old.DurabilityProcess != emulatortest.DurabilityProcess || old.DurabilityExternal != emulatortest.DurabilityExternal {
		t.Error("the former path's constants differ from the new package's")
	}
	var cfg server.Config
	old.WithProtocol("http")(&cfg)
	old.WithMinPartitionRanges(3)(&cfg)
	if cfg.Protocol != "http" || cfg.MinPartitionRanges != 3 {
		t.Errorf("options of the former path set %+v", cfg)
	}

	e := old.Start(t, old.WithProtocol("http"))
	resp, err := old.HTTPClient().Get(e.Endpoint + "_emulator/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health of an emulator started through the former path: %d", resp.StatusCode)
	}
}
