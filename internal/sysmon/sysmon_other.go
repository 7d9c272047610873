//go:build !unix

package sysmon

// KeepAwake does nothing where a program cannot re-execute itself in
// place.
func KeepAwake() {}
