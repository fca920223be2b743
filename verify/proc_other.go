//go:build !unix

package verify

import (
	"os"
	"syscall"
)

func serverProcAttr() *syscall.SysProcAttr { return nil }

func terminate(p *os.Process) error { return p.Kill() }
