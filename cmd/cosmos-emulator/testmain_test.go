package main

import (
	"os"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/pgstore/pgtest"
)

func pgtestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
