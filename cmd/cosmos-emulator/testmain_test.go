package main

import (
	"os"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

// runMainEnv, set to 1, makes the test binary run main instead of the tests,
// so tests can run the real command as a child process (see runCommand).
const runMainEnv = "COSMOS_TEST_RUN_MAIN"

func pgtestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m))
}
