package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"inflight/engine"
)

// scrollKeyMap is the keys of a screen that scrolls or moves a row and
// closes: the life story, the branch list, the exercises.
type scrollKeyMap struct {
	Up     key.Binding
	Down   key.Binding
	Choose key.Binding
	Close  key.Binding
}

// ShortHelp is the screen's keys in one line.
func (k scrollKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Choose, k.Close}
}

// FullHelp is the screen's keys in columns.
func (k scrollKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

func storyKeyMap() scrollKeyMap {
	return scrollKeyMap{
		Up:     binding([]string{"up", "k"}, "↑/k", "scroll up"),
		Down:   binding([]string{"down", "j"}, "↓/j", "scroll down"),
		Choose: key.NewBinding(key.WithDisabled()), // nothing to choose
		Close:  binding([]string{"esc", "enter", "q"}, "esc", "close"),
	}
}

// storyView is one message's life: published, each delivery with its
// worker and lease, each email, refused acks, the dead letter queue and
// the redrive that took it out (engine.Explorer.Story) — read
// from the trace of the branch under the cursor. Events after the cursor
// are shown dimmed: what is still to come.
type storyView struct {
	common
	keys   scrollKeyMap
	id     int32
	events []engine.Entry
	cursor int64
	off    int
	done   outcome

	// read when it opened, so that View asks the engine nothing
	name, branch, clock string
	words               engine.Words // the family's: its effects need not be emails
}

// storySubject is whose story the story key tells: the selected message
// sel, or, when it has not been published yet, the first message on
// screen (ids); ok false when there is none, news why.
func storySubject(x *engine.Explorer, ids []int32, sel int32) (subject int32, news string, ok bool) {
	if sel < 0 {
		return sel, "select a message first (↑/↓, or click one)", false
	}
	w := x.World()
	if int(sel) < w.Published() {
		return sel, "", true
	}
	news = w.MsgName(sel) + " has not been published yet: step on, or select another"
	if len(ids) == 0 {
		return sel, news, false
	}
	return ids[0], news, int(ids[0]) < w.Published()
}

// storyJob reads message sel's whole life, which may run far past the
// cursor, and opens its story; s is the screen's snapshot, for when sel
// was published.
func storyJob(x *engine.Explorer, s *snap, sel int32) explorerJob {
	cursor := x.Pos()
	pub, hasPub := s.published(x, sel)
	var evs []engine.Entry
	return explorerJob{label: "reading " + x.World().MsgName(sel) + "'s story", read: true, seek: func(x *engine.Explorer) {
		b := x.Branch()
		from := int64(0)
		if hasPub {
			from = x.PosAtTime(b, pub)
		}
		evs = x.Story(b, sel, from) // the redrives that moved it too
	}, apply: func(m *Model) {
		w := m.x.World()
		m.story = storyView{common: m.common, keys: storyKeyMap(), id: sel, events: evs, cursor: cursor,
			name: w.MsgName(sel), branch: branchPath(m.x.Branch()), clock: max(m.at, w.Now).Short(), words: engine.WordsOf(w.Family())}
		m.state = stateStory
	}}
}

// Update scrolls; esc asks the root to close.
func (s storyView) Update(msg tea.Msg) (storyView, tea.Cmd) {
	s.done = stay
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return s, nil
	}
	switch {
	case key.Matches(k, s.keys.Close):
		s.done = closed
	case key.Matches(k, s.keys.Up):
		s.off = max(0, s.off-1)
	case key.Matches(k, s.keys.Down):
		s.off = min(max(0, 4*len(s.events)), s.off+1) // View clamps: a caption may wrap
	}
	return s, nil
}

// View is the story from the scroll offset on.
func (s storyView) View() string {
	st := s.st
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
		st.PaneTitle.Render("Life story of "+s.name) + fmt.Sprintf("  on %s · %s, %s", s.branch, plural(deliveries, "delivery", "deliveries"), plural(effects, s.words.Effect, s.words.Effects)),
		st.Dim.Render("dimmed lines are still to come after the cursor · ↑/↓ scrolls · esc closes"),
	}
	for _, l := range wrap(storyLegend(s.words), max(20, s.width)) {
		out = append(out, st.Dim.Render(l))
	}
	out = append(out, "")
	var lines []string
	marked := false
	for _, e := range s.events {
		if e.Event.Pos >= s.cursor && !marked {
			lines = append(lines, st.Cursor.Render(fmt.Sprintf("  ── the cursor: %s ── still to come:", s.clock)))
			marked = true
		}
		icon := storyIcon(e.Event.Kind)
		if e.Event.Kind == engine.EvEffect {
			icon = s.words.EffectMark // an email, a credit, a row
		}
		// the caption, then the decision, wrapped under the caption's start
		prefix := fmt.Sprintf("  %s  %-3s ", e.Event.T.Clock(), icon)
		ind := lipgloss.Width(prefix)
		text := wrap(e.Caption, max(20, s.width-ind))
		nCap := len(text)
		if e.Decision != nil {
			text = append(text, wrap("◆ "+e.DecText, max(20, s.width-ind))...)
		}
		for i, t := range text {
			if i >= nCap && e.Event.Pos < s.cursor {
				t = st.Decision.Render(t)
			}
			l := strings.Repeat(" ", ind) + t
			if i == 0 {
				l = prefix + t
			}
			if e.Event.Pos >= s.cursor {
				l = st.Dim.Render(l)
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = append(lines, st.Dim.Render("  nothing recorded for this message on this branch"))
	}
	off := clampOff(s.off, len(lines), s.height-len(out))
	out = append(out, lines[off:]...)
	return strings.Join(out, "\n")
}

// storyIcon is a short word for an event kind, readable without colour
// (an effect's is the family's, Words.EffectMark).
func storyIcon(k engine.Kind) string {
	switch k {
	case engine.EvPublish:
		return "NEW"
	case engine.EvDeliver:
		return "→"
	case engine.EvAck:
		return "✓"
	case engine.EvAckRefused:
		return "✗"
	case engine.EvLeaseExpired:
		return "…"
	case engine.EvDLQ:
		return "DLQ"
	case engine.EvRedrive:
		return "↺"
	}
	return "·"
}

// storyLegend says what the story's marks mean, the effect's in the
// family's words.
func storyLegend(wd engine.Words) string {
	return "→ delivered · ✓ acked · ✗ ack refused · … lease expired · DLQ dead-lettered · ↺ redriven · " +
		wd.EffectMark + " " + wd.Effect + " · ◆ decision"
}

// plural is "1 email", "3 emails".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
