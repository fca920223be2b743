package engine

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Using a share code: making one for a run or the cursor, opening it in an
// explorer, replaying it headless, and the names of its forks.

func fp32(fp uint64) uint32 { return uint32(fp >> 32) }

// Code is the share code of the cursor: this branch's path and position.
func (x *Explorer) Code() Code {
	c := Code{Incident: x.Spec.ID, Seed: x.Seed, Set: x.Set, Cursor: x.w.Pos, Fingerprint: fp32(x.w.fp)}
	for _, b := range x.cur.Path()[1:] {
		c.Forks = append(c.Forks, x.CodeFork(b))
	}
	return c
}

// CodeFork is branch b's fork as a share code writes it: its name only
// where it is not the one ForkNameOf gives it back.
func (x *Explorer) CodeFork(b *Branch) CodeFork {
	f := CodeFork{Pos: b.ForkPos, At: b.ForkAt, Set: b.Changes, Override: b.Override, Faults: b.Faults, Actions: b.Actions}
	if b.Name != x.w.Forcing().labelActs(b.Changes, b.Override, b.Faults, b.actWords, b.Moment()) {
		f.Name = b.Name
	}
	return f
}

// ForkNameOf is the name of a share code's fork of the current branch:
// its own, or the default a branch forking what it changes is given
// (Forcing.Label) at its moment. Codes carry no moment of their own, so a
// code made before moments were named opens with its fork's exact name.
func (x *Explorer) ForkNameOf(f CodeFork) string { return x.ForkNameOn(x.cur, f) }

// ForkNameOn is ForkNameOf for a fork of branch parent.
func (x *Explorer) ForkNameOn(parent *Branch, f CodeFork) string {
	if f.Name != "" {
		return f.Name
	}
	m := ForkMoment{At: f.At, Pos: -1}
	if f.Pos >= 0 {
		m = x.MomentAt(parent, f.Pos, f.At)
	}
	// the actions in words on the state they act on: x.w stands at the
	// fork when ForkPath names it
	return x.w.Forcing().labelActs(f.Set, f.Override, f.Faults, actionWords(x.w, f.Actions), m)
}

// RunCode is the share code of a headless run's end.
func RunCode(spec *Spec, o RunOptions, w *World) Code {
	c := Code{Incident: spec.ID, Seed: o.Seed, Set: o.Set, Cursor: -1, Fingerprint: fp32(w.fp)}
	if o.HasAt {
		pos := int64(-1)
		if o.AtMid {
			pos = o.AtPos
		}
		c.Forks = []CodeFork{{Pos: pos, At: o.At, Set: o.AtSet, Actions: o.AtDo}}
	}
	return c
}

// BranchCode is the share code of a branch a search played headless to
// its end on w (from a world of Explorer.WorldAt or NewWorld, with faults
// and decisions forced): the code the explorer would give that branch's
// end had forks made it. Each forced decision needs a fork of its own at
// the event that carries it (Decision.Pos), as the explorer's do.
func BranchCode(spec *Spec, seed uint64, set []Setting, forks []CodeFork, w *World) Code {
	return Code{Incident: spec.ID, Seed: seed, Set: set, Forks: forks, Cursor: -1, Fingerprint: fp32(w.fp)}
}

// ErrCodeMismatch says a code's fingerprint is not that of the run it
// names: the code was changed, or this engine plays that run differently.
var ErrCodeMismatch = errors.New("this code does not match its incident (edited, mistyped, or made by another version of inflight)")

// CodeError is a code that names something its run does not have: a fork
// or cursor past the run's end, a value the incident refuses.
type CodeError struct{ msg string }

func (e *CodeError) Error() string { return e.msg }

func codeErr(format string, a ...any) error { return &CodeError{fmt.Sprintf(format, a...)} }

// OpenCode rebuilds the explorer a code names, on spec, with the cursor
// where the code puts it, and checks the fingerprint. OpenCodeWithin opens
// one under limits (in, which only it passes).
func OpenCode(c Code, spec *Spec, in ...*Within) (*Explorer, error) {
	if spec.ID != c.Incident {
		return nil, fmt.Errorf("share code is for incident %q, not %q", c.Incident, spec.ID)
	}
	x, err := NewExplorer(spec, c.Seed, c.Set)
	if err != nil {
		return nil, err
	}
	if err := x.within(in); err != nil {
		return nil, err
	}
	if err := x.ForkPath(c.Forks); err != nil {
		return nil, err
	}
	if c.Cursor < 0 {
		x.End()
	} else {
		x.Goto(c.Cursor)
		if x.Pos() != c.Cursor {
			return nil, fmt.Errorf("share code cursor is at event %d, but the run ends at event %d", c.Cursor, x.Pos())
		}
	}
	if fp32(x.w.fp) != c.Fingerprint || (c.Cursor >= 0 && x.Pos() != c.Cursor) {
		return nil, ErrCodeMismatch
	}
	end := func() Time {
		// an event at or after the clock: the clock is within the branch
		pos := x.PosAtTime(x.cur, c.At)
		if !x.cur.done || pos < x.cur.frontier.Pos {
			return c.At
		}
		return x.stateAt(x.cur, pos).Stats.LastEvent
	}
	published := func() int {
		if n := int(messagesOf(x.w)); n > int(c.Sel) {
			return n
		}
		x.extend(x.cur, 1<<62)
		return x.cur.frontier.Published()
	}
	if err := c.checkShown(spec.Start, x.w.Now, x.w.Published(), end, published); err != nil {
		return nil, err
	}
	return x, nil
}

// checkShown refuses a format-2 code's clock or selection that its branch
// does not have: a clock before the incident's start or the cursor's
// moment (now), or after the branch's last event, where the screen would
// show a moment past the end (`run --at` and `/` refuse the same); a
// selected message the branch never publishes. seen is how many messages
// were published by the cursor; end and published (how many the branch
// publishes) may play the branch, so they are asked only when needed.
func (c Code) checkShown(start, now Time, seen int, end func() Time, published func() int) error {
	if c.HasAt {
		switch {
		case c.At < start:
			return codeErr("share code's clock at=%s is before the incident starts (%s)", c.At.Short(), start.Short())
		case c.At < now:
			return codeErr("share code's clock at=%s is before its cursor's moment (%s)", c.At.Short(), now.Short())
		case c.At > now:
			if e := end(); c.At > e {
				return codeErr("share code's clock at=%s is after its branch ends (%s)", c.At.Short(), e.Short())
			}
		}
	}
	if c.HasSel && c.Sel >= 0 && int(c.Sel) >= seen {
		switch n := published(); {
		case n == 0:
			return codeErr("share code's selected message sel=%d: its branch publishes no messages", c.Sel)
		case int(c.Sel) >= n:
			return codeErr("share code's selected message sel=%d: its branch publishes messages 0 to %d", c.Sel, n-1)
		}
	}
	return nil
}

// Fork makes a code's fork on a world standing at the fork's event, as a
// replay does: its faults forced, its knob changes queued for its clock,
// its decision override armed.
func (fc *Forcing) Fork(f CodeFork) error {
	w := fc.w
	if err := fc.Faults(f.Faults...); err != nil {
		return err
	}
	if len(f.Set) > 0 {
		if err := w.ScheduleKnobs(max(f.At, w.Now), f.Set); err != nil {
			return err
		}
	}
	if err := w.ScheduleActions(max(f.At, w.Now), f.Actions); err != nil {
		return err
	}
	if f.Override != nil {
		if _, err := checkOverride(w, *f.Override); err != nil {
			return err
		}
		fc.Override(*f.Override)
	}
	return nil
}

// ForkPath makes a code's forks, each of the one before, from the
// current branch: the branch a share code names. A fork at a clock is
// placed at the event the clock falls on.
func (x *Explorer) ForkPath(forks []CodeFork) error {
	for i, f := range forks {
		pos := f.Pos
		if pos < 0 {
			pos = x.PosAtTime(x.cur, f.At)
		}
		x.Goto(pos)
		if x.Pos() != pos {
			return fmt.Errorf("share code fork %d is at event %d, but the run ends at event %d", i+1, pos, x.Pos())
		}
		if _, err := x.Fork(ForkOptions{Name: x.ForkNameOf(f), Pos: pos, At: f.At, Set: f.Set, Override: f.Override, Faults: f.Faults, Actions: f.Actions}); err != nil {
			return fmt.Errorf("share code fork %d: %w", i+1, err)
		}
	}
	return nil
}

// ReplayOptions configure ReplayCode.
type ReplayOptions struct {
	Trace io.Writer // every event as a JSON line, or nil
	// Budget's Bytes, when set, bounds the world's memory as Run's does
	// (a stop is a *BudgetError).
	Budget Budget
}

// ReplayCode plays the run a code names to its end the way Run does: one
// world, no history or checkpoints, memory flat however long the run. Each
// fork is applied as the world reaches its event, as the explorer's Fork
// would; a fork at a clock is queued from the start, as `run --at` does,
// which plays the same. The fingerprint is checked when the world passes
// the cursor, so a code for an early moment fails early.
//
// With a trace the code is checked first in a pass that writes nothing, so
// a wrong code's trace is never written. Problems with the code are a
// *CodeError or ErrCodeMismatch; any other error is the trace's writer's.
func ReplayCode(spec *Spec, c Code, o ReplayOptions) (Summary, *World, error) {
	if o.Trace != nil {
		// a clock or selection is checked against the branch's end
		if _, _, err := c.replay(spec, nil, c.HasAt || c.HasSel, o.Budget); err != nil {
			return Summary{}, nil, err
		}
	}
	tr := newTraceOut(o.Trace)
	hs := newHashSink(tr.next())
	w, places, err := c.replay(spec, hs, true, o.Budget)
	if err != nil {
		return Summary{}, nil, err
	}
	if err := tr.flush(); err != nil {
		return Summary{}, nil, err
	}
	s := w.Summarize(hs.sum())
	s.Forks = places
	if RecoveryWanted(w) {
		var rs RecoveryScan // read from the events, replayed once more
		if w2, _, err := c.replay(spec, &rs, true, o.Budget); err == nil {
			s.WorstRecovery = rs.Figure(w2.Pos, w2.Stats.LastEvent)
		}
	}
	return s, w, nil
}

// replay plays c on spec into sink, checking the fingerprint at the
// cursor; it stops there unless toEnd. It returns where each fork stood.
func (c Code) replay(spec *Spec, sink Sink, toEnd bool, b Budget) (w *World, places []ForkPlace, err error) {
	if spec.ID != c.Incident {
		return nil, nil, codeErr("share code is for incident %q, not %q", clip(c.Incident), spec.ID)
	}
	w, err = NewWorld(spec, c.Seed, c.Set)
	if err != nil {
		return nil, nil, codeErr("share code: %v", err)
	}
	var spy *knobSpy
	if len(c.Forks) == 1 && c.Forks[0].Pos < 0 && (len(c.Forks[0].Set) > 0 || len(c.Forks[0].Actions) > 0) {
		spy = &knobSpy{next: sink, at: c.Forks[0].At, pos: -1}
		if sink == nil {
			spy.next = sinkFunc(func(*World, *Event, *Decision) {})
		}
		sink = spy
		defer func() {
			if err == nil && spy.pos >= 0 {
				places = clockPlace(c.Forks[0].Set, w.acted, c.Forks[0].At, spy)
			}
		}()
	}
	w.truth.countOnly = len(spec.Operators) == 0 && !c.acts()
	checked := false
	var now Time // the cursor's moment, and the messages published by it
	seen := 0
	// to plays until event pos (or the end), checking the cursor on the way
	var to func(pos int64) error
	to = func(pos int64) error {
		if l := b.Limit(); l >= 0 && pos > l {
			// play to the budget; a run that ends before it is judged
			// by its end, as ever
			if err := to(l); err != nil {
				return err
			}
			if !w.Settled() {
				return fmt.Errorf("stopped: this code's event %d is past the event budget of %d (raise with --max-events)", pos, l)
			}
		}
		if !checked && c.Cursor >= 0 && c.Cursor <= pos {
			checked = true
			if err := (budgetRun{w, sink, b}).upTo(c.Cursor - w.Pos); err != nil {
				return err
			}
			if w.Pos != c.Cursor {
				return codeErr("share code cursor is at event %d, but the run ends at event %d", c.Cursor, w.Pos)
			}
			if fp32(w.fp) != c.Fingerprint {
				return ErrCodeMismatch
			}
			now, seen = w.Now, w.Published()
		}
		return budgetRun{w, sink, b}.upTo(pos - w.Pos)
	}
	clockFork := len(c.Forks) == 1 && c.Forks[0].Pos < 0 // ParseCode allows no other
	for i, f := range c.Forks {
		if f.Pos < 0 {
			if !clockFork || f.Override != nil || len(f.Faults) > 0 {
				return nil, nil, codeErr("share code fork %d: a fork at a clock must be the code's only fork", i+1)
			}
			if len(f.Set) > 0 {
				if err := w.ScheduleKnobs(f.At, f.Set); err != nil {
					return nil, nil, codeErr("share code fork %d: %v", i+1, err)
				}
			}
			if err := w.ScheduleActions(f.At, f.Actions); err != nil {
				return nil, nil, codeErr("share code fork %d: %v", i+1, err)
			}
			continue
		}
		if err := to(f.Pos); err != nil {
			return nil, nil, err
		}
		if w.Pos != f.Pos {
			return nil, nil, codeErr("share code fork %d is at event %d, but the run ends at event %d", i+1, f.Pos, w.Pos)
		}
		if w.Settled() && f.Override == nil && len(f.Actions) == 0 {
			return nil, nil, codeErr("share code fork %d at event %d: the run has ended there, so a change has nothing left to act on", i+1, f.Pos)
		}
		// where it stands, named as the explorer names it (ForkNameOn)
		m := ForkMoment{At: max(f.At, w.Now), Pos: -1}
		if w.Pos > 0 && w.Stats.LastEvent >= m.At {
			m.Pos = w.Pos
		}
		if m.Pos < 0 {
			m.At = f.At
		}
		name := f.Name
		if name == "" {
			name = w.Forcing().labelActs(f.Set, f.Override, f.Faults, actionWords(w, f.Actions), m)
		}
		if err := w.Forcing().Fork(f); err != nil {
			return nil, nil, codeErr("share code fork %d at event %d: %v", i+1, f.Pos, err)
		}
		places = append(places, ForkPlace{Name: name, Moment: m.String(), Pos: f.Pos})
	}
	if c.Cursor >= 0 {
		if err := to(c.Cursor); err != nil {
			return nil, nil, err
		}
		if !toEnd {
			return w, places, nil
		}
	}
	settled, err := budgetRun{w, sink, b}.run()
	if err != nil {
		return nil, nil, err
	}
	if !settled {
		return w, places, nil // stopped by the event budget: its summary says so
	}
	if clockFork && (len(c.Forks[0].Set) > 0 && len(w.pending) > 0 || len(w.actions) > 0) {
		// the run settled before the clock: the explorer refuses such a fork
		return nil, nil, codeErr("share code fork 1 at %s: the run has ended by then, so its change acts on nothing", c.Forks[0].At.Short())
	}
	if err := w.ActionRefused(); err != nil && clockFork {
		return nil, nil, codeErr("share code fork 1 at %s: %v", c.Forks[0].At.Short(), err)
	}
	if c.Cursor < 0 && fp32(w.fp) != c.Fingerprint {
		return nil, nil, ErrCodeMismatch
	}
	if c.Cursor < 0 {
		now, seen = w.Now, w.Published()
	}
	n := max(int(messagesOf(w)), w.Published()) // as the explorer counts them
	if err := c.checkShown(spec.Start, now, seen, func() Time { return w.Stats.LastEvent }, func() int { return n }); err != nil {
		return nil, nil, err
	}
	return w, places, nil
}

// ForkName is the default name of a branch forked before every event at
// the clock at, from what it changes: "visibility_timeout=60s @19:52". A
// branch that forces faults is named by a world's Forcing.Label, which
// words them; ForkNameAt names a fork at any moment.
func ForkName(set []Setting, o *DecisionOverride, at Time) string {
	return forkName(nil, set, o, nil, ForkMoment{At: at, Pos: -1})
}

// Label is a branch's default name as ForkNameAt, with each forced fault
// in the lesson's words: "the worker crashes after its claim on order 14,
// delivery 1 @19:40:20 #3". Without faults it is ForkNameAt.
func (fc *Forcing) Label(set []Setting, o *DecisionOverride, faults []Fault, m ForkMoment) string {
	return forkName(fc, set, o, faults, m)
}

// labelActs is Label for a fork that also takes operator actions, given
// in words (FamilyActions.ActionWords): "redrive 108 dead letters @21:15".
func (fc *Forcing) labelActs(set []Setting, o *DecisionOverride, faults []Fault, acts []string, m ForkMoment) string {
	if len(acts) == 0 {
		return forkName(fc, set, o, faults, m)
	}
	name := strings.Join(acts, "; ")
	if len(set) > 0 || o != nil || len(faults) > 0 {
		rest := forkName(fc, set, o, faults, m)
		return name + "; " + rest
	}
	return name + " " + m.String()
}

func forkName(fc *Forcing, set []Setting, o *DecisionOverride, faults []Fault, m ForkMoment) string {
	var parts []string
	for _, s := range set {
		parts = append(parts, s.Knob+"="+s.Value)
	}
	if o != nil {
		parts = append(parts, fmt.Sprintf("decision %d=%d", o.Index, o.Value))
	}
	for _, f := range faults {
		parts = append(parts, fc.Words(f, -1))
	}
	if len(parts) == 0 {
		parts = append(parts, "copy")
	}
	sep := ","
	if len(faults) > 0 {
		sep = "; " // a fault's words have commas of their own
	}
	return strings.Join(parts, sep) + " " + m.String()
}
