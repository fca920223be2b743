package incidents

import (
	"strings"
	"testing"

	"inflight/engine"
)

// The exercises that take operator actions: their proofs' figures, read
// from the runs the explorer plays for them.
func init() {
	proofs["thursday"]["6"] = proofCheck{ // replay the DLQ: 108 more emails, all duplicates
		ask: func(t *testing.T, w *engine.World) {
			if w.DLQLen() != 108 || w.Stats.Effects != 324 || w.Stats.Duplicates != 216 {
				t.Errorf("asked with %d dead letters, %d emails, %d duplicates; want 108, 324, 216", w.DLQLen(), w.Stats.Effects, w.Stats.Duplicates)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			w := x.World()
			if w.Stats.Effects != 324+108 || w.Stats.Duplicates != 216+108 || w.DLQLen() != 0 || w.Stats.Redriven != 108 {
				t.Errorf("proof shows %d emails, %d duplicates, %d dead letters, %d redriven; want 432, 324, 0, 108", w.Stats.Effects, w.Stats.Duplicates, w.DLQLen(), w.Stats.Redriven)
			}
			emails := 0
			for _, e := range between {
				if e.Event.Kind == engine.EvEffect {
					emails++
					if e.Event.Aux != 4 { // each order's fourth copy
						t.Errorf("replayed email %s is copy %d, want 4", e.Caption, e.Event.Aux)
					}
				}
			}
			if emails != 108 {
				t.Errorf("%d emails between the question and the proof, want 108", emails)
			}
		},
	}
	proofs["thursday"]["7"] = proofCheck{ // raise the timeout, then lose a worker
		ask: func(t *testing.T, w *engine.World) {
			if m := msgOf(t, w, 14); m.Status != engine.StInFlight || m.Receives != 1 || m.Effects != 1 {
				t.Errorf("asked with order 14 %s after %d deliveries, %d emails; want in flight after 1 and 1", m.Status, m.Receives, m.Effects)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			var back *engine.Entry
			for i, e := range between {
				if e.Event.Kind == engine.EvDeliver && e.Event.Msg == 14 {
					back = &between[i]
					break
				}
			}
			if back == nil || back.Event.T.Clock() != "19:53:00.000" || back.Event.Delivery != 2 {
				t.Fatalf("order 14's next delivery %+v; want its second at 19:53:00", back)
			}
		},
	}
	if proofs["thursday-fixed"] == nil {
		proofs["thursday-fixed"] = map[string]proofCheck{}
	}
	proofs["thursday-fixed"]["3"] = proofCheck{ // the same replay: none
		ask: func(t *testing.T, w *engine.World) {
			if w.DLQLen() != 0 || w.Stats.Effects != 108 {
				t.Errorf("asked with %d dead letters, %d emails; want 0 and 108", w.DLQLen(), w.Stats.Effects)
			}
		},
		proof: func(t *testing.T, x *engine.Explorer, between []engine.Entry) {
			w := x.World()
			if w.Stats.Effects != 108 || w.Stats.Duplicates != 0 || w.Stats.Redriven != 0 {
				t.Errorf("proof shows %d emails, %d duplicates, %d redriven; want 108, 0, 0", w.Stats.Effects, w.Stats.Duplicates, w.Stats.Redriven)
			}
			if !has(w, between, "redrive", -1) {
				t.Error("no redrive between the question and the proof")
			}
		},
	}
}

// holder is the worker holding message id's current lease on x's branch
// at its cursor, from the events: its last delivery's worker, with no
// lease end, ack or move to the DLQ since.
func holder(x *engine.Explorer, id int32) string {
	w := x.World()
	name := ""
	for _, e := range x.Events(0, x.Pos()) {
		if e.Event.Msg != id {
			continue
		}
		switch e.Event.Kind {
		case engine.EvDeliver:
			name = w.Line(&e.Event, nil).Actor
		case engine.EvLeaseExpired, engine.EvAck, engine.EvDLQ:
			name = ""
		}
	}
	return name
}

// bundledExercise is the bundled exercise of that incident and key.
func bundledExercise(t *testing.T, id, key string) (*engine.Spec, engine.Exercise) {
	t.Helper()
	spec, err := Get(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range spec.Exercises {
		if ex.Key == key {
			return spec, ex
		}
	}
	t.Fatalf("%s has no exercise %s", id, key)
	return nil, engine.Exercise{}
}

// The lesson's price of a longer timeout: the worker the exercise crashes
// holds order 14 at the moment it crashes, and the worst recovery is the
// timeout itself, 60 s against the lesson's 30 s.
func TestRecoveryPrice(t *testing.T) {
	spec, ex := bundledExercise(t, "thursday", "7")
	if ex.DoAt == nil || len(ex.Do) != 1 || ex.Do[0].Name != "crash" {
		t.Fatalf("exercise 7 takes %v at %v; want one crash at a later moment", ex.Do, ex.DoAt)
	}
	for _, tc := range []struct {
		vt    string
		words string
		wait  float64
	}{
		{"30s", "order 14 invisible 30.0s after B2 crashed", 30},
		{"60s", "order 14 invisible 60.0s after B2 crashed", 60},
	} {
		e := ex
		e.Set = []engine.Setting{{Knob: "visibility_timeout", Value: tc.vt}}
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Open(x); err != nil {
			t.Fatal(err)
		}
		parent := x.Branch().Parent
		x.Switch(parent)
		x.Goto(x.PosOfMoment(parent, *e.DoAt))
		if h := holder(x, 14); h != ex.Do[0].Arg {
			t.Errorf("vt=%s: at %s %s holds order 14, not %s", tc.vt, e.DoAt, h, ex.Do[0].Arg)
		}
		x.Switch(x.Branches()[len(x.Branches())-1])
		r := x.RecoveryOf(x.Branch())
		if r == nil || r.Words != tc.words || r.WaitS != tc.wait || r.Ended != "delivered" {
			t.Errorf("vt=%s: worst recovery %+v; want %q", tc.vt, r, tc.words)
		}
		// compare's row: the lesson's run has none, the exercise's its price
		if c := x.CompareBranches(x.Branches()[0], x.Branch()); c.A.WorstRecovery != nil || c.B.WorstRecovery == nil || c.B.WorstRecovery.WaitS != tc.wait {
			t.Errorf("vt=%s: compare's worst recovery A %+v, B %+v; want none and %vs", tc.vt, c.A.WorstRecovery, c.B.WorstRecovery, tc.wait)
		}
		if main := x.RecoveryOf(x.Branches()[0]); main != nil {
			t.Errorf("the lesson's run, which crashes nothing, has a recovery: %+v", main)
		}
	}
}

// An exercise's do: is checked as the rest of the file is: the action,
// its argument, its worker, its moment, each refused in a line naming the
// file, the exercise and the action.
func TestExerciseDoRefused(t *testing.T) {
	data, err := bundled.ReadFile("thursday.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	for _, tc := range []struct{ from, to, want string }{
		{"do: [crash=B2]", "do: [crash=Z9]", `exercise 7: action "crash=Z9": incident thursday has no worker "Z9"`},
		{"do: [redrive]", "do: [replay]", `exercise 6: action "replay": incident thursday's actions are redrive`},
		{"do: [redrive]", "do: [redrive=some]", `exercise 6: action "redrive=some": redrive takes all the dead letters`},
		{"do: [redrive]", "do: [Redrive]", `exercise 6: action "Redrive": a name is lower-case`},
		{"do: [crash=B2]", "do: [crash]", `exercise 7: action crash: give crash=WORKER`},
		{`do_at: "19:52:00 #182"`, `do_at: "19:51:00"`, `exercise 7: do_at @19:51:00 is not after the exercise's moment (19:52:00)`},
		{`do_at: "19:52:00 #182"`, `do_at: "soon"`, `exercise 7: do_at "soon"`},
		{"do: [crash=B2]", "do: []", `exercise 7: do_at without do`},
	} {
		if !strings.Contains(good, tc.from) {
			t.Fatalf("thursday.yaml has no %q", tc.from)
		}
		_, err := Parse("thursday.yaml", []byte(strings.Replace(good, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "thursday.yaml:") {
			t.Errorf("%s: got %v, want %q", tc.to, err, tc.want)
		}
	}
}
