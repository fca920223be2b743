package engine_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// Reads that go on from where the last one ended (the timeline after each
// step) give the events a read from a checkpoint gives, whatever was read
// or forked between, on the explorer and on its clones.
func TestEventsGoOnFromTheLastRead(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Every = 256
	x.End()
	end := x.Pos()
	main := x.Branch()
	x.Goto(end / 2)
	fork, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
	if err != nil {
		t.Fatal(err)
	}
	fresh := func(b *engine.Branch, from, to int64) []engine.Entry {
		y, _ := engine.NewExplorer(spec, spec.Seed, nil)
		y.Every = x.Every
		if b == main {
			return y.EventsOn(y.Branch(), from, to)
		}
		y.Goto(end / 2)
		c, err := y.Fork(engine.ForkOptions{Pos: y.Pos(), At: y.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
		if err != nil {
			t.Fatal(err)
		}
		return y.EventsOn(c, from, to)
	}
	r := rand.New(rand.NewPCG(26, 5))
	for _, b := range []*engine.Branch{main, fork} {
		want := fresh(b, 0, end)
		for range 3 {
			var got []engine.Entry
			for from := int64(0); from < int64(len(want)); {
				to := min(from+1+r.Int64N(300), int64(len(want)))
				got = append(got, x.EventsOn(b, from, to)...)
				if r.IntN(4) == 0 { // a read elsewhere between
					x.EventsOn(main, r.Int64N(end), end)
				}
				if r.IntN(8) == 0 {
					x = x.Clone()
					main, fork = x.Branches()[0], x.Branches()[1]
					b = x.Branches()[b.ID]
				}
				from = to
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("branch %s: reads in pieces differ from one read", b.Name)
			}
		}
	}
}
