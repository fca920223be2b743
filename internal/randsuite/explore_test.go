package randsuite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// engine/explore_test.go has these two properties over a few fixed knobs
// of the queue incidents and the families' own settings; here they run
// over the random suite's cases: every knob of every incident, forks with
// --at among them. Incidents whose own run is big (galewatch's and
// stagefront's are 370,000 to 800,000 events, no knob to shrink them) are
// left to their own clone tests.

// explorerCases draws n cases over the incidents an explorer replays
// quickly, each opened on an explorer as `run --code` would: a --at case
// is a fork of the incident's own run at its moment.
func explorerCases(t *testing.T, seed uint64, n int) []explored {
	var gens []*Gen
	for _, s := range incidents.All() {
		g, err := genFor(s)
		if err != nil {
			t.Fatal(err)
		}
		if g.Events > bigRun {
			continue
		}
		gens = append(gens, g)
	}
	var out []explored
	for i := 0; i < n; i++ {
		g := gens[i%len(gens)]
		c := g.Case(seed, i)
		// a parent that ends before the moment cannot be forked there
		c.At = min(c.At, g.Spec.Start+(g.End-g.Spec.Start)/2)
		// an explorer plays a branch to its end, however long: a run that
		// does not settle within the budget is the random suite's finding,
		// not this test's
		o := c.Options()
		o.MaxSteps = g.Budget(c)
		if _, w, err := engine.Run(c.Spec, o); err != nil || !w.Settled() || (c.HasAt && c.At > w.Stats.LastEvent) {
			continue
		}
		x, err := engine.NewExplorer(c.Spec, c.Seed, c.Set)
		if err != nil {
			t.Fatalf("%s: %v", c.Repro(), err)
		}
		x.Every = int64(16 + i%200) // many checkpoints, at varied spacing
		if c.HasAt {
			pos := x.PosAtTime(x.Branch(), c.At)
			x.Goto(pos)
			if _, err := x.Fork(engine.ForkOptions{Pos: pos, At: c.At, Set: c.AtSet}); err != nil {
				t.Fatalf("%s: fork: %v", c.Repro(), err)
			}
		}
		out = append(out, explored{c, x})
	}
	return out
}

type explored struct {
	c Case
	x *engine.Explorer
}

func (e explored) String() string { return e.c.Repro() }

// TestRandomRewindThenReplay: seeking back and forth over a branch and
// then playing on gives the same events as the run played straight, and
// the same trace hash as the headless run.
func TestRandomRewindThenReplay(t *testing.T) {
	n := count(60, 20)
	r := rand.New(rand.NewPCG(5, 6))
	for _, ec := range explorerCases(t, 11, n) {
		c, x := ec.c, ec.x
		want, _, err := engine.Run(c.Spec, c.Options())
		if err != nil {
			t.Fatal(err)
		}
		x.End()
		end := x.Pos()
		b := x.Branch()
		forward := entries(x, b, 0, end)
		for j := 0; j < 6; j++ {
			x.Goto(r.Int64N(end + 1))
		}
		p := x.Pos()
		again := entries(x, b, p, end)
		for k := range again {
			if again[k] != forward[p+int64(k)] {
				t.Fatalf("%s: after seeking to %d, event %d is\n%+v\nplayed straight it was\n%+v", ec, p, p+int64(k), again[k], forward[p+int64(k)])
			}
		}
		if x.Pos() != p {
			t.Fatalf("%s: reading events moved the cursor from %d to %d", ec, p, x.Pos())
		}
		if got := x.Summary(b).TraceSHA256; got != want.TraceSHA256 {
			t.Fatalf("%s: explored trace %s, headless %s", ec, got, want.TraceSHA256)
		}
	}
}

func entries(x *engine.Explorer, b *engine.Branch, from, to int64) []engine.Event {
	var out []engine.Event
	for _, e := range x.EventsOn(b, from, to) {
		out = append(out, e.Event)
	}
	return out
}

// TestRandomForkNoChangeEqualsParent: a fork that changes nothing, from
// any moment of a branch (a --at fork's included) before its end, is its parent: same
// events, trace hash and end fingerprint, and Compare finds no divergence.
func TestRandomForkNoChangeEqualsParent(t *testing.T) {
	n := count(40, 16)
	r := rand.New(rand.NewPCG(7, 8))
	for _, ec := range explorerCases(t, 13, n) {
		x := ec.x
		parent := x.Branch()
		want := x.Summary(parent)
		x.End()
		// a moment of this branch: after its own fork point (before it,
		// a moment belongs to the parent's line), before its settled end
		lo := int64(0)
		if parent.Parent != nil {
			lo = parent.ForkPos + 1
		}
		if x.Pos() <= lo {
			continue
		}
		pos := lo + r.Int64N(x.Pos()-lo)
		x.Goto(pos)
		b, err := x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now})
		if err != nil {
			t.Fatalf("%s: fork at %d: %v", ec, pos, err)
		}
		got := x.Summary(b)
		if got.Events != want.Events || b.Len() != parent.Len() {
			t.Fatalf("%s: a fork at event %d with no change has %d events, its parent %d", ec, pos, got.Events, want.Events)
		}
		if got.TraceSHA256 != want.TraceSHA256 {
			t.Fatalf("%s: a fork at event %d with no change hashes %s, its parent %s", ec, pos, got.TraceSHA256, want.TraceSHA256)
		}
		if a, c := entries(x, parent, 0, parent.Len()), entries(x, b, 0, b.Len()); !slices.Equal(a, c) {
			t.Fatalf("%s: a fork at event %d with no change has other events than its parent", ec, pos)
		}
		x.End()
		fb := x.World().Fingerprint()
		x.Switch(parent)
		x.End()
		if fp := x.World().Fingerprint(); fp != fb {
			t.Fatalf("%s: a fork at event %d with no change ends with fingerprint %x, its parent %x", ec, pos, fb, fp)
		}
		if d, diverged := x.Compare(parent, b); diverged {
			t.Fatalf("%s: a fork at %d with no change diverges from its parent: %s", ec, pos, fmt.Sprint(d))
		}
	}
}
