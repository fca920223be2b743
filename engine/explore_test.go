package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// traceOf collects a branch's events from pos 0 to its end.
func traceOf(x *engine.Explorer, b *engine.Branch) []engine.Event {
	x.Summary(b) // play it out
	var out []engine.Event
	for _, e := range x.EventsOn(b, 0, b.Len()) {
		out = append(out, e.Event)
	}
	return out
}

func straight(t *testing.T, spec *engine.Spec, seed uint64, set []engine.Setting) []engine.Event {
	t.Helper()
	w, err := engine.NewWorld(spec, seed, set)
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.Event
	sink := collect(&out)
	for w.Step(sink) {
	}
	return out
}

type collector struct{ out *[]engine.Event }

func (c collector) Event(_ *engine.World, e *engine.Event, _ *engine.Decision) {
	*c.out = append(*c.out, *e)
}

func collect(out *[]engine.Event) engine.Sink { return collector{out} }

func equalTraces(t *testing.T, what string, a, b []engine.Event) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d events vs %d", what, len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("%s: differ at event %d:\n%+v\n%+v", what, i, a[i], b[i])
		}
	}
}

// smallIncidents are the bundled incidents whose runs take under 60,000
// events: the property tests replay runs many times over, and the big ones
// (galewatch's 372,000 readings) have their own clone tests.
func smallIncidents() []*engine.Spec {
	var out []*engine.Spec
	for _, s := range incidents.All() {
		sum, _, err := engine.Run(s, engine.RunOptions{Seed: s.Seed, MaxSteps: 60_000})
		if err == nil && sum.Events < 60_000 {
			out = append(out, s)
		}
	}
	return out
}

// randomCase picks an incident, a seed and some knobs.
func randomCase(r *rand.Rand, all []*engine.Spec) (*engine.Spec, uint64, []engine.Setting) {
	spec := all[r.IntN(len(all))]
	if spec.NewFamily != nil {
		// a family reads its own knobs; its seeds and moments still vary
		return spec, r.Uint64N(1000), nil
	}
	var set []engine.Setting
	knobs := [][2]string{
		{"visibility_timeout", fmt.Sprintf("%ds", 20+r.IntN(50))},
		{"late_ack", []string{"refuse", "accept"}[r.IntN(2)]},
		{"ack", []string{"after", "before"}[r.IntN(2)]},
		{"heartbeat", []string{"0s", "10s"}[r.IntN(2)]},
		{"max_receives", fmt.Sprint(1 + r.IntN(4))},
	}
	for _, k := range knobs {
		if r.IntN(3) == 0 {
			set = append(set, engine.Setting{Knob: k[0], Value: k[1]})
		}
	}
	if spec.ID != "christmas-friday" {
		set = append(set, engine.Setting{Knob: "orders", Value: fmt.Sprint(5 + r.IntN(40))})
	}
	return spec, r.Uint64N(1000), set
}

func TestSeekThenPlayEqualsStraight(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	small := smallIncidents()
	for i := 0; i < 40; i++ {
		spec, seed, set := randomCase(r, small)
		want := straight(t, spec, seed, set)
		x, err := engine.NewExplorer(spec, seed, set)
		if err != nil {
			t.Fatal(err)
		}
		x.Every = int64(16 + r.IntN(200)) // many checkpoints
		x.End()
		// seek back and forth at random, then play from the last point
		for j := 0; j < 5; j++ {
			x.Goto(int64(r.IntN(len(want) + 1)))
		}
		p := x.Pos()
		got := x.Events(p, int64(len(want))+10)
		equalTraces(t, fmt.Sprintf("case %d (%s seed %d %v) from %d", i, spec.ID, seed, set, p), want[p:], evs(got))
		if x.World().Pos != p {
			t.Fatalf("cursor moved")
		}
	}
}

func evs(es []engine.Entry) []engine.Event {
	var out []engine.Event
	for _, e := range es {
		out = append(out, e.Event)
	}
	return out
}

func TestForkWithNoChangeEqualsParent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	small := smallIncidents()
	for i := 0; i < 30; i++ {
		spec, seed, set := randomCase(r, small)
		x, _ := engine.NewExplorer(spec, seed, set)
		x.Every = 64
		main := x.Branch()
		want := traceOf(x, main)
		x.Goto(int64(r.IntN(len(want) + 1)))
		b, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now})
		if err != nil {
			t.Fatal(err)
		}
		equalTraces(t, "fork without change", want, traceOf(x, b))
		if a, c := x.Summary(main), x.Summary(b); a.TraceSHA256 != c.TraceSHA256 {
			t.Fatalf("hash differs: %s vs %s", a.TraceSHA256, c.TraceSHA256)
		}
		if _, diverged := x.Compare(main, b); diverged {
			t.Fatal("compare found a divergence between identical branches")
		}
	}
}

func TestForkMatchesParentUpToForkPoint(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	small := smallIncidents()
	for i := 0; i < 30; i++ {
		spec, seed, set := randomCase(r, small)
		x, _ := engine.NewExplorer(spec, seed, set)
		x.Every = 100
		want := traceOf(x, x.Branch())
		pos := int64(r.IntN(len(want)))
		x.Goto(pos)
		change := []engine.Setting{{Knob: "visibility_timeout", Value: fmt.Sprintf("%ds", 31+r.IntN(60))}}
		if spec.NewFamily != nil {
			// any knob the family reads, set to another of its values
			k := engine.KnobsFor(spec)[0]
			v := k.Get(&spec.Params)
			change = []engine.Setting{{Knob: k.Name, Value: otherValue(k, v)}}
			if change[0].Value == "" {
				continue
			}
		}
		b, err := x.Fork(engine.ForkOptions{Pos: pos, At: x.World().Now, Set: change})
		if err != nil {
			t.Fatal(err)
		}
		got := traceOf(x, b)
		equalTraces(t, "prefix", want[:pos], got[:pos])
		if got[pos].Kind != engine.EvKnob {
			t.Fatalf("first event after the fork is %v, want knob", got[pos].Kind)
		}
		d, ok := x.Compare(x.Branches()[0], b)
		if !ok || d.Pos != pos {
			t.Fatalf("divergence at %d (%v), want %d", d.Pos, ok, pos)
		}
	}
}

// A headless --at run and an explorer fork at the same clock agree.
func TestHeadlessAtEqualsExplorerFork(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	at, _ := engine.ParseClock("19:52:00")
	set := []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}
	sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: at, AtSet: set})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	x.SeekTime(at)
	b, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: at, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	got := x.Summary(b)
	if got.TraceSHA256 != sum.TraceSHA256 || got.Effects != sum.Effects {
		t.Fatalf("explorer fork %s/%d, headless %s/%d", got.TraceSHA256, got.Effects, sum.TraceSHA256, sum.Effects)
	}
	// and the main branch's summary equals a plain headless run
	plain, _, _ := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
	if m := x.Summary(x.Branches()[0]); m.TraceSHA256 != plain.TraceSHA256 {
		t.Fatalf("main %s vs headless %s", m.TraceSHA256, plain.TraceSHA256)
	}
}

func TestDecisionForkChangesOutcome(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	at, _ := engine.ParseClock("19:52:34")
	x.SeekTime(at)
	// the next decision is the broker's answer to box B's late ack
	e, ok := x.NextDecision()
	if !ok || e.Decision.Kind != engine.DecLateAck || e.Event.Msg != 14 {
		t.Fatalf("next decision: %+v", e)
	}
	b, err := x.Fork(engine.ForkOptions{Pos: e.Event.Pos, At: e.Event.T,
		Override: &engine.DecisionOverride{Index: e.Decision.Index, Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	x.Summary(b)
	n := 0
	for _, en := range x.EventsOn(b, 0, b.Len()) {
		if en.Event.Kind == engine.EvEffect && en.Event.Msg == 14 {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("order 14 got %d emails after the broker accepted the late ack, want 2", n)
	}
}

func TestPrevNextDecisionRoundTrip(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	x.Every = 50
	var fwd []int64
	for i := 0; i < 30; i++ {
		e, ok := x.NextDecision()
		if !ok {
			t.Fatal("ran out of decisions")
		}
		fwd = append(fwd, e.Event.Pos)
	}
	for i := len(fwd) - 2; i >= 0; i-- {
		e, ok := x.PrevDecision()
		if !ok || e.Event.Pos != fwd[i] {
			t.Fatalf("prev decision %d: got %d (%v), want %d", i, e.Event.Pos, ok, fwd[i])
		}
	}
}

// otherValue picks a value of k other than v, or "" when it cannot tell one.
func otherValue(k *engine.Knob, v string) string {
	for _, c := range k.Choices {
		if c != v {
			return c
		}
	}
	return ""
}

// A fork of a fork at the very same event replays its own line, the same
// as one fork with both changes (the reviewer's case: f pressed twice).
func TestForkOfForkAtSameEvent(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	vt := engine.Setting{Knob: "visibility_timeout", Value: "60s"}
	la := engine.Setting{Knob: "late_ack", Value: "accept"}
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	x.Every = 50
	x.Goto(500)
	at := x.World().Now
	if _, err := x.Fork(engine.ForkOptions{Pos: 500, At: at, Set: []engine.Setting{vt}}); err != nil {
		t.Fatal(err)
	}
	b, err := x.Fork(engine.ForkOptions{Pos: 500, At: at, Set: []engine.Setting{la}})
	if err != nil {
		t.Fatal(err)
	}
	y, _ := engine.NewExplorer(spec, spec.Seed, nil)
	y.Goto(500)
	ref, _ := y.Fork(engine.ForkOptions{Pos: 500, At: at, Set: []engine.Setting{vt, la}})
	// both forks' changes land in one knob step, as if made together
	equalTraces(t, "fork of a fork at the same event", evs(y.EventsOn(ref, 0, 1<<40)), evs(x.EventsOn(b, 0, 1<<40)))
	if x.Summary(b).Effects != y.Summary(ref).Effects {
		t.Fatal("summaries differ")
	}
	var trace strings.Builder
	x.WriteTrace(b, &trace)
	if n := strings.Count(trace.String(), "\n"); int64(n) != b.Len() || x.Summary(b).TraceSHA256 != y.Summary(ref).TraceSHA256 {
		t.Fatalf("trace has %d lines, branch %d events", n, b.Len())
	}
}

// Forking while on a branch, at a moment before that branch's own fork,
// forks the ancestor that owns the moment.
func TestForkBeforeChildForkPoint(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	la := []engine.Setting{{Knob: "late_ack", Value: "accept"}}
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	x.Every = 50
	x.Goto(800)
	if _, err := x.Fork(engine.ForkOptions{Pos: 800, At: x.World().Now, Set: []engine.Setting{{Knob: "visibility_timeout", Value: "60s"}}}); err != nil {
		t.Fatal(err)
	}
	x.Goto(300)
	b, err := x.Fork(engine.ForkOptions{Pos: 300, At: x.World().Now, Set: la})
	if err != nil {
		t.Fatal(err)
	}
	if b.Parent != x.Branches()[0] {
		t.Fatalf("parent is %s, want main", b.Parent.Name)
	}
	y, _ := engine.NewExplorer(spec, spec.Seed, nil)
	y.Goto(300)
	ref, _ := y.Fork(engine.ForkOptions{Pos: 300, At: y.World().Now, Set: la})
	equalTraces(t, "fork before the child's fork point", evs(y.EventsOn(ref, 0, 1<<40)), evs(x.EventsOn(b, 0, 1<<40)))
	if d, ok := x.Compare(x.Branches()[0], b); !ok || d.Pos != 300 {
		t.Fatalf("divergence %d %v, want 300", d.Pos, ok)
	}
	if _, err := engine.OpenCode(x.Code(), spec); err != nil {
		t.Fatalf("its own code does not open: %v", err)
	}
}

func TestForkRefusesWhatCannotApply(t *testing.T) {
	spec, _ := incidents.Get("thursday")
	x, _ := engine.NewExplorer(spec, spec.Seed, nil)
	x.End()
	if _, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: x.World().Now, Set: []engine.Setting{{Knob: "late_ack", Value: "accept"}}}); err == nil {
		t.Error("a fork at the end was accepted")
	}
	x.Goto(100)
	if _, err := x.Fork(engine.ForkOptions{Pos: 100, Override: &engine.DecisionOverride{Index: 99999, Value: 1}}); err == nil {
		t.Error("an override of a decision not made there was accepted")
	}
}

// TestCloneBesideExplorer works a clone on another goroutine while the
// explorer it came from goes on seeking, playing and forking: the two
// share their checkpoints read-only, so neither waits for the other (run
// under -race), and both read the same history.
func TestCloneBesideExplorer(t *testing.T) {
	for _, spec := range incidents.All() {
		far := int64(30_000)
		if sum, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, MaxSteps: far}); err == nil {
			far = min(far, sum.Events)
		}
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		x.Every = 1024 // many checkpoints to share
		x.Goto(far / 2)
		c := x.Clone()
		done := make(chan []engine.Entry)
		go func() {
			c.Goto(far)
			c.Goto(far / 4)
			c.Goto(far / 2)
			c.ChartStart(c.Branch())
			done <- c.Events(0, far)
		}()
		x.Goto(far / 8)
		x.Goto(far)
		x.ChartStart(x.Branch())
		if _, err := x.Fork(engine.ForkOptions{Pos: far / 3}); err != nil && !strings.Contains(err.Error(), "ended") {
			t.Fatalf("%s: fork: %v", spec.ID, err)
		}
		x.Goto(far / 2)
		got := <-done
		equalTraces(t, spec.ID+": clone vs explorer", evs(x.EventsOn(x.Branches()[0], 0, far)), evs(got))
	}
}

// TestCheckpointClonesConcurrently plays four clones of an explorer (each
// taken on the explorer's goroutine, as a job's is) from the same
// checkpoint at once: a checkpoint is only read, whatever its family.
func TestCheckpointClonesConcurrently(t *testing.T) {
	for _, spec := range incidents.All() {
		x, err := engine.NewExplorer(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		x.Every = 512
		x.Goto(4096)
		if x.Pos() < 4096 {
			continue // too short to checkpoint
		}
		got := make(chan uint64)
		for range 4 {
			c := x.Clone()
			go func() { got <- c.WorldAt(c.Branch(), 4096-100).Fingerprint() }()
		}
		x.Goto(4096 - 100)
		want := x.World().Fingerprint()
		for range 4 {
			if f := <-got; f != want {
				t.Errorf("%s: a concurrent clone is at %x, the explorer at %x", spec.ID, f, want)
			}
		}
	}
}
