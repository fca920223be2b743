package engine

import (
	"fmt"
	"slices"
)

// ForkOptions say what a fork changes.
type ForkOptions struct {
	Name     string
	Pos      int64 // the branch point: the fork's state is the parent's at Pos
	At       Time  // when the knob changes apply (not before the state's clock)
	Set      []Setting
	Override *DecisionOverride
	Faults   []Fault  // faults to force (World.ForceFaults)
	Actions  []Action // operator actions taken at the fork's moment
}

// Fork makes a branch of the current one and moves the cursor onto it, at
// the fork point. It costs one clone of the state at Pos.
func (x *Explorer) Fork(o ForkOptions) (*Branch, error) {
	// The parent is the branch whose state the moment belongs to: on a
	// fork, a moment before its fork point belongs to an ancestor.
	k := x.k
	if o.Pos != x.w.Pos || owner(k.path, o.Pos) != k.seg {
		k = x.walkerAt(x.cur, o.Pos)
		if k.w.Pos != o.Pos {
			return nil, fmt.Errorf("fork at event %d: the branch ends at event %d", o.Pos, k.w.Pos)
		}
	}
	parent := k.path[k.seg]
	w := k.w.Clone()
	if err := w.Forcing().Faults(o.Faults...); err != nil {
		return nil, fmt.Errorf("fork at event %d: %w", o.Pos, err)
	}
	if err := w.CheckActionsAt(o.At, o.Actions); err != nil {
		return nil, fmt.Errorf("fork at event %d: %w", o.Pos, err)
	}
	if w.Settled() && o.Override == nil && len(o.Actions) == 0 {
		return nil, fmt.Errorf("fork at event %d: the run has ended there, so a change has nothing left to act on", o.Pos)
	}
	// the parent's line must be known (and hashed) up to the fork point
	for _, c := range parent.Path() {
		x.extend(c, o.Pos)
	}
	// words before the actions act: what they do on the fork's state,
	// before its knobs are queued, as a share code's replay names it
	acts := actionWords(w, o.Actions)
	if len(o.Set) > 0 {
		if err := w.ScheduleKnobs(max(o.At, w.Now), o.Set); err != nil {
			return nil, err
		}
	}
	if err := w.ScheduleActions(max(o.At, w.Now), o.Actions); err != nil {
		return nil, err
	}
	if err := probeActions(w, 1<<14); err != nil {
		return nil, fmt.Errorf("fork at event %d: %w", o.Pos, err)
	}
	var dec *Decision
	if o.Override != nil {
		d, err := checkOverride(w, *o.Override)
		if err != nil {
			return nil, fmt.Errorf("fork at event %d: %w", o.Pos, err)
		}
		dec = d
		w.Forcing().Override(*o.Override)
	}
	if err := x.budgetFits(w, x.eventsPerMessage(parent)); err != nil {
		return nil, err
	}
	at := max(o.At, w.Now)
	// the fork stands after an event at its own clock: its moment says so
	mid := w.Pos > 0 && w.Stats.LastEvent >= at
	b := &Branch{ID: x.nextID, Name: o.Name, Parent: parent, ForkPos: o.Pos, ForkAt: at, forkMid: mid,
		Changes: append([]Setting(nil), o.Set...), Override: o.Override, Faults: slices.Clone(o.Faults), frontier: w.Clone(),
		Actions: slices.Clone(o.Actions), actWords: acts,
		words: append(forkWords(w, o.Set, o.Override, dec, o.Faults), acts...)}
	switch {
	case b.Name == "" && (len(o.Faults) > 0 || len(acts) > 0):
		b.Name = w.Forcing().labelActs(o.Set, o.Override, o.Faults, acts, b.Moment())
	case b.Name == "":
		b.Name = fmt.Sprintf("fork%d", x.nextID)
	}
	b.cps = []checkpoint{{pos: o.Pos, w: w.Clone()}}
	for _, s := range parent.series.Samples {
		if s.Pos <= o.Pos {
			b.series.Samples = append(b.series.Samples, s)
		}
	}
	b.series.stride = parent.series.stride
	x.nextID++
	x.branches = append(x.branches, b)
	x.cur = b
	x.k = &walker{path: b.Path(), w: w, x: x}
	x.k.seg = len(x.k.path) - 1
	x.w = w
	return b, nil
}

// checkOverride makes sure a forced decision is the one made at the fork
// point (its index and kind) and that its value is one it could take. It
// returns that decision as the run makes it.
func checkOverride(w *World, o DecisionOverride) (*Decision, error) {
	p := w.Clone()
	var got *Decision
	for i := 0; i < 2 && got == nil; i++ { // a knob change may come first
		if !p.Step(sinkFunc(func(_ *World, _ *Event, d *Decision) {
			if d != nil {
				dc := *d
				got = &dc
			}
		})) {
			break
		}
	}
	switch {
	case got == nil:
		return nil, fmt.Errorf("no decision is made here to force")
	case got.Index != o.Index:
		return nil, fmt.Errorf("the decision made here is %d, not %d", got.Index, o.Index)
	case !overrideValid(got.Kind, o.Value, got.Lo, got.Hi, got.Mask):
		return nil, fmt.Errorf("%d is not a value the %s decision can take", o.Value, got.Kind)
	}
	return got, nil
}
