package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// viewTimeline is the lesson's words for this moment, the chart with the
// cursor on it, and the latest events with their captions.
func (v mainView) viewTimeline(l layout) string {
	t := l.timeline
	words := l.words
	head, earlier, onMain, text := v.timelineWords()
	hl, wl := v.timelineLines(head, earlier, onMain, text, t.w)
	out := []string{fitLine(v.st.PaneTitle.Render("Timeline")+"  "+hl[0], t.w)}
	wl = append(hl[1:], wl...)
	for i := 0; i < words; i++ {
		s := ""
		if i < len(wl) {
			s = wl[i]
			if i == words-1 && len(wl) > words { // no room left even so
				s = strings.TrimRight(s, " ") + " …"
			}
		}
		out = append(out, fitLine(s, t.w))
	}
	out = append(out, v.viewChart(l)...)
	rest := t.h - len(out)
	if rest > 0 {
		// the newest events that fit, each caption wrapped under itself
		var lines []string
		for i := len(v.snap.recent) - 1; i >= 0; i-- {
			el := v.eventLines(v.snap.recent[i], t.w)
			if len(lines)+len(el) > rest {
				break
			}
			lines = append(el, lines...)
		}
		if len(lines) == 0 && len(v.snap.recent) > 0 { // the layout leaves room: never say nothing happened
			lines = v.eventLines(v.snap.recent[len(v.snap.recent)-1], t.w)[:rest]
		}
		if len(lines) == 0 {
			lines = append(lines, fitLine(v.st.Dim.Render("nothing has happened yet: space plays, l steps one event"), t.w))
		}
		for len(lines) < rest {
			lines = append([]string{strings.Repeat(" ", t.w)}, lines...)
		}
		out = append(out, lines...)
	}
	return fit(strings.Join(out, "\n"), t.w, t.h)
}

// timelineWords is the timeline's heading and the words under it: the
// exercise, the bookmark the cursor is at, or the story.
// A bookmark whose moment comes after the branch parted from main
// describes main's run: it says so ("on main: …") and is dimmed.
func (v mainView) timelineWords() (head string, earlier, onMain bool, text string) {
	switch bm, ok := currentBookmark(v.x.Spec, v.at); {
	case v.exercise != nil:
		head = "Exercise " + v.exercise.Key + " · c compares with the parent branch, e shows the answer"
		text = v.exercise.Question
	case ok:
		n := 0
		for i, b := range v.x.Spec.Bookmarks {
			if b.At <= v.at {
				n = i + 1
			}
		}
		onMain = v.snap.parted != engine.Never && bm.At >= v.snap.parted
		title := bm.Title
		if onMain {
			title = "on main: " + title
		}
		head = fmt.Sprintf("Bookmark %d/%d · %s · %s", n, len(v.x.Spec.Bookmarks), bm.At.Short(), title)
		text = bm.Words
		earlier = v.at > bm.At+engine.Minute
	default:
		head = "The story · ] jumps to the first beat"
		text = v.x.Spec.Story
	}
	return head, earlier, onMain, text
}

// timelineHead is the width of "Timeline  ", before the heading.
const timelineHead = len("Timeline  ")

// timelineLines is the timeline's heading wrapped after "Timeline  " (its
// first line, then lines indented under it) and its words wrapped under
// that, all styled.
func (v mainView) timelineLines(head string, earlier, onMain bool, text string, w int) (hl, wl []string) {
	m := v.memo
	if m != nil && m.timelineOK && m.timelineW == w {
		return m.timelineHead, m.timelineWords
	}
	hl, wl = v.wrapTimeline(head, earlier, onMain, text, w)
	if m != nil {
		m.timelineHead, m.timelineWords, m.timelineW, m.timelineOK = hl[:len(hl):len(hl)], wl[:len(wl):len(wl)], w, true
	}
	return hl, wl
}

func (v mainView) wrapTimeline(head string, earlier, onMain bool, text string, w int) (hl, wl []string) {
	hs, ws := v.st.Header, v.st.Words
	if onMain {
		hs, ws = v.st.Dim, v.st.Dim
	}
	tail := ""
	if earlier {
		tail = " (earlier)"
	}
	for i, h := range wrap(head+tail, w-timelineHead) {
		s := hs.Render(h)
		if earlier && strings.HasSuffix(h, tail) {
			s = hs.Render(strings.TrimSuffix(h, tail)) + v.st.Dim.Render(tail)
		}
		if i > 0 {
			s = strings.Repeat(" ", timelineHead) + s
		}
		hl = append(hl, s)
	}
	for _, t := range wrap(text, w-2) {
		wl = append(wl, "  "+ws.Render(t))
	}
	return hl, wl
}

// timelineNeed is how many lines under its first the timeline's words
// take at this width.
func (v mainView) timelineNeed() int {
	head, earlier, onMain, text := v.timelineWords()
	hl, wl := v.timelineLines(head, earlier, onMain, text, v.width)
	return len(hl) - 1 + len(wl)
}

// eventLines is one event wrapped to w cells: its first row as eventLine
// draws it, the rest of its caption indented under the caption's start.
func (v mainView) eventLines(e engine.Entry, w int) []string {
	one := v.eventLine(e)
	if lipgloss.Width(one) <= w {
		return []string{fitLine(one, w)}
	}
	indent := lipgloss.Width(one) - lipgloss.Width(e.Caption)
	if w-indent < 20 {
		return []string{fitLine(one, w)}
	}
	capLines := wrap(e.Caption, w-indent)
	out := make([]string, len(capLines))
	for i, c := range capLines {
		c = v.captionStyle(e, c)
		if i == 0 {
			out[i] = fitLine(v.eventPrefix(e)+c, w)
		} else {
			out[i] = fitLine(strings.Repeat(" ", indent)+c, w)
		}
	}
	return out
}

// eventLine is one timeline row: time, a mark for decisions, the caption.
func (v mainView) eventLine(e engine.Entry) string {
	return v.eventPrefix(e) + v.captionStyle(e, e.Caption)
}

// eventPrefix is an event row's selection mark, clock and decision mark.
func (v mainView) eventPrefix(e engine.Entry) string {
	mark := "  "
	if e.Decision != nil {
		mark = v.st.Decision.Render("◆ ")
	}
	sel := " "
	if e.Event.Msg == v.sel && v.sel >= 0 {
		sel = "›"
	}
	return sel + v.st.Dim.Render(e.Event.T.Clock()) + " " + mark
}

// captionStyle colours (a piece of) e's caption by its kind.
func (v mainView) captionStyle(e engine.Entry, cap string) string {
	switch e.Event.Kind {
	case engine.EvAckRefused, engine.EvDLQ, engine.EvAlert, engine.EvCrash:
		return v.st.Bad.Render(cap)
	case engine.EvEffect:
		if e.Event.Aux > 1 {
			return v.st.Warn.Render(cap)
		}
	}
	return cap
}
