package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Operator actions as forks. Besides knobs (set before or from a moment)
// and decisions (forced where the run makes them), a family declares what
// an operator can do to its system during the incident: redrive the dead
// letters, crash a worker, add workers. An action is part of a fork: it is
// queued for the fork's moment as a knob change is, carried out by the
// family in a step of its own, and adds events only on the branch that
// takes it. A world that is given no action never runs that step, so every
// run without one keeps its trace.

// Action is one operator action as the command line and share codes
// write it: "redrive", "redrive=unfinished", "crash=B2", "workers=+2".
type Action struct {
	Name string
	Arg  string
}

func (a Action) String() string {
	if a.Arg == "" {
		return a.Name
	}
	return a.Name + "=" + a.Arg
}

// ActionSpec is one action a family declares, documented as a knob is.
type ActionSpec struct {
	Name string
	// Arg says what may follow '=': "" for no argument, else its form
	// ("WORKER", "+N/-N", "unfinished").
	Arg string
	// NeedsArg: the action takes no bare form.
	NeedsArg bool
	// Repeat says whether one fork may take this action more than once
	// (Repeats).
	Repeat Repeats
	Doc    string
}

// Repeats is the one rule for an action given more than once in one
// fork: a second that the first leaves with nothing to do (or undoes) is
// refused, with the reason, unless the rule says the two are distinct.
// Beyond it, each action is checked against the state the ones before it
// leave (checkInOrder).
type Repeats uint8

const (
	// RepeatOnce: one a fork, whatever the arguments: redrive with
	// redrive=unfinished, pause with pause=10m, purge twice are refused.
	RepeatOnce Repeats = iota
	// RepeatPerTarget: the argument names a target (a worker), and a
	// fork does one thing to each: crash=A1 with crash=B2 is two
	// actions; crash=A1 twice, or crash=A1 with wedge=A1 (any two
	// PerTarget actions of the same Arg form naming the same target), is
	// refused.
	RepeatPerTarget
	// RepeatAdds: each adds to the last, whatever the arguments
	// (workers=+1 twice starts two, workers=+2 with workers=-1 nets one).
	RepeatAdds
)

// FamilyActions is implemented by a family whose system has operator
// actions.
type FamilyActions interface {
	ActionSpecs() []ActionSpec
	// CheckAction refuses an action the incident cannot take (a worker
	// it does not have, an argument out of range), naming what is wrong.
	CheckAction(w *World, a Action) error
	// ActionWords tell what a checked action does on w's state, as a
	// fork's name starts: "redrive 108 dead letters".
	ActionWords(w *World, a Action) string
	// Act carries out a checked action at w's clock, emitting its events.
	Act(w *World, a Action)
}

// FamilyActionTargets is implemented by a family whose actions name a
// target that takes them only in some states: a worker must be running
// to be crashed or wedged.
type FamilyActionTargets interface {
	// CheckTarget refuses checked action a when its target cannot take
	// it on w's state, the state at clock at, naming the target, what it
	// is and at: "worker A1 is not running at 19:52:00 (crashed at
	// 19:51:40)".
	CheckTarget(w *World, a Action, at Time) error
}

// FamilyWorkerNames is implemented by a family whose actions add workers
// beyond the incident's (workers=+N): it names them for the trace.
type FamilyWorkerNames interface {
	WorkerName(i int) string // "" for none
}

// addedWorker names the worker of e beyond the incident's, "" for none.
func addedWorker(w *World, e *Event) string {
	if e.Worker < 0 {
		return ""
	}
	if fw, ok := w.fam.(FamilyWorkerNames); ok {
		return fw.WorkerName(int(e.Worker))
	}
	return ""
}

// MaxForkActions is the most actions one fork takes.
const MaxForkActions = 8

// ParseAction reads NAME or NAME=ARG: a name of lower-case letters and
// '_', an argument of letters, digits and "+-_.:".
func ParseAction(s string) (Action, error) {
	if len(s) > maxCodeField {
		return Action{}, fmt.Errorf("action %q is longer than any action (%d characters)", clip(s), maxCodeField)
	}
	name, arg, hasArg := strings.Cut(s, "=")
	if name == "" {
		return Action{}, fmt.Errorf("action %q: want NAME or NAME=ARG, like redrive or crash=B2", clip(s))
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && r != '_' {
			return Action{}, fmt.Errorf("action %q: a name is lower-case letters and '_'", clip(s))
		}
	}
	if hasArg {
		if arg == "" {
			return Action{}, fmt.Errorf("action %q: nothing after '='", clip(s))
		}
		for _, r := range arg {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+-_.:", r)
			if !ok {
				return Action{}, fmt.Errorf("action %q: an argument is letters, digits and +-_.:", clip(s))
			}
		}
	}
	return Action{Name: name, Arg: arg}, nil
}

// Actions lists the operator actions w's family declares (none for one
// that declares none).
func (w *World) Actions() []ActionSpec {
	if fa, ok := w.fam.(FamilyActions); ok {
		return fa.ActionSpecs()
	}
	return nil
}

// CheckActions refuses an action w's family does not declare or its
// incident cannot take at w's clock, naming the actions there are
// (CheckActionsAt).
func (w *World) CheckActions(acts []Action) error { return w.CheckActionsAt(w.Now, acts) }

// CheckActionsAt refuses an action w's family does not declare, a
// repeat its Repeats rule refuses, or an action its incident cannot take
// at clock at (not before w's clock, with no event between). A world
// that has played no event yet cannot tell what its targets will be at
// at (the workers have not started): their check waits for the moment
// the actions are carried out (ActionRefused).
func (w *World) CheckActionsAt(at Time, acts []Action) error {
	if len(acts) > MaxForkActions {
		return fmt.Errorf("%d actions: a fork takes at most %d", len(acts), MaxForkActions)
	}
	fa, ok := w.fam.(FamilyActions)
	if !ok && len(acts) > 0 {
		return fmt.Errorf("action %q: incident %s declares no operator actions", clip(acts[0].String()), w.spec.ID)
	}
	var specs []ActionSpec
	if ok {
		specs = fa.ActionSpecs()
	}
	for i, a := range acts {
		spec := specOf(specs, a.Name)
		if spec == nil {
			names := make([]string, len(specs))
			for i, s := range specs {
				names[i] = s.Name
			}
			return fmt.Errorf("action %q: incident %s's actions are %s", clip(a.Name), w.spec.ID, strings.Join(names, ", "))
		}
		switch {
		case a.Arg == "" && spec.NeedsArg:
			return fmt.Errorf("action %s: give %s=%s", a.Name, a.Name, spec.Arg)
		case a.Arg != "" && spec.Arg == "":
			return fmt.Errorf("action %q: %s takes no argument", clip(a.String()), a.Name)
		}
		if err := repeated(specs, acts[:i], a); err != nil {
			return err
		}
		if err := fa.CheckAction(w, a); err != nil {
			return err
		}
		if err := w.checkTarget(a, max(at, w.Now)); err != nil {
			return err
		}
	}
	if len(acts) > 1 && w.Pos > 0 {
		// the second and later meet the state the ones before them leave
		_, err := w.checkInOrder(max(at, w.Now), acts)
		return err
	}
	return nil
}

// checkInOrder carries out acts at clock at on a scratch copy of w, on
// the path a run takes (the actions step), so each is checked against
// the state its predecessors leave: workers=-1 then crash=A2 is refused
// when the first stopped A2. It returns the first refusal, or the
// actions in words as each acted.
func (w *World) checkInOrder(at Time, acts []Action) ([]string, error) {
	p := w.Clone()
	defer p.Discard()
	before := p.actRefused
	for _, a := range acts {
		p.actions = append(p.actions[:len(p.actions):len(p.actions)], pendingAction{at: at, a: a})
	}
	p.q.push(item{t: at, key: mkKey(0, opAction, false, 0)})
	due := func(q pendingAction) bool { return q.at <= at }
	for n := 0; n < 1<<14 && p.actRefused == before && slices.ContainsFunc(p.actions, due) && p.Step(nil); n++ {
	}
	if p.actRefused != before {
		return nil, p.actRefused
	}
	if len(p.acted) < len(acts) {
		return nil, nil // not all carried out within the bound
	}
	return p.acted[len(p.acted)-len(acts):], nil
}

func specOf(specs []ActionSpec, name string) *ActionSpec {
	for i := range specs {
		if specs[i].Name == name {
			return &specs[i]
		}
	}
	return nil
}

// repeated refuses a after the fork's actions before it, by a's Repeats
// rule (the earlier ones are declared: they were checked first).
func repeated(specs []ActionSpec, before []Action, a Action) error {
	spec := specOf(specs, a.Name)
	for _, b := range before {
		bs := specOf(specs, b.Name)
		switch {
		case spec.Repeat == RepeatOnce && b.Name == a.Name && b == a:
			return fmt.Errorf("action %s is given twice: the first leaves the second nothing to do, so a fork takes it once", a)
		case spec.Repeat == RepeatOnce && b.Name == a.Name:
			return fmt.Errorf("action %s with %s: a fork takes one %s, the second would act on what the first left", b, a, a.Name)
		case spec.Repeat == RepeatPerTarget && bs.Repeat == RepeatPerTarget && bs.Arg == spec.Arg && b.Arg == a.Arg && b.Name == a.Name:
			return fmt.Errorf("action %s is given twice: a fork does one thing to %s", a, a.Arg)
		case spec.Repeat == RepeatPerTarget && bs.Repeat == RepeatPerTarget && bs.Arg == spec.Arg && b.Arg == a.Arg:
			return fmt.Errorf("action %s with %s: a fork does one thing to %s", b, a, a.Arg)
		}
	}
	return nil
}

// checkTarget is the family's target check of a at clock at, on a world
// that has played an event (before one, the state says nothing of at).
func (w *World) checkTarget(a Action, at Time) error {
	ft, ok := w.fam.(FamilyActionTargets)
	if !ok || w.Pos == 0 {
		return nil
	}
	return ft.CheckTarget(w, a, at)
}

// ActionRefused is the first action this world refused when it came to
// carry it out, or nil: an action queued on a world that had played no
// event (a fork at a clock, run --at's), whose target turned out not to
// take it then (a worker dead at that moment). The action was not taken.
func (w *World) ActionRefused() error { return w.actRefused }

// ScheduleActions queues checked actions for the clock at (not before
// now), after any knob change due then. The step keeps the run alive, so
// an action on a run that has gone quiet (a redrive of a full DLQ) still
// happens.
func (w *World) ScheduleActions(at Time, acts []Action) error {
	if len(acts) == 0 {
		return nil
	}
	if err := w.CheckActionsAt(at, acts); err != nil {
		return err
	}
	at = max(at, w.Now)
	for _, a := range acts {
		w.actions = append(w.actions[:len(w.actions):len(w.actions)], pendingAction{at: at, a: a})
	}
	w.q.push(item{t: at, key: mkKey(0, opAction, false, 0)}) // seq 0 and a higher op: after the knobs due then
	return nil
}

// pendingAction is an action queued for its clock. A world's list is
// never changed in place: clones share it.
type pendingAction struct {
	at   Time
	a    Action
	cont bool // the rest of an action already in words (ContinueAction)
}

// ContinueAction, called from Act, queues the rest of an action that
// would emit more than one event (workers=-3 stops three workers, each an
// event naming its worker) as the next actions step, ahead of the actions
// after it: every action stays a run of steps of its own, in order.
func (w *World) ContinueAction(a Action) {
	if !w.acting {
		panic("engine: ContinueAction outside an action")
	}
	w.actions = slices.Concat([]pendingAction{{w.Now, a, true}}, w.actions)
}

// applyActions is the actions step: the family carries out the first
// action queued for now; when more are due now it queues another actions
// step for them, so that each action is a step of its own and emits at
// most one event (Emit's rule), in their order. The next step keeps seq 0:
// it runs before anything the action scheduled for now, after the knobs.
func (w *World) applyActions() {
	i := slices.IndexFunc(w.actions, func(p pendingAction) bool { return p.at <= w.Now })
	if i < 0 {
		return // another fork's, due at its own step
	}
	if !w.actMore {
		w.acted = nil // a new batch
	}
	p := w.actions[i]
	// never changed in place: clones share the list
	w.actions = slices.Concat(w.actions[:i], w.actions[i+1:])
	fa := w.fam.(FamilyActions) // checked when scheduled
	// the checks again on the state now, which the actions before this
	// one in its batch leave (and a world without an event left to now)
	if err := w.checkNow(fa, p); err != nil {
		if w.actRefused == nil {
			w.actRefused = err
		}
	} else {
		w.acting = true
		if !p.cont {
			w.acted = append(w.acted[:len(w.acted):len(w.acted)], fa.ActionWords(w, p.a))
		}
		fa.Act(w, p.a)
		w.acting = false
	}
	w.actMore = slices.ContainsFunc(w.actions, func(p pendingAction) bool { return p.at <= w.Now })
	if w.actMore {
		w.q.push(item{t: w.Now, key: mkKey(0, opAction, false, 0)})
	}
}

// checkNow checks queued action p on w's state now: its target, and,
// after other actions of its batch, the whole check again on the state
// they leave, naming what they did. The first of a batch was checked
// when queued: a state the run itself changed since is the family's to
// tell (an action that finds nothing to change); a continuation was
// checked whole.
func (w *World) checkNow(fa FamilyActions, p pendingAction) error {
	if p.cont {
		return nil
	}
	var err error
	if len(w.acted) > 0 {
		err = fa.CheckAction(w, p.a)
	}
	if err == nil {
		err = w.checkTarget(p.a, w.Now)
	}
	if err != nil && len(w.acted) > 0 {
		err = fmt.Errorf("after %s: %w", strings.Join(w.acted, "; "), err)
	}
	return err
}

// actionWords are acts in words for a fork's name: each on the state
// the ones before it leave (the first on w's), w's queued knob changes
// aside (every caller names a fork before queueing its knobs).
func actionWords(w *World, acts []Action) []string {
	fa, ok := w.fam.(FamilyActions)
	if !ok {
		return nil
	}
	if len(acts) > 1 && w.Pos > 0 {
		if words, err := w.checkInOrder(w.Now, acts); err == nil && words != nil {
			return slices.Clone(words)
		}
	}
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = fa.ActionWords(w, a)
	}
	return out
}

// ForkLabel is the default name of a fork of w's state at moment m that
// changes set, forces o and takes acts (checked): the actions in words
// first, "redrive 108 dead letters @21:15:00".
func (w *World) ForkLabel(set []Setting, o *DecisionOverride, acts []Action, m ForkMoment) string {
	return w.Forcing().labelActs(set, o, nil, actionWords(w, acts), m)
}

// checkClockFork refuses, before a run writes any of its trace, what
// run --at CLOCK would refuse only at or after its end: an action whose
// target cannot take it then (the actions are queued on the world at its
// start, which cannot tell), or a clock after the run's last event
// (AfterEndError). A pass that writes nothing plays to the actions and to
// the first event at the clock, or the end.
func checkClockFork(spec *Spec, o RunOptions) error {
	w, err := NewWorld(spec, o.Seed, o.Set)
	if err != nil {
		return err
	}
	defer w.Discard()
	if len(o.AtSet) > 0 {
		if err := w.ScheduleKnobs(o.At, o.AtSet); err != nil {
			return err
		}
	}
	if err := w.ScheduleActions(o.At, o.AtDo); err != nil {
		return err
	}
	reached := false
	see := sinkFunc(func(_ *World, e *Event, _ *Decision) { reached = reached || e.T >= o.At })
	limit := o.Budget.Limit()
	for (len(w.actions) > 0 || !reached) && w.actRefused == nil && (limit < 0 || w.Pos < limit) && w.Step(see) {
	}
	switch {
	case w.actRefused != nil:
		return &MomentError{w.actRefused.Error()}
	case !reached && w.Settled():
		return &AfterEndError{LastEvent: w.Stats.LastEvent}
	case !reached:
		return &AfterEndError{LastEvent: w.Stats.LastEvent, Stopped: true}
	}
	return nil
}

// AfterEndError is run --at CLOCK at a clock after the run's last event:
// the change would act on nothing. Stopped: the last is where the event
// budget stopped the run.
type AfterEndError struct {
	LastEvent Time
	Stopped   bool
}

func (e *AfterEndError) Error() string {
	return "the run ends at " + e.LastEvent.Short() + ": the change would act on nothing"
}

// probeActions plays a clone of w, whose actions are queued on a world
// that has played no event, until they are carried out (at most limit
// steps, so the explorer's fork stays a frame's work), and returns the
// refusal a target gave: the fork refuses it now instead of skipping the
// action silently later.
func probeActions(w *World, limit int) error {
	if w.Pos != 0 || len(w.actions) == 0 {
		return nil
	}
	p := w.Clone()
	defer p.Discard()
	for n := 0; n < limit && len(p.actions) > 0 && p.actRefused == nil && p.Step(nil); n++ {
	}
	return p.actRefused
}
