//go:build unix && !linux

package stagelink

import "syscall"

// childProcAttr puts redis-server in a process group of its own.
func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
