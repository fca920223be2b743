package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// storyView is one message's life: published, each delivery with its
// worker and lease, each email, refused acks, the dead letter queue — read
// from the trace of the branch under the cursor. Events after the cursor
// are shown dimmed: what is still to come.
type storyView struct {
	id     int32
	events []engine.Entry
	cursor int64
	off    int
}

func (m *Model) openStory() tea.Cmd {
	if m.sel < 0 {
		m.flash = "select a message first (↑/↓, or click one)"
		return nil
	}
	w := m.x.World()
	if int(m.sel) >= w.Published() {
		m.flash = w.MsgName(m.sel) + " has not been published yet: step on, or select another"
		m.storyFallback()
		if int(m.sel) >= w.Published() {
			return nil
		}
	}
	// a message's life may run far past the cursor: read it in a job
	sel, cursor := m.sel, m.x.Pos()
	pub, hasPub := m.published(sel) // sel >= 0: checked above
	var evs []engine.Entry
	return m.startJob("reading "+w.MsgName(sel)+"'s story", 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		b := x.Branch()
		from := int64(0)
		if hasPub {
			from = x.PosAtTime(b, pub)
		}
		evs = x.History(b, sel, from, func(e *engine.Entry) bool { return true })
		return x, nil
	}, func(m *Model) {
		m.story = storyView{id: sel, events: evs, cursor: cursor}
		m.state = stateStory
	}, nil)
}

// storyFallback selects the first message on screen when the selected one
// does not exist yet.
func (m *Model) storyFallback() {
	if len(m.snap.selectable) > 0 {
		m.sel = m.snap.selectable[0]
		m.snap.inboxFor = -2
		m.refreshInbox()
	}
}

func (m *Model) updateStory(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "enter", "q":
		m.state = stateMain
	case "up", "k":
		m.story.off = max(0, m.story.off-1)
	case "down", "j":
		m.story.off = min(max(0, len(m.story.events)-1), m.story.off+1)
	}
	return nil
}

func (m Model) viewStory(r rect) string {
	s, st := m.story, m.st
	w := m.x.World()
	name := w.MsgName(s.id)
	var effects, deliveries int
	for _, e := range s.events {
		switch e.Event.Kind {
		case engine.EvEffect:
			effects++
		case engine.EvDeliver:
			deliveries++
		}
	}
	out := []string{
		st.PaneTitle.Render("Life story of "+name) + fmt.Sprintf("  on %s · %s, %s", branchPath(m.x.Branch()), plural(deliveries, "delivery", "deliveries"), plural(effects, strings.TrimSuffix(m.effectWord(), "s"), m.effectWord())),
		st.Dim.Render("dimmed lines are still to come after the cursor · ↑/↓ scrolls · esc closes"), "",
	}
	var lines []string
	marked := false
	for _, e := range s.events {
		if e.Event.Pos >= s.cursor && !marked {
			lines = append(lines, st.Cursor.Render(fmt.Sprintf("  ── the cursor: %s ── still to come:", max(m.at, w.Now).Short())))
			marked = true
		}
		icon := storyIcon(e.Event.Kind)
		if e.Event.Kind == engine.EvEffect && m.isFamily() {
			icon = "+" // a row, a credit, a record: not an email
		}
		l := fmt.Sprintf("%s  %-3s %s", e.Event.T.Clock(), icon, e.Caption)
		if e.Decision != nil {
			l += st.Decision.Render("  ◆ " + e.DecText)
		}
		if e.Event.Pos >= s.cursor {
			l = st.Dim.Render("  " + l)
		} else {
			l = "  " + l
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		lines = append(lines, st.Dim.Render("  nothing recorded for this message on this branch"))
	}
	off := clampOff(s.off, len(lines), r.h-len(out))
	out = append(out, lines[off:]...)
	return strings.Join(out, "\n")
}

// storyIcon is a short word for an event kind, readable without colour.
func storyIcon(k engine.Kind) string {
	switch k {
	case engine.EvPublish:
		return "NEW"
	case engine.EvDeliver:
		return "→"
	case engine.EvEffect:
		return "✉"
	case engine.EvAck:
		return "✓"
	case engine.EvAckRefused:
		return "✗"
	case engine.EvLeaseExpired:
		return "…"
	case engine.EvDLQ:
		return "DLQ"
	}
	return "·"
}

// plural is "1 email", "3 emails".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
