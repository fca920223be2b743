//go:build unix

package incidents

import (
	"path/filepath"
	"syscall"
	"testing"
)

func makeFIFO(t *testing.T, dir string) (string, bool) {
	p := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Logf("no FIFO: %v", err)
		return "", false
	}
	return p, true
}
