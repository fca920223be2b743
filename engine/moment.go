package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// ForkMoment is where a fork stands, exactly, as its name writes it.
// Several events often share a clock (19:52:00 publishes order 14,
// delivers it and sends its email), so a clock alone does not say which
// side of them a fork is on. A fork before every event at its clock is
// written by the clock alone, "@19:52:00": the moment `/19:52` and a
// bookmark fork at, and the one a knob change "from 19:52:00" means. A
// fork after some of them adds the events behind it, as a share code's
// cursor counts them: "@19:52:00 #181" stands after the run's first 181
// events, the last of which happened at 19:52:00.
type ForkMoment struct {
	At  Time
	Pos int64 // events behind the fork; -1: before every event at At
}

// String is the moment as a name ends: "@19:52:00" or "@19:52:00 #181".
func (m ForkMoment) String() string {
	if m.Pos < 0 {
		return "@" + m.At.Short()
	}
	return fmt.Sprintf("@%s #%d", m.At.Short(), m.Pos)
}

// ParseForkMoment reads a moment as String writes it, with or without
// the '@': "19:52:00", "@19:52:00 #181".
func ParseForkMoment(s string) (ForkMoment, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "@")
	clock, pos, hasPos := strings.Cut(s, "#")
	t, err := ParseClock(clock)
	if err != nil {
		return ForkMoment{}, err
	}
	m := ForkMoment{At: t, Pos: -1}
	if hasPos {
		n, err := strconv.ParseInt(strings.TrimSpace(pos), 10, 64)
		if err != nil || n < 0 || len(pos) > maxCodeField {
			return ForkMoment{}, fmt.Errorf("moment %q: after '#' comes an event count, like #181", clip(s))
		}
		m.Pos = n
	}
	return m, nil
}

// MomentAt is the moment of a fork of b at event pos whose changes apply
// from the clock at (at least the state's own clock, as Fork has it).
func (x *Explorer) MomentAt(b *Branch, pos int64, at Time) ForkMoment {
	if pos > 0 && x.PosAtTime(b, at) < pos {
		// an event at or after at is behind the fork, and the clock
		// alone would put the fork before it; the changes apply from
		// the fork's own clock on (Fork), if that is later than at
		if x.PosAfterTime(b, at) < pos {
			at = max(at, x.stateAt(b, pos).Now)
		}
		return ForkMoment{At: at, Pos: pos}
	}
	return ForkMoment{At: at, Pos: -1}
}

// PosOfMoment is the event position on b that a moment names: its count,
// or the first event at or after its clock.
func (x *Explorer) PosOfMoment(b *Branch, m ForkMoment) int64 {
	if m.Pos >= 0 {
		return m.Pos
	}
	return x.PosAtTime(b, m.At)
}

// Moment is where branch b forked from its parent; main's is its start.
func (b *Branch) Moment() ForkMoment {
	if b.forkMid {
		return ForkMoment{At: b.ForkAt, Pos: b.ForkPos}
	}
	return ForkMoment{At: b.ForkAt, Pos: -1}
}

// ForkNameAt is ForkName for a fork at the moment m.
func ForkNameAt(set []Setting, o *DecisionOverride, m ForkMoment) string {
	return forkName(nil, set, o, nil, m)
}

// Words are what branch b's fork changes, each in words: its knob
// settings, its forced decision with the value forced and the one it had,
// its forced faults as the lesson words them. Main changes nothing.
func (b *Branch) Words() []string { return b.words }

// forkWords are Words for a fork of w's state; d is the decision o
// forces, as the run would have made it.
func forkWords(w *World, set []Setting, o *DecisionOverride, d *Decision, faults []Fault) []string {
	var out []string
	for _, s := range set {
		out = append(out, s.Knob+"="+s.Value)
	}
	if o != nil {
		out = append(out, overrideWords(w, *o, d))
	}
	for _, f := range faults {
		out = append(out, w.Forcing().Words(f, -1))
	}
	return out
}

// overrideWords is a forced decision as a reader follows it: what was
// decided, the value forced and the one the run took.
func overrideWords(w *World, o DecisionOverride, d *Decision) string {
	if d == nil {
		return fmt.Sprintf("decision %d forced to %d", o.Index, o.Value)
	}
	vals, labels := w.DecisionChoices(d)
	label := func(v int64) string {
		for i, x := range vals {
			if x == v && i < len(labels) && labels[i] != "" {
				return labels[i]
			}
		}
		if d.Kind == DecLatency {
			return FormatSeconds(Duration(v))
		}
		return strconv.FormatInt(v, 10)
	}
	what, _, _ := strings.Cut(w.DecisionText(d), ": ") // "provider latency, order 14, delivery 1"
	return fmt.Sprintf("%s forced to %s (it was %s)", what, label(o.Value), label(d.Value))
}

// ForkPlace is one fork of a headless run (run --at, run --code) and
// where it stands exactly, as the explorer names it.
type ForkPlace struct {
	Name   string `json:"name"`
	Moment string `json:"moment"` // "@19:52:00" (before every event at that clock) or "@19:52:00 #181"
	Pos    int64  `json:"pos"`    // events behind the fork: its share code's p<pos>
}

// knobSpy notes the event that applies a fork at a clock's knob changes:
// the events behind it are the fork's place.
type knobSpy struct {
	next Sink
	at   Time
	pos  int64 // -1 until seen
}

func (s *knobSpy) Event(w *World, e *Event, d *Decision) {
	if s.pos < 0 && (e.Kind == EvKnob || w.acting) && e.T >= s.at {
		s.pos = e.Pos
	}
	s.next.Event(w, e, d)
}

// clockPlace is the place of a fork at the clock at, changing set, once
// spy has watched the run.
func clockPlace(set []Setting, acts []string, at Time, spy *knobSpy) []ForkPlace {
	m := ForkMoment{At: at, Pos: -1}
	return []ForkPlace{{Name: (*Forcing)(nil).labelActs(set, nil, nil, acts, m), Moment: m.String(), Pos: spy.pos}}
}

// ClockEvents are the events of branch b at the clock at, the first of
// them event lo (lo is where the clock's events would start when there
// are none): one replay from a checkpoint, for a screen that says which
// of them a moment stands before.
func (x *Explorer) ClockEvents(b *Branch, at Time) (lo int64, evs []Entry) {
	after := func(t Time) bool { return t >= at }
	k := x.walkerAt(b, x.searchFrom(b, after))
	lo = -1
	for {
		past := false
		ok := k.step(sinkFunc(func(w *World, e *Event, d *Decision) {
			switch {
			case e.T > at:
				past = true
			case e.T == at:
				evs = append(evs, entryOf(w, e, d))
			}
			if lo < 0 && e.T >= at {
				lo = e.Pos
			}
		}))
		if past || !ok {
			break
		}
	}
	if lo < 0 {
		lo = k.w.Pos
	}
	return lo, evs
}
