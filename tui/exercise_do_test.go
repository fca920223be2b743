package tui

import (
	"strings"
	"testing"
)

// TestExerciseTakesItsActions plays thursday's question 7: its key opens
// the vt=60s fork and, on it, the fork that crashes B2; revealing plays
// on to the proof, whose figures and the status line give the price of
// the longer timeout, read from the run.
func TestExerciseTakesItsActions(t *testing.T) {
	m := press(start(t), "e", "7")
	n := len(m.x.Branches())
	m = press(m, "e", "a") // the row stays on 7: ask it, on the forks made
	b := m.x.Branch()
	if len(m.x.Branches()) != n {
		t.Errorf("asking exercise 7 made %d branches more", len(m.x.Branches())-n)
	}
	if !m.exercises.q.on || b.Parent == nil || b.Parent.Parent != m.x.Branches()[0] || len(b.Actions) != 1 || b.Actions[0].String() != "crash=B2" {
		t.Fatalf("7: question %v on %q (actions %v)", m.exercises.q.on, b.Name, b.Actions)
	}
	if strings.Contains(m.View(), "worst recovery") {
		t.Fatal("a recovery shown before the crash")
	}
	m = press(m, "c", "enter")
	q := m.exercises.q
	if !q.arrived || !strings.Contains(q.figures, "worst recovery: order 14 invisible 60.0s after B2 crashed") {
		t.Fatalf("proof: arrived %v, figures %q", q.arrived, q.figures)
	}
	m = press(m, "esc")
	if v := m.View(); !strings.Contains(v, "worst recovery: order 14 invisible 60.0s after B2 crashed") {
		t.Fatalf("status line lacks the recovery:\n%s", v)
	}
}
