//go:build !linux

package serve

import "syscall"

// hallProcAttr: only Linux can kill a child when its parent dies; here
// TestHall's cleanup stops its children.
func hallProcAttr() *syscall.SysProcAttr { return nil }
