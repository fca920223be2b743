package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `run --compare main` on thursday's 19:52 fork to a 60 s timeout gives
// the TUI's comparison: the fork's 28 duplicate emails, 1 of them since
// the fork, main's 189 since it, and the first divergence past the knob.
func TestRunCompare(t *testing.T) {
	out, errs, code := runCLI("run", "thursday", "--at", "19:52:00", "--set", "visibility_timeout=60s", "--compare", "main", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var c comparison
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v in:\n%s", err, out)
	}
	if c.B.DuplicateEffects != 28 || c.SinceB.DuplicateEffects != 1 || c.SinceA.DuplicateEffects != 189 || c.At != "19:52:00" {
		t.Errorf("duplicates %d (%d since the fork at %s), main's since %d:\n%s", c.B.DuplicateEffects, c.SinceB.DuplicateEffects, c.At, c.SinceA.DuplicateEffects, out)
	}
	if c.First == nil || strings.Contains(c.First.B, "from here on") || !strings.Contains(c.First.B, "lease until 19:53:00") {
		t.Errorf("first divergence: %+v", c.First)
	}
	// B's code reproduces B
	o2, _, code := runCLI("run", "--code", c.B.Code, "--format", "json")
	if code != 0 || !strings.Contains(o2, `"duplicate_effects": 28`) {
		t.Errorf("B's code %s: exit %d\n%s", c.B.Code, code, o2)
	}
	// the text form has the same figures
	txt, _, code := runCLI("run", "--code", c.B.Code, "--compare", "main")
	if code != 0 || !strings.Contains(txt, "since fork") || !strings.Contains(txt, "first divergence at event") {
		t.Errorf("text comparison, exit %d:\n%s", code, txt)
	}
	// another run's code is refused, naming the flag
	_, errs, code = runCLI("run", "thursday", "--compare", "christmas-friday@1#10.00000000")
	if code != 2 || !strings.Contains(errs, "--compare") {
		t.Errorf("a code of another incident: exit %d, %q", code, errs)
	}
	if _, errs, code = runCLI("run", "thursday", "--compare", "main", "--trace"); code != 2 || !strings.Contains(errs, "--compare") {
		t.Errorf("--compare with --trace: exit %d, %q", code, errs)
	}
}

// The family's own figures are rows of the text comparison, in all:
// cashback's balance against the expected one; a figure 0 on both sides
// has no row, and the queue family, with none of its own, keeps its rows.
func TestRunCompareFamilyFigures(t *testing.T) {
	out, stderr, code := runCLI("run", "cashback", "--at", "10:00:30", "--set", "dedupe=true", "--compare", "main")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"figures.expected_balance       500000                     500000", "figures.balance       505500                     502100", "figures.crashes           55                         55"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "figures.pending") {
		t.Errorf("a row for a figure 0 on both sides:\n%s", out)
	}
	if out, _, _ := runCLI("run", "thursday", "--at", "19:52:00", "--set", "visibility_timeout=60s", "--compare", "main"); strings.Contains(out, "figures.") {
		t.Errorf("thursday's comparison has a family figure:\n%s", out)
	}
}
