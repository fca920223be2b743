package tui

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
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
	randomInput(t, 1, 10_000, Options{Stage: NewStage()}, nil)
}

// TestRandomInputReproduces runs one seed's random input twice: the
// program is driven through its messages only (a job's end comes when the
// seed says, never when the machine gets there, and play slices are timed
// by a clock that stands still), so both runs take the same path, step
// for step.
func TestRandomInputReproduces(t *testing.T) {
	var a, b []string
	randomInput(t, 7, 1500, Options{}, &a)
	randomInput(t, 7, 1500, Options{}, &b)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d: %s, then %s", i, a[i], b[i])
		}
	}
}

// randomInput feeds n random messages from seed to a model, checking
// every third frame's size; path, when set, gets each step's state.
func randomInput(t *testing.T, seed uint64, n int, o Options, path *[]string) {
	r := rand.New(rand.NewPCG(seed, 2))
	// as under a server: a session's event budget bounds every job a
	// key starts (a hunt, a far fork), whose end a step may wait for
	o.Shared = NewShared(engine.Limits{Events: 300_000, EventsFlag: "--max-events"}, nil, 2)
	m := newTest(t, o, 120, 40)
	still := time.Unix(0, 0)
	m.play.clock = func() time.Time { return still }
	w, h := 120, 40
	for i := 0; i < n; i++ {
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
		m = deliver(r, nm.(Model))
		if i%3 == 0 {
			checkFrame(t, "after "+m.state.String()+" input", m.View(), w, h)
		}
		if path != nil {
			*path = append(*path, fmt.Sprintf("%T %s branch %d pos %d at %d sel %d job %v flash %q",
				msg, m.state, m.x.Branch().ID, m.x.Pos(), m.at, m.sel, m.jobs.cur != nil, m.flash))
		}
	}
	if j := m.jobs.cur; j != nil {
		m.jobs.cancel()
		<-j.done
	}
}

// deliver is the program's side of a step: a running job's tick or its
// end arrives now, or the next input comes while it runs, as the seed
// says; a chart pass is waited for, so its axis is the run's.
func deliver(r *rand.Rand, m Model) Model {
	if j := m.jobs.cur; j != nil {
		switch r.IntN(4) {
		case 0: // a frame passes
			nm, _ := m.Update(jobTickMsg{id: j.id})
			m = nm.(Model)
		case 1, 2: // it ends first
			<-j.done
			nm, _ := m.Update(jobDoneMsg{id: j.id})
			m = nm.(Model)
		}
	}
	waitChart(m)
	return m
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
