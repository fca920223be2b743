package tui

import (
	"strings"
	"testing"

	"inflight/engine"
)

// forkAt forks m's branch on screen at clock at with knob=value, by keys.
func forkAt(t *testing.T, m Model, at, value string) Model {
	t.Helper()
	m = press(m, "/")
	m = typeText(m, at)
	m = press(m, "enter", "f")
	m = typeText(m, value)
	m = press(m, "enter")
	if m.state != stateMain || m.x.Branch().Parent == nil {
		t.Fatalf("no fork at %s: %s, %q", at, m.state, m.fork.err)
	}
	return m
}

// TestDeleteUndo: d in the branch list deletes a branch and u brings it
// back as it was (name, fork, code; the cursor back on it if it was
// there), and undoes deletions last first, a fork of a fork included.
func TestDeleteUndo(t *testing.T) {
	m := forkAt(t, start(t), "19:52", "60s")
	m = press(m, "l", "l")
	code, name, pos := m.shareCode(), m.x.Branch().Name, m.x.Branch().ForkPos
	m = press(m, "b", "d")
	if len(m.x.Branches()) != 1 || !strings.Contains(m.flash, "u brings it back") || !strings.Contains(m.View(), "u brings back "+name) {
		t.Fatalf("after d: %d branches, %q\n%s", len(m.x.Branches()), m.flash, m.View())
	}
	m = press(m, "u")
	if len(m.x.Branches()) != 2 || m.state != stateBranches {
		t.Fatalf("after u: %d branches, %s, %q", len(m.x.Branches()), m.state, m.flash)
	}
	if b := m.x.Branch(); b.Name != name || b.ForkPos != pos || m.shareCode() != code {
		t.Fatalf("brought back %s at event %d, code %s; want %s at %d, %s", b.Name, b.ForkPos, m.shareCode(), name, pos, code)
	}
	m = press(m, "u")
	if !strings.Contains(m.flash, "nothing to undo") {
		t.Fatalf("a second u: %q", m.flash)
	}

	// a fork of the fork, and main's cursor: delete both, undo both
	m = press(m, "esc")
	m = forkAt(t, m, "19:53", "90s")
	m = press(m, "b", "up", "up", "enter") // back on main
	if m.x.Branch().Parent != nil {
		t.Fatalf("not on main: %s", m.x.Branch().Name)
	}
	mainPos := m.x.Pos()
	m = press(m, "b", "down", "down", "d", "d") // the row stays on the place, now the first fork
	if len(m.x.Branches()) != 1 {
		t.Fatalf("after two d: %d branches", len(m.x.Branches()))
	}
	m = press(m, "u", "u")
	bs := m.x.Branches()
	if len(bs) != 3 || bs[2].Parent != bs[1] || bs[1].Parent != bs[0] || m.x.Branch() != bs[0] || m.x.Pos() != mainPos {
		t.Fatalf("after two u: %d branches, on %s at %d (was %d)", len(bs), m.x.Branch().Name, m.x.Pos(), mainPos)
	}
}

// TestCompareMarked: a and b in the branch list mark two forks, c compares
// them with each other, not with main; the marks stay when the list
// closes, and c on the main view compares them too.
func TestCompareMarked(t *testing.T) {
	m := forkAt(t, start(t), "19:52", "60s")
	m = press(m, "b", "up", "enter")
	m = forkAt(t, m, "19:52", "45s")
	m = press(m, "b", "up", "a", "down", "b")
	v := m.View()
	if !strings.Contains(v, "[A]") || !strings.Contains(v, "[B]") {
		t.Fatalf("no marks:\n%s", v)
	}
	m = press(m, "c")
	if m.state != stateCompare {
		t.Fatalf("c in the list: %s, %q", m.state, m.flash)
	}
	if !strings.Contains(m.compare.a, "visibility_timeout=60s") || !strings.Contains(m.compare.b, "visibility_timeout=45s") {
		t.Fatalf("compared %q with %q", m.compare.a, m.compare.b)
	}
	m = press(m, "esc", "c")
	if m.state != stateCompare || !strings.Contains(m.compare.a, "60s") || !strings.Contains(m.compare.b, "45s") {
		t.Fatalf("c on the main view: %s, %q with %q", m.state, m.compare.a, m.compare.b)
	}
}

// TestCompareHuntedBranch: a hunt's find of two forks ("… 1/2" under
// "…") is compared with the branch hunted, not with its own first step.
func TestCompareHuntedBranch(t *testing.T) {
	m := start(t)
	x := m.x
	at, _ := engine.ParseClock("19:52:00")
	x.SeekTime(at)
	mid, err := x.Fork(engine.ForkOptions{Name: "hunt: its-email 1/2", Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "late_ack", Value: "accept"}}})
	if err != nil {
		t.Fatal(err)
	}
	x.Step(5)
	find, err := x.Fork(engine.ForkOptions{Name: "hunt: its-email", Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "latency_max", Value: "35s"}}})
	if err != nil {
		t.Fatal(err)
	}
	a, b, _ := comparePair(&m)
	if a != x.Branches()[0] || b != find {
		t.Fatalf("compared %s with %s, want main with the find (%s under it)", a.Name, b.Name, mid.Name)
	}
	if !stepOf("hunt: its-email 1/3 @19:40:20", "hunt: its-email 2/3") || stepOf("visibility_timeout=60s", "hunt: its-email") {
		t.Fatal("stepOf")
	}
}
