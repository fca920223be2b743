package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// explorerLegend is what the explorer's own marks mean, on every
// incident's screen (a family's own tokens are its engine.FamilyLegend).
var explorerLegend = []engine.Term{
	{Short: "↑ · ↓N lines", Means: "a pane scrolls (the mouse wheel): lines above · N more lines below"},
	{Short: "›", Means: "the selected message: ↑/↓ moves among the panes' messages, # selects any by its number"},
	{Short: "█···", Means: "a countdown: the filled part is the time still left"},
	{Short: "oldest", Means: "age of the oldest message not yet done (/10m: an alert's threshold)"},
	{Short: "dups · lost", Means: "effects done again for a message that had one · messages that ended with none"},
	{Short: "DLQ", Means: "dead letter queue: messages the system gave up on"},
	{Short: "ALERT name 10:02", Means: "an alert of the incident fired, and when"},
	{Short: "missing: name 10:02", Means: "an alert nobody configured, and when it would have fired"},
}

// legendLines are the help screen's legend for family f: its panes'
// short words, then the explorer's marks, each meaning wrapped under
// its own column in w cells.
func legendLines(st *Styles, f engine.Family, w int) []string {
	fam := engine.LegendOf(f)
	col := 0
	for _, t := range append(fam[:len(fam):len(fam)], explorerLegend...) {
		col = max(col, lipgloss.Width(t.Short))
	}
	col = min(col, max(8, w/3))
	terms := func(ts []engine.Term) []string {
		var out []string
		for _, t := range ts {
			short := t.Short
			if lipgloss.Width(short) > col { // a long token gets its own line
				out = append(out, "  "+st.Branch.Render(short))
				short = ""
			}
			prefix := "  " + st.Branch.Render(short) + strings.Repeat(" ", col-lipgloss.Width(short)) + "  "
			ind := 2 + col + 2
			for i, l := range wrap(t.Means, max(20, w-ind)) {
				if i > 0 {
					prefix = strings.Repeat(" ", ind)
				}
				out = append(out, prefix+l)
			}
		}
		return out
	}
	var out []string
	if len(fam) > 0 {
		out = append(out, st.PaneTitle.Render("What the panes' short words mean"))
		out = append(out, terms(fam)...)
		out = append(out, "")
	}
	out = append(out, st.PaneTitle.Render("The explorer's marks"))
	return append(out, terms(explorerLegend)...)
}

// legendView is the legend in the body, w×h, from line off on (↑/↓
// scroll it while the help is open).
func legendView(st *Styles, f engine.Family, w, h, off int) string {
	lines := legendLines(st, f, w)
	off = clampOff(off, len(lines), h)
	var out []string
	if len(lines)-off > h && h > 1 { // the last row says what is below
		out = append(out, lines[off:off+h-1]...)
		out = append(out, st.Dim.Render("  ↓"+plural(len(lines)-off-h+1, "line", "lines")+": ↓/j scrolls"))
	} else {
		out = lines[off:min(len(lines), off+h)]
	}
	return fit(strings.Join(out, "\n"), w, h)
}

// scrollLegend moves the help screen's legend a line down (or up),
// within its lines at the body's size.
func (m *Model) scrollLegend(down bool) {
	if !down {
		m.legendOff = max(0, m.legendOff-1)
		return
	}
	if m.width < minWidth || m.height < minHeight {
		return
	}
	b := m.mainView().layout().body
	n := len(legendLines(m.st, m.x.World().Family(), b.w))
	m.legendOff = clampOff(m.legendOff+1, n, b.h)
}
