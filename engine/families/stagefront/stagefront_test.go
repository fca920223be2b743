package stagefront

import (
	"testing"

	"inflight/engine"
)

func testSpec() *engine.Spec {
	s := &engine.Spec{ID: "stagefront", Title: "stagefront", Label: "hold", Start: 10 * engine.Hour, Featured: -1,
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

var failure = engine.Setting{Knob: "zero_rows", Value: "failure"}

// TestPublishedFigures: every held seat sold exactly once, nothing in the
// DLQ, zero-row successes > 0; with zero_rows=failure the same sales and
// the redelivered messages in the DLQ as false failures.
func TestPublishedFigures(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		a := runIt(t, seed)
		b := runIt(t, seed, failure)
		for _, s := range []engine.Summary{a, b} {
			if s.Messages != People || s.Effects != People || s.Figure("sold") != People || s.DuplicateEffects != 0 || s.Lost != 0 {
				t.Errorf("seed %d: messages %d effects %d sold %d dups %d lost %d", seed, s.Messages, s.Effects, s.Figure("sold"), s.DuplicateEffects, s.Lost)
			}
		}
		crashes := a.Figure("crashes")
		if crashes == 0 || a.Figure("zero_row_successes") != crashes || a.DLQ != 0 || len(a.Alerts) != 0 {
			t.Errorf("seed %d success: crashes %d zero-row successes %d dlq %d", seed, crashes, a.Figure("zero_row_successes"), a.DLQ)
		}
		// the same crashes; each crashed sale fails twice and is dead-lettered
		if b.Figure("crashes") != crashes || b.DLQ == 0 || b.DLQ != b.Figure("dead_letters_sold") || b.Figure("zero_row_failures") != 2*b.DLQ || b.Figure("zero_row_successes") != 0 {
			t.Errorf("seed %d failure: crashes %d dlq %d sold in dlq %d zero-row failures %d", seed, b.Figure("crashes"), b.DLQ, b.Figure("dead_letters_sold"), b.Figure("zero_row_failures"))
		}
	}
}

// TestShortLeases: with leases shorter than the update, the broker hands
// out every sale three times and the status still fences every seat.
func TestShortLeases(t *testing.T) {
	s := runIt(t, 1, engine.Setting{Knob: "visibility_timeout", Value: "15ms"})
	if s.Effects != People || s.DuplicateEffects != 0 || s.Deliveries != 3*People || s.LateAcksRefused == 0 {
		t.Fatalf("short leases: effects %d dups %d deliveries %d refused %d", s.Effects, s.DuplicateEffects, s.Deliveries, s.LateAcksRefused)
	}
}

// TestCloneForksIndependently forks mid-sale, turns zero rows into
// failures in the fork only, and checks the original still ends as a
// straight run does.
func TestCloneForksIndependently(t *testing.T) {
	straight := runIt(t, 1)
	w, err := engine.NewWorld(testSpec(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for w.Now < 10*engine.Hour+20*engine.Second && w.Step(nil) {
	}
	fork := w.Clone()
	if err := fork.ScheduleKnobs(fork.Now, []engine.Setting{failure}); err != nil {
		t.Fatal(err)
	}
	for fork.Step(nil) {
	}
	for w.Step(nil) {
	}
	a, b := w.Summarize(""), fork.Summarize("")
	if a.Events != straight.Events || a.DLQ != 0 || a.Figure("zero_row_successes") != straight.Figure("zero_row_successes") || w.Fingerprint() == fork.Fingerprint() {
		t.Fatalf("original: events %d (straight %d), dlq %d", a.Events, straight.Events, a.DLQ)
	}
	if b.DLQ == 0 || b.Effects != People || b.DuplicateEffects != 0 {
		t.Fatalf("fork: dlq %d effects %d dups %d", b.DLQ, b.Effects, b.DuplicateEffects)
	}
}

// TestHoldsCopyOnWrite: a clone's writes never show in the original, nor
// the original's in the clone.
func TestHoldsCopyOnWrite(t *testing.T) {
	h := newHolds(5000)
	h.mut(7).sold = true
	c := h.clone()
	c.mut(7).sold = false
	c.mut(4000).receives = 3
	h.mut(8).state = stDLQ
	if !h.at(7).sold || h.at(4000).receives != 0 || c.at(7).sold || c.at(4000).receives != 3 || c.at(8).state != stVisible {
		t.Fatalf("shared writes: %+v %+v %+v / %+v %+v", h.at(7), h.at(4000), h.at(8), c.at(7), c.at(4000))
	}
}

type sinkFunc func(w *engine.World, e *engine.Event, d *engine.Decision)

func (f sinkFunc) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

func TestPanesAndCaptions(t *testing.T) {
	w, _ := engine.NewWorld(testSpec(), 1, []engine.Setting{failure})
	bad, sold, fail := 0, false, false
	sink := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Pos%1000 == 0 || e.Kind >= engine.FamilyKind || e.Kind == engine.EvDLQ || e.Kind == engine.EvCrash {
			if c := w.Caption(e, d); c == "" || c == "unknown" || c == e.Kind.String() || (d != nil && w.DecisionText(d) == "") {
				bad++
			}
		}
		if e.Kind == engine.EvDLQ || e.Pos%20000 == 0 {
			p := w.Family().Panes(w)
			for _, r := range p.DLQ {
				sold = sold || r.Mark == "SOLD"
			}
			for _, r := range p.Inbox {
				fail = fail || r.Mark == "FAIL"
			}
			q, f := w.Family().Counts(w)
			busy := 0
			for _, r := range p.InFlight {
				if r.Msg >= 0 {
					busy++
				}
			}
			if f != busy || (q < 40 && q != len(p.Queue)) {
				t.Fatalf("counts %d/%d; panes %d/%d", q, f, len(p.Queue), busy)
			}
		}
	})
	for w.Step(sink) {
	}
	if bad > 0 || !sold || !fail {
		t.Fatalf("bad captions %d; SOLD in the drawer %v; FAIL seen %v", bad, sold, fail)
	}
}

// BenchmarkStagefrontHeadless is the whole sale headless: 200,000 sales,
// about 800,000 events, well under a second.
func BenchmarkStagefrontHeadless(b *testing.B) {
	spec := testSpec()
	for i := 0; i < b.N; i++ {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: 1})
		if err != nil || s.Effects != People {
			b.Fatal(err, s.Effects)
		}
		b.ReportMetric(float64(s.Events), "events/op")
	}
}

// BenchmarkStagefrontClone is one checkpoint's copy of the family mid-sale.
func BenchmarkStagefrontClone(b *testing.B) {
	w, _ := engine.NewWorld(testSpec(), 1, nil)
	for w.Now < 10*engine.Hour+30*engine.Second && w.Step(nil) {
	}
	f := w.Family()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = f.Clone()
	}
}
