package main

import "syscall"

// sysProcAttr puts the emulator in its own process group (a Ctrl-C reaches
// only this process, which stops the emulator) and has the kernel send it
// SIGTERM should this process die first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
