package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// alt is key k as Bubble Tea reads Esc and then k typed fast.
func alt(k tea.KeyMsg) tea.KeyMsg { k.Alt = true; return k }

// sendKey sends one key as the program would, waiting for what it starts.
func sendKey(m Model, k tea.KeyMsg) Model {
	nm, _ := m.Update(k)
	return settle(nm.(Model))
}

// Esc and then a key, typed faster than the terminal tells apart, reach
// the form as alt+key: it is Esc and then the key, not the key typed into
// the focused input. Esc closes the form and b opens the branch list; Esc
// clears a filter and the letter is typed into the knob then focused; an
// alt word move stays a word move.
func TestForkEscThenKey(t *testing.T) {
	m := press(newTest(t, Options{}, 120, 40), "f")
	if m.state != stateFork {
		t.Fatalf("f: state %s", m.state)
	}
	m = sendKey(m, alt(keyMsg("b")))
	if m.state != stateBranches {
		t.Fatalf("esc+b: state %s, want the branch list (the form's row holds %q)", m.state, m.fork.inputs[max(0, m.fork.row-1)].Value())
	}

	// esc+f: the form closes, and f opens a fresh one
	m = press(newTest(t, Options{}, 120, 40), "f", "down")
	m = press(m, keysOf("45")...)
	row := m.fork.row
	m = sendKey(m, alt(keyMsg("f")))
	if m.state != stateFork {
		t.Fatalf("esc+f: state %s", m.state)
	}
	if v := m.fork.inputs[row-1].Value(); v == "45" || v == "45f" {
		t.Fatalf("esc+f: the row still holds %q: the form did not close", v)
	}

	// in the filter, esc clears it and the key goes to the form
	m = press(newTest(t, Options{}, 120, 40), "f", "/")
	m = press(m, keysOf("vis")...)
	m = sendKey(m, alt(keyMsg("6")))
	if m.state != stateFork || m.fork.filters || m.fork.filter.Value() != "" {
		t.Fatalf("esc+6 in the filter: state %s, filtering %v %q", m.state, m.fork.filters, m.fork.filter.Value())
	}

	// alt+← is the inputs' word move: the form stays open
	m = press(newTest(t, Options{}, 120, 40), "f")
	m = sendKey(m, alt(keyMsg("left")))
	if m.state != stateFork {
		t.Fatalf("alt+left: state %s", m.state)
	}
}

// The prompts read Esc and then a key the same way: / and # close and the
// key acts (b opens the branch list) instead of typing b into the clock or
// the number; so does the hunt's list.
func TestPromptEscThenKey(t *testing.T) {
	for _, c := range []struct {
		open  string
		state state
		typed string
	}{
		{"/", stateJump, "19:4"},
		{"#", stateGoto, "14"},
		{"x", stateHunt, ""},
	} {
		m := press(newTest(t, Options{}, 120, 40), c.open)
		if m.state != c.state {
			t.Fatalf("%s: state %s, want %s", c.open, m.state, c.state)
		}
		m = press(m, keysOf(c.typed)...)
		m = sendKey(m, alt(keyMsg("b")))
		if m.state != stateBranches {
			t.Errorf("%s then esc+b: state %s, want the branch list", c.open, m.state)
		}
	}
}
