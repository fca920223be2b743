package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// actionArgs are the arguments tried for an action of spec; the
// incident's CheckActions keeps the valid ones.
func actionArgs(spec *engine.Spec) []string {
	args := []string{"", "unfinished", "+1", "+2", "+3", "-1", "-2", "1", "2", "4", "6", "8",
		"1s", "30s", "2m", "+30s", "-30s", "+5m", "-5m", "min_idle:0s", "min_idle:30s", "min_idle:5m"}
	for _, b := range spec.Workers.Boxes {
		for i := 1; i <= spec.Workers.PerBox; i++ {
			args = append(args, fmt.Sprintf("%s%d", b, i))
		}
	}
	return args
}

// randomActions draws 1–4 actions w's incident accepts at w's state, as
// the fork form and --do check them (each alone, then all together).
func randomActions(r *rand.Rand, w *engine.World, args []string) []engine.Action {
	var valid []engine.Action
	for _, s := range w.Actions() {
		for _, arg := range args {
			a := engine.Action{Name: s.Name, Arg: arg}
			if w.CheckActions([]engine.Action{a}) == nil {
				valid = append(valid, a)
			}
		}
	}
	if len(valid) == 0 {
		return nil
	}
	for try := 0; try < 20; try++ {
		n := 1 + r.IntN(4)
		acts := make([]engine.Action, n)
		for i := range acts {
			acts[i] = valid[r.IntN(len(valid))]
		}
		if w.CheckActions(acts) == nil {
			return acts
		}
	}
	return valid[:1]
}

// TestActionsOneEventPerStep: a fork's actions keep the engine's rule, one
// event or none per step, so every position on the fork is a state the
// explorer seeks to exactly. For every family with actions and random
// action lists at random moments, the straight run (NewWorld, play to the
// moment, ScheduleActions, Step on) must advance one position a step, and
// the explorer's fork, sought to every position from the fork point to a
// bit past the actions (in a shuffled order, so some seeks replay from a
// checkpoint), must stand exactly there, its next event the straight
// run's.
func TestActionsOneEventPerStep(t *testing.T) {
	const cases = 12
	r := rand.New(rand.NewPCG(24, 1))
	families := 0
	for _, spec := range incidents.All() {
		w0, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(w0.Actions()) == 0 {
			continue
		}
		families++
		main := straight(t, spec, spec.Seed, nil)
		if len(main) > 60000 {
			main = main[:60000]
		}
		args := actionArgs(spec)
		for c := 0; c < cases; c++ {
			p0 := int64(r.IntN(len(main)))
			x, err := engine.NewExplorer(spec, spec.Seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			x.Goto(p0)
			acts := randomActions(r, x.World(), args)
			if acts == nil {
				continue
			}
			name := fmt.Sprintf("%s @%d %v", spec.ID, p0, acts)

			// the straight run
			w, _ := engine.NewWorld(spec, spec.Seed, nil)
			for w.Pos < p0 && w.Step(nil) {
			}
			if err := w.ScheduleActions(w.Now, acts); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var want []engine.Event
			sink := collect(&want)
			for {
				before := w.Pos
				if !w.Step(sink) {
					break
				}
				if w.Pos != before+1 {
					t.Errorf("%s: one step emitted %d events (positions %d..%d, %s)", name, w.Pos-before, before, w.Pos-1, want[len(want)-1].Kind)
					break
				}
				if int64(len(want)) > 400 {
					break
				}
			}
			if t.Failed() {
				continue
			}

			b, err := x.Fork(engine.ForkOptions{Pos: p0, At: x.World().Now, Actions: acts})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			_ = b
			ps := make([]int64, len(want))
			for i := range ps {
				ps[i] = p0 + int64(i)
			}
			r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			for _, p := range ps {
				x.Goto(p)
				if x.Pos() != p {
					t.Errorf("%s: seek to %d landed at %d", name, p, x.Pos())
					continue
				}
				var got []engine.Event
				if !x.World().Clone().Step(collect(&got)) {
					t.Errorf("%s: at %d the fork has settled, the straight run emits %v", name, p, want[p-p0].Kind)
					continue
				}
				if e, f := got[0], want[p-p0]; e.Pos != f.Pos || e.T != f.T || e.Kind != f.Kind || e.Msg != f.Msg || e.Worker != f.Worker || e.Value != f.Value || e.Aux != f.Aux {
					t.Errorf("%s: the event after %d is %+v, the straight run's %+v", name, p, e, f)
				}
			}
		}
	}
	if families == 0 {
		t.Fatal("no incident declares actions")
	}
}

// TestActionRepeats is engine.Repeats, the one rule for an action given
// more than once in a fork, on every family that declares actions: once
// a fork whatever the arguments, once per target, or adding up.
func TestActionRepeats(t *testing.T) {
	for _, c := range []struct {
		id   string
		do   []string
		want string // "" for taken
	}{
		// RepeatOnce
		{"thursday", []string{"redrive", "redrive"}, "action redrive is given twice"},
		{"thursday", []string{"redrive", "redrive=unfinished"}, "action redrive with redrive=unfinished: a fork takes one redrive"},
		{"thursday", []string{"redrive=unfinished", "redrive"}, "action redrive=unfinished with redrive: a fork takes one redrive"},
		{"thursday", []string{"purge", "purge"}, "action purge is given twice"},
		{"thursday", []string{"redrive", "purge"}, ""},
		{"db-down", []string{"pause", "pause=10m"}, "action pause with pause=10m: a fork takes one pause"},
		{"db-down", []string{"pause=30s", "pause=30s"}, "action pause=30s is given twice"},
		{"db-down", []string{"pause", "resume"}, ""},
		{"kafka-restart", []string{"restart_producer", "restart_producer"}, "action restart_producer is given twice"},
		{"ordering", []string{"partitions=8", "partitions=12"}, "action partitions=8 with partitions=12: a fork takes one partitions"},
		// RepeatPerTarget: distinct workers are distinct actions
		{"thursday", []string{"crash=A1", "crash=B2"}, ""},
		{"thursday", []string{"crash=A1", "wedge=B2"}, ""},
		{"thursday", []string{"crash=B2", "crash=B2"}, "action crash=B2 is given twice: a fork does one thing to B2"},
		{"thursday", []string{"wedge=A1", "wedge=A1"}, "action wedge=A1 is given twice"},
		{"thursday", []string{"crash=A1", "wedge=A1"}, "action crash=A1 with wedge=A1: a fork does one thing to A1"},
		{"thursday", []string{"wedge=A1", "crash=B1", "crash=A1"}, "action wedge=A1 with crash=A1: a fork does one thing to A1"},
		// RepeatAdds
		{"thursday", []string{"workers=+1", "workers=+1"}, ""},
		{"thursday", []string{"workers=+2", "workers=-1"}, ""},
		{"ordering", []string{"consumers=+1", "consumers=+1"}, ""},
		{"galewatch", []string{"step_clock=+30s", "step_clock=-6s"}, ""},
		{"cashback", []string{"replay_pending", "replay_pending=min_idle:30s"}, ""},
	} {
		spec, err := incidents.Get(c.id)
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		var acts []engine.Action
		for _, s := range c.do {
			a, err := engine.ParseAction(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.CheckActions([]engine.Action{a}); err != nil {
				t.Fatalf("%s --do %s alone: %v", c.id, s, err)
			}
			acts = append(acts, a)
		}
		err = w.CheckActions(acts)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v refused: %v", c.id, c.do, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s %v: %v, want one line with %q", c.id, c.do, err, c.want)
		}
	}
}
