//go:build unix

package verify

import (
	"context"
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

// standIn puts a stand-in redis-server first on PATH (it forks a child that
// would outlive a server signalled alone, see fakeredis), points TMPDIR at
// an empty folder and returns the file the pids of forked children are
// listed in and that folder.
func standIn(t *testing.T, mode string) (pidFile, tmp string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the stand-in redis-server")
	}
	bin, tmp := t.TempDir(), t.TempDir()
	if err := fakeredis.WriteScript(bin, self(t)[0]); err != nil {
		t.Fatal(err)
	}
	pidFile = filepath.Join(t.TempDir(), "pids")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TMPDIR", tmp)
	t.Setenv(fakeredis.EnvMode, mode)
	t.Setenv(fakeredis.EnvPids, pidFile)
	return pidFile, tmp
}

// pids reads the pids listed in file.
func pids(t *testing.T, file string) []int {
	data, _ := os.ReadFile(file)
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// alive reports whether pid is a live process (a zombie waiting for a
// parent that will never reap it counts as dead).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// the state follows the command's closing parenthesis
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// checkCleanedUp fails if a listed child is still running (it kills it
// then) or anything is left in the temporary folder.
func checkCleanedUp(t *testing.T, pidFile, tmp string, want int) {
	t.Helper()
	ps := pids(t, pidFile)
	if len(ps) < want {
		t.Fatalf("%d children recorded, want %d: the stand-ins did not run", len(ps), want)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range ps {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(p) {
			t.Errorf("process %d outlived verify", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("left behind in the temporary folder: %s", e.Name())
	}
}

// A redis-server whose start fails the run: its whole process group is
// stopped, not just its own pid, and the temporary folder is removed.
func TestServerGroupStoppedOnFailure(t *testing.T) {
	pidFile, tmp := standIn(t, "reject")
	_, err := Run(context.Background(), Options{Events: 10, CrashP: 0.1, Consumer: self(t)})
	if err == nil || !strings.Contains(err.Error(), "XGROUP") {
		t.Fatalf("err %v, want the stand-in's refusal of XGROUP", err)
	}
	checkCleanedUp(t, pidFile, tmp, 1)
}

// Interrupted while a consumer runs: the consumer, what it started, the
// server and what it started all end, and the temporary folder is removed.
func TestInterruptStopsEveryChild(t *testing.T) {
	pidFile, tmp := standIn(t, "serve")
	consumer := filepath.Join(t.TempDir(), "consumer")
	// a consumer that starts a helper of its own and never finishes
	script := "#!/bin/sh\nsleep 300 </dev/null >/dev/null 2>&1 &\necho $! >> \"$" + fakeredis.EnvPids + "\"\necho $$ >> \"$" + fakeredis.EnvPids + "\"\nexec sleep 300\n"
	if err := os.WriteFile(consumer, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for len(pids(t, pidFile)) < 3 && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
		}
		cancel() // as `inflight verify`'s signal context does on SIGINT or SIGTERM
	}()
	start := time.Now()
	_, err := Run(ctx, Options{Events: 10, CrashP: 0.1, Consumer: []string{consumer}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want the interruption", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %s to stop", took)
	}
	checkCleanedUp(t, pidFile, tmp, 3)
}
