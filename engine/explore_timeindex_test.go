package engine_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// A seek to a clock time leaves the cursor where a seek to PosAtTime's
// position leaves it, in the same state, from wherever the cursor was,
// on main and on a fork of a fork, on the explorer and its clones, before
// and after the branches are played out.
func TestSeekTimeLandsAtPosAtTime(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	twin := func() (*engine.Explorer, [3]int) {
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		x.Every = 64
		x.Goto(400)
		f1, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
		if err != nil {
			t.Fatal(err)
		}
		x.Switch(f1)
		x.Goto(800)
		f2, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "10s"}}})
		if err != nil {
			t.Fatal(err)
		}
		return x, [3]int{0, f1.ID, f2.ID}
	}
	x, ids := twin()
	y, _ := twin()
	ref, _ := engine.NewExplorer(spec, spec.Seed, nil)
	ref.End()
	end, span := ref.Pos(), int64(ref.World().Now-spec.Start)
	same := func(i int, at engine.Time) {
		t.Helper()
		a, b := x.World(), y.World()
		if a.Pos != b.Pos || a.Now != b.Now || a.Fingerprint() != b.Fingerprint() || !reflect.DeepEqual(a.Knobs, b.Knobs) ||
			a.Stats != b.Stats || a.DLQLen() != b.DLQLen() || a.Published() != b.Published() {
			t.Fatalf("seek %d on %s to %s: at %d (%s), a seek to PosAtTime's gives %d (%s)", i, x.Branch().Name, at.Clock(), a.Pos, a.Now.Clock(), b.Pos, b.Now.Clock())
		}
	}
	r := rand.New(rand.NewPCG(26, 7))
	for i := range 800 {
		if i == 400 {
			for _, e := range []*engine.Explorer{x, y} {
				for _, b := range e.Branches() {
					e.Switch(b)
					e.End()
				}
			}
		}
		if i%97 == 0 {
			x = x.Clone()
		}
		id := ids[r.IntN(3)]
		x.Switch(x.Branches()[id])
		y.Switch(y.Branches()[id])
		to := r.Int64N(end + 1)
		x.Goto(to)
		y.Goto(to)
		if n := r.Int64N(400) - 200; r.IntN(3) == 0 { // near the landing
			x.Step(n)
			y.Step(n)
		}
		at := spec.Start + engine.Time(r.Int64N(span+span/10))
		switch r.IntN(4) {
		case 0: // a moment near the cursor's
			at = x.World().Now + engine.Time(r.Int64N(200_000)) - 100_000
		case 1: // about where the branch forked
			at = x.Branch().ForkAt + engine.Time(r.Int64N(20_000)) - 10_000
		}
		x.SeekTime(at)
		y.Goto(y.PosAtTime(y.Branch(), at))
		same(i, at)
		x.Step(1)
		y.Step(1)
		same(i, at)
	}
}
