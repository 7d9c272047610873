// Package compat_test proves compatibility black-box: it drives the official
// Go SDK (azcosmos v1.5.0) against the emulator running in-process over a
// real PostgreSQL, and raw signed HTTP where the SDK cannot send what a test
// needs. It imports only the SDK and emulatortest.
package compat_test

import (
	"os"
	"testing"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

func TestMain(m *testing.M) { os.Exit(emulatortest.Main(m)) }
