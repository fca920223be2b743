package cashback_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"inflight/engine"
	"inflight/engine/families/cashback"
	"inflight/engine/families/familytest"
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
			s := familytest.Summary(t, familytest.Incident(t, "cashback"), lessonSeed, engine.Setting{Knob: "dedupe", Value: tc.dedupe})
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
	s := familytest.Summary(t, familytest.Incident(t, "cashback"), 8, engine.Setting{Knob: "dedupe", Value: "true"})
	if s.Figure("crashes") != 51 || s.Figure("balance") != 500000 {
		t.Fatalf("seed 8 dedupe=true: crashes %d balance %d, want 51 and 500000", s.Figure("crashes"), s.Figure("balance"))
	}
}

// TestBalanceIsCrashes: over 200 seeds without dedupe every crash is one
// extra credit; with dedupe the balance is exact and the crashes are the
// same; with the separate store every crash is one lost credit.
func TestBalanceIsCrashes(t *testing.T) {
	spec := familytest.Incident(t, "cashback")
	for seed := uint64(1); seed <= 200; seed++ {
		a := familytest.Summary(t, spec, seed)
		b := familytest.Summary(t, spec, seed, engine.Setting{Knob: "dedupe", Value: "true"})
		c := familytest.Summary(t, spec, seed, engine.Setting{Knob: "dedupe", Value: "separate"})
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

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// crashPoints lists where a run's consumer crashes: the entry, its
// delivery and the clock of each crash decision that came out "crash".
func crashPoints(t *testing.T, spec *engine.Spec, seed uint64, set ...engine.Setting) []string {
	t.Helper()
	w, err := engine.NewWorld(spec, seed, set)
	if err != nil {
		t.Fatal(err)
	}
	var at []string
	for w.Step(sinkFn(func(_ *engine.World, _ *engine.Event, d *engine.Decision) {
		if d != nil && d.Kind == engine.DecCrash && d.Value == 1 {
			at = append(at, fmt.Sprintf("%d#%d@%d", d.Msg, d.Delivery, d.T))
		}
	})) {
	}
	return at
}

// TestDedupeCrashesAtTheSamePoints: the lesson's dedupe run crashes at the
// same points as the run without it (the same entries, deliveries and
// moments), not just as often, so the balance's difference is dedupe's.
func TestDedupeCrashesAtTheSamePoints(t *testing.T) {
	spec := familytest.Incident(t, "cashback")
	for seed := uint64(1); seed <= 20; seed++ {
		a := crashPoints(t, spec, seed)
		b := crashPoints(t, spec, seed, engine.Setting{Knob: "dedupe", Value: "true"})
		if len(a) == 0 || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("seed %d: crashes without dedupe %v, with %v", seed, a, b)
		}
	}
}

// TestCloneForksIndependently forks a world mid-run (a checkpoint, as the
// explorer takes them), turns dedupe on in the fork only, and checks the
// two copies end apart while the original matches a straight run.
func TestCloneForksIndependently(t *testing.T) {
	spec := familytest.Incident(t, "cashback")
	straight := familytest.Summary(t, spec, lessonSeed)
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
	spec := familytest.Incident(t, "cashback")
	w, _ := engine.NewWorld(spec, lessonSeed, nil)
	// decision 0 is event 0's first delivery (no crash naturally)
	w.Forcing().Override(engine.DecisionOverride{Index: 0, Value: 1})
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
	spec := familytest.Incident(t, "cashback")
	w, _ := engine.NewWorld(spec, lessonSeed, nil)
	var bad int
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if c := w.Caption(e, d); c == "" || c == "unknown" || c == e.Kind.String() {
			bad++
		}
	})
	sawDup, sawRedelivered := false, false
	for w.Step(sink) {
		if w.Pos%97 != 0 {
			continue
		}
		p := w.Family().Panes(w, engine.CursorOf(w))
		for _, r := range p[3].Rows {
			sawDup = sawDup || r.Mark == "DUP"
		}
		for _, r := range p[1].Rows {
			sawRedelivered = sawRedelivered || r.Mark == "REDELIVERED"
		}
		q, f := w.Family().Counts(w)
		if q != len(p[0].Rows) && len(p[0].Rows) < 40 || f != len(p[1].Rows) {
			t.Fatalf("counts %d/%d, panes %d/%d", q, f, len(p[0].Rows), len(p[1].Rows))
		}
	}
	if bad > 0 || !sawDup || !sawRedelivered {
		t.Fatalf("captions missing %d; DUP seen %v; REDELIVERED seen %v", bad, sawDup, sawRedelivered)
	}
	if got := cashback.Rupees(505500); got != "₹5,05,500" {
		t.Fatalf("Rupees = %s", got)
	}
}

func BenchmarkCashbackHeadless(b *testing.B) {
	familytest.BenchHeadless(b, familytest.Incident(b, "cashback"), lessonSeed, func(s engine.Summary) bool { return s.Figure("balance") == 505500 })
}

// lineFigures are the figures the tables below compare, after the counts.
var lineFigures = []string{"balance", "expected_balance", "crashes", "dead_lettered", "skipped", "pending"}

// TestEveryRunEnds: a consumer that crashes on every delivery used to
// re-read its pending list for ever; it now moves an entry re-read more
// than max_receives times to the dead-letter stream. events=0 ends at its
// start (the consumer finds the stream empty), not at 00:00:00.
func TestEveryRunEnds(t *testing.T) {
	familytest.Table(t, familytest.Incident(t, "cashback"), 10, 10_000_000, lineFigures, []familytest.Case{
		{Name: "events=0", Set: []string{"events", "0"},
			Want: "messages 0 deliveries 0 effects 0 duplicates 0 end 10:00:00 | held 0 done 0 dlq 0 lost 0 | balance 0 expected_balance 0 crashes 0 dead_lettered 0 skipped 0 pending 0"},
		{Name: "crash_p=1, events=1", Set: []string{"crash_p", "1", "events", "1"},
			Want: "messages 1 deliveries 11 effects 10 duplicates 9 end 10:00:10.034 | held 0 done 0 dlq 1 lost 0 | balance 1000 expected_balance 100 crashes 10 dead_lettered 1 skipped 0 pending 0"},
		{Name: "crash_p=1, events=25", Set: []string{"crash_p", "1", "events", "25"},
			Want: "messages 25 deliveries 275 effects 30 duplicates 27 end 10:00:30.146 | held 0 done 0 dlq 25 lost 0 | balance 3000 expected_balance 2500 crashes 30 dead_lettered 25 skipped 0 pending 0"},
		{Name: "crash_p=1, events=25, dedupe=true", Set: []string{"crash_p", "1", "events", "25", "dedupe", "true"},
			Want: "messages 25 deliveries 275 effects 3 duplicates 0 end 10:00:30.146 | held 0 done 0 dlq 25 lost 0 | balance 300 expected_balance 2500 crashes 30 dead_lettered 25 skipped 27 pending 0"},
		{Name: "crash_p=1, events=25, dedupe=separate", Set: []string{"crash_p", "1", "events", "25", "dedupe", "separate"},
			Want: "messages 25 deliveries 275 effects 0 duplicates 0 end 10:00:30.146 | held 0 done 0 dlq 25 lost 0 | balance 0 expected_balance 2500 crashes 30 dead_lettered 25 skipped 27 pending 0"},
		{Name: "crash_p=1, events=3, max_receives=1000, restart_after=0s", Set: []string{"crash_p", "1", "events", "3", "max_receives", "1000", "restart_after", "0s"},
			Want: "messages 3 deliveries 3003 effects 1000 duplicates 999 end 10:00:03.008 | held 0 done 0 dlq 3 lost 0 | balance 100000 expected_balance 300 crashes 1000 dead_lettered 3 skipped 0 pending 0"},
		{Name: "crash_p=1, max_receives=1", Set: []string{"crash_p", "1", "max_receives", "1"},
			Want: "messages 5000 deliveries 10000 effects 500 duplicates 0 end 10:08:32.5 | held 0 done 0 dlq 5000 lost 0 | balance 50000 expected_balance 500000 crashes 500 dead_lettered 5000 skipped 0 pending 0"},
		{Name: "crash_p=0.5, events=200, max_receives=3", Set: []string{"crash_p", "0.5", "events", "200", "max_receives", "3"},
			Want: "messages 200 deliveries 637 effects 140 duplicates 40 end 10:01:00.7 | held 0 done 80 dlq 120 lost 0 | balance 14000 expected_balance 20000 crashes 60 dead_lettered 120 skipped 0 pending 0"},
	})
}

// TestForkCounts: a fork's events applies from its moment. Lowered below
// what is written, the producer writes nothing more (the XADD already due
// used to write one more entry, 2,001 for events=100 at 10:00:02); raised,
// it writes on.
func TestForkCounts(t *testing.T) {
	familytest.Table(t, familytest.Incident(t, "cashback"), 10, 10_000_000, lineFigures, []familytest.Case{
		{Name: "10:00:02 events=100", Fork: familytest.Fork{At: "10:00:02", Set: familytest.Set("events", "100")}, Want: "messages 2000 deliveries 2113 effects 2019 duplicates 19 end 10:00:25.276 | held 0 done 2000 dlq 0 lost 0 | balance 201900 expected_balance 200000 crashes 19 dead_lettered 0 skipped 0 pending 0"},
		{Name: "10:00:00 events=0", Fork: familytest.Fork{At: "10:00:00", Set: familytest.Set("events", "0")}, Want: "messages 0 deliveries 0 effects 0 duplicates 0 end 10:00:00 | held 0 done 0 dlq 0 lost 0 | balance 0 expected_balance 0 crashes 0 dead_lettered 0 skipped 0 pending 0"},
		{Name: "10:00:00.05 events=100", Fork: familytest.Fork{At: "10:00:00.05", Set: familytest.Set("events", "100")}, Want: "messages 100 deliveries 100 effects 100 duplicates 0 end 10:00:00.31 | held 0 done 100 dlq 0 lost 0 | balance 10000 expected_balance 10000 crashes 0 dead_lettered 0 skipped 0 pending 0"},
		{Name: "10:00:04.999 events=4999", Fork: familytest.Fork{At: "10:00:04.999", Set: familytest.Set("events", "4999")}, Want: "messages 4999 deliveries 5298 effects 5054 duplicates 55 end 10:01:10.717 | held 0 done 4999 dlq 0 lost 0 | balance 505400 expected_balance 499900 crashes 55 dead_lettered 0 skipped 0 pending 0"},
		{Name: "10:00:02 events=6000", Fork: familytest.Fork{At: "10:00:02", Set: familytest.Set("events", "6000")}, Want: "messages 6000 deliveries 6357 effects 6067 duplicates 67 end 10:01:25.868 | held 0 done 6000 dlq 0 lost 0 | balance 606700 expected_balance 600000 crashes 67 dead_lettered 0 skipped 0 pending 0"},
		{Name: "10:00:30 events=100", Fork: familytest.Fork{At: "10:00:30", Set: familytest.Set("events", "100")}, Want: "messages 5000 deliveries 5299 effects 5055 duplicates 55 end 10:01:10.72 | held 0 done 5000 dlq 0 lost 0 | balance 505500 expected_balance 500000 crashes 55 dead_lettered 0 skipped 0 pending 0"},
	})
}

// TestCloneWhileDeadLettering: a checkpoint while the consumer crashes on
// every delivery and moves entries to the dead-letter stream.
func TestCloneWhileDeadLettering(t *testing.T) {
	familytest.CloneMidRun(t, familytest.Incident(t, "cashback"), 10, familytest.Set("crash_p", "1", "events", "40", "max_receives", "3"), "10:00:05",
		lineFigures...)
}

// TestSearchSeed finds the incident's seed: the first seed from 1 whose
// default run crashes 55 times, as the lesson's run did. It is how
// cashback.yaml's seed was chosen; run it with CASHBACK_SEED_SEARCH=1.
func TestSearchSeed(t *testing.T) {
	if os.Getenv("CASHBACK_SEED_SEARCH") == "" {
		t.Skip("set CASHBACK_SEED_SEARCH=1 to search")
	}
	want, _ := strconv.Atoi(os.Getenv("CASHBACK_SEED_SEARCH"))
	if want < 2 {
		want = 55
	}
	spec := familytest.Incident(t, "cashback")
	for seed := uint64(1); seed < 1000; seed++ {
		s := familytest.Summary(t, spec, seed)
		if s.Figures["crashes"].(int64) == int64(want) {
			t.Logf("seed %d: crashes %v balance %v", seed, s.Figures["crashes"], s.Figures["balance"])
			return
		}
	}
	t.Fatal("no seed")
}

// TestDeadLettersSayWhetherApplied: at a 20% crash rate a re-read of the
// pending list is a delivery, as Redis counts it (XPENDING's counter rises
// on every XREADGROUP … 0 that returns the entry), so entries that waited
// behind crashes reach max_receives. Of this run's 3 dead letters two had
// their credit applied once before the consumer gave up; event 389 was
// never handled at all, and its ₹100 is what the balance lacks. The
// family's delivery counts are the stream model's XPENDING counts at every
// step.
func TestDeadLettersSayWhetherApplied(t *testing.T) {
	set := familytest.Set("events", "8857", "crash_p", "0.2", "dedupe", "true")
	w, _ := engine.NewWorld(familytest.Incident(t, "cashback"), 1216857201, set)
	var dead []string
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == engine.EvDLQ {
			dead = append(dead, fmt.Sprintf("%s event %d applied %d×", e.T.Clock(), e.Msg, e.Value))
		}
	})
	for w.Step(sink) {
		if w.Pos%61 == 0 {
			mirror, xp := w.Family().(*cashback.Family).PendingCounts(int64(w.Now))
			if fmt.Sprint(mirror) != fmt.Sprint(xp) {
				t.Fatalf("at %s delivery counts %v, XPENDING %v", w.Now.Clock(), mirror, xp)
			}
		}
	}
	want := []string{"10:01:46.998 event 388 applied 1×", "10:01:46.999 event 389 applied 0×", "10:12:57.440 event 3339 applied 1×"}
	if fmt.Sprint(dead) != fmt.Sprint(want) {
		t.Errorf("dead letters %v, want %v", dead, want)
	}
	s := w.Summarize("")
	if s.DLQ != 3 || s.Lost != 0 || s.Figure("balance") != 885600 || s.Figure("expected_balance") != 885700 ||
		s.Figure("dead_lettered_never_applied") != 1 || s.Figure("dead_lettered_applied") != 2 {
		t.Errorf("dlq %d lost %d balance %v of %v, dead letters never applied %v, applied %v; want 3 0 885600 885700 1 2",
			s.DLQ, s.Lost, s.Figure("balance"), s.Figure("expected_balance"), s.Figure("dead_lettered_never_applied"), s.Figure("dead_lettered_applied"))
	}
	p := w.Family().Panes(w, engine.CursorOf(w))
	if p[2].Title != "dead letters: 3 (1 never applied) · crashes: 2153 (after commit, before XACK)" || len(p[2].Rows) < 3 ||
		p[2].Rows[1].Text != "10:01:46.999  event 389 never applied · 11× delivered" || p[2].Rows[0].Text != "10:12:57.440  event 3339 applied 1× · 11× delivered" {
		t.Errorf("dead letters pane %q: %+v", p[2].Title, p[2].Rows[:min(3, len(p[2].Rows))])
	}
}
