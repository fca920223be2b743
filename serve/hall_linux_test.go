package serve

import "syscall"

// hallProcAttr has the kernel kill TestHall's children if the test binary
// dies without stopping them (a timeout's panic runs no cleanup).
func hallProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
