package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// closeKeyMap is the keys of a screen that only shows and closes: the
// comparison, the share code.
type closeKeyMap struct{ Close key.Binding }

// ShortHelp is the screen's one key.
func (k closeKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Close} }

// FullHelp is the screen's one key.
func (k closeKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// The comparison's columns: the row labels, and each branch's values
// between compareColMin and compareColMax wide.
const (
	compareLabelW = 22
	compareColMin = 12
	compareColMax = 28
	compareDiffW  = 10 // "B − A"
)

// compareView sets two branches' summaries side by side: the parent (a)
// and the branch under the cursor (b), where they first part, and the
// selected customer's inbox in each.
type compareView struct {
	common
	keys           scrollKeyMap
	off            int // the first line shown under the title
	a, b           *engine.Branch
	sa, sb         engine.Summary
	div            engine.Divergence
	parted         bool
	inboxA, inboxB []engine.Entry
	done           outcome

	// read when it opened, so that View asks the engine nothing
	sel     int32        // the selected message, -1 none
	selName string       // its name
	words   engine.Words // the family's: its effects need not be emails
}

// compareJob compares the branch under x's cursor with its parent (on
// main, the newest branch with main), the message sel selected; s is the
// screen's snapshot, for when sel was published.
func compareJob(x *engine.Explorer, s *snap, sel int32) explorerJob {
	b := x.Branch()
	a := b.Parent
	if a == nil {
		bs := x.Branches()
		if len(bs) < 2 {
			return explorerJob{news: "main has no parent to compare with: fork one with f, or try an exercise with e"}
		}
		a, b = b, bs[len(bs)-1]
	}
	// both branches are played to their end: a job, on a clone whose
	// branches are found by their place
	ia, ib := branchIndex(x, a), branchIndex(x, b)
	var pub engine.Time
	var hasPub bool
	if sel >= 0 {
		pub, hasPub = s.published(x, sel)
	}
	total := max(0, x.EstimateLen(a)-a.Len()) + max(0, x.EstimateLen(b)-b.Len())
	var c compareView
	return explorerJob{label: "comparing " + a.Name + " with " + b.Name, total: total, seek: func(x *engine.Explorer) {
		a, b := x.Branches()[ia], x.Branches()[ib]
		c = compareView{a: a, b: b}
		c.sa, c.sb = x.Summary(a), x.Summary(b)
		c.div, c.parted = x.Compare(a, b)
		if c.parted {
			c.div = pastKnobs(x, a, b, c.div)
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
		if sel >= 0 {
			c.selName = m.x.World().MsgName(sel)
		}
		m.compare = c
		m.state = stateCompare
	}}
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
		c.off = min(c.off+1, max(0, len(c.lines())-(c.height-1)))
	}
	return c, nil
}

// View is the title and, from the scroll offset, as many lines as fit, the
// last saying how many more there are when some are below.
func (c compareView) View() string {
	if c.a == nil {
		return ""
	}
	title := c.st.PaneTitle.Render("Compare") + "  each branch played to its end · esc closes"
	ls := c.lines()
	rows := max(1, c.height-1)
	off := clampOff(c.off, len(ls), rows)
	ls = ls[off:]
	if len(ls) > rows {
		more := len(ls) - rows + 1
		ls = append(ls[:rows-1:rows-1], c.st.Dim.Render(fmt.Sprintf("  ↓ %d more %s (↓/j scrolls)", more, map[bool]string{true: "line", false: "lines"}[more == 1])))
	}
	return strings.Join(append([]string{title}, ls...), "\n")
}

// pastKnobs is the first divergence that is not a fork's own knob
// marker ("from here on: late_ack=accept"): what the knob changed, the
// refused ack that becomes an accepted one. If the branches never differ
// again within compareScanCap events, d stands.
func pastKnobs(x *engine.Explorer, a, b *engine.Branch, d engine.Divergence) engine.Divergence {
	knob := func(e *engine.Entry) bool { return e != nil && e.Event.Kind == engine.EvKnob }
	if !knob(d.A) && !knob(d.B) {
		return d
	}
	if e, ok := x.CompareFrom(a, b, engine.CompareOptions{From: d.Pos, Limit: compareScanCap, Same: sameEvent}); ok {
		return e
	}
	return d
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

// sameEvent is whether two events are the same, their place aside.
func sameEvent(a, b engine.Event) bool {
	a.Pos, b.Pos = 0, 0
	return a == b
}

// sameBeat is whether two events are the same beat of the story: the same
// thing happening to the same message by the same worker at the same time,
// whatever its figures (a lease that now ends at 19:53:00, not 19:52:30).
func sameBeat(a, b engine.Event) bool {
	return a.T == b.T && a.Kind == b.Kind && a.Msg == b.Msg && a.Worker == b.Worker && a.Delivery == b.Delivery
}

// kindWord is what an event did, in the captions' words, for "refused →
// accepted": the kernel's kinds in plain words, the effect and the
// family's own kinds in the family's (wd).
func kindWord(e *engine.Entry, wd *engine.Words) string {
	if e == nil {
		return "the branch has ended"
	}
	switch e.Event.Kind {
	case engine.EvPublish:
		return "published"
	case engine.EvDeliver:
		return "delivered"
	case engine.EvEffect:
		return wd.AnEffect
	case engine.EvAck:
		return "accepted"
	case engine.EvAckRefused:
		return "refused"
	case engine.EvLeaseExpired:
		return "lease expired"
	case engine.EvDLQ:
		return "dead-lettered"
	case engine.EvCrash:
		return "a crash"
	}
	return wd.Did[e.Event.Kind] // "" for a kind its captions say
}

// changed is what differs at a divergence, in the captions' words: the
// kinds ("refused → accepted") when they differ, else the words of the two
// captions that differ ("lease until 10:00:30.000) → lease until
// 10:00:00.015)").
func changed(a, b *engine.Entry, wd *engine.Words) (string, string) {
	wa, wb := kindWord(a, wd), kindWord(b, wd)
	if a == nil || b == nil || wa != wb && wa != "" && wb != "" {
		return wa, wb
	}
	fa, fb := strings.Fields(a.Caption), strings.Fields(b.Caption)
	i := 0
	for i < len(fa) && i < len(fb) && fa[i] == fb[i] {
		i++
	}
	j := 0
	for j < len(fa)-i && j < len(fb)-i && fa[len(fa)-1-j] == fb[len(fb)-1-j] {
		j++
	}
	// keep the word before the change, for its sense ("until 10:00:30.000")
	i = max(0, i-1)
	da, db := strings.Join(fa[i:len(fa)-j], " "), strings.Join(fb[i:len(fb)-j], " ")
	if da == "" && db == "" {
		return a.Caption, b.Caption
	}
	return da, db
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

// lines are the comparison under its title: the two branches' forks, the
// two summaries side by side with B − A, where they first part, and the
// selected message's effects on each.
func (c compareView) lines() []string {
	st := c.st
	var out []string
	for _, br := range []struct {
		tag string
		b   *engine.Branch
	}{{"A", c.a}, {"B", c.b}} {
		own, from := ownFork(br.b)
		text := own
		if from != "" {
			text += " (" + from + ")"
		}
		for i, l := range wrap(text, c.width-4) {
			p := "   "
			if i == 0 {
				p = " " + st.Header.Render(br.tag) + " "
			}
			out = append(out, p+l)
		}
	}
	out = append(out, "")
	cw := max(compareColMin, min(compareColMax, (c.width-compareLabelW-5-compareDiffW)/2))
	num := func(label string, va, vb float64, f func(float64) string) string {
		diff := ""
		if va != vb {
			diff = f(vb - va)
			if vb > va {
				diff = "+" + diff
			}
		}
		s := fmt.Sprintf("%-*s %*s %*s %*s", compareLabelW, label, cw, f(va), cw, f(vb), compareDiffW, diff)
		if va != vb {
			return st.Warn.Render("≠ " + s)
		}
		return "  " + s
	}
	text := func(label, va, vb string) string {
		s := fmt.Sprintf("%-*s %*s %*s", compareLabelW, label, cw, va, cw, vb)
		if va != vb {
			return st.Warn.Render("≠ " + s)
		}
		return "  " + s
	}
	out = append(out, "  "+st.Header.Render(fmt.Sprintf("%-*s %*s %*s %*s", compareLabelW, "", cw, "A", cw, "B", compareDiffW, "B − A")))
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
	a, b := c.sa, c.sb
	i := func(v float64) string { return fmt.Sprint(int64(v)) }
	sec := func(v float64) string { return fmtDur(engine.Duration(math.Round(v * 1000))) }
	pct := func(v float64) string { return fmt.Sprintf("%.0f%%", v) }
	sent, dups, lost := c.words.Sent, c.words.Duplicates, c.words.Lost
	f := func(v int64) float64 { return float64(v) }
	out = append(out,
		num("messages", f(a.Messages), f(b.Messages), i),
		num("deliveries", f(a.Deliveries), f(b.Deliveries), i),
		num(sent, f(a.Effects), f(b.Effects), i),
		num(dups, f(a.DuplicateEffects), f(b.DuplicateEffects), i),
		num(lost, f(a.Lost), f(b.Lost), i),
		num("dead letters at end", f(a.DLQ), f(b.DLQ), i),
		num("late acks refused", f(a.LateAcksRefused), f(b.LateAcksRefused), i),
		num("oldest message, max", a.MaxOldestAgeS, b.MaxOldestAgeS, sec),
		num("workers busy", math.Round(a.Busy*100), math.Round(b.Busy*100), pct),
		text("alerts fired", alerts(a.Alerts), alerts(b.Alerts)),
		text("unset alert would fire", alerts(a.WouldHaveFired), alerts(b.WouldHaveFired)),
		text("last event", a.End, b.End),
		"")
	if c.parted {
		at := ""
		if e := c.div.A; e != nil {
			at = ", " + e.Event.T.Short()
		} else if e := c.div.B; e != nil {
			at = ", " + e.Event.T.Short()
		}
		wa, wb := changed(c.div.A, c.div.B, &c.words)
		out = append(out, st.Header.Render(fmt.Sprintf("First divergence at event %d%s:", c.div.Pos, at)))
		for i, l := range wrap(wa+" → "+wb, c.width-4) {
			p := "   "
			if i == 0 {
				p = " " + st.Warn.Render("≠") + " "
			}
			out = append(out, p+st.Warn.Render(l))
		}
		side := func(tag string, e *engine.Entry) {
			s := "(the branch has ended)"
			if e != nil {
				s = e.Event.T.Clock() + " " + e.Caption
			}
			for i, l := range wrap(s, c.width-4) {
				p := "   "
				if i == 0 {
					p = " " + tag + " "
				}
				out = append(out, p+l)
			}
		}
		side("A", c.div.A)
		side("B", c.div.B)
	} else {
		out = append(out, st.Dim.Render("The two branches never differ."))
	}
	out = append(out, "")
	if c.sel >= 0 {
		name := c.selName
		head, none := name+c.words.Inbox+" (↑/↓ on the main screen selects another):", c.words.NoEffect
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
