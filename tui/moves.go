package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"inflight/engine"
)

// step moves the cursor n events and shows the last event's moment.
func (m *Model) step(n int64) {
	if n < 0 && m.x.Pos() == 0 {
		m.flash = "already at the first event"
		return
	}
	if err := m.x.Run(nil, func() { m.x.Step(n) }); err != nil {
		m.flash = err.Error()
	}
	m.at = m.x.World().Now
}

// tick moves the clock by d of simulated time: forward, everything up to
// and at the new moment has happened; back, the same for the earlier one.
func (m *Model) tick(d engine.Duration) tea.Cmd {
	t := max(m.at+d, m.x.Spec.Start)
	return m.move("seeking to "+t.Short(), func(x *engine.Explorer) { x.SeekTimeEnd(t) }, func(m *Model) {
		m.at = max(t, m.x.World().Now)
	})
}

// seekClock shows the moment t: nothing at t has happened yet.
func (m *Model) seekClock(t engine.Time, flash string) tea.Cmd {
	return m.move("seeking to "+t.Short(), func(x *engine.Explorer) { x.SeekTime(t) }, func(m *Model) {
		m.at = max(t, m.x.World().Now)
		m.flash = flash
	})
}

// move runs a cursor move on the branch under the cursor as a job: a far
// seek plays events that are not known yet.
func (m *Model) move(label string, f func(x *engine.Explorer), apply func(m *Model)) tea.Cmd {
	return m.startJob(label, 0, func(x *engine.Explorer, _ *engine.Meter) (*engine.Explorer, error) {
		f(x)
		return x, nil
	}, apply, nil)
}

// decision moves just past the next (or previous) decision.
func (m *Model) decision(next bool) tea.Cmd {
	var e engine.Entry
	var ok bool
	label := "finding the previous decision"
	if next {
		label = "finding the next decision"
	}
	return m.move(label, func(x *engine.Explorer) {
		if next {
			e, ok = x.NextDecision()
		} else {
			e, ok = x.PrevDecision()
		}
	}, func(m *Model) {
		if !ok {
			m.flash = "no more decisions that way"
			return
		}
		m.at = m.x.World().Now
		m.flash = "decision: " + e.DecText
	})
}

// bookmark moves to the next (or previous) beat of the lesson, with
// everything at its moment already happened.
func (m *Model) bookmark(next bool) tea.Cmd {
	bms := m.x.Spec.Bookmarks
	if len(bms) == 0 {
		m.flash = "this incident has no bookmarks"
		return nil
	}
	idx := -1
	if next {
		for i, b := range bms {
			if b.At > m.at {
				idx = i
				break
			}
		}
	} else {
		for i := len(bms) - 1; i >= 0; i-- {
			if bms[i].At < m.at {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		m.flash = "no more bookmarks that way"
		return nil
	}
	bm := bms[idx]
	at := bm.At
	return m.move("seeking to "+at.Short(), func(x *engine.Explorer) { x.SeekBookmark(bm) }, func(m *Model) {
		m.at = max(at, m.x.World().Now)
		m.flash = ""
	})
}

// currentBookmark is spec's last bookmark at or before the moment at.
func currentBookmark(spec *engine.Spec, at engine.Time) (engine.Bookmark, bool) {
	var out engine.Bookmark
	ok := false
	for _, b := range spec.Bookmarks {
		if b.At <= at {
			out, ok = b, true
		}
	}
	return out, ok
}

// nextBranch switches to the next branch in creation order.
func (m *Model) nextBranch() tea.Cmd {
	bs := m.x.Branches()
	if len(bs) < 2 {
		m.flash = "only one branch: f forks one here, e opens the exercises"
		return nil
	}
	cur := m.x.Branch()
	for i, b := range bs {
		if b == cur {
			return m.switchTo(bs[(i+1)%len(bs)])
		}
	}
	return nil
}

// switchTo moves the cursor onto b at the same moment.
func (m *Model) switchTo(b *engine.Branch) tea.Cmd {
	m.pause()
	at := m.at
	i := branchIndex(m.x, b)
	return m.move("switching to "+b.Name, func(x *engine.Explorer) {
		x.Switch(x.Branches()[i])
		x.SeekTimeEnd(at)
	}, func(m *Model) {
		m.at = max(at, m.x.World().Now)
		m.exercise = nil
		m.flash = "on branch " + branchPath(m.x.Branch())
	})
}

// branchIndex is b's place in x's branches: a job's clone has branches of
// its own, found by that place.
func branchIndex(x *engine.Explorer, b *engine.Branch) int {
	for i, c := range x.Branches() {
		if c == b {
			return i
		}
	}
	return 0
}

// branchPath is "main ▸ vt60 @19:52:00".
func branchPath(b *engine.Branch) string {
	s := ""
	for i, c := range b.Path() {
		if i > 0 {
			s += " ▸ "
		}
		s += c.Name
		if i > 0 && !containsAt(c.Name) {
			s += " @" + c.ForkAt.Short()
		}
	}
	return s
}

func containsAt(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			return true
		}
	}
	return false
}

// selectMsg moves the selection through the messages the panes show.
func (m *Model) selectMsg(d int) {
	ids := m.snap.selectable
	if len(ids) == 0 {
		m.flash = "no messages on screen to select"
		return
	}
	i := -1
	for j, id := range ids {
		if id == m.sel {
			i = j
		}
	}
	switch {
	case i < 0 && d > 0:
		i = 0
	case i < 0:
		i = len(ids) - 1
	default:
		i = (i + d + len(ids)) % len(ids)
	}
	m.setSel(ids[i])
}

// setSel selects message id: the inbox and life story follow it.
func (m *Model) setSel(id int32) {
	if id == m.sel {
		return
	}
	m.sel = id
	m.snap.noteSel(m.x, id)
	m.snap.readInbox(m.x, id)
	m.flash = fmt.Sprintf("selected %s: enter tells its life story", m.x.World().MsgName(id))
}
