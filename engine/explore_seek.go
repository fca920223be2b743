package engine

// Goto moves the cursor to pos on the current branch. Seeking is a
// checkpoint restore plus a replay of at most Every events.
func (x *Explorer) Goto(pos int64) {
	if pos < 0 {
		pos = 0
	}
	cur := x.k.w.Pos
	switch {
	case pos == cur:
	case pos > cur && pos-cur <= x.Every:
		// short hops forward: keep stepping the cursor's own world, and
		// the frontier with it so that checkpoints exist to come back to
		for x.k.w.Pos < pos {
			x.extend(x.k.path[x.k.seg], x.k.w.Pos+1)
			if !x.k.step(nil) {
				break
			}
		}
	default:
		x.k = x.walkerAt(x.cur, pos)
	}
	x.w = x.k.w
}

// Step moves the cursor n events (negative: back).
func (x *Explorer) Step(n int64) { x.Goto(x.w.Pos + n) }

// End moves the cursor to the end of the branch, playing it out.
func (x *Explorer) End() {
	x.extend(x.cur, 1<<62)
	x.Goto(x.cur.frontier.Pos)
}

// AtEnd reports whether the cursor is at the branch's end.
func (x *Explorer) AtEnd() bool {
	x.extend(x.cur, x.w.Pos+1)
	return x.cur.done && x.w.Pos >= x.cur.frontier.Pos
}

// PosAtTime is the number of events that happen before t on branch b:
// seeking there shows the moment t, before anything at t has happened.
func (x *Explorer) PosAtTime(b *Branch, t Time) int64 {
	return x.search(b, func(et Time) bool { return et >= t })
}

// PosAfterTime is the number of events that happen at or before t.
func (x *Explorer) PosAfterTime(b *Branch, t Time) int64 {
	return x.search(b, func(et Time) bool { return et > t })
}

// search returns the pos of the first event on b whose time satisfies pred
// (monotone), or the branch's end. Checkpoints are ordered in time, so it
// starts from the last one whose previous event fails pred.
func (x *Explorer) search(b *Branch, pred func(Time) bool) int64 {
	k := x.walkerAt(b, x.searchFrom(b, pred))
	for {
		var hit int64 = -1
		ok := k.step(sinkFunc(func(_ *World, e *Event, _ *Decision) {
			if pred(e.T) {
				hit = e.Pos
			}
		}))
		if hit >= 0 {
			return hit
		}
		if !ok {
			return k.w.Pos
		}
	}
}

// searchFrom is the pos a search for pred on b starts from: the last
// checkpoint whose previous event fails pred, with the branch known that
// far (or to its end).
func (x *Explorer) searchFrom(b *Branch, pred func(Time) bool) int64 {
	from := int64(0)
	path := b.Path()
	for i, c := range path {
		if i+1 < len(path) {
			x.extend(c, path[i+1].ForkPos)
		} else {
			// the target may lie beyond what is known: play on until an
			// event satisfies pred or the branch ends
			for !c.done && !pred(c.frontier.Now) {
				x.extend(c, c.frontier.Pos+x.Every)
			}
		}
		for _, cp := range c.cps {
			if i+1 < len(path) && cp.pos > path[i+1].ForkPos {
				break
			}
			if cp.pos > 0 && !pred(cp.w.Now) {
				from = cp.pos
			}
		}
	}
	return from
}

// SeekTime moves the cursor to the moment t (nothing at t has happened).
func (x *Explorer) SeekTime(t Time) { x.seekWhere(func(et Time) bool { return et >= t }) } // PosAtTime's

// SeekTimeEnd moves the cursor past everything that happens at t.
func (x *Explorer) SeekTimeEnd(t Time) { x.Goto(x.PosAfterTime(x.cur, t)) }

// SeekBookmark moves the cursor to a bookmark's moment: past everything
// at its clock or, when it names an event kind, just past the last event
// of that kind at its clock (past everything, if there is none).
func (x *Explorer) SeekBookmark(b Bookmark) {
	end := x.PosAfterTime(x.cur, b.At)
	if b.Event == "" {
		x.Goto(end)
		return
	}
	start := x.PosAtTime(x.cur, b.At)
	x.Goto(start)
	pos := int64(-1)
	for _, e := range x.Events(start, end) {
		if x.w.KindName(e.Event.Kind) == b.Event && (b.Msg < 0 || e.Event.Msg == b.Msg) {
			pos = e.Event.Pos + 1
		}
	}
	if pos < 0 {
		pos = end
	}
	x.Goto(pos)
}

// Switch moves the cursor to branch b at the same position (clipped).
func (x *Explorer) Switch(b *Branch) {
	pos := x.w.Pos
	x.cur = b
	x.k = x.walkerAt(b, pos)
	x.w = x.k.w
}
