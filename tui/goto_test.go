package tui

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
	"inflight/incidents"
)

// TestGotoOffPane: on Christmas Friday at its end, orders 0–39 are on no
// pane; # 0 selects order 0 all the same, and its story opens and tells
// the 17:50 redrive that moved it back, though the redrive's event names
// no message.
func TestGotoOffPane(t *testing.T) {
	spec, err := incidents.Get("christmas-friday")
	if err != nil {
		t.Fatal(err)
	}
	m := press(newTest(t, Options{Spec: spec}, 120, 40), "G")
	if slices.Contains(m.snap.selectable, 0) {
		t.Fatal("order 0 is on a pane at the end: the test needs a message on none")
	}
	m = press(m, "#", "0", "enter")
	if m.sel != 0 || m.state != stateMain {
		t.Fatalf("# 0: selected %d, screen %s (%s)", m.sel, m.state, m.flash)
	}
	if !strings.Contains(m.flash, "order 0") {
		t.Errorf("# 0 says %q", m.flash)
	}
	m = press(m, "enter")
	if m.state != stateStory || m.story.id != 0 {
		t.Fatalf("enter: screen %s, story of %d", m.state, m.story.id)
	}
	var redrive *engine.Entry
	for i, e := range m.story.events {
		if e.Event.Kind == engine.EvRedrive {
			redrive = &m.story.events[i]
		}
	}
	if redrive == nil || redrive.Event.T.Short() != "17:50:00" {
		t.Fatalf("order 0's story has no 17:50 redrive: %+v", redrive)
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "17:50:00.000  ↺") || !strings.Contains(v, "order 0 among") {
		t.Errorf("the story does not show the redrive:\n%s", v)
	}
}

// TestGotoRefuses: a number no message has, and words that are no number,
// say so and select nothing new.
func TestGotoRefuses(t *testing.T) {
	m := press(start(t), "G")
	sel := m.sel
	for _, c := range []struct{ typed, want string }{
		{"9999", "no order 9999 on this branch: it publishes orders 0–107"},
		{"x1", `# "x1" is not a number: type digits (# 14 selects order 14)`},
		{"-3", `# "-3"`},
		{"99999999999", `# "99999999999"`},
	} {
		m = press(m, "#")
		m = typeText(m, c.typed)
		m = press(m, "enter")
		if m.sel != sel || m.state != stateMain || !strings.Contains(m.flash, c.want) {
			t.Errorf("# %s: selected %d (was %d), screen %s, says %q; want %q", c.typed, m.sel, sel, m.state, m.flash, c.want)
		}
	}
	m = press(m, "#", "esc")
	if m.state != stateMain {
		t.Errorf("esc left the prompt open")
	}
}

// TestStoryTellsRedrive: the engine's story of every message Christmas
// Friday's redrive moved holds the redrive, and the story of one it did
// not move (never dead-lettered) does not; History, which the trace's
// readers use, is unchanged.
func TestStoryTellsRedrive(t *testing.T) {
	spec, err := incidents.Get("christmas-friday")
	if err != nil {
		t.Fatal(err)
	}
	m := press(newTest(t, Options{Spec: spec}, 120, 40), "G")
	x := m.x
	for _, c := range []struct {
		id      int32
		redrive bool
	}{{0, true}, {39, true}, {200, false}} {
		evs := x.Story(x.Branch(), c.id, 0)
		got := slices.ContainsFunc(evs, func(e engine.Entry) bool { return e.Event.Kind == engine.EvRedrive })
		if got != c.redrive {
			t.Errorf("order %d: redrive in its story %v, want %v", c.id, got, c.redrive)
		}
		hist := x.History(x.Branch(), c.id, 0, func(*engine.Entry) bool { return true })
		if n := len(evs) - len(hist); c.redrive && n != 1 || !c.redrive && n != 0 {
			t.Errorf("order %d: story %d events, history %d", c.id, len(evs), len(hist))
		}
	}
}

// FuzzParseMsgNumber: whatever is typed at #, the number read is a
// message's (not negative, its digits read back to it) or the error
// quotes what was typed, guarded, on one line.
func FuzzParseMsgNumber(f *testing.F) {
	for _, s := range []string{"14", "#14", "order 14", " 7 ", "-1", "x", "", "99999999999", "\x1b[2J", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		id, err := parseMsgNumber(typed, "order")
		if err != nil {
			if id != -1 || !strings.HasPrefix(err.Error(), "# ") || strings.ContainsAny(err.Error(), "\x1b\n\r") {
				t.Fatalf("%q: %d, %v", typed, id, err)
			}
			return
		}
		if id < 0 {
			t.Fatalf("%q read as %d", typed, id)
		}
		if back, err := parseMsgNumber(strconv.Itoa(int(id)), "order"); err != nil || back != id {
			t.Fatalf("%q read as %d, which reads back as %d (%v)", typed, id, back, err)
		}
	})
}
