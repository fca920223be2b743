package tui

import (
	"inflight/engine"
	"inflight/engine/families/sqs"
)

// snap is what the panes draw, read from the explorer after every move so
// that View does no engine work: replaying events happens in Update.
type snap struct {
	br         *engine.Branch
	pos        int64
	recent     []engine.Entry // events before the cursor, oldest first
	busy       int
	lost       int64
	oldest     engine.Duration // the oldest held message's age, 0 none
	inbox      []engine.Entry  // the selected customer's emails
	inboxFor   int32
	inboxStale bool           // full-speed play skipped events: reread when it stops
	effects    []engine.Entry // every customer's recent emails
	selectable []int32
	fam        *engine.Panes // a family incident's panes; nil for the queue
	panes      *engine.Panes // what the panes draw: fam, or the queue's
	// the queue's panes were worded at this clock and selection
	panesAt  engine.Time
	panesSel int32
	// parted is when the branch first does something main does not (its
	// fork's knob markers aside); engine.Never on main. A bookmark from
	// then on describes main's run, not this branch's.
	parted    engine.Time
	partedFor chartKey // the branch parted is for: the same across a job's clone
}

// panesFor reports whether the queue's panes were worded for m's clock and
// selection.
func (s *snap) panesFor(m *Model) bool { return s.panesAt == m.at && s.panesSel == m.sel }

// queueCursor is what the queue's panes read besides the world.
func (m *Model) queueCursor() sqs.Cursor {
	return sqs.Cursor{At: m.at, Sel: m.sel, Inbox: m.snap.inbox, Effects: m.snap.effects}
}

// refreshQueuePanes words the queue's panes again when the world, the
// clock or the selection moved (a family's are read in refresh).
func (m *Model) refreshQueuePanes(force bool) {
	s := &m.snap
	if s.fam != nil || !force && s.panes != nil && s.panesFor(m) {
		return
	}
	p := sqs.Panes(m.x.World(), m.queueCursor())
	s.panes, s.panesAt, s.panesSel = &p, m.at, m.sel
}

const (
	recentN  = 200
	listCap  = 1000
	inboxCap = 50
	// inboxScan bounds the events reread for one customer's inbox
	inboxScan = 4096
)

// refresh rereads the explorer. full rereads the timeline from scratch
// (after a jump back or a branch change); otherwise only the events since
// the last refresh are read.
func (m *Model) refresh(full bool) {
	x, w := m.x, m.x.World()
	s := &m.snap
	pos := x.Pos()
	var fresh []engine.Entry
	switch {
	case full || s.br != x.Branch() || pos < s.pos:
		s.recent = x.Events(max(0, pos-recentN), pos)
		s.inboxFor = -2
	case pos-s.pos > x.Every:
		// a long stride forward (full-speed play, a jump): reading every
		// event between would cost more than a frame
		s.recent = x.Events(max(0, pos-recentN), pos)
		if m.play.on {
			s.inboxStale = true
		} else {
			s.inboxFor = -2
		}
	case pos > s.pos:
		fresh = x.Events(s.pos, pos)
		s.recent = append(s.recent, fresh...)
		if len(s.recent) > recentN {
			s.recent = append([]engine.Entry(nil), s.recent[len(s.recent)-recentN:]...)
		}
	}
	if s.br != x.Branch() {
		if k := chartKeyOf(x, x.Branch()); k != s.partedFor || s.partedFor.spec == nil {
			s.parted, s.partedFor = partedFromMain(x, x.Branch()), k
		}
	}
	s.br, s.pos = x.Branch(), pos

	s.fam = nil
	if f := w.Family(); f != nil {
		p := f.Panes(w)
		s.fam, s.panes = &p, &p
	}
	s.busy = 0
	for _, wk := range sqs.Of(w).Workers() {
		if wk.State == sqs.WBusy {
			s.busy++
		}
	}
	s.lost = w.States().Lost
	// OldestAge moves the broker's oldest-message cursor: read here, in
	// Update, so that View changes nothing
	s.oldest = max(0, w.OldestAge())

	s.effects = s.effects[:0]
	for i := len(s.recent) - 1; i >= 0 && len(s.effects) < inboxCap; i-- {
		if s.recent[i].Event.Kind == engine.EvEffect {
			s.effects = append(s.effects, s.recent[i])
		}
	}
	if s.inboxStale && !m.play.on {
		s.inboxFor = -2
	}
	if s.inboxFor != m.sel {
		m.refreshInbox()
	} else {
		for _, e := range fresh {
			if e.Event.Msg == m.sel && e.Event.Kind == engine.EvEffect {
				s.inbox = append(s.inbox, e)
			}
		}
	}

	m.refreshQueuePanes(true)
	s.selectable = append(s.selectable[:0], famSelectable(s.panes)...)
}

// refreshInbox rereads the selected customer's emails up to the cursor.
func (m *Model) refreshInbox() {
	s := &m.snap
	s.inboxFor = m.sel
	s.inboxStale = false
	s.inbox = nil
	if m.sel < 0 || int(m.sel) >= m.x.World().Published() {
		return
	}
	keep := func(e *engine.Entry) bool { return e.Event.Msg == m.sel && e.Event.Kind == engine.EvEffect }
	if pub, ok := m.published(m.sel); ok {
		from := max(m.x.PosAtTime(m.x.Branch(), pub), m.x.Pos()-inboxScan)
		for _, e := range m.x.Events(from, m.x.Pos()) {
			if keep(&e) {
				s.inbox = append(s.inbox, e)
			}
		}
	}
}

// published is when message id was (or will be) published: the world's
// answer, or, for a family's message the world no longer holds, the time
// noted while it did.
func (m *Model) published(id int32) (engine.Time, bool) {
	if id == m.selPub.id && m.selPub.ok {
		if _, held := m.x.World().Msg(id); !held {
			return m.selPub.at, true
		}
	}
	return m.x.World().PublishTime(id)
}
