package tui

import (
	"fmt"
	"strings"

	"inflight/engine"
	"inflight/engine/families/sqs"
)

// paneView is what the four state panes draw from, built for one frame:
// the rows the engine worded (engine.Panes, read in Update), the world
// they were read from (read, never moved), the displayed clock and the
// selected message. family.go draws the rows; the root keeps the scroll
// offsets, since the mouse moves them.
type paneView struct {
	common
	snap  *snap
	panes *engine.Panes
	w     *engine.World
	spec  *engine.Spec
	at    engine.Time
	sel   int32
}

// paneView is the panes' view of the cursor. The queue's rows age with the
// displayed clock: when the clock or the selection moved since Update read
// them, they are worded again for this frame.
func (m Model) paneView() paneView {
	v := paneView{common: m.common, snap: &m.snap, panes: m.snap.panes, w: m.x.World(), spec: m.x.Spec, at: m.at, sel: m.sel}
	switch {
	case m.snap.fam != nil:
		v.panes = m.snap.fam
	case v.panes == nil || !m.snap.panesFor(&m):
		p := sqs.Panes(v.w, m.queueCursor())
		v.panes = &p
	}
	return v
}

// pane is pane p's title, its first rows up to limit with the message on
// each (-1 none), and its length.
func (v paneView) pane(p pane, w, limit int) (title string, lines []string, ids []int32, total int) {
	return v.famPane(p, w, limit)
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
