package tui

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/incidents"
)

// checkFrame fails unless view is exactly w×h: h lines, none wider than w.
// A view that is short or tall makes the terminal scroll or leaves old
// rows behind.
func checkFrame(t *testing.T, what, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("%s: %d lines at %d×%d, want %d:\n%s", what, len(lines), w, h, h, view)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			t.Fatalf("%s: line %d is %d cells wide at %d×%d:\n%s", what, i, lw, w, h, l)
		}
	}
}

var randomKeys = []string{" ", "l", "h", "L", "H", "n", "N", "]", "[", "+", "-", "g", "G", "/", "f", "b",
	"tab", "c", "e", "enter", "y", "i", "F", "?", "esc", "up", "down", "left", "right", "j", "k",
	"1", "2", "3", "4", "5", "backspace", "shift+tab", "x", "0", ":", "s", "home", "end"}

// TestRandomInput feeds 10,000 random keys, mouse events, resizes (down to
// 1×1) and autoplay ticks, drawing after every third: nothing may panic,
// and every frame is exactly the terminal's size.
func TestRandomInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := newTest(t, Options{Stage: NewStage()}, 120, 40)
	w, h := 120, 40
	for i := 0; i < 10_000; i++ {
		var msg tea.Msg
		switch n := r.IntN(100); {
		case n < 70:
			msg = keyMsg(randomKeys[r.IntN(len(randomKeys))])
		case n < 80:
			msg = tea.MouseMsg{X: r.IntN(130), Y: r.IntN(50), Button: tea.MouseButton(r.IntN(8)), Action: tea.MouseAction(r.IntN(3))}
		case n < 88:
			w, h = 1+r.IntN(220), 1+r.IntN(70)
			msg = tea.WindowSizeMsg{Width: w, Height: h}
		case n < 98:
			msg = playTickMsg{gen: m.play.gen}
		default:
			msg = stageMsg{tag: m.follower.tag, gen: uint64(i), w: w, h: h}
		}
		nm, _ := m.Update(msg)
		m = nm.(Model)
		if i%3 == 0 {
			checkFrame(t, "after "+m.state.String()+" input", m.View(), w, h)
		}
	}
}

// TestEveryScreenFits opens each screen at several sizes, from the
// smallest drawn to a wide one, and checks its frame is exactly the size;
// esc closes each before the next.
func TestEveryScreenFits(t *testing.T) {
	screens := [][]string{
		nil, {"?"}, {"]", "f"}, {"b"}, {"]", "c"}, {"e"}, {"]", "enter"}, {"y"}, {"i"}, {"/"},
	}
	for _, size := range [][2]int{{60, 16}, {80, 24}, {120, 40}, {159, 50}, {200, 60}} {
		m := newTest(t, Options{}, size[0], size[1])
		for _, keys := range screens {
			m = press(m, keys...)
			checkFrame(t, strings.Join(keys, " ")+" → "+m.state.String(), m.View(), size[0], size[1])
			m = press(m, "esc")
		}
	}
}

// TestViewMovesNothing draws every screen and checks the world under the
// cursor is as it was: View only reads what Update prepared.
func TestViewMovesNothing(t *testing.T) {
	for _, id := range []string{"thursday", "db-down"} {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		m := press(newTest(t, Options{Spec: spec}, 120, 40), "]", "]", "l", "l")
		for _, keys := range [][]string{nil, {"f"}, {"b"}, {"c"}, {"e"}, {"enter"}, {"y"}, {"i"}} {
			m = press(m, keys...)
			before := *m.x.World()
			_ = m.View()
			if after := *m.x.World(); !reflect.DeepEqual(before, after) {
				t.Fatalf("%s: drawing %s changed the world", id, m.state)
			}
			m = press(m, "esc")
		}
	}
}
