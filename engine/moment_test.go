package engine_test

import (
	"math/rand"
	"strings"
	"testing"

	"inflight/engine"
)

// momentOfName is the moment a default branch name ends with.
func momentOfName(t *testing.T, name string) engine.ForkMoment {
	t.Helper()
	i := strings.LastIndex(name, " @")
	if i < 0 {
		t.Fatalf("name %q has no moment", name)
	}
	m, err := engine.ParseForkMoment(name[i+1:])
	if err != nil {
		t.Fatalf("name %q: %v", name, err)
	}
	return m
}

// Property: a fork's default name states its exact moment. At random
// events of thursday's run and of a fork of it, a fork (knobs, or faults,
// which the engine names itself) is named with a moment that leads back to
// its event and clock; a share code of it reopens to the same event, name
// and trace; and two forks at different events never share a name.
func TestForkMomentRoundTrips(t *testing.T) {
	s := spec(t, "thursday")
	x, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.End()
	n := x.Pos()
	rng := rand.New(rand.NewSource(23))
	set := []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}
	names := map[string]int64{}
	main := x.Branches()[0]
	for i := 0; i < 60; i++ {
		parent := main
		if i%3 == 2 && len(x.Branches()) > 1 {
			parent = x.Branches()[1+rng.Intn(len(x.Branches())-1)]
		}
		x.Switch(parent)
		lo := int64(0)
		if parent.Parent != nil {
			lo = parent.ForkPos
		}
		pos := lo + rng.Int63n(max(1, n-lo-1))
		x.Goto(pos)
		if x.Pos() != pos || x.World().Settled() {
			continue
		}
		at := x.World().Now
		if rng.Intn(4) == 0 {
			at += engine.Duration(rng.Int63n(int64(engine.Second))) // a clock between events
			if x.PosAtTime(parent, at) != pos {
				at = x.World().Now
			}
		}
		m := x.MomentAt(parent, pos, at)
		o := engine.ForkOptions{Pos: pos, At: at, Set: set, Name: engine.ForkNameAt(set, nil, m)}
		b, err := x.Fork(o)
		if err != nil {
			t.Fatalf("fork at %d: %v", pos, err)
		}
		got := momentOfName(t, b.Name)
		if got != b.Moment() || got != m {
			t.Fatalf("fork at event %d, %s: name says %+v, branch %+v, MomentAt %+v", pos, at.Short(), got, b.Moment(), m)
		}
		if p := x.PosOfMoment(parent, got); p != b.ForkPos || got.At != b.ForkAt {
			t.Fatalf("name %q leads to event %d at %s, the fork is at %d, %s", b.Name, p, got.At.Short(), b.ForkPos, b.ForkAt.Short())
		}
		if other, ok := names[b.Name]; ok && other != b.ForkPos {
			t.Fatalf("forks at events %d and %d are both %q", other, b.ForkPos, b.Name)
		}
		names[b.Name] = b.ForkPos
		// the code does not carry the default name, and gives it back
		c := x.Code()
		if f := c.Forks[len(c.Forks)-1]; f.Name != "" {
			t.Fatalf("code of %q carries its default name %q", b.Name, f.Name)
		}
		y, err := engine.OpenCode(c, s)
		if err != nil {
			t.Fatalf("code %s: %v", c, err)
		}
		if yb := y.Branch(); yb.Name != b.Name || yb.ForkPos != b.ForkPos || yb.Moment() != b.Moment() {
			t.Fatalf("code %s reopens %q at %d, want %q at %d", c, yb.Name, yb.ForkPos, b.Name, b.ForkPos)
		}
	}
	if len(names) < 30 {
		t.Fatalf("only %d forks made", len(names))
	}
}

// A fork that forces a fault is named by the engine with its moment, and
// described in words; so is a forced decision.
func TestForkWords(t *testing.T) {
	s := spec(t, "thursday-fixed")
	x, err := engine.NewExplorer(s, s.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := engine.ParseCode("thursday-fixed@1/p3@19:40:20;fault=after_claim:0.1#3.00000000")
	if err != nil {
		t.Fatal(err)
	}
	x.Goto(3)
	b, err := x.Fork(engine.ForkOptions{Pos: 3, At: x.World().Now, Faults: c.Forks[0].Faults})
	if err != nil {
		t.Fatal(err)
	}
	words := b.Words()
	if len(words) != 1 || !strings.Contains(words[0], "order 0, delivery 1") || !strings.Contains(words[0], "crash") {
		t.Fatalf("fault fork's words %q", words)
	}
	if !strings.HasPrefix(b.Name, words[0]+" @19:40:20") {
		t.Fatalf("name %q, words %q", b.Name, words)
	}
	// a forced decision: what was decided, the value forced and the old one
	x.Switch(x.Branches()[0])
	e, ok := x.NextDecision()
	if !ok {
		t.Fatal("no decision")
	}
	d := e.Decision
	vals, _ := x.World().DecisionChoices(d)
	v := vals[0]
	if v == d.Value {
		v = vals[len(vals)-1]
	}
	o := &engine.DecisionOverride{Index: d.Index, Value: v}
	b, err = x.Fork(engine.ForkOptions{Pos: e.Event.Pos, At: e.Event.T, Override: o})
	if err != nil {
		t.Fatal(err)
	}
	words = b.Words()
	what, _, _ := strings.Cut(e.DecText, ": ")
	if len(words) != 1 || !strings.HasPrefix(words[0], what+" forced to ") || !strings.Contains(words[0], "(it was ") {
		t.Fatalf("decision fork's words %q (decision %q)", words, e.DecText)
	}
}

// FuzzParseForkMoment: any text is a moment or a refusal, never a panic,
// and a moment reads back from what it writes.
func FuzzParseForkMoment(f *testing.F) {
	for _, s := range []string{"@19:52:00", "@19:52:00 #181", "19:52", "#", "@19:52:00 #-1", "@x #1", "@19:52:00.5 #99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := engine.ParseForkMoment(s)
		if err != nil {
			return
		}
		back, err := engine.ParseForkMoment(m.String())
		if err != nil || back != m {
			t.Fatalf("%q reads as %+v, writes %q, reads back %+v (%v)", s, m, m.String(), back, err)
		}
	})
}
