package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
	"inflight/engine/families/sqs"
)

// View draws the explorer.
func (m Model) View() string {
	if m.width < minWidth || m.height < minHeight {
		return m.tooSmall()
	}
	l := m.layout()
	var body string
	switch m.state {
	case stateFork:
		body = m.fork.View()
	case stateBranches:
		body = m.branches.View()
	case stateCompare:
		body = m.compare.View()
	case stateExercises:
		body = m.exercises.View()
	case stateStory:
		body = m.story.View()
	case stateCode:
		body = m.code.View()
	case statePicker:
		body = m.picker.View()
	default:
		body = m.viewMain(l)
	}
	body = fit(body, m.width, l.body.h)
	parts := []string{m.viewHeader(), body}
	parts = append(parts, m.newsLines()...)
	parts = append(parts, m.viewStatus(), fit(m.viewFooter(), m.width, l.footer))
	return strings.Join(parts, "\n")
}

// newsLines is the line(s) between the body and the status line: a job's
// progress, the jump prompt or a flash, wrapped rather than cut; none when
// there is no news.
func (m Model) newsLines() []string {
	var s string
	switch {
	case m.job != nil:
		s = m.viewJob()
	case m.state == stateJump:
		return []string{m.jump.View()}
	case m.flash != "":
		s = m.flash
	default:
		return nil
	}
	var out []string
	for i, l := range wrap(s, m.width-2) {
		p := "» "
		if i > 0 {
			p = "  "
		}
		out = append(out, fitLine(m.st.Warn.Render(p+l), m.width))
	}
	return out
}

// tooSmall is the one centred line shown below the minimum size.
func (m Model) tooSmall() string {
	msg := fmt.Sprintf("inflight needs at least %d×%d (this is %d×%d)", minWidth, minHeight, m.width, m.height)
	w, h := max(m.width, 1), max(m.height, 1)
	msg = ansi.Truncate(msg, w, "…")
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, msg)
}

func (m Model) viewHeader() string {
	w := m.x.World()
	right := []string{m.st.Clock.Render(headerClock(max(m.at, w.Now))), m.play.paddedLabel(), "⎇ " + m.st.Branch.Render(branchPath(m.x.Branch()))}
	switch {
	case m.presenter:
		right = append(right, m.st.Badge.Render(" PRESENTER "))
	case m.follower.on:
		right = append(right, m.st.Badge.Render(" FOLLOWING "))
	case m.stage != nil:
		right = append(right, m.st.Dim.Render("[own copy: F follows]"))
	}
	r := strings.Join(right, "  ")
	room := m.width - lipgloss.Width(r) - 2
	if room < 8 {
		return fitLine(r, m.width)
	}
	left := ansi.Truncate(m.st.Title.Render(m.x.Spec.Title), room, "…")
	gap := m.width - lipgloss.Width(left) - lipgloss.Width(r)
	return left + strings.Repeat(" ", max(1, gap)) + r
}

// viewStatus is the status line: the figures the lesson argues about.
func (m Model) viewStatus() string {
	w, st := m.x.World(), m.st
	var parts []string
	oldest := "oldest " + fmtDur(m.snap.oldest)
	for i, a := range m.x.Spec.Alerts {
		if a.Kind == engine.AlertOldestAge {
			oldest += "/" + fmtDur(a.Threshold) + " alert"
			if w.AlertAt[i] >= 0 {
				oldest = st.Bad.Render(oldest)
			}
		}
	}
	parts = append(parts, oldest)
	if m.snap.fam != nil {
		parts = append(parts, m.famStatus(w))
	} else {
		parts = append(parts, fmt.Sprintf("busy %d/%d", m.snap.busy, len(sqs.Of(w).Workers())))
		parts = append(parts, fmt.Sprintf("emails %d", w.Stats.Effects))
	}
	dup := fmt.Sprintf("dups %d", w.Stats.Duplicates)
	if w.Stats.Duplicates > 0 {
		dup = st.Bad.Render(dup)
	}
	parts = append(parts, dup)
	lost := fmt.Sprintf("lost %d", m.snap.lost)
	if m.snap.lost > 0 {
		lost = st.Bad.Render(lost)
	}
	parts = append(parts, lost)
	dlq := fmt.Sprintf("DLQ %d", w.DLQLen())
	if w.DLQLen() > 0 {
		dlq = st.Warn.Render(dlq)
	}
	parts = append(parts, dlq)
	var firing, would []string
	for i, a := range m.x.Spec.Alerts {
		if w.AlertAt[i] >= 0 {
			firing = append(firing, a.Name+" "+w.AlertAt[i].Short())
		}
	}
	for i, a := range m.x.Spec.WouldHave {
		if w.WouldAt[i] >= 0 {
			would = append(would, a.Name+" "+w.WouldAt[i].Short())
		}
	}
	if len(firing) > 0 {
		parts = append(parts, st.Bad.Render("ALERT "+strings.Join(firing, ", ")))
	} else {
		parts = append(parts, "no alert")
	}
	if len(would) > 0 {
		// the alert the lesson says was missing, and when it would have fired
		parts = append(parts, st.Dim.Render("missing: "+strings.Join(would, ", ")))
	}
	return strings.Join(m.packStatus(parts), "\n")
}

// statusLines is how many lines the status line takes at this width: it
// wraps between its figures rather than cutting the last ones off.
func (m Model) statusLines() int { return strings.Count(m.viewStatus(), "\n") + 1 }

// packStatus joins the status figures with " · " into as few lines of the
// screen's width as hold them all, breaking only between figures.
func (m Model) packStatus(parts []string) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case lipgloss.Width(cur)+3+lipgloss.Width(p) <= m.width:
			cur += " · " + p
		default:
			lines = append(lines, fitLine(cur, m.width))
			cur = p
		}
	}
	return append(lines, fitLine(cur, m.width))
}

// viewFooter is the help bar. When the short help does not fit, it drops
// keys from its middle, never the last two ("? all keys", "q quit"), so
// that the way to every key is always on screen.
func (m Model) viewFooter() string {
	km := m.activeKeys()
	if m.help.ShowAll {
		return m.help.View(km)
	}
	h := m.help
	h.Width = 0
	bs := km.ShortHelp()
	for len(bs) > 2 && lipgloss.Width(h.ShortHelpView(bs)) > m.width {
		bs = append(bs[:len(bs)-3:len(bs)-3], bs[len(bs)-2:]...)
	}
	h.Width = m.width
	return h.ShortHelpView(bs)
}

// headerClock is the cursor's clock to the second, whole however many hours
// it has (a clock of 100 h or more is not cut).
func headerClock(t engine.Time) string {
	c := t.Clock()
	if i := strings.LastIndexByte(c, '.'); i > 0 {
		c = c[:i]
	}
	return c
}

// viewMain is the four panes over the timeline.
func (m Model) viewMain(l layout) string {
	v := m.paneView()
	titles, lines, totals := [numPanes]string{}, [numPanes][]string{}, [numPanes]int{}
	var boxes [numPanes]string
	for p := range numPanes {
		titles[p], lines[p], _, totals[p] = v.pane(p, l.panes[p].w, m.panes[p]+l.panes[p].h)
		boxes[p] = v.renderPane(titles[p], lines[p], totals[p], l.panes[p].w, l.panes[p].h, m.panes[p])
	}
	sep := func(h int) string { return m.st.Dim.Render(strings.TrimSuffix(strings.Repeat(" │ \n", h), "\n")) }
	var grid string
	if l.panes[paneDead].y == l.panes[paneQueue].y { // one row of four
		h := l.panes[0].h
		grid = lipgloss.JoinHorizontal(lipgloss.Top, boxes[0], sep(h), boxes[1], sep(h), boxes[2], sep(h), boxes[3])
	} else {
		h := l.panes[0].h
		grid = lipgloss.JoinVertical(lipgloss.Left,
			lipgloss.JoinHorizontal(lipgloss.Top, boxes[0], sep(h), boxes[1]),
			lipgloss.JoinHorizontal(lipgloss.Top, boxes[2], sep(h), boxes[3]))
	}
	grid = fit(grid, m.width, l.timeline.y-l.body.y)
	return grid + "\n" + m.viewTimeline(l)
}

func clampOff(off, n, rows int) int {
	return max(0, min(off, n-rows))
}

// fitLine truncates or pads s to exactly w cells.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if d := w - lipgloss.Width(s); d > 0 {
		s += strings.Repeat(" ", d)
	}
	return s
}

// fit makes s exactly w×h cells.
func fit(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i := range lines {
		lines[i] = fitLine(lines[i], w)
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", max(w, 0)))
	}
	return strings.Join(lines, "\n")
}

// fmtDur is a span to the second: "34s", "1m24s", "2h05m".
func fmtDur(d engine.Duration) string {
	if d < 0 {
		return "-" + fmtDur(-d)
	}
	s := int64(d) / 1000
	switch {
	case s < 60:
		if d > 0 && d < 10*engine.Second && d%1000 != 0 {
			return fmt.Sprintf("%.1fs", float64(d)/1000)
		}
		return fmt.Sprintf("%ds", s)
	case s < 3600 && s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// wrap word-wraps s to w cells.
func wrap(s string, w int) []string {
	if w < 4 {
		return []string{s}
	}
	return strings.Split(ansi.Wordwrap(strings.Join(strings.Fields(s), " "), w, ""), "\n")
}
