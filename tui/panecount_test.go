package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// lists is a family of n panes, none of them the queue's: it emits one
// event a second for ticks seconds, and pane i lists rows messages, each
// its own (i*100+j), under a title no other pane's contains.
type lists struct{ n, rows, ticks int }

var paneNames = []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"}

func (f *lists) Clone() engine.Family { c := *f; return &c }
func (f *lists) Start(w *engine.World) {
	w.Schedule(w.Now+engine.Second, engine.FamilyStep{}, false)
}
func (f *lists) Step(w *engine.World, s engine.FamilyStep) {
	w.Emit(engine.FamilyKind, -1, -1, 0, int64(s.Item), 0)
	if int(s.Item)+1 < f.ticks {
		w.Schedule(w.Now+engine.Second, engine.FamilyStep{Item: s.Item + 1}, false)
	}
}
func (f *lists) Figures(*engine.World) map[string]any { return nil }
func (f *lists) KindName(engine.Kind) string          { return "tick" }
func (f *lists) Caption(*engine.World, *engine.Event, *engine.Decision) (string, bool) {
	return "a tick", true
}
func (f *lists) DecisionText(*engine.World, *engine.Decision) string { return "" }
func (f *lists) Counts(*engine.World) (int, int)                     { return 0, 0 }
func (f *lists) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := make([]engine.Pane, f.n)
	for i := range p {
		p[i].Title = paneNames[i%len(paneNames)] + " list"
		for j := range f.rows {
			id := int32(i*100 + j)
			p[i].Rows = append(p[i].Rows, engine.PaneRow{Msg: id, Text: fmt.Sprintf("%s row %d", paneNames[i%len(paneNames)], j), Bar: -1})
		}
	}
	return p
}

// listsSpec is an incident of the lists family with n panes of rows rows.
func listsSpec(n, rows int) *engine.Spec {
	return &engine.Spec{ID: "lists", Title: fmt.Sprintf("%d lists", n), Start: 10 * engine.Hour, Label: "item", Featured: -1,
		NewFamily: func(*engine.Params) engine.Family { return &lists{n: n, rows: rows, ticks: 20} }}
}

// TestPaneCounts: a family's panes are all on screen, however many it has
// (one to six), at every size: no title missing, no empty box, each row
// of panes sharing the screen's width, rows stacked in order.
func TestPaneCounts(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}, {200, 60}, {60, 16}} {
		for n := 1; n <= maxPanes; n++ {
			m := press(newTest(t, Options{Spec: listsSpec(n, 3)}, size[0], size[1]), "l", "l")
			v := ansi.Strip(m.View())
			l := m.mainView().layout()
			if len(l.panes) != n {
				t.Errorf("%d panes at %v: %d placed", n, size, len(l.panes))
			}
			for i := range n {
				if want := paneNames[i]; !strings.Contains(v, want) {
					t.Errorf("%d panes at %v: no %q:\n%s", n, size, want, v)
				}
			}
			if strings.Contains(v, "empty") {
				t.Errorf("%d panes at %v: an empty box:\n%s", n, size, v)
			}
			for i, r := range l.panes {
				last := i+1 == len(l.panes) || l.panes[i+1].y != r.y
				if r.h < 1 || r.y < l.body.y || r.y+r.h > l.timeline.y {
					t.Errorf("%d panes at %v: pane %d at %+v, outside the panes' rows", n, size, i, r)
				}
				if last && r.x+r.w < m.width-2*paneGap {
					t.Errorf("%d panes at %v: the row ends at %d of %d cells", n, size, r.x+r.w, m.width)
				}
				if i > 0 && r.y < l.panes[i-1].y {
					t.Errorf("%d panes at %v: pane %d above the one before it", n, size, i)
				}
			}
		}
	}
}

// TestPaneCountMouse: with three and five panes, the wheel scrolls the
// pane under it and a click selects the message clicked, in every pane
// (the last one too, alone on its row at 80 cells).
func TestPaneCountMouse(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, n := range []int{3, 5} {
			m := newTest(t, Options{Spec: listsSpec(n, 40)}, size[0], size[1])
			l := m.mainView().layout()
			for i, r := range l.panes {
				nm, _ := m.Update(tea.MouseMsg{X: r.x + 2, Y: r.y + r.h - 1, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
				m = nm.(Model)
				if m.main.scroll[i] == 0 {
					t.Errorf("%d panes at %v: the wheel did not scroll pane %d", n, size, i)
				}
				for j := range m.main.scroll {
					if j != i && m.main.scroll[j] != 0 {
						t.Errorf("%d panes at %v: the wheel over pane %d scrolled pane %d", n, size, i, j)
					}
				}
				nm, _ = m.Update(tea.MouseMsg{X: r.x + 2, Y: r.y + r.h - 1, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
				m = nm.(Model)
				// the last line of the pane is one of its rows: the title is one line
				nm, _ = m.Update(tea.MouseMsg{X: r.x + 2, Y: r.y + r.h - 1, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
				m = nm.(Model)
				if want := int32(i*100 + r.h - 2); m.sel != want {
					t.Errorf("%d panes at %v: a click on pane %d's last line selected %d, want %d", n, size, i, m.sel, want)
				}
				lines := strings.Split(m.View(), "\n")
				if got := ansi.Strip(ansi.Cut(lines[r.y+r.h-1], r.x, r.x+r.w)); !strings.Contains(got, fmt.Sprintf("%s row %d", paneNames[i], r.h-2)) {
					t.Errorf("%d panes at %v: pane %d's last line is %q", n, size, i, got)
				}
			}
		}
	}
}
