package engine

import (
	"encoding"
	"sort"
)

func marshalHash(h *hashSink) []byte {
	h.flush()
	st, err := h.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err) // sha256 always marshals
	}
	return st
}

func restoreHash(st []byte, last Time) *hashSink {
	h := newHashSink(nil)
	if err := h.h.(encoding.BinaryUnmarshaler).UnmarshalBinary(st); err != nil {
		panic(err)
	}
	h.last = last
	return h
}

// extend plays the branch's frontier forward until it reaches pos (or
// settles), checkpointing every Every events.
func (x *Explorer) extend(b *Branch, pos int64) {
	if b.done || b.frontier.Pos >= pos {
		return
	}
	if b.hash == nil {
		b.hash = x.hashAt(b, b.ForkPos)
	}
	sink := &frontierSink{hash: b.hash, series: &b.series, times: &b.times}
	f := b.frontier
	for f.Pos < pos {
		x.tick()
		if bu := x.acct.Limits; x.meter != nil && bu.Events > 0 && f.Pos >= bu.Events {
			panic(abort{&BudgetError{What: "events", Need: f.Pos + 1, Limit: bu.Events, Raise: bu.EventsFlag, During: true}})
		}
		if !f.Step(sink) {
			b.done = true
			break
		}
		if f.Pos%x.Every == 0 {
			own := f.ownBytes()
			b.cps = append(b.cps, checkpoint{pos: f.Pos, w: f.Clone(), hstate: marshalHash(b.hash), hlast: b.hash.last})
			x.account(own)
		}
	}
}

type frontierSink struct {
	hash   *hashSink
	series *Series
	times  *timeIndex
}

func (s *frontierSink) Event(w *World, e *Event, d *Decision) {
	s.hash.Event(w, e, d)
	s.series.add(w)
	s.times.note(e)
}

// hashAt rebuilds the trace hash's state at pos on branch b.
func (x *Explorer) hashAt(b *Branch, pos int64) *hashSink {
	for pos < b.ForkPos || (b.Parent != nil && pos == b.ForkPos && b.cps[0].hstate == nil) {
		if pos == b.ForkPos && b.Parent == nil {
			break
		}
		b = b.Parent
	}
	cp := b.checkpointBefore(pos)
	var h *hashSink
	if cp.hstate == nil {
		// b's fork state, hashed by nobody yet: the line so far is the
		// parent's up to the fork point, not past it
		h = x.hashAt(b.Parent, b.ForkPos)
	} else {
		h = restoreHash(cp.hstate, cp.hlast)
	}
	w := b.clone(cp)
	for w.Pos < pos && w.Step(h) {
		x.tick()
	}
	return h
}

// clone copies checkpoint cp of b into a world of the caller's own. It
// only reads cp, so an explorer and its clones may do it at once.
func (b *Branch) clone(cp checkpoint) *World { return cp.w.Clone() }

func (b *Branch) checkpointBefore(pos int64) checkpoint {
	i := sort.Search(len(b.cps), func(i int) bool { return b.cps[i].pos > pos }) - 1
	if i < 0 {
		i = 0
	}
	return b.cps[i]
}

// walker replays a branch's line of history: its ancestors' events up to
// each fork point, then the forked state's own. A world stepped past a fork
// point would continue the parent's line, so the walker swaps in the
// child's fork state there.
type walker struct {
	path []*Branch
	seg  int
	w    *World
	x    *Explorer // metered through; nil: not metered
}

// walkerAt returns a walker whose private world is at pos on b (clipped to
// the branch's end).
func (x *Explorer) walkerAt(b *Branch, pos int64) *walker {
	path := b.Path()
	seg := owner(path, pos)
	own := path[seg]
	x.extend(own, pos)
	if pos > own.frontier.Pos {
		pos = own.frontier.Pos
	}
	cp := own.checkpointBefore(pos)
	k := &walker{path: path, seg: seg, w: own.clone(cp), x: x}
	for k.w.Pos < pos && k.w.Step(nil) {
		x.tick()
	}
	return k
}

func (k *walker) step(sink Sink) bool {
	// a loop: a fork of a fork may branch at the very same event
	for k.seg+1 < len(k.path) && k.w.Pos == k.path[k.seg+1].ForkPos {
		k.seg++
		k.w = k.path[k.seg].clone(k.path[k.seg].cps[0])
	}
	if k.x != nil {
		k.x.tick()
	}
	return k.w.Step(sink)
}

// owner is the segment of path whose state a world at pos belongs to: the
// deepest branch forked at or before pos.
func owner(path []*Branch, pos int64) int {
	seg := len(path) - 1
	for seg > 0 && pos < path[seg].ForkPos {
		seg--
	}
	return seg
}

func (x *Explorer) stateAt(b *Branch, pos int64) *World { return x.walkerAt(b, pos).w }

// WorldAt is a world of its own at event pos of branch b (clipped to the
// branch's end), played from the nearest checkpoint: the cheap start of a
// branch nobody needs to see, which a search forces faults and decisions
// on (World.ForceFaults, ForceDecisions) and plays to its end. Like every
// Explorer method it is for one goroutine at a time; the world it returns
// is independent of the explorer and may run on any goroutine. For many
// branches from one moment, take it once and Clone it for each: a clone
// costs a copy of the event queue, not a replay from a checkpoint. Clone
// writes a world that has been stepped (see World.Clone), so goroutines
// sharing one take their clones under a lock, or share a fresh clone of
// it, which cloning only reads.
func (x *Explorer) WorldAt(b *Branch, pos int64) *World { return x.stateAt(b, pos) }
