//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"inflight/verify/fakeredis"
)

// `inflight verify` stopped by a signal while it waits on its server:
// exit 1, every child gone (the stand-in redis-server forks one of its
// own), and the temporary folder removed.
func TestVerifySignalCleansUp(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			bin, tmp := t.TempDir(), t.TempDir()
			exe, _ := os.Executable()
			if err := fakeredis.WriteScript(bin, exe); err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(t.TempDir(), "pids")
			var stderr strings.Builder
			cmd := inflight(t, "verify", "cashback", "--events", "10")
			cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp,
				fakeredis.EnvMode+"=hang", fakeredis.EnvPids+"="+pidFile)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// the server is up (its child recorded) and the run has begun
			deadline := time.Now().Add(30 * time.Second)
			for len(readPids(pidFile)) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			if entries, _ := os.ReadDir(tmp); len(entries) == 0 {
				t.Fatal("verify made no temporary folder")
			}
			cmd.Process.Signal(sig)
			done := make(chan int, 1)
			go func() {
				err := cmd.Wait()
				var ee *exec.ExitError
				switch {
				case err == nil:
					done <- 0
				case errors.As(err, &ee):
					done <- ee.ExitCode() // -1: a signal killed it
				default:
					done <- -2
				}
			}()
			select {
			case code := <-done:
				if code != 1 || !strings.Contains(stderr.String(), "interrupted") {
					t.Errorf("exit %d, stderr %q", code, stderr.String())
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("verify did not stop")
			}
			for _, p := range readPids(pidFile) {
				if running(p) {
					t.Errorf("process %d outlived verify", p)
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func readPids(file string) []int {
	data, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// running reports whether pid is a live process (an unreaped zombie is not).
func running(pid int) bool {
	for i := 0; i < 100; i++ { // it may take a moment to die
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			if syscall.Kill(pid, 0) != nil {
				return false
			}
		} else if s := string(stat); strings.LastIndexByte(s, ')') > 0 && strings.LastIndexByte(s, ')')+2 < len(s) && s[strings.LastIndexByte(s, ')')+2] == 'Z' {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
