package tui

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
	"inflight/incidents"
	"inflight/stage"
)

// closeKeyMap is the keys of a screen that only shows and closes: the
// comparison, the share code.
type closeKeyMap struct{ Close key.Binding }

// ShortHelp is the screen's one key.
func (k closeKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Close} }

// FullHelp is the screen's one key.
func (k closeKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// The comparison's columns: the row labels, four value columns (A in
// all and since the fork, B the same) each between compareColMin and
// compareColMax wide, and B − A.
const (
	compareLabelW = 20
	compareColMin = 10
	compareColMax = 14
	compareDiffW  = 7
	compareGaps   = 11 // the row's mark ("≠ "), and the spaces between columns
)

// compareView sets two branches side by side: the totals and the figures
// since their histories part, where they first differ, and the selected
// customer's inbox in each. Its title, A and B headings and column heads
// stay put; the rest scrolls under them.
type compareView struct {
	common
	keys           scrollKeyMap
	off            int    // the first scrolled line shown
	ia, ib         int    // A's and B's places in the explorer's branches
	a, b           string // their headings
	cmp            engine.Comparison
	div            engine.Divergence
	divMsg         string // the message it first differs on, "" none
	inboxA, inboxB []engine.Entry
	done           outcome

	// read when it opened, so that View asks the engine nothing
	sel     int32        // the selected message, -1 none
	selName string       // its name
	words   engine.Words // the family's: its effects need not be emails
	own     []string     // the family's own figures' keys, in its table's order
}

// comparePair is what c compares: the branches marked A and B in the
// branch list; with one of them marked, that one and the branch on
// screen; else the branch on screen (B) and the one it was forked from
// (A), passing over a hunt's steps to the branch hunted; on main, main
// and the newest branch. news says why there is nothing to compare.
func comparePair(m *Model) (a, b *engine.Branch, news string) {
	return comparePairWith(m, m.x.Branch())
}

// comparePairWith is comparePair with cur in the place of the branch on
// screen: the branch list's row.
func comparePairWith(m *Model, cur *engine.Branch) (a, b *engine.Branch, news string) {
	x := m.x
	ma, mb := m.book.marked(x)
	switch {
	case ma != nil && mb != nil && ma != mb:
		return ma, mb, ""
	case ma != nil && ma != cur:
		return ma, cur, ""
	case mb != nil && mb != cur:
		return cur, mb, ""
	}
	if base := forkedFrom(cur); base != nil {
		return base, cur, ""
	}
	bs := x.Branches()
	if len(bs) < 2 {
		return nil, nil, "main has no parent to compare with: fork one with f, or try an exercise with e"
	}
	return cur, bs[len(bs)-1], ""
}

// forkedFrom is the branch b was forked from, a hunt's steps passed over
// ("hunt: its-email 1/2" under "hunt: its-email" is one counterexample,
// not a branch of its own); nil on main.
func forkedFrom(b *engine.Branch) *engine.Branch {
	p := b.Parent
	for p != nil && p.Parent != nil && stepOf(p.Name, b.Name) {
		b, p = p, p.Parent
	}
	return p
}

// stepName is "NAME k/n", a counterexample's step k of n, a position
// written after it ("@19:40:20 …") aside.
var stepName = regexp.MustCompile(`^(.*) \d+/\d+$`)

// stepOf reports whether a branch named step is a step of the one named
// of: "hunt: its-email 1/2" of "hunt: its-email" or "hunt: its-email 2/3".
func stepOf(step, of string) bool {
	bare := func(s string) string {
		if i := strings.Index(s, " @"); i >= 0 {
			s = s[:i]
		}
		return s
	}
	sm := stepName.FindStringSubmatch(bare(step))
	if sm == nil {
		return false
	}
	o := bare(of)
	if om := stepName.FindStringSubmatch(o); om != nil {
		o = om[1]
	}
	return sm[1] == o
}

// compareJob compares x's branches a and b, the message sel selected; s
// is the screen's snapshot, for when sel was published. It only reads:
// the job's clone is dropped, so the explorer is as it was.
func compareJob(x *engine.Explorer, s *snap, sel int32, a, b *engine.Branch) explorerJob {
	// both branches are played to their end: a job, on a clone whose
	// branches are found by their place
	ia, ib := branchIndex(x, a), branchIndex(x, b)
	var pub engine.Time
	var hasPub bool
	if sel >= 0 {
		pub, hasPub = s.published(x, sel)
	}
	from, _, _ := engine.PartPos(a, b)
	from = min(from, a.Len(), b.Len())
	ea, eb := x.EstimateLen(a), x.EstimateLen(b)
	// each played to its end, then each read again from where they part
	total := max(0, ea-a.Len()) + max(0, eb-b.Len()) + max(0, ea-from) + max(0, eb-from)
	c := compareView{ia: ia, ib: ib, a: compareHeading(a), b: compareHeading(b)}
	return explorerJob{label: "comparing " + a.Name + " with " + b.Name, total: total, read: true, seek: func(x *engine.Explorer) {
		a, b := x.Branches()[ia], x.Branches()[ib]
		c.cmp = x.CompareBranches(a, b)
		c.div = c.cmp.Div
		if c.cmp.Parted {
			e := c.div.A
			if e == nil {
				e = c.div.B
			}
			if e != nil && e.Event.Msg >= 0 {
				c.divMsg = x.World().MsgName(e.Event.Msg)
			}
		}
		c.inboxA, c.inboxB = emailsOn(x, a, sel, pub, hasPub), emailsOn(x, b, sel, pub, hasPub)
	}, apply: func(m *Model) {
		c.common, c.keys = m.common, scrollKeyMap{
			Up:     binding([]string{"up", "k"}, "↑/k", "scroll up"),
			Down:   binding([]string{"down", "j"}, "↓/j", "scroll down"),
			Choose: key.NewBinding(key.WithDisabled()),
			Close:  binding([]string{"esc", "enter", "q", "c"}, "esc", "close"),
		}
		c.sel, c.words = sel, engine.WordsOf(m.x.World().Family())
		c.own = incidents.OwnFigures(m.x.Spec, c.cmp.A.Figures, c.cmp.B.Figures)
		if sel >= 0 {
			c.selName = m.x.World().MsgName(sel)
		}
		m.compare = c
		m.state = stateCompare
	}}
}

// compareStaged is the comparison the stage keeps, A and B by place; the
// pair c would compare when they are no longer there.
func compareStaged(m *Model, s stage.Screen) explorerJob {
	bs := m.x.Branches()
	if s.A >= 0 && s.B >= 0 && s.A < len(bs) && s.B < len(bs) && s.A != s.B {
		return compareJob(m.x, &m.snap, m.sel, bs[s.A], bs[s.B])
	}
	a, b, news := comparePair(m)
	if a == nil {
		return explorerJob{news: news}
	}
	return compareJob(m.x, &m.snap, m.sel, a, b)
}

// compareHeading is a branch's heading: its own name, and the branch it
// was forked from for a fork of a fork.
func compareHeading(b *engine.Branch) string {
	own, from := ownFork(b)
	if from != "" {
		own += " (" + from + ")"
	}
	return own
}

// emailsOn is every email customer sel (published at pub, when known)
// gets on x's branch b. Unlike History it does not take a message that has
// waited long in the queue (stagefront's hold 2291, published at 10:00:00,
// its effect at 10:00:01.217, more than 16,384 events later) for done: it
// reads on until the message has been settled (acked, dead-lettered or
// given its effect) and then quiet, the branch ends, or compareScanCap
// events were read.
func emailsOn(x *engine.Explorer, b *engine.Branch, sel int32, pub engine.Time, hasPub bool) []engine.Entry {
	if sel < 0 {
		return nil
	}
	from := int64(0)
	if hasPub {
		from = x.PosAtTime(b, pub)
	}
	var out []engine.Entry
	settled, quiet := false, int64(0)
	for pos := from; pos-from < compareScanCap && !(settled && quiet >= compareQuiet); pos += compareChunk {
		evs := x.EventsOn(b, pos, pos+compareChunk)
		hit := false
		for i := range evs {
			e := &evs[i]
			if e.Event.Msg != sel {
				continue
			}
			hit = true
			switch e.Event.Kind {
			case engine.EvEffect:
				out = append(out, *e)
				settled = true
			case engine.EvAck, engine.EvDLQ:
				settled = true
			}
		}
		if hit {
			quiet = 0
		} else {
			quiet += compareChunk
		}
		if int64(len(evs)) < compareChunk {
			break // the branch's end
		}
	}
	return out
}

// emailsOn's reading bounds: events per chunk, events without the message
// after which a settled message's life is taken as over, the most read.
const (
	compareChunk   = 4096
	compareQuiet   = 16384
	compareScanCap = 1 << 21
)

// Update scrolls, and closes on its key.
func (c compareView) Update(msg tea.Msg) (compareView, tea.Cmd) {
	c.done = stay
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return c, nil
	}
	switch {
	case key.Matches(k, c.keys.Close):
		c.done = closed
	case key.Matches(k, c.keys.Up):
		c.off = max(0, c.off-1)
	case key.Matches(k, c.keys.Down):
		c.off = min(c.off+1, max(0, len(c.lines())-c.rows()))
	}
	return c, nil
}

// rows is how many scrolled lines fit under the title and the heads.
func (c compareView) rows() int { return max(1, c.height-1-len(c.head())) }

// View is the title and the heads, then, from the scroll offset, as many
// lines as fit, the last saying how many more there are when some are
// below.
func (c compareView) View() string {
	if c.a == "" {
		return ""
	}
	title := c.st.PaneTitle.Render("Compare") + "  A and B, each played to its end · esc closes"
	ls := c.lines()
	rows := c.rows()
	off := clampOff(c.off, len(ls), rows)
	ls = ls[off:]
	if len(ls) > rows {
		more := len(ls) - rows + 1
		ls = append(ls[:rows-1:rows-1], c.st.Dim.Render(fmt.Sprintf("  ↓ %d more %s (↓/j scrolls)", more, map[bool]string{true: "line", false: "lines"}[more == 1])))
	}
	out := append([]string{title}, c.head()...)
	return strings.Join(append(out, ls...), "\n")
}

// partedCap bounds the events read to find where a branch parts from main:
// a branch switch reads them at once.
const partedCap = 1 << 15

// partedFromMain is when branch b first does something main does not, its
// knob markers aside: the fork's time if no difference shows within
// partedCap events (unsure, so taken as parted), engine.Never on main.
func partedFromMain(x *engine.Explorer, b *engine.Branch) engine.Time {
	path := b.Path()
	if len(path) < 2 {
		return engine.Never
	}
	from := path[1].ForkPos
	if d, ok := x.CompareFrom(path[0], b, engine.CompareOptions{From: from, Limit: partedCap, Same: sameBeat}); ok {
		if d.A != nil {
			return d.A.Event.T
		}
		if d.B != nil {
			return d.B.Event.T
		}
	}
	return path[1].ForkAt
}

// sameBeat is whether two events are the same beat of the story: the same
// thing happening to the same message by the same worker at the same time,
// whatever its figures (a lease that now ends at 19:53:00, not 19:52:30).
func sameBeat(a, b engine.Event) bool {
	return a.T == b.T && a.Kind == b.Kind && a.Msg == b.Msg && a.Worker == b.Worker && a.Delivery == b.Delivery
}

// kindWord is what an event did, as a sentence's end after "on A":
// the kernel's kinds in plain words, the effect and the family's own
// kinds in the family's (wd); "" for a kind its caption says.
func kindWord(e *engine.Entry, wd *engine.Words) string {
	if e == nil {
		return "the branch has ended"
	}
	switch e.Event.Kind {
	case engine.EvPublish:
		return "it is published"
	case engine.EvDeliver:
		return "it is delivered"
	case engine.EvEffect:
		return "it gets " + wd.AnEffect
	case engine.EvAck:
		return "its ack is accepted"
	case engine.EvAckRefused:
		return "its ack is refused"
	case engine.EvLeaseExpired:
		return "its lease expires"
	case engine.EvDLQ:
		return "it is dead-lettered"
	case engine.EvCrash:
		return "a worker crashes"
	}
	if d := wd.Did[e.Event.Kind]; d != "" {
		return "it is " + d
	}
	return ""
}

// ownFork is a branch's own name and the branch it was forked from, for a
// heading that tells a fork of a fork from its parent.
func ownFork(b *engine.Branch) (own, from string) {
	if b.Parent == nil {
		return b.Name, ""
	}
	own = b.Name
	if !containsAt(own) {
		own += " @" + b.ForkAt.Short()
	}
	return own, "forked from " + branchPath(b.Parent)
}

// colW is the width of each value column.
func (c compareView) colW() int {
	return max(compareColMin, min(compareColMax, (c.width-compareGaps-compareLabelW-compareDiffW)/4))
}

// head is what stays on screen above the scrolled lines: A's and B's
// headings, one line each at most two, and the table's column heads.
func (c compareView) head() []string {
	st := c.st
	var out []string
	for _, br := range [][2]string{{"A", c.a}, {"B", c.b}} {
		ls := wrap(br[1], max(8, c.width-4))
		if len(ls) > 2 {
			ls = append(ls[:1], fitLine(strings.Join(ls[1:], " "), max(8, c.width-4)))
		}
		for i, l := range ls {
			p := "   "
			if i == 0 {
				p = " " + st.Header.Render(br[0]) + " "
			}
			out = append(out, p+l)
		}
	}
	cw := c.colW()
	pair := func(s string) string {
		w := 2*cw + 2
		s = " " + s + " "
		pad := max(0, w-lipgloss.Width(s))
		return strings.Repeat("─", pad/2) + s + strings.Repeat("─", pad-pad/2)
	}
	out = append(out,
		"  "+st.Header.Render(fmt.Sprintf("%-*s %s   %s", compareLabelW, "", pair("A"), pair("B"))),
		"  "+st.Header.Render(fmt.Sprintf("%-*s %*s  %*s   %*s  %*s %*s", compareLabelW, "", cw, "in all", cw, "since fork", cw, "in all", cw, "since fork", compareDiffW, "B − A")))
	return out
}

// lines are the comparison's scrolled part: the figures, in all and since
// the branches part, what counting since the fork means, where they first
// differ in words, and the selected message's effects on each.
func (c compareView) lines() []string {
	st := c.st
	var out []string
	cw := c.colW()
	// a row of figures: A in all and since, B the same, and B − A in all;
	// since < 0 is a figure with no count since the fork
	row := func(label string, va, sa, vb, sb float64, hasSince bool, f func(float64) string) string {
		diff := ""
		if va != vb {
			diff = f(vb - va)
			if vb > va {
				diff = "+" + diff
			}
		}
		ssa, ssb := "", ""
		if hasSince {
			ssa, ssb = f(sa), f(sb)
		}
		s := fmt.Sprintf("%-*s %*s  %*s   %*s  %*s %*s", compareLabelW, label, cw, f(va), cw, ssa, cw, f(vb), cw, ssb, compareDiffW, diff)
		if va != vb || hasSince && sa != sb {
			return st.Warn.Render("≠ " + s)
		}
		return "  " + s
	}
	// a row of words: A's over A's two columns, B's over B's
	text := func(label, va, vb string) []string {
		w := 2*cw + 2
		la, lb := wrap(va, w), wrap(vb, w)
		var ls []string
		for i := 0; i < max(len(la), len(lb)); i++ {
			pa, pb := "", ""
			if i < len(la) {
				pa = la[i]
			}
			if i < len(lb) {
				pb = lb[i]
			}
			lab := ""
			if i == 0 {
				lab = label
			}
			s := fmt.Sprintf("%-*s %*s   %*s", compareLabelW, lab, w, pa, w, pb)
			if va != vb {
				ls = append(ls, st.Warn.Render("≠ "+s))
			} else {
				ls = append(ls, "  "+s)
			}
		}
		return ls
	}
	alerts := func(fs []engine.AlertFiring) string {
		if len(fs) == 0 {
			return "none"
		}
		var p []string
		for _, f := range fs {
			p = append(p, f.Name+" "+f.At)
		}
		return strings.Join(p, ", ")
	}
	a, b, sa, sb := c.cmp.A, c.cmp.B, c.cmp.SinceA, c.cmp.SinceB
	i := func(v float64) string { return fmt.Sprint(int64(v)) }
	sec := func(v float64) string { return fmtDur(engine.Duration(math.Round(v * 1000))) }
	pct := func(v float64) string { return fmt.Sprintf("%.0f%%", v) }
	sent, dups, lost := c.words.Sent, c.words.Duplicates, c.words.Lost
	f := func(v int64) float64 { return float64(v) }
	out = append(out,
		row("messages", f(a.Messages), f(sa.Messages), f(b.Messages), f(sb.Messages), true, i),
		row("deliveries", f(a.Deliveries), f(sa.Deliveries), f(b.Deliveries), f(sb.Deliveries), true, i),
		row(sent, f(a.Effects), f(sa.Effects), f(b.Effects), f(sb.Effects), true, i),
		row(dups, f(a.DuplicateEffects), f(sa.DuplicateEffects), f(b.DuplicateEffects), f(sb.DuplicateEffects), true, i),
		row(lost, f(a.Lost), f(sa.Lost), f(b.Lost), f(sb.Lost), true, i),
		row("dead letters", f(a.DLQ), f(sa.DeadLettered), f(b.DLQ), f(sb.DeadLettered), true, i),
		row("late acks refused", f(a.LateAcksRefused), f(sa.LateAcksRefused), f(b.LateAcksRefused), f(sb.LateAcksRefused), true, i),
		row("oldest message, max", a.MaxOldestAgeS, sa.MaxOldestAgeS, b.MaxOldestAgeS, sb.MaxOldestAgeS, true, sec),
		row("workers busy", math.Round(a.Busy*100), 0, math.Round(b.Busy*100), 0, false, pct))
	for _, k := range c.own { // the family's own figures, in all
		va, vb := a.Figures[k], b.Figures[k]
		if engine.ZeroFigure(va) && engine.ZeroFigure(vb) {
			continue // nothing on either side: the screen has no row to spare
		}
		// a name wider than the labels' column goes on over lines of its own
		label := wrap(strings.ReplaceAll(k, "_", " "), compareLabelW)
		fa, oka := figureNumber(va)
		fb, okb := figureNumber(vb)
		var ls []string
		if oka && okb {
			ls = []string{row(label[len(label)-1], fa, 0, fb, 0, false, figureText)}
		} else {
			ls = text(label[len(label)-1], fmt.Sprint(va), fmt.Sprint(vb))
		}
		for _, l := range label[:len(label)-1] {
			if fmt.Sprint(va) != fmt.Sprint(vb) {
				l = st.Warn.Render("≠ " + l)
			} else {
				l = "  " + l
			}
			out = append(out, l)
		}
		out = append(out, ls...)
	}
	out = append(out, text("alerts fired", alerts(a.Alerts), alerts(b.Alerts))...)
	out = append(out, text("missing alert fired", alerts(a.WouldHaveFired), alerts(b.WouldHaveFired))...)
	recovery := func(r *engine.RecoveryFigure) string {
		if r == nil {
			return "none"
		}
		return r.Words
	}
	if a.WorstRecovery != nil || b.WorstRecovery != nil {
		out = append(out, text("worst recovery", recovery(a.WorstRecovery), recovery(b.WorstRecovery))...)
	}
	out = append(out, text("last event", a.End, b.End)...)
	out = append(out, "")
	for _, l := range wrap(c.sinceWords(), max(8, c.width-2)) {
		out = append(out, st.Dim.Render("  "+l))
	}
	out = append(out, "")
	out = append(out, c.divergence()...)
	out = append(out, "")
	if c.sel >= 0 {
		head, none := c.selName+c.words.Inbox+" (↑/↓ on the main screen selects another):", c.words.NoEffect
		out = append(out, st.Header.Render(head))
		inbox := func(es []engine.Entry) string {
			if len(es) == 0 {
				return none
			}
			var p []string
			for _, e := range es {
				p = append(p, e.Event.T.Short())
			}
			return fmt.Sprintf("%d: %s", len(es), strings.Join(p, ", "))
		}
		ia, ib := inbox(c.inboxA), inbox(c.inboxB)
		for _, r := range [][2]string{{"A", ia}, {"B", ib}} {
			for i, l := range wrap(r[1], c.width-4) {
				p := "   "
				if i == 0 {
					p = " " + r[0] + " "
				}
				if ia != ib {
					l = st.Warn.Render(l)
				}
				out = append(out, p+l)
			}
		}
	}
	return out
}

// figureNumber is a family figure's value as a number, ok false for one
// that is not (a clock, a name).
func figureNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// figureText writes a family figure: a whole number as one, else as
// few digits as tell it.
func figureText(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return fmt.Sprint(int64(v))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// sinceWords says what the since-the-fork columns count.
func (c compareView) sinceWords() string {
	const others = " To compare other branches, mark them a and b in the branch list (b)."
	if !c.cmp.Parted && c.cmp.From == 0 {
		return "A and B are one history: since fork counts from the start." + others
	}
	return fmt.Sprintf("≠ marks a row where A and B differ. Since fork counts what happened from event %d (%s) on, where A and B part; in all adds what both did before it. Dead letters: in the queue at the end, and moved there since the fork. Lost since the fork: lost at the end less lost at the fork.",
		c.cmp.From, c.cmp.At.Short()) + others
}

// divergence is where A and B first differ, in sentences: when, to which
// message, what each branch does there.
func (c compareView) divergence() []string {
	st := c.st
	if !c.cmp.Parted {
		return []string{st.Dim.Render("A and B never differ: every event is the same on both.")}
	}
	d := c.div
	e := d.A
	if e == nil {
		e = d.B
	}
	head := fmt.Sprintf("First divergence, at event %d", d.Pos)
	if e != nil {
		head += ", " + e.Event.T.Short()
		if c.divMsg != "" {
			head += ", " + c.divMsg
		}
	}
	out := []string{st.Header.Render(head + ":")}
	var say string
	wa, wb := kindWord(d.A, &c.words), kindWord(d.B, &c.words)
	switch {
	case d.A == nil:
		say = "A has ended here; B goes on:"
	case d.B == nil:
		say = "B has ended here; A goes on:"
	case d.A.Event.Kind != d.B.Event.Kind && wa != "" && wb != "":
		say = fmt.Sprintf("On A %s; on B %s.", wa, wb)
	case d.A.Event.Kind != d.B.Event.Kind:
		say = "A and B do different things here:"
	case wa != "" && !strings.HasPrefix(wa, "a "):
		say = "On both " + wa + ", with other details:"
	default:
		say = "The same step on both, with other details:"
	}
	for _, l := range wrap(say, max(8, c.width-4)) {
		out = append(out, "   "+st.Warn.Render(l))
	}
	side := func(tag string, e *engine.Entry) {
		s := "(the branch has ended)"
		if e != nil {
			s = e.Event.T.Clock() + " " + e.Caption
		}
		for i, l := range wrap(s, max(8, c.width-4)) {
			p := "   "
			if i == 0 {
				p = " " + st.Header.Render(tag) + " "
			}
			out = append(out, p+l)
		}
	}
	side("A", d.A)
	side("B", d.B)
	return out
}
