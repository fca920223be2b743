package engine

import "fmt"

// A headless run's fork partway through a clock (`run --at '19:52:00
// #181'`): the moment as the explorer's `/` takes it, the run's first
// AtPos events behind the fork. The world plays to there, then forks as a
// share code's fork at that event does (Forcing.Fork), so the run's code
// replays it and the explorer opens it at the same place.

// MomentError is a moment the run does not have: a count past its end, or
// a count and a clock that disagree.
type MomentError struct{ msg string }

func (e *MomentError) Error() string { return e.msg }

// forkMidClock plays w into sink up to o.AtPos events and forks there.
func forkMidClock(w *World, sink Sink, o RunOptions) (ForkPlace, error) {
	m := ForkMoment{At: o.At, Pos: o.AtPos}
	if err := (budgetRun{w, sink, o.Budget}).upTo(o.AtPos - w.Pos); err != nil {
		return ForkPlace{}, err
	}
	if w.Pos != o.AtPos {
		return ForkPlace{}, &MomentError{fmt.Sprintf("%s: the run ends at event %d", m, w.Pos)}
	}
	late := w.Pos > 0 && w.Stats.LastEvent > o.At
	if t, ok := nextEventAt(w); late || ok && t < o.At {
		// the count and the clock disagree: say which counts the clock has
		lo, hi := clockSpan(w.spec, o)
		return ForkPlace{}, &MomentError{fmt.Sprintf("%s: after %d events the run's clock is not %s (a fork there stands after #%d to #%d)", m, w.Pos, o.At.Short(), lo, hi)}
	}
	if w.Settled() && len(o.AtDo) == 0 {
		return ForkPlace{}, &MomentError{fmt.Sprintf("%s: the run has ended there, so a change has nothing left to act on", m)}
	}
	// named as a replay of the code names it (Code.replay)
	name := ForkMoment{At: max(o.At, w.Now), Pos: -1}
	if w.Pos > 0 && w.Stats.LastEvent >= name.At {
		name.Pos = w.Pos
	} else {
		name.At = o.At
	}
	label := w.Forcing().labelActs(o.AtSet, nil, nil, actionWords(w, o.AtDo), name)
	if err := w.Forcing().Fork(CodeFork{Pos: o.AtPos, At: o.At, Set: o.AtSet, Actions: o.AtDo}); err != nil {
		return ForkPlace{}, &MomentError{err.Error()} // refused there: bad input
	}
	return ForkPlace{Name: label, Moment: name.String(), Pos: o.AtPos}, nil
}

// nextEventAt is the clock of the event w emits next, played on a clone;
// ok is false when w emits no more.
func nextEventAt(w *World) (Time, bool) {
	c := w.Clone()
	defer c.Discard()
	var t Time
	seen := false
	for !seen && c.Step(sinkFunc(func(_ *World, e *Event, _ *Decision) {
		if !seen {
			t, seen = e.T, true
		}
	})) {
	}
	return t, seen
}

// checkMidClock refuses a moment the run does not have before a run
// writes any of its trace: a pass that writes nothing, to the moment.
func checkMidClock(spec *Spec, o RunOptions) error {
	w, err := NewWorld(spec, o.Seed, o.Set)
	if err != nil {
		return err
	}
	defer w.Discard()
	_, err = forkMidClock(w, sinkFunc(func(*World, *Event, *Decision) {}), o)
	return err
}

// clockSpan is the counts of events a fork at the clock o.At may stand
// after: from the first event at or after it to the first event after it
// (as the explorer's PosAtTime and PosAfterTime), on a fresh world.
func clockSpan(spec *Spec, o RunOptions) (lo, hi int64) {
	w, err := NewWorld(spec, o.Seed, o.Set)
	if err != nil {
		return 0, 0
	}
	defer w.Discard()
	lo, hi = -1, -1
	limit := o.Budget.Limit()
	for hi < 0 && (limit < 0 || w.Pos < limit) && w.Step(sinkFunc(func(_ *World, e *Event, _ *Decision) {
		if lo < 0 && e.T >= o.At {
			lo = e.Pos
		}
		if hi < 0 && e.T > o.At {
			hi = e.Pos
		}
	})) {
	}
	if lo < 0 {
		lo = w.Pos
	}
	if hi < 0 {
		hi = w.Pos
	}
	return lo, hi
}
