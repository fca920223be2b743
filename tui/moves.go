package tui

import (
	"fmt"

	"inflight/engine"
)

// step moves the cursor n events and shows the last event's moment.
func (m *Model) step(n int64) {
	if n < 0 && m.x.Pos() == 0 {
		m.flash = "already at the first event"
		return
	}
	m.x.Step(n)
	m.at = m.x.World().Now
}

// tick moves the clock by d of simulated time: forward, everything up to
// and at the new moment has happened; back, the same for the earlier one.
func (m *Model) tick(d engine.Duration) {
	t := max(m.at+d, m.x.Spec.Start)
	m.x.SeekTimeEnd(t)
	m.at = max(t, m.x.World().Now)
}

// seekClock shows the moment t: nothing at t has happened yet.
func (m *Model) seekClock(t engine.Time) {
	m.x.SeekTime(t)
	m.at = max(t, m.x.World().Now)
}

// decision moves just past the next (or previous) decision.
func (m *Model) decision(next bool) {
	var e engine.Entry
	var ok bool
	if next {
		e, ok = m.x.NextDecision()
	} else {
		e, ok = m.x.PrevDecision()
	}
	if !ok {
		m.flash = "no more decisions that way"
		return
	}
	m.at = m.x.World().Now
	m.flash = "decision: " + e.DecText
}

// bookmark moves to the next (or previous) beat of the lesson, with
// everything at its moment already happened.
func (m *Model) bookmark(next bool) {
	bms := m.x.Spec.Bookmarks
	if len(bms) == 0 {
		m.flash = "this incident has no bookmarks"
		return
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
		return
	}
	m.x.SeekTimeEnd(bms[idx].At)
	m.at = max(bms[idx].At, m.x.World().Now)
	m.flash = ""
}

// currentBookmark is the last bookmark at or before the displayed moment.
func (m *Model) currentBookmark() (engine.Bookmark, bool) {
	var out engine.Bookmark
	ok := false
	for _, b := range m.x.Spec.Bookmarks {
		if b.At <= m.at {
			out, ok = b, true
		}
	}
	return out, ok
}

// nextBranch switches to the next branch in creation order.
func (m *Model) nextBranch() {
	bs := m.x.Branches()
	if len(bs) < 2 {
		m.flash = "only one branch: f forks one here, e opens the exercises"
		return
	}
	cur := m.x.Branch()
	for i, b := range bs {
		if b == cur {
			m.switchTo(bs[(i+1)%len(bs)])
			return
		}
	}
}

// switchTo moves the cursor onto b at the same moment.
func (m *Model) switchTo(b *engine.Branch) {
	m.pause()
	at := m.at
	m.x.Switch(b)
	m.x.SeekTimeEnd(at)
	m.at = max(at, m.x.World().Now)
	m.exercise = nil
	m.flash = "on branch " + branchPath(b)
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
	if mm, ok := m.x.World().Msg(id); ok {
		m.selPub.id, m.selPub.at, m.selPub.ok = id, mm.Published, true
	}
	m.snap.inboxFor = -2 // recompute
	m.refreshInbox()
	m.flash = fmt.Sprintf("selected %s: enter tells its life story", m.x.World().MsgName(id))
}
