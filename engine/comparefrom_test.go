package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// CompareFrom pairs the two branches' events past their fork markers: a
// fork that changes nothing never differs, and one that raises the
// timeout first differs at a real event after its fork point, never at
// the marker.
func TestCompareFrom(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	main := x.Branch()
	at, _ := engine.ParseClock("19:52:00")
	x.SeekTime(at)
	pos := x.Pos()
	same := func(a, b engine.Event) bool { a.Pos, b.Pos = 0, 0; return a == b }
	o := engine.CompareOptions{From: pos, Limit: 1 << 20, Same: same}

	copyOf, err := x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := x.CompareFrom(main, copyOf, o); ok {
		t.Fatalf("a no-change fork differs at event %d", d.Pos)
	}

	x.Switch(main)
	x.Goto(pos)
	raised, err := x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := x.CompareFrom(main, raised, o)
	if !ok || d.A == nil || d.B == nil {
		t.Fatalf("the 60 s fork does not differ from main: %+v %v", d, ok)
	}
	if d.Pos < pos || d.B.Event.Kind == engine.EvKnob {
		t.Fatalf("first difference at event %d (fork at %d), kind %d", d.Pos, pos, d.B.Event.Kind)
	}
	if _, ok := x.CompareFrom(main, raised, engine.CompareOptions{From: pos, Limit: 1, Same: func(a, b engine.Event) bool { return true }}); ok {
		t.Fatal("a Same that matches everything found a difference")
	}
}
