package galewatch

import (
	"testing"

	"inflight/engine"
)

func testSpec() *engine.Spec {
	s := &engine.Spec{ID: "galewatch", Title: "galewatch", Label: "reading", Start: 10 * engine.Hour, Featured: -1,
		NewFamily: New, Knobs: Knobs}
	Defaults(&s.Params)
	return s
}

func runIt(t testing.TB, seed uint64, set ...engine.Setting) engine.Summary {
	t.Helper()
	s, _, err := engine.Run(testSpec(), engine.RunOptions{Seed: seed, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPublishedFigures: 372,000 readings, nothing stored twice, every
// retry rejected, 3 lost by default and 0 without the clock step.
func TestPublishedFigures(t *testing.T) {
	tests := []struct {
		name       string
		set        []engine.Setting
		lost, rows int64
	}{
		{"default", nil, 3, 371997},
		{"clock_step=0s", []engine.Setting{{Knob: "clock_step", Value: "0s"}}, 0, 372000},
		{"clock_step=-60s", []engine.Setting{{Knob: "clock_step", Value: "-60s"}}, 30, 371970},
		{"clock_step=6s", []engine.Setting{{Knob: "clock_step", Value: "6s"}}, 0, 372000},
	}
	for _, tc := range tests {
		for _, seed := range []uint64{1, 2, 3} {
			s := runIt(t, seed, tc.set...)
			if s.Messages != 372000 || s.DuplicateEffects != 0 || s.Lost != tc.lost || s.Figure("rows") != tc.rows || s.Effects != tc.rows {
				t.Errorf("%s seed %d: messages %d dups %d lost %d rows %d effects %d", tc.name, seed, s.Messages, s.DuplicateEffects, s.Lost, s.Figure("rows"), s.Effects)
			}
			if r := s.Figure("retries"); r == 0 || r != s.Figure("retries_rejected") || r != s.Figure("timeouts") {
				t.Errorf("%s seed %d: retries %d rejected %d timeouts %d", tc.name, seed, r, s.Figure("retries_rejected"), s.Figure("timeouts"))
			}
		}
	}
}

// TestCloneForksIndependently forks before the daemon acts, removes the
// clock step in the fork only, and checks both copies end where they
// should, the original as a straight run.
func TestCloneForksIndependently(t *testing.T) {
	straight := runIt(t, 1)
	w, err := engine.NewWorld(testSpec(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for w.Now < 10*engine.Hour+4*engine.Minute && w.Step(nil) {
	}
	fork := w.Clone()
	if err := fork.ScheduleKnobs(fork.Now, []engine.Setting{{Knob: "clock_step", Value: "0s"}}); err != nil {
		t.Fatal(err)
	}
	for fork.Step(nil) {
	}
	for w.Step(nil) {
	}
	a, b := w.Summarize(""), fork.Summarize("")
	if a.Lost != 3 || a.Events != straight.Events || a.Figure("rows") != straight.Figure("rows") {
		t.Fatalf("original: lost %d events %d; straight %d %d", a.Lost, a.Events, straight.Lost, straight.Events)
	}
	if b.Lost != 0 || b.Figure("rows") != 372000 {
		t.Fatalf("fork: lost %d rows %d", b.Lost, b.Figure("rows"))
	}
}

// TestCloneAfterStep: a clone taken after a forward step (which starts a
// second run of stamps) shares no runs with the original.
func TestCloneAfterStep(t *testing.T) {
	w, _ := engine.NewWorld(testSpec(), 1, []engine.Setting{{Knob: "clock_step", Value: "7s"}})
	for w.Now < 10*engine.Hour+6*engine.Minute && w.Step(nil) {
	}
	g := w.Family().(*Family)
	if len(g.older) != 1 {
		t.Fatalf("a forward step left %d older runs, want 1", len(g.older))
	}
	n := g.older[0].n
	c := g.Clone().(*Family)
	c.older[0].n = 1
	c.insert(int(Stepped), 1)
	c.insert(0, 1)
	if len(g.older) != 1 || g.older[0].n != n || g.has(int(Stepped), 1) || g.has(0, 1) {
		t.Fatalf("a clone's writes show in the original: %+v", g.older)
	}
}

// TestForcedTimeout: forcing one answer lost adds exactly one rejected
// retry.
func TestForcedTimeout(t *testing.T) {
	w, _ := engine.NewWorld(testSpec(), 1, nil)
	w.Override(engine.DecisionOverride{Index: 0, Value: 1})
	for w.Step(nil) {
	}
	s := w.Summarize("")
	if s.Figure("retries") != 349 || s.Figure("retries_rejected") != 349 || s.DuplicateEffects != 0 {
		t.Fatalf("forced timeout: retries %d rejected %d", s.Figure("retries"), s.Figure("retries_rejected"))
	}
}

type sinkFunc func(w *engine.World, e *engine.Event, d *engine.Decision)

func (f sinkFunc) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

func TestPanesAndCaptions(t *testing.T) {
	w, _ := engine.NewWorld(testSpec(), 1, nil)
	bad, lost, copies := 0, false, false
	sink := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind != engine.EvEffect || e.Pos%5000 == 0 || (d != nil && d.Value == 1) {
			c := w.Caption(e, d)
			if c == "" || c == "unknown" || c == e.Kind.String() || (d != nil && w.DecisionText(d) == "") {
				bad++
			}
		}
		if e.Kind == KindCollision || e.Kind == KindReject {
			p := w.Family().Panes(w)
			for _, r := range p.DLQ {
				lost = lost || r.Mark == "LOST"
			}
			for _, r := range p.Inbox {
				copies = copies || r.Mark == "COPY"
			}
			if q, _ := w.Family().Counts(w); min(q, 40) != len(p.Queue) {
				t.Fatalf("counts %d, queue pane %d", q, len(p.Queue))
			}
		}
	})
	for w.Step(sink) {
	}
	if bad > 0 || !lost || !copies {
		t.Fatalf("bad captions %d; LOST seen %v; COPY seen %v", bad, lost, copies)
	}
}

// BenchmarkGalewatchHeadless is the whole incident headless: 372,000
// readings must take well under a second.
func BenchmarkGalewatchHeadless(b *testing.B) {
	spec := testSpec()
	for i := 0; i < b.N; i++ {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: 1})
		if err != nil || s.Lost != 3 {
			b.Fatal(err, s.Lost)
		}
		b.ReportMetric(float64(s.Events), "events/op")
	}
}

// BenchmarkGalewatchClone is one checkpoint's copy of the family.
func BenchmarkGalewatchClone(b *testing.B) {
	w, _ := engine.NewWorld(testSpec(), 1, nil)
	for w.Now < 10*engine.Hour+6*engine.Minute && w.Step(nil) {
	}
	f := w.Family()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = f.Clone()
	}
}
