package engine

// Summary plays branch b to its end and summarises it.
func (x *Explorer) Summary(b *Branch) Summary {
	x.extend(b, 1<<62)
	if b.hash == nil { // a fork that settled at once
		b.hash = x.hashAt(b, b.ForkPos)
	}
	h := restoreHash(marshalHash(b.hash), b.hash.last)
	return b.frontier.Summarize(h.sum())
}

// Divergence is the first event where two branches differ.
type Divergence struct {
	Pos  int64
	A, B *Entry // nil where that branch has already ended
}

// Compare finds where branches a and b first differ. Both are replayed from
// the point their histories part, so the cost is the distance from there.
func (x *Explorer) Compare(a, b *Branch) (Divergence, bool) {
	pa, pb := a.Path(), b.Path()
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	start := int64(1 << 62)
	if i < len(pa) {
		start = pa[i].ForkPos
	}
	if i < len(pb) {
		start = min(start, pb[i].ForkPos)
	}
	if start == 1<<62 {
		return Divergence{}, false // the same branch
	}
	ka, kb := x.walkerAt(a, start), x.walkerAt(b, start)
	for {
		ea, oka := next(ka)
		eb, okb := next(kb)
		if !oka && !okb {
			return Divergence{}, false
		}
		if oka != okb || ea.Event != eb.Event {
			d := Divergence{Pos: max(ka.w.Pos, kb.w.Pos) - 1}
			if oka {
				d.A = &ea
				d.Pos = ea.Event.Pos
			}
			if okb {
				d.B = &eb
				d.Pos = eb.Event.Pos
			}
			return d, true
		}
	}
}

// CompareOptions say how CompareFrom reads two branches.
type CompareOptions struct {
	From  int64                 // the event both are read from
	Limit int64                 // events read on each at most; past it, no answer
	Same  func(a, b Event) bool // whether two events count as the same
}

// CompareFrom reads a and b on from o.From, fork markers passed over, to
// the first pair of events o.Same calls different (or one branch's end).
// ok is false when none differ before both ends or o.Limit.
func (x *Explorer) CompareFrom(a, b *Branch, o CompareOptions) (d Divergence, ok bool) {
	ka, kb := x.walkerAt(a, o.From), x.walkerAt(b, o.From)
	read := func(k *walker) (Entry, bool) {
		var en Entry
		got := false
		sink := sinkFunc(func(w *World, e *Event, d *Decision) {
			if e.Kind != EvKnob {
				en, got = entryOf(w, e, d), true
			}
		})
		for !got {
			if !k.step(sink) {
				return Entry{}, false
			}
		}
		return en, true
	}
	for n := int64(0); n < o.Limit; n++ {
		ea, oka := read(ka)
		eb, okb := read(kb)
		if !oka && !okb {
			return Divergence{}, false
		}
		if oka && okb && o.Same(ea.Event, eb.Event) {
			continue
		}
		d := Divergence{Pos: o.From}
		if oka {
			d.A, d.Pos = &ea, ea.Event.Pos
		}
		if okb {
			d.B = &eb
			if !oka {
				d.Pos = eb.Event.Pos
			}
		}
		return d, true
	}
	return Divergence{}, false
}

func next(k *walker) (Entry, bool) {
	var en Entry
	got := false
	ok := k.step(sinkFunc(func(w *World, e *Event, d *Decision) {
		en = entryOf(w, e, d)
		got = true
	}))
	return en, ok && got
}
