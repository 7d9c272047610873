package main

import "syscall"

// sysProcAttr puts the emulator in its own process group, so a Ctrl-C in the
// terminal reaches only this process, which then stops the emulator after
// cleaning up through it; and it makes the kernel send the emulator SIGTERM
// should this process die without stopping it (the emulator then stops its
// PostgreSQL too).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
