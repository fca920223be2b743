package hunt

import (
	"fmt"
	"slices"
	"strings"

	"inflight/engine"
)

// MaxActions is the most operator actions one branch takes: each is a
// move as a forced decision is (counted in the depth too), and two
// (crash a worker, then redrive) is what the lessons' questions need.
const MaxActions = 2

// actionCandidates are the actions named in o.Actions with the arguments
// the searcher tries: the bare form when there is one, each fixed word
// the argument may be (redrive=unfinished), each of the incident's
// workers for WORKER, +1 and -1 for +N/-N. A name the family does not
// declare is refused, listing the ones it does.
func actionCandidates(w *engine.World, names []string) ([]engine.Action, error) {
	specs := w.Actions()
	var have []string
	for _, s := range specs {
		have = append(have, s.Name)
	}
	var out []engine.Action
	for _, name := range names {
		i := slices.IndexFunc(specs, func(s engine.ActionSpec) bool { return s.Name == name })
		if i < 0 {
			if len(have) == 0 {
				return nil, fmt.Errorf("--actions %q: incident %s declares no operator actions", clip(name), w.Spec().ID)
			}
			return nil, fmt.Errorf("--actions %q: incident %s's actions are %s", clip(name), w.Spec().ID, strings.Join(have, ", "))
		}
		sp := specs[i]
		if !sp.NeedsArg {
			out = append(out, engine.Action{Name: name})
		}
		switch {
		case sp.Arg == "":
		case sp.Arg == "WORKER":
			fw, _ := w.Family().(engine.FamilyWorkerNames)
			for k := 0; fw != nil; k++ {
				wn := fw.WorkerName(k)
				if wn == "" {
					break
				}
				out = append(out, engine.Action{Name: name, Arg: wn})
			}
		case sp.Arg == "+N/-N":
			out = append(out, engine.Action{Name: name, Arg: "+1"}, engine.Action{Name: name, Arg: "-1"})
		case strings.ToLower(sp.Arg) == sp.Arg:
			for _, word := range strings.Split(sp.Arg, "/") {
				out = append(out, engine.Action{Name: name, Arg: word})
			}
		case sp.NeedsArg:
			return nil, fmt.Errorf("--actions %q: the hunt cannot choose %s's argument (%s)", clip(name), name, sp.Arg)
		}
	}
	// a name given twice is tried once
	var uniq []engine.Action
	for _, a := range out {
		if !slices.Contains(uniq, a) {
			uniq = append(uniq, a)
		}
	}
	return uniq, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// actionKids are the branches taking one more action before event pos,
// w being the line there: each candidate the incident can take then,
// forked from cp (at or before pos: a branch plays up to pos before it
// acts). None once prefix holds MaxActions of them or pos is not past
// every move prefix makes. The moments are the line's decisions', not its
// checkpoints', so that spacing checkpoints to fit a memory budget
// changes how fast a hunt is, not which branches it tries.
func (s *searcher) actionKids(w *engine.World, pos int64, cp, root *start, prefix []Forced) []node {
	if len(s.acts) == 0 || cp == nil {
		return nil
	}
	n := 0
	for _, f := range prefix {
		if f.Act != nil {
			n++
		}
		if f.Pos >= pos {
			return nil
		}
	}
	if n >= MaxActions {
		return nil
	}
	var kids []node
	for i := range s.acts {
		a := &s.acts[i]
		s.mu.Lock()
		err := w.CheckActions([]engine.Action{*a})
		s.mu.Unlock()
		if err != nil {
			continue // not at this moment (a worker stopped, a call wedged already)
		}
		kids = append(kids, node{from: cp, root: root, prefix: prefix, force: []choice{{act: a, pos: pos}}})
	}
	return kids
}

// act takes the line's actions due at its event, before the event is
// played, as a share code's fork at that event does.
func (l *line) act() {
	for l.ai < len(l.acts) && l.acts[l.ai].pos <= l.w.Pos {
		a := *l.acts[l.ai].act
		l.ai++
		if l.acts[l.ai-1].pos != l.w.Pos {
			l.out.ok = false // the line never stopped there
			continue
		}
		words := a.String()
		if fa, ok := l.w.Family().(engine.FamilyActions); ok && l.w.CheckActions([]engine.Action{a}) == nil {
			words = fa.ActionWords(l.w, a)
		}
		if err := l.w.ScheduleActions(l.w.Now, []engine.Action{a}); err != nil {
			l.out.ok = false
			continue
		}
		l.out.forced = append(l.out.forced, Forced{Index: -1, Pos: l.w.Pos, At: l.w.Now, Clock: l.w.Now.Short(), Kind: "action",
			Msg: -1, Value: 1, Words: "operator: " + words, Act: &a, ActionCode: a.String()})
	}
}

// ActionNames reads a list of action names as the explorer's hunt form
// takes them (commas or spaces between) and checks them as Hunt checks
// o.Actions on spec's world under seed and set: the names, or the
// refusal Hunt would give.
func ActionNames(spec *engine.Spec, seed uint64, set []engine.Setting, s string) ([]string, error) {
	names := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
	if len(names) == 0 {
		return nil, nil
	}
	if len(names) > 8 {
		return nil, fmt.Errorf("--actions: %d names, more than any family declares (at most 8)", len(names))
	}
	w, err := engine.NewWorld(spec, seed, set)
	if err != nil {
		return nil, err
	}
	defer w.Discard()
	if _, err := actionCandidates(w, names); err != nil {
		return nil, err
	}
	return names, nil
}
