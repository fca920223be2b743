package tui

import (
	"fmt"
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
)

// compareView sets two branches' summaries side by side: the parent (a)
// and the branch under the cursor (b), where they first part, and the
// selected customer's inbox in each.
type compareView struct {
	common
	keys           closeKeyMap
	a, b           *engine.Branch
	sa, sb         engine.Summary
	div            engine.Divergence
	parted         bool
	inboxA, inboxB []engine.Entry
	done           outcome

	// read when it opened, so that View asks the engine nothing
	sel     int32  // the selected message, -1 none
	selName string // its name
	family  bool   // a family's effects are not emails
}

func (m *Model) openCompare() tea.Cmd {
	b := m.x.Branch()
	a := b.Parent
	if a == nil {
		bs := m.x.Branches()
		if len(bs) < 2 {
			m.flash = "main has no parent to compare with: fork one with f, or try an exercise with e"
			return nil
		}
		a, b = b, bs[len(bs)-1]
	}
	// both branches are played to their end: a job, on a clone whose
	// branches are found by their place
	ia, ib := branchIndex(m.x, a), branchIndex(m.x, b)
	sel := m.sel
	var pub engine.Time
	var hasPub bool
	if sel >= 0 {
		pub, hasPub = m.published(sel)
	}
	total := max(0, m.x.EstimateLen(a)-a.Len()) + max(0, m.x.EstimateLen(b)-b.Len())
	var c compareView
	return m.startJob("comparing "+a.Name+" with "+b.Name, total, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		a, b := x.Branches()[ia], x.Branches()[ib]
		c = compareView{a: a, b: b}
		c.sa, c.sb = x.Summary(a), x.Summary(b)
		c.div, c.parted = x.Compare(a, b)
		c.inboxA, c.inboxB = emailsOn(x, a, sel, pub, hasPub), emailsOn(x, b, sel, pub, hasPub)
		return x, nil
	}, func(m *Model) {
		c.common, c.keys = m.common, closeKeyMap{Close: binding([]string{"esc", "enter", "q", "c"}, "esc", "close")}
		c.sel, c.family = sel, m.isFamily()
		if sel >= 0 {
			c.selName = m.x.World().MsgName(sel)
		}
		m.compare = c
		m.state = stateCompare
	}, nil)
}

// emailsOn is every email customer sel (published at pub, when known)
// gets on x's branch b.
func emailsOn(x *engine.Explorer, b *engine.Branch, sel int32, pub engine.Time, hasPub bool) []engine.Entry {
	if sel < 0 {
		return nil
	}
	from := int64(0)
	if hasPub {
		from = x.PosAtTime(b, pub)
	}
	return x.History(b, sel, from, func(e *engine.Entry) bool { return e.Event.Kind == engine.EvEffect })
}

// Update closes on its key.
func (c compareView) Update(msg tea.Msg) (compareView, tea.Cmd) {
	c.done = stay
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, c.keys.Close) {
		c.done = closed
	}
	return c, nil
}

// View is the two summaries side by side.
func (c compareView) View() string {
	st := c.st
	if c.a == nil {
		return ""
	}
	na, nb := branchPath(c.a), branchPath(c.b)
	out := []string{st.PaneTitle.Render("Compare") + "  each branch played to its end · esc closes", ""}
	cw := max(compareColMin, min(compareColMax, (c.width-compareLabelW-4)/2))
	row := func(label, va, vb string) string {
		mark := "  "
		s := fmt.Sprintf("%-*s %-*s %-*s", compareLabelW, label, cw, va, cw, vb)
		if va != vb {
			mark = st.Warn.Render("≠ ")
			s = st.Warn.Render(s)
		}
		return mark + s
	}
	out = append(out, "  "+st.Header.Render(fmt.Sprintf("%-*s %-*s %-*s", compareLabelW, "", cw, trunc(na, cw-1), cw, trunc(nb, cw-1))))
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
	d := func(v int64) string { return fmt.Sprint(v) }
	sent, dups, lost := "emails sent", "duplicate emails", "lost (never sent)"
	if c.family {
		sent, dups, lost = "effects", "duplicate effects", "lost (no effect)"
	}
	out = append(out,
		row("messages", d(a.Messages), d(b.Messages)),
		row("deliveries", d(a.Deliveries), d(b.Deliveries)),
		row(sent, d(a.Effects), d(b.Effects)),
		row(dups, d(a.DuplicateEffects), d(b.DuplicateEffects)),
		row(lost, d(a.Lost), d(b.Lost)),
		row("dead letters at end", d(a.DLQ), d(b.DLQ)),
		row("late acks refused", d(a.LateAcksRefused), d(b.LateAcksRefused)),
		row("oldest message, max", fmt.Sprintf("%gs", a.MaxOldestAgeS), fmt.Sprintf("%gs", b.MaxOldestAgeS)),
		row("workers busy", fmt.Sprintf("%.0f%%", a.Busy*100), fmt.Sprintf("%.0f%%", b.Busy*100)),
		row("alerts fired", alerts(a.Alerts), alerts(b.Alerts)),
		row("unset alert would fire", alerts(a.WouldHaveFired), alerts(b.WouldHaveFired)),
		row("last event", a.End, b.End),
		"")
	if c.parted {
		out = append(out, st.Header.Render(fmt.Sprintf("First divergence at event %d:", c.div.Pos)))
		side := func(name string, e *engine.Entry) string {
			if e == nil {
				return fmt.Sprintf("  %s: (the branch has ended)", name)
			}
			return fmt.Sprintf("  %s: %s %s", name, e.Event.T.Clock(), e.Caption)
		}
		out = append(out, side(trunc(na, 24), c.div.A), side(trunc(nb, 24), c.div.B))
	} else {
		out = append(out, st.Dim.Render("The two branches never differ."))
	}
	out = append(out, "")
	if c.sel >= 0 {
		name := c.selName
		head, none := name+"'s customer's inbox (↑/↓ on the main screen selects another):", "no email"
		if c.family {
			head, none = name+"'s effects (↑/↓ on the main screen selects another):", "none"
		}
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
		line := func(n, v string) string {
			s := fmt.Sprintf("  %-*s %s", compareLabelW, trunc(n, compareLabelW), v)
			if ia != ib {
				return st.Warn.Render(s)
			}
			return s
		}
		out = append(out, line(na, ia), line(nb, ib))
	}
	return strings.Join(out, "\n")
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}
