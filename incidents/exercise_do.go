package incidents

import (
	"fmt"

	"inflight/engine"
)

// doActions reads each exercise's operator actions (do:) and their later
// moment (do_at:), and checks them against the family's declared actions
// through the engine, on the incident's world at its start: a name it
// does not declare, an argument it refuses, a worker it does not have is
// a problem naming the exercise and the action. Exercises that are not
// maps are skipped as build skips them.
func (r *reader) doActions(spec *engine.Spec, exs []exercise) {
	j := 0
	var w *engine.World
	for i, ex := range exs {
		path := fmt.Sprintf("$.exercises[%d]", i)
		if r.bad[path] {
			continue
		}
		if j >= len(spec.Exercises) {
			return
		}
		e := &spec.Exercises[j]
		j++
		if len(ex.Do) == 0 {
			if ex.DoAt != "" {
				r.at(path+".do_at", "exercise %s: do_at without do: the moment of which actions?", e.Key)
			}
			continue
		}
		if len(ex.Do) > engine.MaxForkActions {
			r.at(path+".do", "exercise %s: %d actions; an exercise takes at most %d", e.Key, len(ex.Do), engine.MaxForkActions)
			continue
		}
		var acts []engine.Action
		for k, s := range ex.Do {
			p := fmt.Sprintf("%s.do[%d]", path, k)
			if r.bad[p] {
				continue
			}
			a, err := engine.ParseAction(s)
			if err != nil {
				r.at(p, "exercise %s: %v", e.Key, err)
				continue
			}
			if w == nil && len(r.probs) == 0 {
				var err error
				if w, err = engine.NewWorld(spec, spec.Seed, nil); err != nil {
					return // the incident itself is refused: said elsewhere
				}
			}
			if w != nil {
				if err := w.CheckActions([]engine.Action{a}); err != nil {
					r.at(p, "exercise %s: %v", e.Key, err)
					continue
				}
			}
			acts = append(acts, a)
		}
		e.Do = acts
		if ex.DoAt == "" {
			continue
		}
		m, err := engine.ParseForkMoment(ex.DoAt)
		switch {
		case err != nil:
			r.at(path+".do_at", "exercise %s: do_at %q: %v (like \"19:52:00\" or \"19:52:00 #182\")", e.Key, short(ex.DoAt), err)
		case m.At < e.At || m.At == e.At && m.Pos < 0:
			r.at(path+".do_at", "exercise %s: do_at %s is not after the exercise's moment (%s): take the actions at at", e.Key, m.String(), e.At.Short())
		default:
			e.DoAt = &m
		}
	}
}
