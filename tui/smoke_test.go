package tui

import (
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestEveryIncident opens every bundled incident — the queue's and every
// family's, including those added after this test was written — and walks
// it the way a workshop would: step, bookmarks, a decision, play to the
// end, fork, compare, a life story, an exercise, a share code, and the
// picker. Nothing may panic, and each screen must be drawn.
func TestEveryIncident(t *testing.T) {
	for _, spec := range incidents.All() {
		t.Run(spec.ID, func(t *testing.T) {
			m := newTest(t, Options{Spec: spec}, 120, 40)
			look := func(what string) {
				t.Helper()
				if v := m.View(); strings.Count(v, "\n") != 39 {
					t.Fatalf("%s: the screen is %d lines, want 40", what, strings.Count(v, "\n")+1)
				}
			}
			look("open")
			m = press(m, "l", "l", "l")
			look("step")
			m = press(m, "]", "]")
			look("bookmarks")
			m = press(m, "n")
			look("next decision")
			m = press(m, "down", "enter")
			look("story")
			m = press(m, "esc", "G")
			if !m.x.AtEnd() {
				t.Fatal("G did not reach the end")
			}
			look("end")
			// the running lost figure and the summary read the same count
			// (World.States)
			if sum := m.x.Summary(m.x.Branch()); m.snap.lost != sum.Lost {
				t.Fatalf("status line lost %d at the end; summary %d", m.snap.lost, sum.Lost)
			}
			m = press(m, "g", "l", "f")
			if m.state != stateFork {
				t.Fatalf("f: state %s (%s)", m.state, m.flash)
			}
			look("fork form")
			m = press(m, "enter")
			if m.x.Branch().Parent == nil {
				t.Fatalf("fork failed: %s", m.fork.err)
			}
			m = press(m, "G", "c")
			look("compare")
			m = press(m, "esc")
			if len(spec.Exercises) > 0 {
				m = press(m, "e", spec.Exercises[0].Key)
				if m.exercise == nil {
					t.Fatalf("exercise %s: %s", spec.Exercises[0].Key, m.flash)
				}
				m = press(m, "l", "l", "c")
				look("exercise compare")
				m = press(m, "esc")
			}
			code := m.x.Code()
			x, err := openCode(code, spec, m.shared, nil)
			if err != nil {
				t.Fatalf("share code %s: %v", code, err)
			}
			if x.Pos() != m.x.Pos() || x.World().Fingerprint() != m.x.World().Fingerprint() {
				t.Fatalf("share code %s reopens at %d, not %d", code, x.Pos(), m.x.Pos())
			}
			m = press(m, "y")
			look("share code")
			m = press(m, "esc")
			m.refresh(true)
			if got, want := paneTitles(m.snap.panes), paneTitles(m.x.World().Family().Panes(m.x.World(), m.snap.cursor(m.at, m.sel))); got != want {
				t.Fatalf("the screen's panes %q, the family's %q", got, want)
			}
		})
	}
}

// TestPickerOpensFamilies switches from thursday to every other incident
// with the picker, and back.
func TestPickerOpensFamilies(t *testing.T) {
	m := newTest(t, Options{}, 120, 40)
	for i, spec := range incidents.All() {
		m = press(m, "i")
		m = press(m, "home")
		for j := 0; j < i; j++ {
			m = press(m, "down")
		}
		m = press(m, "enter")
		if m.x.Spec.ID != spec.ID {
			t.Fatalf("picked row %d: got %s, want %s", i, m.x.Spec.ID, spec.ID)
		}
		if got, want := m.snap.words.Effects, engine.WordsOf(m.x.World().Family()).Effects; got != want {
			t.Fatalf("%s: the screen says %q, the family %q", spec.ID, got, want)
		}
		m = press(m, "l", "]")
		_ = m.View()
	}
}

// paneTitles is the panes' titles, one string.
func paneTitles(ps []engine.Pane) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Title)
	}
	return strings.Join(out, " | ")
}
