package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// Counted from event 0, the figures since a moment are the summary's: the
// same counters, and the oldest age read the same way.
func TestSinceFromStartIsSummary(t *testing.T) {
	for _, id := range incidents.IDs() {
		spec, err := incidents.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := x.Branch()
		s, since := x.Summary(b), x.SinceFrom(b, 0)
		got := []int64{since.Messages, since.Deliveries, since.Effects, since.DuplicateEffects, since.Lost, since.LateAcksRefused}
		want := []int64{s.Messages, s.Deliveries, s.Effects, s.DuplicateEffects, s.Lost, s.LateAcksRefused}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: figure %d since event 0 is %d, the summary's %d", id, i, got[i], want[i])
			}
		}
		if since.MaxOldestAgeS != s.MaxOldestAgeS {
			t.Errorf("%s: oldest age since event 0 %.3f s, the summary's %.3f s", id, since.MaxOldestAgeS, s.MaxOldestAgeS)
		}
		if s.Figures["dlq_peak"] != nil && since.DeadLettered < s.DLQ {
			t.Errorf("%s: %d dead-lettered since event 0, yet %d in the DLQ at the end", id, since.DeadLettered, s.DLQ)
		}
	}
}

// After thursday's 19:52 fork to a 60 s timeout, most of the fork's
// duplicate emails happened before the fork: the figures since it say how
// few are its own, and main's since the same moment are main's tail.
func TestCompareBranchesSinceFork(t *testing.T) {
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
	vt, err := x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := x.CompareBranches(main, vt)
	if c.From != pos || !c.Parted || c.SinceA.From != pos || c.SinceB.From != pos {
		t.Fatalf("parted at %d (fork at %d), parted %v, since from %d and %d", c.From, pos, c.Parted, c.SinceA.From, c.SinceB.From)
	}
	// what both had by the fork is the same on each
	beforeA := c.A.DuplicateEffects - c.SinceA.DuplicateEffects
	beforeB := c.B.DuplicateEffects - c.SinceB.DuplicateEffects
	if beforeA != beforeB {
		t.Errorf("duplicates before the fork: %d on main, %d on the fork", beforeA, beforeB)
	}
	if beforeA == 0 || c.SinceB.DuplicateEffects >= c.B.DuplicateEffects {
		t.Errorf("the fork's duplicates: %d in all, %d since the fork; %d before it", c.B.DuplicateEffects, c.SinceB.DuplicateEffects, beforeA)
	}
	if c.SinceB.DuplicateEffects >= c.SinceA.DuplicateEffects {
		t.Errorf("since the fork: %d duplicates on the 60 s fork, %d on main", c.SinceB.DuplicateEffects, c.SinceA.DuplicateEffects)
	}
	if c.A.Effects-c.SinceA.Effects != c.B.Effects-c.SinceB.Effects {
		t.Errorf("effects before the fork differ: %d and %d", c.A.Effects-c.SinceA.Effects, c.B.Effects-c.SinceB.Effects)
	}
	// one branch with itself never parts: its figures since event 0
	if self := x.CompareBranches(vt, vt); self.Parted || self.From != 0 || self.SinceB.Effects != self.B.Effects {
		t.Errorf("a branch with itself: parted %v from %d, effects since %d of %d", self.Parted, self.From, self.SinceB.Effects, self.B.Effects)
	}
	t.Logf("main: dups %d (%d since), DLQ %d (%d dead-lettered since); 60s: dups %d (%d since), DLQ %d (%d since); oldest since %.0f s and %.0f s",
		c.A.DuplicateEffects, c.SinceA.DuplicateEffects, c.A.DLQ, c.SinceA.DeadLettered,
		c.B.DuplicateEffects, c.SinceB.DuplicateEffects, c.B.DLQ, c.SinceB.DeadLettered, c.SinceA.MaxOldestAgeS, c.SinceB.MaxOldestAgeS)
}

// BenchmarkCompareBranches: thursday with 100,000 orders (1.3 M events),
// forked at 19:52 to a 60 s timeout, both branches compared from the
// fork: each played to its end once, then each read again from the fork
// for the figures since it. Fresh explorers each time, so nothing is
// known yet.
func BenchmarkCompareBranches(b *testing.B) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		b.Fatal(err)
	}
	at, _ := engine.ParseClock("19:52:00")
	for b.Loop() {
		b.StopTimer()
		x, err := engine.NewExplorer(spec, spec.Seed, []engine.Setting{{Knob: "orders", Value: "100000"}})
		if err != nil {
			b.Fatal(err)
		}
		main := x.Branch()
		x.SeekTime(at)
		vt, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c := x.CompareBranches(main, vt)
		if !c.Parted {
			b.Fatal("the 60 s fork never differs")
		}
	}
}

// A walk from event 0 on a fork of a fork crosses both forks and still
// counts as the summary does.
func TestSinceFromAcrossForks(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b *engine.Branch
	for _, f := range []struct{ at, value string }{{"19:45:00", "60s"}, {"19:52:00", "90s"}} {
		at, _ := engine.ParseClock(f.at)
		x.SeekTime(at)
		if b, err = x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: f.value}}}); err != nil {
			t.Fatal(err)
		}
	}
	s, since := x.Summary(b), x.SinceFrom(b, 0)
	if since.Effects != s.Effects || since.DuplicateEffects != s.DuplicateEffects || since.Lost != s.Lost || since.MaxOldestAgeS != s.MaxOldestAgeS || since.Deliveries != s.Deliveries {
		t.Fatalf("since event 0 on a fork of a fork: %+v; summary: effects %d dups %d lost %d oldest %.3f deliveries %d",
			since, s.Effects, s.DuplicateEffects, s.Lost, s.MaxOldestAgeS, s.Deliveries)
	}
}

// A branch forked from another explorer's copy of a branch (a job's
// clone forking the live explorer's) keeps its ancestry when cloned: its
// parent is the clone's branch of that ID, not none ("the lesson's run"),
// so its path and share code keep their first forks.
func TestCloneKeepsForeignParent(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(spec, spec.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Step(10)
	if _, err := x.Fork(engine.ForkOptions{Name: "first", Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "late_ack", Value: "accept"}}}); err != nil {
		t.Fatal(err)
	}
	x.Step(5)
	b := engine.ForkForeign(x, x.Clone())
	c := x.Clone()
	got := c.Branches()[len(c.Branches())-1]
	if got.Name != b.Name || got.Parent == nil || got.Parent != c.Branches()[1] || got.Parent.Parent != c.Branches()[0] {
		t.Fatalf("cloned, %s's path is %d long", got.Name, len(got.Path()))
	}
}
