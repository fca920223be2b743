package tui

import (
	"inflight/engine"
)

// snap is what the panes draw, read from the explorer after every move so
// that View does no engine work: replaying events happens in Update.
type snap struct {
	br         *engine.Branch
	pos        int64
	recent     []engine.Entry // events before the cursor, oldest first
	queue      []int32        // visible ids in queue order (capped)
	delayed    []int32        // handed back with a delay
	leased     []int32        // leased to a worker
	stale      []int          // busy workers whose lease has passed to another
	dead       []engine.DeadLetter
	busy       int
	lost       int64
	oldest     engine.Duration // the oldest held message's age, 0 none
	inbox      []engine.Entry  // the selected customer's emails
	inboxFor   int32
	inboxStale bool           // full-speed play skipped events: reread when it stops
	effects    []engine.Entry // every customer's recent emails
	selectable []int32
	fam        *engine.Panes // a family incident's panes; nil for the queue
	// parted is when the branch first does something main does not (its
	// fork's knob markers aside); engine.Never on main. A bookmark from
	// then on describes main's run, not this branch's.
	parted    engine.Time
	partedFor chartKey // the branch parted is for: the same across a job's clone
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
		s.fam = &p
	}
	s.queue = w.Queue(listCap)
	s.delayed, s.leased, s.stale = s.delayed[:0], s.leased[:0], s.stale[:0]
	for _, id := range w.Leased() {
		if mm, ok := w.Msg(id); ok && mm.Deferred {
			s.delayed = append(s.delayed, id)
		} else {
			s.leased = append(s.leased, id)
		}
	}
	s.busy = 0
	for i, wk := range w.Workers() {
		if wk.State != engine.WBusy {
			continue
		}
		s.busy++
		if mm, ok := w.Msg(wk.Msg); !ok || mm.Holder != int16(i) || mm.Status != engine.StInFlight {
			s.stale = append(s.stale, i)
		}
	}
	s.dead = w.DeadLetters(listCap)
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

	s.selectable = s.selectable[:0]
	if s.fam != nil {
		s.selectable = append(s.selectable, famSelectable(s.fam)...)
		return
	}
	add := func(ids []int32, n int) {
		for i := 0; i < len(ids) && i < n; i++ {
			s.selectable = append(s.selectable, ids[i])
		}
	}
	add(s.queue, 100)
	add(s.delayed, 100)
	add(s.leased, 100)
	for _, i := range s.stale {
		s.selectable = append(s.selectable, w.Workers()[i].Msg)
	}
	for i := 0; i < len(s.dead) && i < 100; i++ {
		s.selectable = append(s.selectable, s.dead[i].Msg)
	}
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
