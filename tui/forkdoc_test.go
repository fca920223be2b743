package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"inflight/incidents"
)

// TestForkFocusedKnobDocWhole: at 80×24 the focused knob's doc is on
// screen whole, however long, for every knob of every incident; the other
// rows may be clipped.
func TestForkFocusedKnobDocWhole(t *testing.T) {
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		m := press(newTest(t, Options{Spec: spec}, 80, 24), keysOf(firstBookmark(spec)+" f")...)
		for i, k := range m.fork.knobs {
			for n := 0; n < 64 && m.fork.row != i+1; n++ { // a knob's row is its index + 1
				m = press(m, "down")
			}
			if m.fork.row != i+1 {
				t.Fatalf("%s: cannot focus %s", id, k.Name)
			}
			words := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
			doc := m.fork.help(k) // the incident's words for it
			if !strings.Contains(words, strings.Join(strings.Fields(doc), " ")) {
				t.Errorf("%s, %s focused: its doc %q is not whole on screen:\n%s", id, k.Name, doc, m.View())
			}
		}
	}
}
