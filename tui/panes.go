package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// paneView is what the state panes draw from, built for one frame: the
// rows the family worded (Family.Panes, read in Update), the world
// they were read from (read, never moved), the displayed clock and the
// selected message. family.go draws the rows; the root keeps the scroll
// offsets, since the mouse moves them.
type paneView struct {
	common
	snap  *snap
	panes []engine.Pane
	w     *engine.World
	spec  *engine.Spec
	at    engine.Time
	sel   int32
}

// cursorPanes are the family's panes at the clock at with sel selected,
// the first maxPanes of them. A family's rows may age with the displayed
// clock: when the clock or the selection moved since Update read them
// into s, they are worded again for this frame.
func cursorPanes(x *engine.Explorer, s *snap, at engine.Time, sel int32) []engine.Pane {
	p := s.panes
	if p == nil || !s.panesFor(at, sel) {
		w := x.World()
		p = w.Family().Panes(w, s.cursor(at, sel))
	}
	return p[:min(len(p), maxPanes)]
}

// paneView is the panes' view of the cursor.
func (v mainView) paneView() paneView {
	return paneView{common: v.common, snap: v.snap, panes: v.panes, w: v.x.World(), spec: v.x.Spec, at: v.at, sel: v.sel}
}

// pane is pane p's title, its first rows up to limit with the message on
// each (-1 none), and its length.
func (v paneView) pane(p pane, w, limit int) (title string, lines []string, ids []int32, total int) {
	return v.famPane(p, w, limit)
}

// paneHead is a pane's title, wrapped rather than cut, with its scroll
// marks on its last line; rows is how many list lines fit under it in a
// pane h high, off the scroll offset clamped to them. The view and the
// mouse both place rows by it.
func (v paneView) paneHead(title string, total, w, h, off int) (head []string, rows, offset int) {
	head = wrapCells(title, w)
	if len(head) >= h { // a pane too short for its whole title keeps a row
		n := max(1, h-1)
		head = append(head[:n-1], ansi.Truncate(strings.Join(head[n-1:], " "), w, "…"))
	}
	var more string
	place := func() {
		rows = max(0, h-len(head))
		offset = clampOff(off, total, rows)
		more = ""
		if offset > 0 {
			more += " ↑"
		}
		if offset+rows < total {
			more += " ↓" + plural(total-offset-rows, "line", "lines") // not rows: a row may wrap, a list may be capped
		}
	}
	place()
	last := len(head) - 1
	if more != "" && lipgloss.Width(head[last])+lipgloss.Width(more) > w && len(head)+1 < h {
		head = append(head, "") // the marks on a line of their own
		place()
		more = strings.TrimPrefix(more, " ")
	}
	last = len(head) - 1
	for i := range head {
		head[i] = v.st.PaneTitle.Render(head[i])
	}
	head[last] += v.st.Dim.Render(more)
	return head, rows, offset
}

// wrapCells word-wraps s to w cells, breaking a word longer than w; a
// number and its unit stay together (wrap).
func wrapCells(s string, w int) []string {
	return unglue(ansi.Wrap(glueUnits(strings.Join(strings.Fields(s), " ")), max(1, w), ""))
}

// renderPane draws a titled, scrolled list exactly w×h. lines holds the
// first screen lines of a list of total.
func (v paneView) renderPane(title string, lines []string, total, w, h, off int) string {
	out, _, off := v.paneHead(title, total, w, h, off)
	for i := off; i < len(lines) && len(out) < h; i++ {
		out = append(out, fitLine(lines[i], w))
	}
	return fit(strings.Join(out, "\n"), w, h)
}
