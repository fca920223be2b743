package incidents_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// The checks every bundled incident must pass, queue or family: each test
// here used to be written again in each family's package.

// TestExercisesRun: each exercise's preset fork runs to the end.
func TestExercisesRun(t *testing.T) {
	for _, s := range incidents.All() {
		if len(s.Exercises) == 0 {
			t.Errorf("%s has no exercises", s.ID)
		}
		for _, ex := range s.Exercises {
			sum, _, err := engine.Run(s, engine.RunOptions{Seed: s.Seed, HasAt: true, At: ex.At, AtSet: ex.Set})
			if err != nil {
				t.Fatalf("%s exercise %s: %v", s.ID, ex.Key, err)
			}
			if sum.Events == 0 {
				t.Errorf("%s exercise %s: no events", s.ID, ex.Key)
			}
		}
	}
}

// TestBookmarksInRun: every bookmark is a moment of the lesson's run, from
// its start to its end.
func TestBookmarksInRun(t *testing.T) {
	for _, s := range incidents.All() {
		w, err := engine.NewWorld(s, s.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		var last engine.Time
		for w.Step(sinkFunc(func(_ *engine.World, e *engine.Event, _ *engine.Decision) { last = e.T })) {
		}
		for _, b := range s.Bookmarks {
			if b.At < s.Start || b.At > last+engine.Minute { // an "at the end" beat may round up
				t.Errorf("%s bookmark %q at %s: outside the run (%s–%s)", s.ID, b.Title, b.At.Short(), s.Start.Short(), last.Short())
			}
		}
	}
}

// TestExplorerSeekAndFork: the explorer checkpoints often, seeks back and
// forth, and the branch still sums up to the headless run; the same fork
// from the middle twice gives the same trace.
func TestExplorerSeekAndFork(t *testing.T) {
	for _, s := range incidents.All() {
		straight, _, err := engine.Run(s, engine.RunOptions{Seed: s.Seed})
		if err != nil {
			t.Fatal(err)
		}
		x, err := engine.NewExplorer(s, s.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		x.Every = max(7, straight.Events/400) // hundreds of checkpoints, however long the run
		x.End()
		n := x.Pos()
		for _, p := range []int64{n / 2, 3, n - 1, n / 3, n} {
			x.Goto(p)
		}
		if got := x.Summary(x.Branch()); got.TraceSHA256 != straight.TraceSHA256 {
			t.Fatalf("%s: explored %s, headless %s", s.ID, got.TraceSHA256, straight.TraceSHA256)
		}
		k := engine.KnobsFor(s)[0]
		other := otherValue(k, k.Get(&s.Params))
		var sums []string
		for i := 0; i < 2; i++ {
			x.Switch(x.Branches()[0])
			x.Goto(n / 2)
			b, err := x.Fork(engine.ForkOptions{Pos: n / 2, At: x.World().Now, Set: []engine.Setting{{Knob: k.Name, Value: other}}})
			if err != nil {
				t.Fatalf("%s: fork %s=%s: %v", s.ID, k.Name, other, err)
			}
			x.End()
			x.Goto(x.Pos() / 2)
			sums = append(sums, x.Summary(b).TraceSHA256)
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: the same fork twice gave %s and %s", s.ID, sums[0], sums[1])
		}
	}
}

// otherValue is a value of k other than v: another choice, or a number.
func otherValue(k *engine.Knob, v string) string {
	for _, c := range k.Choices {
		if c != v {
			return c
		}
	}
	var p engine.Params
	for _, try := range []string{"7", "10m", "0.5", "8"} {
		if try != v && k.Set(&p, try) == nil {
			return try
		}
	}
	return v
}

type sinkFunc func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFunc) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// TestCloneMidRun: a world cloned mid-run, stepped in turn with its
// original, gives the same trace as a straight run — for every incident
// under 60,000 events and every fork its file lists that applies from the
// start. Shared state between a world and its clone (a family's Clone that
// forgets a slice) shows up here as a divergence.
func TestCloneMidRun(t *testing.T) {
	for _, s := range incidents.All() {
		runs := [][]engine.Setting{nil}
		for _, f := range s.Forks {
			if !f.HasAt {
				runs = append(runs, f.Set)
			}
		}
		for _, set := range runs {
			straight := &lines{}
			w, err := engine.NewWorld(s, s.Seed, set)
			if err != nil {
				t.Fatal(err)
			}
			for w.Step(straight) && len(straight.l) < 60_000 {
			}
			n := len(straight.l)
			if n >= 60_000 {
				break // the big ones have their own clone tests
			}
			for _, cut := range []int{1, n / 7, n / 3, n / 2, n - 2} {
				a := &lines{}
				w, _ := engine.NewWorld(s, s.Seed, set)
				for i := 0; i < cut; i++ {
					w.Step(a)
				}
				c := w.Clone()
				b := &lines{l: append([]string(nil), a.l...)}
				for {
					x, y := w.Step(a), c.Step(b)
					if !x && !y {
						break
					}
				}
				want := strings.Join(straight.l, "\n")
				if strings.Join(a.l, "\n") != want || strings.Join(b.l, "\n") != want {
					t.Fatalf("%s %v cut %d of %d: a clone diverged from the straight run", s.ID, set, cut, n)
				}
			}
		}
	}
}

// lines records each event as the trace would show it, decision included.
type lines struct{ l []string }

func (r *lines) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	tl := w.Line(e, d)
	s := tl.T + " " + tl.Kind + " " + tl.Caption
	if tl.Decision != nil {
		s += fmt.Sprintf(" [%d=%d]", tl.Decision.Index, tl.Decision.Chosen)
	}
	r.l = append(r.l, s)
}
