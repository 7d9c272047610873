//go:build unix && !linux

package pgserver

import "syscall"

// setParentDeathSignal does nothing: only Linux has a parent-death signal, so
// elsewhere a server outlives a killed owner until the next Start on its
// DataDir stops it.
func setParentDeathSignal(*syscall.SysProcAttr) {}
