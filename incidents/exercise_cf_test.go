package incidents

import (
	"testing"

	"inflight/engine"
)

// christmas-friday's question 2: the repair script as the action it is.
// A plain redrive of the forty sends them round again; repair empties the
// drawer. The text's figures, read from the runs.
func init() {
	proofs["christmas-friday"]["2"] = proofCheck{
		ask: func(t *testing.T, w *engine.World) {
			if w.DLQLen() != 40 || w.Stats.Crashes != 120 || w.Stats.Redriven != 0 {
				t.Errorf("asked with %d dead letters, %d crashes, %d redriven; want the forty just in, 120, none", w.DLQLen(), w.Stats.Crashes, w.Stats.Redriven)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			w := x.World()
			if w.DLQLen() != 40 || w.Stats.Crashes != 240 || w.Stats.Redriven != 40 {
				t.Errorf("proof shows %d dead letters, %d crashes, %d redriven; want 40, 120+120, 40", w.DLQLen(), w.Stats.Crashes, w.Stats.Redriven)
			}
			back, lastBack := 0, ""
			for _, e := range between {
				if e.Event.Kind == engine.EvDLQ {
					back++
					lastBack = e.Event.T.Clock()
					if e.Event.Msg >= 40 { // the old producer's are the first forty
						t.Errorf("%s: an order of the new format in the drawer", e.Caption)
					}
				}
				if e.Event.Kind == engine.EvEffect && e.Event.Msg < 40 {
					t.Errorf("%s: an old message went through unrepaired", e.Caption)
				}
			}
			if back != 40 {
				t.Errorf("%d moved to the drawer between the question and the proof, want the forty", back)
			}
			if lastBack != "18:53:00.000" {
				t.Errorf("the fortieth back in the drawer at %q, want 18:53:00", lastBack)
			}
			x.End()
			if le := x.World().Stats.LastEffect.Clock(); le != "18:53:29.750" {
				t.Errorf("the last confirmation leaves at %s on the redrive, want 18:53:29.750", le)
			}
		},
	}
}

// The same moment with the repair script as the action: the drawer
// empties and every order is confirmed before six, as in the lesson's
// run, whose last confirmation is the explain's 17:59:55.
func TestRepairActionEmptiesTheDrawer(t *testing.T) {
	spec, ex := bundledExercise(t, "christmas-friday", "2")
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := x.Branch()
	x.Goto(x.PosOfMoment(root, *ex.DoAt))
	if _, err := x.Fork(engine.ForkOptions{Name: "repair", Pos: x.Pos(), At: ex.DoAt.At, Actions: []engine.Action{{Name: "repair"}}}); err != nil {
		t.Fatal(err)
	}
	x.End()
	w := x.World()
	if w.DLQLen() != 0 || w.Stats.Effects != 880 || w.Stats.Redriven != 40 || w.Stats.LastEffect.Clock() != "17:59:55.000" {
		t.Errorf("repair: %d dead letters, %d confirmations, %d redriven, last at %s; want 0, 880, 40, 17:59:55", w.DLQLen(), w.Stats.Effects, w.Stats.Redriven, w.Stats.LastEffect.Clock())
	}
	x.Switch(root)
	x.End()
	if le := x.World().Stats.LastEffect.Clock(); le != "17:59:55.000" {
		t.Errorf("the lesson's run's last confirmation at %s, want 17:59:55", le)
	}
}
