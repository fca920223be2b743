package tui

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"inflight/engine"
)

// MaxFrameBytes bounds what one View returns: the largest frame real
// screens draw at MaxWidth×MaxHeight is about 110 KB in true colour (see
// TestFrameAtCap), and this is nine times that; a frame over it is cut.
const MaxFrameBytes = 1 << 20

// View draws the explorer: at most MaxWidth×MaxHeight cells, a line saying
// so below a frame clamped from a larger terminal, and at most
// MaxFrameBytes. The body is the active screen's, or the main view's.
func (m Model) View() string {
	v := m.viewState()
	var f string
	if m.width < minWidth || m.height < minHeight {
		f = v.tooSmall(m.termW, m.termH)
	} else {
		l := v.layout()
		var body string
		if s := m.state.screen(&m); s != nil && !screens[m.state].prompt {
			body = s.View()
		} else if m.help.ShowAll && m.state == stateMain { // the help screen: keys below, the legend here (legend.go)
			body = legendView(m.st, m.x.World().Family(), l.body.w, l.body.h, m.legendOff)
		} else {
			body = v.viewMain(l)
		}
		if o, ok := m.roomOverlay(m.width, l.body.h); ok { // a follower's question (poll_room.go)
			body = o
		}
		f = v.frame(l, body)
	}
	if note := clampNote(m.st, m.termW, m.termH); note != "" {
		f += "\n" + note
	}
	return boundFrame(f, m.width)
}

// drawSize is the size drawn in for a terminal of w×h: at most the cap,
// less the line that says so when the rest is still drawn (below the
// minimum size, the one line says the terminal's size).
func drawSize(w, h int) (int, int) {
	dw, dh := min(max(w, 0), MaxWidth), min(max(h, 0), MaxHeight)
	if (dw < w || dh < h) && dw >= minWidth && dh > minHeight {
		dh--
	}
	return dw, dh
}

// clampNote is the line under a frame drawn smaller than its terminal of
// tw×th; "" when the terminal is within the cap (or there is no room for
// it).
func clampNote(st *Styles, tw, th int) string {
	w, h := drawSize(tw, th)
	if h == min(max(th, 0), MaxHeight) { // within the cap, or no room
		return ""
	}
	msg := fmt.Sprintf("terminal %d×%d is larger than inflight draws; drawing %d×%d", tw, th, w, h+1)
	return fitLine(st.Warn.Render(msg), w)
}

// boundFrame cuts a frame over MaxFrameBytes to the whole lines that fit,
// the last of them saying so; w is the width drawn in.
func boundFrame(v string, w int) string {
	if len(v) <= MaxFrameBytes {
		return v
	}
	note := fitLine(fmt.Sprintf("this screen is over %d KB and was cut; make the terminal smaller", MaxFrameBytes>>10), w)
	cut := v[:MaxFrameBytes-len(ansi.ResetStyle)-1-len(note)]
	i := strings.LastIndexByte(cut, '\n')
	if i < 0 {
		return note
	}
	return cut[:i] + ansi.ResetStyle + "\n" + note
}

// frame is the frame at the drawn size around body, laid out by l.
func (v mainView) frame(l layout, body string) string {
	body = fit(body, v.width, l.body.h)
	parts := []string{v.viewHeader(), body}
	parts = append(parts, v.newsLines()...)
	parts = append(parts, v.viewStatus(), fit(v.viewFooter(), v.width, l.footer))
	return strings.Join(parts, "\n")
}

// newsLines is the line(s) between the body and the status line: a job's
// progress, the jump prompt or a flash, wrapped rather than cut; none when
// there is no news.
func (v mainView) newsLines() []string {
	if m := v.memo; m != nil {
		if !m.newsOK {
			m.news, m.newsOK = v.news(), true
		}
		return m.news
	}
	return v.news()
}

func (v mainView) news() []string {
	var s string
	out := v.plan // the plan's beat (plan.go), above the news
	switch {
	case v.progress != "":
		s = v.progress
	case v.prompt != nil:
		return append(out[:len(out):len(out)], v.prompt.View())
	case v.flash != "":
		s = v.flash
	default:
		return out
	}
	out = out[:len(out):len(out)]
	for i, l := range wrap(s, v.width-2) {
		p := "» "
		if i > 0 {
			p = "  "
		}
		out = append(out, fitLine(v.st.Warn.Render(p+l), v.width))
	}
	return out
}

// tooSmall is the one centred line shown below the minimum size, naming
// the terminal's size tw×th.
func (v mainView) tooSmall(tw, th int) string {
	msg := fmt.Sprintf("inflight needs at least %d×%d (this is %d×%d)", minWidth, minHeight, tw, th)
	w, h := max(v.width, 1), max(v.height, 1)
	msg = ansi.Truncate(msg, w, "…")
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, msg)
}

func (v mainView) viewHeader() string {
	w := v.x.World()
	right := []string{v.st.Clock.Render(headerClock(max(v.at, w.Now))), v.play.paddedLabel(), "⎇ " + v.st.Branch.Render(branchPath(v.x.Branch()))}
	switch {
	case v.presenter:
		right = append(right, v.st.Badge.Render(" PRESENTER "))
	case v.following:
		right = append(right, v.st.Badge.Render(" FOLLOWING "))
	case v.staged:
		// the badge gives way to the title: shorter, then gone
		title := lipgloss.Width(v.x.Spec.Title)
		for _, b := range []string{"[own copy: F follows]", "[own copy]"} {
			with := append(right[:len(right):len(right)], v.st.Dim.Render(b))
			if v.width-lipgloss.Width(strings.Join(with, "  "))-2 >= min(title, headerTitleMin) {
				right = with
				break
			}
		}
	}
	r := v.fitHeaderRight(right) // the title stays readable (header.go)
	room := v.width - lipgloss.Width(r) - 2
	if room < 8 {
		return fitLine(r, v.width)
	}
	left := ansi.Truncate(v.st.Title.Render(v.x.Spec.Title), room, "…")
	gap := v.width - lipgloss.Width(left) - lipgloss.Width(r)
	return left + strings.Repeat(" ", max(1, gap)) + r
}

// statusWidths are the cells the status line's numbers take, each the
// widest its figure reaches over the branch's run (read from the whole-run
// chart; the spec's message count, or the effects' peak, bounds "lost"),
// so that as a number grows nothing right of it moves.
type statusWidths struct{ oldest, effects, lost, dlq int }

func (v mainView) statusWidths(w *engine.World) statusWidths {
	p := v.peaks()
	published := 0
	for i := range v.x.Spec.Sources {
		published += v.x.Spec.Sources[i].CountUnder(&w.Knobs)
	}
	digits := func(n int64) int { return len(fmt.Sprint(n)) }
	// effects and DLQ are at least the messages' width, whatever the
	// branch: a fork with fewer moves nothing on the line
	return statusWidths{
		oldest:  len("10m02s"), // fmtDur up to 99h59m
		effects: digits(max(int64(published), int64(p[3]), w.Stats.Effects)),
		// a family's messages come from no source: its effects' scale then
		lost: digits(max(int64(published), v.snap.lost, int64(p[3]))),
		dlq:  digits(max(int64(published), int64(p[2]), int64(w.DLQLen()))),
	}
}

// viewStatus is the status line: the figures the lesson argues about, each
// number right-aligned in its figure's own width.
func (v mainView) viewStatus() string {
	if m := v.memo; m != nil {
		if !m.statusOK {
			m.status, m.statusOK = v.statusLine(), true
		}
		return m.status
	}
	return v.statusLine()
}

func (v mainView) statusLine() string {
	w, st := v.x.World(), v.st
	sw := v.statusWidths(w)
	var parts []string
	oldest := fmt.Sprintf("oldest %*s", sw.oldest, fmtDur(v.snap.oldest))
	for i, a := range v.x.Spec.Alerts {
		if a.Kind == engine.AlertOldestAge {
			oldest += "/" + fmtDur(a.Threshold) + " alert"
			if w.AlertAt[i] >= 0 {
				oldest = st.Bad.Render(oldest)
			}
		}
	}
	parts = append(parts, oldest)
	for _, g := range v.snap.status { // the family's own: "busy 3/8"
		parts = append(parts, fmt.Sprintf("%s %*d/%d", g.Name, len(fmt.Sprint(g.Of)), g.N, g.Of))
	}
	parts = append(parts, fmt.Sprintf("%s %*d", v.snap.words.Effects, sw.effects, w.Stats.Effects))
	dup := fmt.Sprintf("dups %*d", sw.effects, w.Stats.Duplicates)
	if w.Stats.Duplicates > 0 {
		dup = st.Bad.Render(dup)
	}
	parts = append(parts, dup)
	lost := fmt.Sprintf("lost %*d", sw.lost, v.snap.lost)
	if v.snap.lost > 0 {
		lost = st.Bad.Render(lost)
	}
	parts = append(parts, lost)
	dlq := fmt.Sprintf("DLQ %*d", sw.dlq, w.DLQLen())
	if w.DLQLen() > 0 {
		dlq = st.Warn.Render(dlq)
	}
	parts = append(parts, dlq)
	if r := v.snap.recovery; r != nil { // only after a crash or a wedge
		parts = append(parts, st.Warn.Render("worst recovery: "+r.Words))
	}
	var firing, would []string
	for i, a := range v.x.Spec.Alerts {
		if w.AlertAt[i] >= 0 {
			firing = append(firing, a.Name+" "+w.AlertAt[i].Short())
		}
	}
	for i, a := range v.x.Spec.WouldHave {
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
	return strings.Join(v.packStatus(parts), "\n")
}

// statusLines is how many lines the status line takes at this width: it
// wraps between its figures rather than cutting the last ones off.
func (v mainView) statusLines() int { return strings.Count(v.viewStatus(), "\n") + 1 }

// packStatus joins the status figures with " · " into as few lines of the
// screen's width as hold them all, breaking only between figures.
func (v mainView) packStatus(parts []string) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case lipgloss.Width(cur)+3+lipgloss.Width(p) <= v.width:
			cur += " · " + p
		default:
			lines = append(lines, fitLine(cur, v.width))
			cur = p
		}
	}
	return append(lines, fitLine(cur, v.width))
}

// viewFooter is the help bar. When the short help does not fit, it drops
// keys from its middle, never the last two ("? all keys", "q quit"), so
// that the way to every key is always on screen.
func (v mainView) viewFooter() string {
	if m := v.memo; m != nil {
		if !m.footerOK {
			m.footer, m.footerOK = v.footer(), true
		}
		return m.footer
	}
	return v.footer()
}

func (v mainView) footer() string {
	km := v.active
	if v.help.ShowAll {
		return v.help.View(km)
	}
	h := v.help
	h.Width = 0
	bs := km.ShortHelp()
	for len(bs) > 2 && lipgloss.Width(h.ShortHelpView(bs)) > v.width {
		bs = append(bs[:len(bs)-3:len(bs)-3], bs[len(bs)-2:]...)
	}
	h.Width = v.width
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

// viewMain is the family's panes, in the rows the layout gives them,
// over the timeline.
func (v mainView) viewMain(l layout) string {
	pv := v.paneView()
	sep := func(h int) string { return v.st.Dim.Render(strings.TrimSuffix(strings.Repeat(" │ \n", h), "\n")) }
	var rows, row []string
	for i, r := range l.panes {
		p := pane(i)
		title, lines, _, total := pv.pane(p, r.w, v.scroll[p]+r.h)
		if len(row) > 0 {
			row = append(row, sep(r.h))
		}
		row = append(row, pv.renderPane(title, lines, total, r.w, r.h, v.scroll[p]))
		if i+1 == len(l.panes) || l.panes[i+1].y != r.y { // the row ends
			rows = append(rows, joinTop(row...))
			row = nil
		}
	}
	grid := fit(joinLeft(rows...), v.width, l.timeline.y-l.body.y)
	return grid + "\n" + v.viewTimeline(l)
}

func clampOff(off, n, rows int) int {
	return max(0, min(off, n-rows))
}

// fitLine truncates or pads s to exactly w cells.
func fitLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if n, ok := quickWidth(s); ok && n <= w {
		return s + spaces(w-n)
	}
	s = ansi.Truncate(s, w, "…")
	return s + spaces(w-lineWidth(s))
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
		lines = append(lines, spaces(w))
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

// wrap word-wraps s to w cells, a number and its unit ("31 s") kept on
// one line.
func wrap(s string, w int) []string {
	if w < 4 {
		return []string{s}
	}
	return unglue(ansi.Wordwrap(glueUnits(strings.Join(strings.Fields(s), " ")), w, ""))
}

// numberUnit is a number, the space after it and a unit: the space is one
// a line may not break at.
var numberUnit = regexp.MustCompile(`(\d) (ms|s|min|m|h|%|[kKMG]?B)\b`)

const nbsp = "\u00a0"

// glueUnits puts a no-break space (which the ansi wrappers do not break
// at) between each number and its unit; unglue gives the lines back with
// plain spaces.
func glueUnits(s string) string { return numberUnit.ReplaceAllString(s, "$1"+nbsp+"$2") }

func unglue(wrapped string) []string {
	return strings.Split(strings.ReplaceAll(wrapped, nbsp, " "), "\n")
}
