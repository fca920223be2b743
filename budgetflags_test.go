package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run, sweep and hunt stop at --max-memory-mb in one line naming the
// budget and the flag, exit 1; a bad value is a usage error. The memory
// is the state's known sizes, so the same input stops at the same point
// on every machine.
func TestMemoryBudgetCLI(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte(`id: big
title: "Fifty million at once"
story: every order at the same moment, a lease of a millisecond
label: order
start: "19:40:20"
sources:
  - {name: orders, start: "19:40:20", every: 0s, count: 50000000}
broker: {mode: standard, visibility_timeout: 1ms, max_receives: 1000, late_ack: refuse}
workers: {boxes: [A], per_box: 64, restart_after: 2s}
handler: {ack: after}
provider: {latency_min: 31s, latency_max: 40s}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--incident-file", big, "--max-events", "50000000", "--max-memory-mb", "64"}, 1,
			"inflight: stopped: the run passed its memory budget of 64 MB (raise with --max-memory-mb)"},
		{[]string{"run", "--incident-file", big, "--code", "big@1#end.00000000", "--max-memory-mb", "32"}, 1,
			"inflight: stopped: the run passed its memory budget of 32 MB (raise with --max-memory-mb)"},
		{[]string{"sweep", "--incident-file", big, "--vary", "visibility_timeout=1ms", "--max-memory-mb", "32"}, 1,
			"inflight: stopped: the run passed its memory budget of 32 MB (raise with --max-memory-mb)"},
		{[]string{"hunt", "thursday-fixed", "--property", "one-email", "--set", "orders=30000", "--budget", "1", "--max-memory-mb", "64"}, 1,
			"inflight: stopped: the hunt passed its memory budget of 64 MB (raise with --max-memory-mb)"},
		{[]string{"hunt", "thursday", "--set", "visibility_timeout=45s", "--faults", "off", "--property", "no-duplicate", "--budget", "100000000", "--depth", "3", "--max-memory-mb", "8"}, 1,
			"inflight: stopped: the hunt passed its memory budget of 8 MB (raise with --max-memory-mb)"},
		{[]string{"run", "thursday", "--max-memory-mb", "0"}, 2,
			"inflight: --max-memory-mb must be between 1 and 1073741824, not 0"},
		{[]string{"hunt", "thursday", "--property", "one-email", "--max-memory-mb", "-5"}, 2,
			"inflight: --max-memory-mb must be between 1 and 1073741824, not -5"},
	} {
		out, errOut, code := runCLI(c.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n") // after a hunt's progress line
		if code != c.code || lines[len(lines)-1] != c.want {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want %d, %q", c.args, code, errOut, out, c.code, c.want)
		}
	}
}

// run --code draws on --max-events as run does: a code's run stops at the
// budget with the run's line, and a code whose fork or cursor lies past
// the budget is refused before it is played (it used to play to the end,
// whatever --max-events said).
func TestCodeEventBudget(t *testing.T) {
	out, _, code := runCLI("run", "--code", "thursday@1/@19:52:00;visibility_timeout=60s#end.1dde67ec", "--max-events", "100")
	if code != 0 || !strings.Contains(out, "stopped: event budget of 100 reached (raise with --max-events)") {
		t.Errorf("end code: exit %d, stdout %q", code, out)
	}
	_, errOut, code := runCLI("run", "--code", "thursday@1/p178@19:52:00;visibility_timeout=60s#560.1dde67ec", "--max-events", "100")
	if want := "inflight: stopped: this code's event 178 is past the event budget of 100 (raise with --max-events)\n"; code != 1 || errOut != want {
		t.Errorf("fork past the budget: exit %d, stderr %q, want 1, %q", code, errOut, want)
	}
}
