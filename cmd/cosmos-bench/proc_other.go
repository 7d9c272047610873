//go:build !linux

package main

import "syscall"

// sysProcAttr returns nil: only Linux offers a parent-death signal.
func sysProcAttr() *syscall.SysProcAttr { return nil }
