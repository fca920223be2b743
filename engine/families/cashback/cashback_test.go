package cashback

import (
	"testing"

	"inflight/engine"
)

const lessonSeed = 10 // cashback.yaml's seed

// TestPublishedFigures: the lesson's run and its forks, figure by figure.
func TestPublishedFigures(t *testing.T) {
	tests := []struct {
		dedupe                                string
		crashes, balance, dups, lost, effects int64
	}{
		{"false", 55, 505500, 55, 0, 5055},
		{"true", 55, 500000, 0, 0, 5000},
		{"separate", 55, 494500, 0, 55, 4945},
	}
	for _, tc := range tests {
		t.Run("dedupe="+tc.dedupe, func(t *testing.T) {
			s := run(t, testSpec(), lessonSeed, engine.Setting{Knob: "dedupe", Value: tc.dedupe})
			got := []struct {
				name      string
				got, want int64
			}{
				{"messages", s.Messages, 5000},
				{"figures.expected_balance", s.Figure("expected_balance"), 500000},
				{"figures.crashes", s.Figure("crashes"), tc.crashes},
				{"figures.balance", s.Figure("balance"), tc.balance},
				{"duplicate_effects", s.DuplicateEffects, tc.dups},
				{"lost", s.Lost, tc.lost},
				{"effects", s.Effects, tc.effects},
				{"dlq", s.DLQ, 0},
				{"figures.pending", s.Figure("pending"), 0},
			}
			for _, g := range got {
				if g.got != g.want {
					t.Errorf("%s = %d, want %d", g.name, g.got, g.want)
				}
			}
		})
	}
}

// TestLessonSecondLine: the lesson's dedupe=True line was another run
// (51 crashes); seed 8 is one, and it ends exact.
func TestLessonSecondLine(t *testing.T) {
	s := run(t, testSpec(), 8, engine.Setting{Knob: "dedupe", Value: "true"})
	if s.Figure("crashes") != 51 || s.Figure("balance") != 500000 {
		t.Fatalf("seed 8 dedupe=true: crashes %d balance %d, want 51 and 500000", s.Figure("crashes"), s.Figure("balance"))
	}
}

// TestBalanceIsCrashes: over 200 seeds without dedupe every crash is one
// extra credit; with dedupe the balance is exact and the crashes are the
// same; with the separate store every crash is one lost credit.
func TestBalanceIsCrashes(t *testing.T) {
	spec := testSpec()
	for seed := uint64(1); seed <= 200; seed++ {
		a := run(t, spec, seed)
		b := run(t, spec, seed, engine.Setting{Knob: "dedupe", Value: "true"})
		c := run(t, spec, seed, engine.Setting{Knob: "dedupe", Value: "separate"})
		crashes := a.Figure("crashes")
		if crashes == 0 {
			t.Errorf("seed %d: no crashes at 1%%", seed)
		}
		if a.Figure("balance")-500000 != 100*crashes || a.DuplicateEffects != crashes || a.Lost != 0 {
			t.Errorf("seed %d dedupe=false: balance %d, crashes %d, dups %d", seed, a.Figure("balance"), crashes, a.DuplicateEffects)
		}
		if b.Figure("crashes") != crashes || b.Figure("balance") != 500000 || b.DuplicateEffects != 0 || b.Lost != 0 {
			t.Errorf("seed %d dedupe=true: crashes %d (want %d), balance %d", seed, b.Figure("crashes"), crashes, b.Figure("balance"))
		}
		// a crash on a redelivery that skips has nothing to lose
		harmful := crashes - c.Figure("crashes_after_skip")
		if c.Figure("crashes") != crashes || 500000-c.Figure("balance") != 100*harmful || c.Lost != harmful || c.DuplicateEffects != 0 || harmful <= 0 {
			t.Errorf("seed %d dedupe=separate: crashes %d (want %d), balance %d, lost %d", seed, c.Figure("crashes"), crashes, c.Figure("balance"), c.Lost)
		}
		if a.Deliveries != b.Deliveries || a.Deliveries != c.Deliveries {
			t.Errorf("seed %d: deliveries %d/%d/%d differ across dedupe modes", seed, a.Deliveries, b.Deliveries, c.Deliveries)
		}
	}
}

// TestCloneForksIndependently forks a world mid-run (a checkpoint, as the
// explorer takes them), turns dedupe on in the fork only, and checks the
// two copies end apart while the original matches a straight run.
func TestCloneForksIndependently(t *testing.T) {
	spec := testSpec()
	straight := run(t, spec, lessonSeed)
	w, err := engine.NewWorld(spec, lessonSeed, nil)
	if err != nil {
		t.Fatal(err)
	}
	for w.Pos < 9000 && w.Step(nil) {
	}
	fork := w.Clone()
	if err := fork.ScheduleKnobs(fork.Now, []engine.Setting{{Knob: "dedupe", Value: "true"}}); err != nil {
		t.Fatal(err)
	}
	// step the fork first, so shared state would show in the original
	for fork.Step(nil) {
	}
	again := w.Clone()
	for w.Step(nil) {
	}
	for again.Step(nil) {
	}
	orig, f, a := w.Summarize(""), fork.Summarize(""), again.Summarize("")
	if orig.Figure("balance") != straight.Figure("balance") || orig.Events != straight.Events || w.Fingerprint() != again.Fingerprint() {
		t.Fatalf("original after fork: balance %d events %d, straight run %d %d", orig.Figure("balance"), orig.Events, straight.Figure("balance"), straight.Events)
	}
	if a.Figure("balance") != orig.Figure("balance") {
		t.Fatalf("a second clone ends at %d, the original at %d", a.Figure("balance"), orig.Figure("balance"))
	}
	if f.Figure("crashes") != orig.Figure("crashes") || f.Figure("balance") >= orig.Figure("balance") {
		t.Fatalf("fork: crashes %d balance %d; original %d %d", f.Figure("crashes"), f.Figure("balance"), orig.Figure("crashes"), orig.Figure("balance"))
	}
}

// TestForcedCrash: a fork may force one crash decision; the balance then
// moves by exactly ₹100.
func TestForcedCrash(t *testing.T) {
	spec := testSpec()
	w, _ := engine.NewWorld(spec, lessonSeed, nil)
	// decision 0 is event 0's first delivery (no crash naturally)
	w.Override(engine.DecisionOverride{Index: 0, Value: 1})
	for w.Step(nil) {
	}
	s := w.Summarize("")
	if s.Figure("crashes") != 56 || s.Figure("balance") != 505600 {
		t.Fatalf("forced crash: crashes %d balance %d", s.Figure("crashes"), s.Figure("balance"))
	}
}

// TestPanesAndCaptions: every event has a caption and the panes say what
// the lesson says.
func TestPanesAndCaptions(t *testing.T) {
	spec := testSpec()
	w, _ := engine.NewWorld(spec, lessonSeed, nil)
	var bad int
	sink := sinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if c := w.Caption(e, d); c == "" || c == "unknown" || c == e.Kind.String() {
			bad++
		}
	})
	sawDup, sawRedelivered := false, false
	for w.Step(sink) {
		if w.Pos%97 != 0 {
			continue
		}
		p := w.Family().Panes(w)
		for _, r := range p.Inbox {
			sawDup = sawDup || r.Mark == "DUP"
		}
		for _, r := range p.InFlight {
			sawRedelivered = sawRedelivered || r.Mark == "REDELIVERED"
		}
		q, f := w.Family().Counts(w)
		if q != len(p.Queue) && len(p.Queue) < 40 || f != len(p.InFlight) {
			t.Fatalf("counts %d/%d, panes %d/%d", q, f, len(p.Queue), len(p.InFlight))
		}
	}
	if bad > 0 || !sawDup || !sawRedelivered {
		t.Fatalf("captions missing %d; DUP seen %v; REDELIVERED seen %v", bad, sawDup, sawRedelivered)
	}
	if got := Rupees(505500); got != "₹5,05,500" {
		t.Fatalf("Rupees = %s", got)
	}
}

type sinkFunc func(w *engine.World, e *engine.Event, d *engine.Decision)

func (f sinkFunc) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

func BenchmarkCashbackHeadless(b *testing.B) {
	spec := testSpec()
	for i := 0; i < b.N; i++ {
		s, _, err := engine.Run(spec, engine.RunOptions{Seed: lessonSeed})
		if err != nil || s.Figure("balance") != 505500 {
			b.Fatal(err, s.Figures)
		}
		b.ReportMetric(float64(s.Events), "events/op")
	}
}
