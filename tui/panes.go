package tui

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// paneView is what the four state panes draw from, built for one frame:
// the snapshot Update took, the world it was read from (read, never
// moved), the displayed clock and the selected message. Each pane is a
// method in its own file: queue.go, inflight.go, deadletters.go,
// inbox.go, and family.go for a family incident's panes. The root keeps
// the scroll offsets, since the mouse moves them.
type paneView struct {
	common
	snap *snap
	w    *engine.World
	spec *engine.Spec
	at   engine.Time
	sel  int32
}

// paneView is the panes' view of the cursor.
func (m Model) paneView() paneView {
	return paneView{common: m.common, snap: &m.snap, w: m.x.World(), spec: m.x.Spec, at: m.at, sel: m.sel}
}

// pane is pane p's title, its first rows up to limit with the message on
// each (-1 none; none at all for the queue's inbox), and its length.
func (v paneView) pane(p pane, w, limit int) (title string, lines []string, ids []int32, total int) {
	if v.snap.fam != nil {
		return v.famPane(p, w, limit)
	}
	switch p {
	case paneQueue:
		return v.queuePane(w, limit)
	case paneFlight:
		return v.flightPane(w)
	case paneDead:
		return v.deadPane(w, limit)
	}
	title, lines = v.inboxPane(w)
	return title, lines, nil, len(lines)
}

// renderPane draws a titled, scrolled list exactly w×h. lines holds the
// first rows of a list of total.
func (v paneView) renderPane(title string, lines []string, total, w, h, off int) string {
	rows := max(0, h-1)
	off = clampOff(off, total, rows)
	more := ""
	if off > 0 {
		more += " ↑"
	}
	if off+rows < total {
		more += fmt.Sprintf(" ↓%d", total-off-rows)
	}
	out := []string{fitLine(v.st.PaneTitle.Render(title)+v.st.Dim.Render(more), w)}
	for i := off; i < len(lines) && len(out) < h; i++ {
		out = append(out, fitLine(lines[i], w))
	}
	return fit(strings.Join(out, "\n"), w, h)
}
