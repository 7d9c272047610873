//go:build unix

package sysmon

import (
	"os"
	"syscall"
)

// KeepAwake re-executes the running program, once, with Setting in
// GODEBUG, unless GODEBUG already sets schedtrace. Call it first thing in
// main: it returns only when it does not re-execute (the setting is there
// already, or the executable cannot be found or executed, when the program
// runs as it is).
func KeepAwake() {
	env, ok := Env(os.Environ())
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure
}
