package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// Every incident words its own panes (engine.Panes): a family (a Redis
// stream, a database, Kafka: see engine.Family) through Family.Panes, the
// SQS-like queue through sqs.Panes. The explorer draws the rows it is
// given, in the system's terms, and keeps what every incident shares — the
// chart, the status line, the timeline, the life story, forks and compare.

// isFamily reports whether the incident under the cursor is not the
// SQS-like queue.
func (m Model) isFamily() bool { return m.x.World().Family() != nil }

// famRows is one pane's rows.
func (v paneView) famRows(p pane) (string, []engine.PaneRow) {
	f := v.panes
	switch p {
	case paneQueue:
		return f.QueueTitle, f.Queue
	case paneFlight:
		return f.InFlightTitle, f.InFlight
	case paneDead:
		return f.DLQTitle, f.DLQ
	}
	return f.InboxTitle, f.Inbox
}

// famPane draws pane p: each row's text, its countdown bar when
// it has one, and its mark as a word that survives without colour.
func (v paneView) famPane(p pane, w, limit int) (title string, lines []string, ids []int32, total int) {
	title, rows := v.famRows(p)
	total = len(rows)
	for _, r := range rows {
		if len(lines) >= limit {
			break
		}
		lines = append(lines, v.famRow(r, w))
		ids = append(ids, r.Msg)
	}
	if total == 0 {
		lines = append(lines, v.st.Dim.Render("empty"))
		ids = append(ids, -1)
		total = 1
	}
	return title, lines, ids, total
}

// famRow is one row: the mark goes first when the pane is narrow, so that
// truncation never hides it.
func (v paneView) famRow(r engine.PaneRow, w int) string {
	if r.Tone == engine.ToneNote {
		return v.st.Dim.Render(r.Text)
	}
	text := r.Text
	if r.Of > 0 {
		bw := max(3, min(w-len(text)-len(r.Tail)-2, 20))
		text += bar(r.Left, r.Of, bw) + r.Tail
	}
	switch r.Tone {
	case engine.ToneDim:
		text = v.st.Dim.Render(text)
	case engine.ToneWarn:
		text = v.st.Warn.Render(text)
	case engine.ToneBad:
		text = v.st.Bad.Render(text)
	}
	mark := ""
	if r.Mark != "" {
		mark = v.st.Bad.Render(r.Mark)
	}
	room := w - 1 - lipgloss.Width(text)
	if r.Mark != "" {
		room -= lipgloss.Width(r.Mark) + 1
	}
	if r.Of <= 0 && r.Bar >= 0 && room >= 6 {
		bw := min(room-1, 20)
		text += " " + barFrac(r.Bar, bw)
		room -= bw + 1
	}
	switch {
	case r.Mark == "":
	case room >= 0:
		text += " " + mark
	default:
		text = mark + " " + text
	}
	return v.mark(r.Msg, text)
}

// barFrac is a countdown bar filled for the fraction f of w.
func barFrac(f float64, w int) string {
	n := int(max(0, min(1, f))*float64(w) + 0.5)
	return strings.Repeat("█", n) + strings.Repeat("·", w-n)
}

// famSelectable lists the messages a family's panes show, for ↑/↓.
func famSelectable(p *engine.Panes) []int32 {
	var out []int32
	for _, rows := range [][]engine.PaneRow{p.Queue, p.InFlight, p.DLQ, p.Inbox} {
		for i, r := range rows {
			if i >= 100 {
				break
			}
			if r.Msg >= 0 {
				out = append(out, r.Msg)
			}
		}
	}
	return out
}

// effectWord is what an effect is called on screen: the queue incidents
// send emails; a family's effects are rows, credits, records.
func (m Model) effectWord() string {
	if m.isFamily() {
		return "effects"
	}
	return "emails"
}

// famStatus is the middle of a family incident's status line: it has no
// queue workers, so no busy count, and its effects are not emails.
func (m Model) famStatus(w *engine.World) string {
	return fmt.Sprintf("effects %d", w.Stats.Effects)
}
