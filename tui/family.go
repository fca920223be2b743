package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// Every incident's family words its own panes (Family.Panes, at the
// explorer's cursor), its status figures and its words for what it does
// (engine.Words). The explorer places the panes and draws the rows it is
// given, in the system's terms, and keeps what every incident shares — the
// chart, the status line, the timeline, the life story, forks and compare.

// famRows is pane p's title and rows; a family with fewer panes than the
// screen has leaves the rest empty.
func (v paneView) famRows(p pane) (string, []engine.PaneRow) {
	if int(p) < len(v.panes) {
		return v.panes[p].Title, v.panes[p].Rows
	}
	return "", nil
}

// famPane draws pane p: each row's text, its countdown bar when
// it has one, and its mark as a word that survives without colour. A row
// too long for the pane wraps onto more lines, each carrying the row's
// message, so that a click on any of them selects it; lines, ids and total
// count screen lines, not rows.
func (v paneView) famPane(p pane, w, limit int) (title string, lines []string, ids []int32, total int) {
	title, rows := v.famRows(p)
	for _, r := range rows {
		if len(lines) >= limit {
			total += rowHeight(r, w)
			continue
		}
		for _, l := range v.famRow(r, w) {
			lines = append(lines, l)
			ids = append(ids, r.Msg)
		}
		total = len(lines)
	}
	if len(rows) == 0 {
		lines = append(lines, v.st.Dim.Render("empty"))
		ids = append(ids, -1)
		total = 1
	}
	return title, lines, ids, total
}

// rowText is a row's words before styling: its text, and its lease
// countdown when it has one.
func rowText(r engine.PaneRow, w int) string {
	text := r.Text
	if r.Of > 0 {
		bw := max(3, min(w-len(text)-len(r.Tail)-2, 20))
		text += bar(r.Left, r.Of, bw) + r.Tail
	}
	return text
}

// rowFits reports whether a row's text and mark fit on one line of a pane
// w wide (after the selection mark's cell).
func rowFits(r engine.PaneRow, w int) bool {
	need := 1 + lineWidth(rowText(r, w))
	if r.Mark != "" {
		need += lineWidth(r.Mark) + 1
	}
	return need <= w
}

// rowLines wraps a row's words that do not fit on one line: the first
// line after the mark, the others indented under the text.
func rowLines(r engine.PaneRow, w int) []string {
	first := w - 1
	if r.Mark != "" {
		first -= lipgloss.Width(r.Mark) + 1
	}
	rest := max(1, w-1-rowIndent)
	text := rowText(r, w) // its columns' spaces kept
	head := strings.SplitN(ansi.Wrap(text, max(1, first), ""), "\n", 2)
	out := []string{head[0]}
	if len(head) == 2 {
		out = append(out, strings.Split(ansi.Wrap(strings.TrimLeft(head[1], " "), rest, ""), "\n")...)
	}
	return out
}

// rowHeight is how many lines row r takes in a pane w wide.
func rowHeight(r engine.PaneRow, w int) int {
	if rowFits(r, w) {
		return 1
	}
	return len(rowLines(r, w))
}

// famRow is one row's lines: one when it fits, else its words wrapped with
// the mark first, so that it is never cut.
func (v paneView) famRow(r engine.PaneRow, w int) []string {
	tone := func(s string) string {
		switch r.Tone {
		case engine.ToneDim, engine.ToneNote:
			return v.st.Dim.Render(s)
		case engine.ToneWarn:
			return v.st.Warn.Render(s)
		case engine.ToneBad:
			return v.st.Bad.Render(s)
		}
		return s
	}
	if !rowFits(r, w) {
		ls := rowLines(r, w)
		out := make([]string, len(ls))
		for i, l := range ls {
			if r.Tone == engine.ToneNote { // a remark, not a message: no selection cell
				if i > 0 {
					l = strings.Repeat(" ", rowIndent) + l
				}
				out[i] = tone(l)
				continue
			}
			if i == 0 {
				l = tone(l)
				if r.Mark != "" {
					l = v.st.Bad.Render(r.Mark) + " " + l
				}
				out[i] = v.mark(r.Msg, l)
				continue
			}
			out[i] = v.mark(-1, strings.Repeat(" ", rowIndent)+tone(l))
		}
		return out
	}
	if r.Tone == engine.ToneNote {
		return []string{v.st.Dim.Render(r.Text)}
	}
	text := tone(rowText(r, w))
	room := w - 1 - lipgloss.Width(text)
	if r.Mark != "" {
		room -= lipgloss.Width(r.Mark) + 1
	}
	if r.Of <= 0 && r.Bar >= 0 && room >= 6 {
		bw := min(room-1, 20)
		text += " " + barFrac(r.Bar, bw)
	}
	if r.Mark != "" {
		text += " " + v.st.Bad.Render(r.Mark)
	}
	return []string{v.mark(r.Msg, text)}
}

// barFrac is a countdown bar filled for the fraction f of w.
func barFrac(f float64, w int) string {
	n := int(max(0, min(1, f))*float64(w) + 0.5)
	return strings.Repeat("█", n) + strings.Repeat("·", w-n)
}

// famSelectable lists the messages a family's panes show, for ↑/↓.
func famSelectable(panes []engine.Pane) []int32 {
	var out []int32
	for _, p := range panes {
		for i, r := range p.Rows {
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
