//go:build !unix

package verify

import (
	"os"
	"syscall"
)

func childProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup has no process groups to use here: it kills p alone.
func signalGroup(p *os.Process, hard bool) error { return p.Kill() }
