package tui

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// viewTimeline is the lesson's words for this moment, the chart with the
// cursor on it, and the latest events with their captions.
func (m Model) viewTimeline(l layout) string {
	t := l.timeline
	words := l.chart.y - t.y - 1
	var head string
	var text string
	switch bm, ok := m.currentBookmark(); {
	case m.exercise != nil:
		head = "Exercise " + m.exercise.Key + " · c compares with the parent branch, e shows the answer"
		text = m.exercise.Question
	case ok:
		n := 0
		for i, b := range m.x.Spec.Bookmarks {
			if b.At <= m.at {
				n = i + 1
			}
		}
		head = fmt.Sprintf("Bookmark %d/%d · %s · %s", n, len(m.x.Spec.Bookmarks), bm.At.Short(), bm.Title)
		text = bm.Words
		if m.at > bm.At+engine.Minute {
			head += m.st.Dim.Render(" (earlier)")
		}
	default:
		head = "The story · ] jumps to the first beat"
		text = m.x.Spec.Story
	}
	out := []string{fitLine(m.st.PaneTitle.Render("Timeline")+"  "+m.st.Header.Render(head), t.w)}
	wl := wrap(text, t.w-2)
	for i := 0; i < words; i++ {
		s := ""
		if i < len(wl) {
			s = "  " + m.st.Words.Render(wl[i])
			if i == words-1 && len(wl) > words {
				s = "  " + m.st.Words.Render(strings.TrimRight(wl[i], " ")+" …")
			}
		}
		out = append(out, fitLine(s, t.w))
	}
	out = append(out, m.viewChart(l)...)
	rest := t.h - len(out)
	if rest > 0 {
		ev := m.snap.recent
		if len(ev) > rest {
			ev = ev[len(ev)-rest:]
		}
		lines := make([]string, 0, rest)
		for _, e := range ev {
			lines = append(lines, fitLine(m.eventLine(e), t.w))
		}
		if len(lines) == 0 {
			lines = append(lines, fitLine(m.st.Dim.Render("nothing has happened yet: space plays, l steps one event"), t.w))
		}
		for len(lines) < rest {
			lines = append([]string{strings.Repeat(" ", t.w)}, lines...)
		}
		out = append(out, lines...)
	}
	return fit(strings.Join(out, "\n"), t.w, t.h)
}

// eventLine is one timeline row: time, a mark for decisions, the caption.
func (m Model) eventLine(e engine.Entry) string {
	mark := "  "
	if e.Decision != nil {
		mark = m.st.Decision.Render("◆ ")
	}
	sel := " "
	if e.Event.Msg == m.sel && m.sel >= 0 {
		sel = "›"
	}
	cap := e.Caption
	switch e.Event.Kind {
	case engine.EvAckRefused, engine.EvDLQ, engine.EvAlert, engine.EvCrash:
		cap = m.st.Bad.Render(cap)
	case engine.EvEffect:
		if e.Event.Aux > 1 {
			cap = m.st.Warn.Render(cap)
		}
	}
	return sel + m.st.Dim.Render(e.Event.T.Clock()) + " " + mark + cap
}
