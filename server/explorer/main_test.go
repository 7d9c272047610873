package explorer_test

import (
	"os"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }
