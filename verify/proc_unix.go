//go:build unix && !linux

package verify

import (
	"os"
	"syscall"
)

// childProcAttr puts a child in a process group of its own, so that it and
// whatever it starts are signalled as one.
func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// signalGroup signals p's whole process group: politely (SIGTERM) or not.
func signalGroup(p *os.Process, hard bool) error {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-p.Pid, sig)
}
