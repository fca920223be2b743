package hunt

import "inflight/engine"

// found shrinks a counterexample to the fewest forced decisions that
// still break the property, then moves it to the earliest message it
// breaks the property on, and words it.
func (s *searcher) found(res *Result, o outcome) (*Result, error) {
	o = s.shrink(o)
	o = s.earliest(o)
	res.Found = true
	res.Broken = o.broken
	res.Forced = o.forced
	res.Tried = s.tried
	res.Code = s.code(o.forced)
	return res, nil
}

// shrink drops forced decisions one at a time while what remains still
// breaks the property.
func (s *searcher) shrink(o outcome) outcome {
	for len(o.forced) > 1 {
		better := false
		for drop := range o.forced {
			keep := append(append([]Forced(nil), o.forced[:drop]...), o.forced[drop+1:]...)
			if mo, ok := s.breaks(keep); ok {
				o, better = mo, true
				break
			}
		}
		if !better {
			break
		}
	}
	return o
}

// earliest tries what o forces, all on one message, on each earlier
// message in turn (the same faults and decisions, the same deliveries),
// within the budget: the first that breaks the property is the earliest
// moment it can be broken that way.
func (s *searcher) earliest(o outcome) outcome {
	m := o.forced[0].Msg
	for _, f := range o.forced {
		if f.Msg != m || f.Act != nil { // an action names a worker, not a message
			return o
		}
	}
	for e := int32(0); e < m && s.tried < s.o.Budget; e++ {
		moved := make([]Forced, len(o.forced))
		for i, f := range o.forced {
			moved[i] = f
			moved[i].Msg = e
			if f.Fault != nil {
				ft := *f.Fault
				ft.Msg = e
				moved[i].Fault = &ft
			}
		}
		if mo, ok := s.breaks(moved); ok {
			return mo
		}
	}
	return o
}

// breaks plays the branch forcing items and says whether it breaks the
// property, each forced as planned.
func (s *searcher) breaks(items []Forced) (outcome, bool) {
	n, ok := s.rebuild(items)
	if !ok {
		return outcome{}, false
	}
	out := s.play(n, false)
	s.tried++
	return out, out.ok && len(out.broken) > 0
}

// rebuild is the branch forcing items, in the order they happen, forked
// from the base line's checkpoint before the first: a fault is named by
// where it strikes; a decision is found again, in the line forced so
// far, by what it decides about (kind, message, delivery).
func (s *searcher) rebuild(items []Forced) (node, bool) {
	var n node
	if a := items[0]; a.Act != nil {
		// the latest base checkpoint at or before it, else the start
		n.from = &start{w: s.base, pos: 0}
		for _, cp := range s.cps {
			if cp.pos <= a.Pos {
				n.from = cp
			}
		}
		n.force = []choice{forcedChoice(a)}
	}
	for i := range s.decs {
		if n.from != nil {
			break
		}
		if sameChoice(&s.decs[i], items[0], s.points) {
			n = node{from: s.decs[i].cp, force: []choice{forcedChoice(items[0])}}
			if items[0].Fault == nil {
				n.force[0].idx = s.decs[i].index
			}
			break
		}
	}
	if n.from == nil {
		return n, false
	}
	for _, f := range items[1:] {
		if f.Fault != nil || f.Act != nil {
			n.force = append(n.force, forcedChoice(f))
			continue
		}
		out := s.play(n, true)
		idx := int64(-1)
		for i := range out.decs {
			if sameChoice(&out.decs[i], f, s.points) {
				idx = out.decs[i].index
				break
			}
		}
		if idx < 0 {
			return n, false
		}
		n.force = append(n.force, choice{idx: idx, val: f.Value})
	}
	return n, true
}

func sameChoice(d *dec, f Forced, points []engine.FaultPoint) bool {
	if f.Fault != nil {
		return d.point != 0 && *d.fault(points) == *f.Fault
	}
	return d.point == 0 && d.kind.String() == f.Kind && d.msg == f.Msg && d.delivery == f.Delivery
}

func forcedChoice(f Forced) choice {
	if f.Act != nil {
		return choice{act: f.Act, pos: f.Pos}
	}
	if f.Fault != nil {
		return choice{fault: f.Fault}
	}
	return choice{idx: f.Index, val: f.Value}
}

// code is the share code of the branch forcing fs, made as the explorer
// makes it: a fork per forced decision, each of the one before.
func (s *searcher) code(fs []Forced) string {
	x, err := engine.NewExplorer(s.o.Spec, s.o.Seed, s.o.Set)
	if err != nil {
		return ""
	}
	if err := x.ForkPath(s.o.Forks); err != nil { // the hunted branch first
		return ""
	}
	for i, f := range fs {
		x.Goto(f.Pos)
		name := ""
		if i == len(fs)-1 {
			name = s.o.Property.Name
		}
		fo := engine.ForkOptions{Name: name, Pos: f.Pos, At: f.At}
		if f.Act != nil {
			fo.Actions = []engine.Action{*f.Act}
		} else if f.Fault != nil {
			fo.Faults = []engine.Fault{*f.Fault}
		} else {
			fo.Override = &engine.DecisionOverride{Index: f.Index, Value: f.Value}
		}
		if _, err := x.Fork(fo); err != nil {
			return ""
		}
	}
	return x.Code().String()
}
