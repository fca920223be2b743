package hunt

import (
	"sort"

	"inflight/engine"
)

// line is a branch being played: its world, its facts, and the forced
// decisions and faults it still has to make.
type line struct {
	s      *searcher
	n      node
	w      *engine.World
	f      *facts
	decs   []choice // the forced decisions, in index order
	k      int      // decs made so far
	faults int      // forced faults not yet fired
	acts   []choice // the actions to take, in event order
	ai     int      // acts taken so far
	out    outcome
	record bool
	passed passes // fault points passed, while recording
	// slab: what recorded decisions' alternatives and fault points are
	// carved from, a block at a time: two allocations a decision made the
	// collector the hunt's largest cost
	slab slab
	// redriven: the DLQ was redriven after the branch's fork (judged from it)
	redriven bool
}

// open forks n from its checkpoint, its forced faults and first forced
// decision armed.
func (s *searcher) open(n node, record bool) *line {
	s.mu.Lock()
	w := n.from.w.Clone()
	s.mu.Unlock()
	l := &line{s: s, n: n, w: w, record: record, out: outcome{ok: true}, redriven: n.from.redriven, passed: passes{pos: -1}}
	if s.facts {
		if n.from.facts != nil {
			l.f = n.from.facts.clone()
		} else {
			l.f = s.factsAt(n.from.pos)
		}
	}
	l.out.forced = append(l.out.forced, n.prefix...)
	if record {
		// sized from the base line's decisions past the fork, which a
		// branch's are close to: growing by doubling copied each one
		// several times
		k := len(s.decs) - sort.Search(len(s.decs), func(i int) bool { return s.decs[i].pos >= n.from.pos })
		l.out.decs = make([]dec, 0, k+k/8+16)
	}
	var faults []engine.Fault
	for _, c := range n.force {
		if c.act != nil {
			l.acts = append(l.acts, c)
		} else if c.fault != nil {
			faults = append(faults, *c.fault)
		} else {
			l.decs = append(l.decs, c)
		}
	}
	if err := w.Forcing().Faults(faults...); err != nil {
		l.out.ok = false
	}
	l.faults = len(faults)
	if len(faults) > 0 || record {
		w.Forcing().Observe(l.fault)
	}
	if len(l.decs) > 0 {
		w.Forcing().Override(engine.DecisionOverride{Index: l.decs[0].idx, Value: l.decs[0].val})
	}
	return l
}

// settled says every forced decision and fault has been made: what the
// line does from here is its own, and may be forced by a child.
func (l *line) settled() bool { return l.k == len(l.decs) && l.faults == 0 && l.ai == len(l.acts) }

// fault watches the fault points the line passes: a forced one firing,
// or, once the line is settled, one a child may force.
func (l *line) fault(p engine.FaultPass) {
	switch {
	case p.Forced:
		l.faults--
		f := p.Fault
		l.out.forced = append(l.out.forced, Forced{Index: -1, Pos: p.Pos, At: p.T, Clock: p.T.Short(), Kind: "fault",
			Msg: p.Msg, Delivery: p.Delivery, Value: 1, Words: l.w.Forcing().Words(f, int(p.Actor)), Fault: &f, FaultCode: f.String()})
	case l.record && l.settled() && p.T >= l.s.o.From && l.s.o.Faults:
		l.out.decs = append(l.out.decs, l.s.faultDec(p))
	}
	if l.record {
		l.passed.add(p.Pos, p.Msg)
	}
}

// Event is the line's sink: facts, and each forced decision checked as it
// is made and the next one armed.
func (l *line) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	if l.f != nil && (e.Msg >= 0 || e.Kind == engine.EvRedrive) {
		l.f.event(e)
	}
	if e.Kind == engine.EvRedrive && l.s.judge != nil && e.Pos >= l.s.judge.from {
		l.redriven = true
	}
	if d == nil {
		return
	}
	switch {
	case l.k < len(l.decs) && d.Index == l.decs[l.k].idx:
		if !d.Forced || d.Value != l.decs[l.k].val {
			l.out.ok = false
		}
		l.out.forced = append(l.out.forced, l.s.forced(w, d))
		l.k++
		if l.k < len(l.decs) {
			w.Forcing().Override(engine.DecisionOverride{Index: l.decs[l.k].idx, Value: l.decs[l.k].val})
		}
	case l.record && l.settled() && d.T >= l.s.o.From && !l.s.faultsOwn(d, &l.passed):
		if alt := l.s.alternativesIn(d, &l.slab); len(alt) > 0 {
			l.out.decs = append(l.out.decs, decOf(d, alt))
		}
	}
}

// step plays one event; false at the end (or past the events cap).
func (l *line) step() bool { return l.w.Step(l) && l.w.Pos <= l.s.maxEv }

// stepActs is step on a line that may take actions: those due at its
// event first. Kept apart so that step stays small enough to inline.
func (l *line) stepActs() bool {
	if l.ai < len(l.acts) {
		l.act()
	}
	return l.step()
}

// play forks n from its checkpoint and plays it to the end; record keeps
// the forcible decisions made after its last forced one.
func (s *searcher) play(n node, record bool) outcome {
	l := s.open(n, record)
	if len(l.acts) == 0 {
		for l.step() {
		}
	} else {
		for l.stepActs() {
		}
		if l.w.ActionRefused() != nil {
			l.out.ok = false // an action its target could not take then: not taken
		}
	}
	if !l.settled() {
		l.out.ok = false
	}
	l.out.sum = l.w.Summarize("")
	l.out.broken = verdict(l.w, s.o.Property, &l.out.sum, l.f, s.judge, l.redriven)
	l.w.Discard() // played out: its leaves go to the next branch's copies
	return l.out
}

// expand is p's children on a message p already forces (same) or on
// the others: one more forced decision or fault each, forked from a
// checkpoint of p's own line just before it.
func (s *searcher) expand(p node, o *outcome, same bool) []node {
	if o.ok && (o.dropped || o.sameOnly && !same) {
		again := *o
		again.decs, again.sameOnly = s.play(p, true).decs, false
		o = &again
		if s.o.replays != nil {
			*s.o.replays++
		}
	}
	if !o.ok || len(o.decs) == 0 {
		return nil
	}
	var which []int
	for i := range o.decs {
		if o.forces(o.decs[i].msg) == same {
			which = append(which, i)
		}
	}
	if len(which) == 0 {
		return nil
	}
	l := s.open(p, false)
	var kids []node
	var prev *start
	lastAct := int64(-1) // the moment action children were last made at
	// the line's checkpoints are spaced to fit the budget's share for
	// them, as the base line's are; a kid forks from the latest before
	// its decision, which is past every decision p forces
	sp := s.mem.spacing(&s.mem.line, max(s.baseLen, o.last()))
	n := 0
	for _, i := range which {
		n += len(o.decs[i].alt)
	}
	if sp.extra(int64(n) * nodeBytes); sp.err != nil { // the children and their outcomes
		s.err = sp.err
		return nil
	}
	for _, i := range which {
		d := &o.decs[i]
		for l.w.Pos < d.pos && l.stepActs() {
		}
		if l.ai < len(l.acts) {
			l.act() // one due here belongs in the checkpoint
		}
		if prev == nil || prev.pos != l.w.Pos {
			last := int64(-1)
			if prev != nil {
				last = prev.pos
			}
			if sp.take(l.w, last) {
				prev = &start{w: l.w.Clone(), pos: l.w.Pos, redriven: l.redriven}
				if l.f != nil {
					prev.facts = l.f.clone()
					sp.extra(l.f.bytes())
				}
			}
		}
		if s.err = sp.err; s.err != nil {
			return nil
		}
		for _, v := range d.alt {
			kids = append(kids, node{from: prev, root: p.root, prefix: o.forced, force: []choice{d.choice(v, l.s.points)}})
		}
		if !same && l.w.Pos != lastAct {
			lastAct = l.w.Pos
			ak := s.actionKids(l.w, l.w.Pos, prev, p.root, o.forced)
			if sp.extra(int64(len(ak)) * nodeBytes); sp.err != nil {
				s.err = sp.err
				return nil
			}
			kids = append(kids, ak...)
		}
	}
	return kids
}

func (s *searcher) forced(w *engine.World, d *engine.Decision) Forced {
	return Forced{Index: d.Index, Pos: d.Pos, At: d.T, Clock: d.T.Short(), Kind: d.Kind.String(),
		Msg: d.Msg, Delivery: d.Delivery, Value: d.Value, Words: w.DecisionText(d)}
}
