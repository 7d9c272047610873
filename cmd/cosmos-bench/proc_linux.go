package main

import "syscall"

// sysProcAttr makes the kernel send the emulator SIGTERM should this process
// die without stopping it (the emulator then stops its PostgreSQL too).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
