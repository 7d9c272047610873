package pgserver

import "syscall"

// setParentDeathSignal asks Linux to send the postmaster SIGINT (fast
// shutdown) when the thread that started it exits, that is when this process
// dies.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGINT }
