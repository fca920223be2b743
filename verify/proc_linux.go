package verify

import (
	"os"
	"syscall"
)

// childProcAttr puts a child (redis-server, a consumer) in a process group
// of its own, so that it and whatever it starts are signalled as one, and
// has the kernel kill it if we die without stopping it.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup signals p's whole process group: politely (SIGTERM) or not.
func signalGroup(p *os.Process, hard bool) error {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-p.Pid, sig)
}
