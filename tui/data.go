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
	status     []engine.Gauge // the family's own status figures
	words      engine.Words   // how the family names what it does
	lost       int64
	oldest     engine.Duration // the oldest held message's age, 0 none
	inbox      []engine.Entry  // the selected customer's emails
	inboxFor   int32
	inboxStale bool           // full-speed play skipped events: reread when it stops
	effects    []engine.Entry // every customer's recent emails
	selectable []int32
	panes      []engine.Pane // what the panes draw
	// the panes were worded at this clock and selection
	panesAt  engine.Time
	panesSel int32
	// parted is when the branch first does something main does not (its
	// fork's knob markers aside); engine.Never on main. A bookmark from
	// then on describes main's run, not this branch's.
	parted    engine.Time
	partedFor chartKey // the branch parted is for: the same across a job's clone
	// selPub is when the selected message was published, noted while the
	// world still held it: a family's messages may come from no source
	// schedule, and its story is read from there
	selPub struct {
		id int32
		at engine.Time
		ok bool
	}
	// recovery is the worst a crashed or wedged worker's message has
	// waited so far on the branch (nil: no crash, or not read yet); rec
	// is the branch's scan, read forward as the cursor moves
	recovery *engine.RecoveryFigure
	rec      engine.RecoveryScan
	recFor   *engine.Branch
}

// recoveryCap bounds the events one move reads for the recovery figure:
// a far jump on a long crashing branch reads on over the next moves.
const recoveryCap = 1 << 16

// panesFor reports whether the panes were worded for the clock at and the
// selection sel.
func (s *snap) panesFor(at engine.Time, sel int32) bool { return s.panesAt == at && s.panesSel == sel }

// cursor is what the panes read besides the world, at the clock at with
// sel selected.
func (s *snap) cursor(at engine.Time, sel int32) engine.Cursor {
	return engine.Cursor{At: at, Sel: sel, Inbox: s.inbox, Effects: s.effects}
}

// readPanes words the panes again when the world, the clock at or the
// selection sel moved: a family's rows may age with the displayed clock.
func (s *snap) readPanes(x *engine.Explorer, at engine.Time, sel int32, force bool) {
	if !force && s.panes != nil && s.panesFor(at, sel) {
		return
	}
	w := x.World()
	s.panes, s.panesAt, s.panesSel = w.Family().Panes(w, s.cursor(at, sel)), at, sel
}

const (
	recentN  = 200
	listCap  = 1000
	inboxCap = 50
	// inboxScan bounds the events reread for one customer's inbox
	inboxScan = 4096
)

// refresh rereads the explorer into the snapshot.
func (m *Model) refresh(full bool) { m.snap.read(m.x, m.at, m.sel, m.play.on, full) }

// read rereads x, displayed at the clock at with sel selected, playing or
// not. full rereads the timeline from scratch (after a jump back or a
// branch change); otherwise only the events since the last read are read.
func (s *snap) read(x *engine.Explorer, at engine.Time, sel int32, playing, full bool) {
	w := x.World()
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
		if playing {
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

	s.status = engine.StatusOf(w.Family(), w)
	s.words = engine.WordsOf(w.Family())
	s.lost = w.States().Lost
	// OldestAge moves the broker's oldest-message cursor: read here, in
	// Update, so that View changes nothing
	s.oldest = max(0, w.Truth().OldestAge())
	s.recovery = nil
	if engine.RecoveryWanted(w) { // a world that never crashed reads nothing
		if s.recFor != x.Branch() {
			s.rec, s.recFor = engine.RecoveryScan{}, x.Branch()
		}
		if x.ScanRecovery(x.Branch(), &s.rec, pos, recoveryCap) {
			s.recovery = s.rec.Figure(pos, max(at, w.Now))
		}
	}

	s.effects = s.effects[:0]
	for i := len(s.recent) - 1; i >= 0 && len(s.effects) < inboxCap; i-- {
		if s.recent[i].Event.Kind == engine.EvEffect {
			s.effects = append(s.effects, s.recent[i])
		}
	}
	if s.inboxStale && !playing {
		s.inboxFor = -2
	}
	if s.inboxFor != sel {
		s.readInbox(x, sel)
	} else {
		for _, e := range fresh {
			if e.Event.Msg == sel && e.Event.Kind == engine.EvEffect {
				s.inbox = append(s.inbox, e)
			}
		}
	}

	s.readPanes(x, at, sel, true)
	s.selectable = append(s.selectable[:0], famSelectable(s.panes)...)
}

// readInbox rereads the selected customer's emails up to the cursor.
func (s *snap) readInbox(x *engine.Explorer, sel int32) {
	s.inboxFor = sel
	s.inboxStale = false
	s.inbox = nil
	if sel < 0 || int(sel) >= x.World().Published() {
		return
	}
	keep := func(e *engine.Entry) bool { return e.Event.Msg == sel && e.Event.Kind == engine.EvEffect }
	if pub, ok := s.published(x, sel); ok {
		from := max(x.PosAtTime(x.Branch(), pub), x.Pos()-inboxScan)
		for _, e := range x.Events(from, x.Pos()) {
			if keep(&e) {
				s.inbox = append(s.inbox, e)
			}
		}
	}
}

// published is when message id was (or will be) published: the world's
// answer, or, for a family's message the world no longer holds, the time
// noted while it did.
func (s *snap) published(x *engine.Explorer, id int32) (engine.Time, bool) {
	if id == s.selPub.id && s.selPub.ok {
		if _, held := x.World().Msg(id); !held {
			return s.selPub.at, true
		}
	}
	return x.World().Truth().PublishTime(id)
}

// noteSel notes when message id was published while the world holds it.
func (s *snap) noteSel(x *engine.Explorer, id int32) {
	if mm, ok := x.World().Msg(id); ok {
		s.selPub.id, s.selPub.at, s.selPub.ok = id, mm.Published, true
	}
}
