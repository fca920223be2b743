package engine

// Summary plays branch b to its end and summarises it.
func (x *Explorer) Summary(b *Branch) Summary {
	x.extend(b, 1<<62)
	if b.hash == nil { // a fork that settled at once
		b.hash = x.hashAt(b, b.ForkPos)
	}
	h := restoreHash(marshalHash(b.hash), b.hash.last)
	s := b.frontier.Summarize(h.sum())
	s.WorstRecovery = x.RecoveryOf(b) // nil, reading nothing, without a crash
	return s
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

// Since is what a branch did after event From (its fork's moment, At):
// the summary's figures counted from there on, so that a total made
// mostly before a fork is not read as the fork's doing.
type Since struct {
	From             int64   `json:"from_event"` // the events counted are From on
	At               string  `json:"from"`       // the fork's clock
	Messages         int64   `json:"messages"`
	Deliveries       int64   `json:"deliveries"`
	Effects          int64   `json:"effects"`
	DuplicateEffects int64   `json:"duplicate_effects"`
	DeadLettered     int64   `json:"dead_lettered"` // moves into the DLQ, not its size
	Lost             int64   `json:"lost"`          // lost at the end less lost at the fork
	LateAcksRefused  int64   `json:"late_acks_refused"`
	MaxOldestAgeS    float64 `json:"max_oldest_age_s"` // the oldest held message's age, at its most from the fork on
}

// SinceFrom plays branch b from event pos to its end and counts what
// happened from there on: the counters' growth, and the oldest age as the
// summary reads it (the oldest message's age as it leaves, and at the
// end) over the moments from pos on. From event 0 every figure equals
// the summary's.
func (x *Explorer) SinceFrom(b *Branch, pos int64) Since {
	k := x.walkerAt(b, pos)
	w := k.w
	s0, lost0 := w.Stats, w.States().Lost
	out := Since{From: w.Pos, At: w.Now.Short()}
	// the walker's world is its own: its running maximum restarts here,
	// and carries over where the walk crosses into a fork's own line
	w.Stats.MaxOldestAge = 0
	for {
		for k.seg+1 < len(k.path) && k.w.Pos == k.path[k.seg+1].ForkPos {
			m := k.w.Stats.MaxOldestAge
			k.seg++
			k.w = k.path[k.seg].clone(k.path[k.seg].cps[0])
			k.w.Stats.MaxOldestAge = m
		}
		x.tick()
		if !k.w.Step(nil) {
			break
		}
	}
	w = k.w
	oldest := w.Stats.MaxOldestAge
	if p, ok := w.truth.oldestPublished(); ok {
		oldest = max(oldest, w.Stats.LastEvent-p)
	}
	out.Messages = w.Stats.Published - s0.Published
	out.Deliveries = w.Stats.Deliveries - s0.Deliveries
	out.Effects = w.Stats.Effects - s0.Effects
	out.DuplicateEffects = w.Stats.Duplicates - s0.Duplicates
	out.DeadLettered = w.Stats.DLQTotal - s0.DLQTotal
	out.Lost = w.States().Lost - lost0
	out.LateAcksRefused = w.Stats.LateRefused - s0.LateRefused
	out.MaxOldestAgeS = oldest.Seconds()
	return out
}

// PartPos is the event where the histories of a and b part: the fork
// point of the first branch on one path and not the other, and that
// fork's clock. ok is false for one branch compared with itself.
func PartPos(a, b *Branch) (pos int64, at Time, ok bool) {
	pa, pb := a.Path(), b.Path()
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	pos = 1 << 62
	for _, p := range [][]*Branch{pa, pb} {
		if i < len(p) && p[i].ForkPos < pos {
			pos, at, ok = p[i].ForkPos, p[i].ForkAt, true
		}
	}
	return pos, at, ok
}

// Comparison is two branches side by side: each played to its end, each
// counted from the moment they part, and where they first differ.
type Comparison struct {
	A, B           Summary
	From           int64 // the event their histories part at
	At             Time  // its fork's clock
	SinceA, SinceB Since
	Div            Divergence
	Parted         bool // Div is set: they differ somewhere
}

// CompareBranches plays a and b to their ends and compares them: the
// totals, the figures since their histories part, and the first event
// that differs, a fork's knob marker passed over. Two branches that never part (one compared with itself)
// have their figures since event 0.
func (x *Explorer) CompareBranches(a, b *Branch) Comparison {
	c := Comparison{A: x.Summary(a), B: x.Summary(b)}
	pos, at, ok := PartPos(a, b)
	if !ok {
		pos, at = 0, x.Spec.Start
	}
	c.From, c.At = pos, at
	c.SinceA, c.SinceB = x.SinceFrom(a, pos), x.SinceFrom(b, pos)
	c.SinceA.At, c.SinceB.At = at.Short(), at.Short()
	if ok {
		c.Div, c.Parted = x.Compare(a, b)
		c.Div = x.pastKnobs(a, b, c.Div)
	}
	return c
}

// pastKnobsCap bounds the events pastKnobs reads on each branch.
const pastKnobsCap = 1 << 21

// pastKnobs is the first divergence that is not a fork's own knob
// marker ("from here on: late_ack=accept"): what the knob changed, the
// refused ack that becomes an accepted one. If the branches never differ
// again within pastKnobsCap events, d stands.
func (x *Explorer) pastKnobs(a, b *Branch, d Divergence) Divergence {
	knob := func(e *Entry) bool { return e != nil && e.Event.Kind == EvKnob }
	if !knob(d.A) && !knob(d.B) {
		return d
	}
	same := func(a, b Event) bool {
		a.Pos, b.Pos = 0, 0
		return a == b
	}
	if e, ok := x.CompareFrom(a, b, CompareOptions{From: d.Pos, Limit: pastKnobsCap, Same: same}); ok {
		return e
	}
	return d
}
