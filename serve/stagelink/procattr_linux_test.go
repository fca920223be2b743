package stagelink

import "syscall"

// childProcAttr puts redis-server in a process group of its own, killed
// by the kernel if the test dies without stopping it.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
