package stagefront_test

import (
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/stagefront"
)

var failure = engine.Setting{Knob: "zero_rows", Value: "failure"}

// TestPublishedFigures: every held seat sold exactly once, nothing in the
// DLQ, zero-row successes > 0; with zero_rows=failure the same sales and
// the redelivered messages in the DLQ as false failures.
func TestPublishedFigures(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		a := familytest.Summary(t, familytest.Incident(t, "stagefront"), seed)
		b := familytest.Summary(t, familytest.Incident(t, "stagefront"), seed, failure)
		for _, s := range []engine.Summary{a, b} {
			if s.Messages != stagefront.People || s.Effects != stagefront.People || s.Figure("sold") != stagefront.People || s.DuplicateEffects != 0 || s.Lost != 0 {
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
	s := familytest.Summary(t, familytest.Incident(t, "stagefront"), 1, engine.Setting{Knob: "visibility_timeout", Value: "15ms"})
	if s.Effects != stagefront.People || s.DuplicateEffects != 0 || s.Deliveries != 3*stagefront.People || s.LateAcksRefused == 0 {
		t.Fatalf("short leases: effects %d dups %d deliveries %d refused %d", s.Effects, s.DuplicateEffects, s.Deliveries, s.LateAcksRefused)
	}
}

// TestCloneForksIndependently forks mid-sale, turns zero rows into
// failures in the fork only, and checks the original still ends as a
// straight run does.
func TestCloneForksIndependently(t *testing.T) {
	straight := familytest.Summary(t, familytest.Incident(t, "stagefront"), 1)
	w := familytest.WorldAt(t, familytest.Incident(t, "stagefront"), 1, nil, "10:00:20")
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
	if b.DLQ == 0 || b.Effects != stagefront.People || b.DuplicateEffects != 0 {
		t.Fatalf("fork: dlq %d effects %d dups %d", b.DLQ, b.Effects, b.DuplicateEffects)
	}
}

func TestPanesAndCaptions(t *testing.T) {
	w, _ := engine.NewWorld(familytest.Incident(t, "stagefront"), 1, []engine.Setting{failure})
	bad, sold, fail := 0, false, false
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Pos%1000 == 0 || e.Kind >= engine.FamilyKind || e.Kind == engine.EvDLQ || e.Kind == engine.EvCrash {
			if c := w.Caption(e, d); c == "" || c == "unknown" || c == e.Kind.String() || (d != nil && w.DecisionText(d) == "") {
				bad++
			}
		}
		if e.Kind == engine.EvDLQ || e.Pos%20000 == 0 {
			p := w.Family().Panes(w, engine.CursorOf(w))
			for _, r := range p[2].Rows {
				sold = sold || r.Mark == "SOLD"
			}
			for _, r := range p[3].Rows {
				fail = fail || r.Mark == "FAIL"
			}
			q, f := w.Family().Counts(w)
			busy := 0
			for _, r := range p[1].Rows {
				if r.Msg >= 0 {
					busy++
				}
			}
			if f != busy || (q < 40 && q != len(p[0].Rows)) {
				t.Fatalf("counts %d/%d; panes %d/%d", q, f, len(p[0].Rows), busy)
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
	familytest.BenchHeadless(b, familytest.Incident(b, "stagefront"), 1, func(s engine.Summary) bool { return s.Effects == stagefront.People })
}

// BenchmarkStagefrontClone is one checkpoint's copy of the family mid-sale.
func BenchmarkStagefrontClone(b *testing.B) {
	familytest.BenchClone(b, familytest.Incident(b, "stagefront"), 1, "10:00:30")
}

// TestEveryRunEnds: knob values the lesson never set, each to its end with
// every figure. max_receives=256 used to run for ever (receive counts were
// uint8 and wrapped before reaching it); with 20 ms leases and one receive,
// each seat's lease runs out as its update commits, the broker moves it
// aside, and the consumer still holding it sells it: every dead letter is
// a sold seat, and dead_letters_sold says so.
func TestEveryRunEnds(t *testing.T) {
	figs := []string{"sold", "crashes", "dead_letters", "dead_letters_sold", "zero_row_failures", "zero_row_successes"}
	familytest.Table(t, familytest.Incident(t, "stagefront"), 1, 50_000_000, figs, []familytest.Case{
		{Name: "max_receives=256, zero_rows=failure", Set: []string{"max_receives", "256", "zero_rows", "failure"},
			Want: "messages 200000 deliveries 249725 effects 200000 duplicates 0 end 12:09:54.355 | held 0 done 199805 dlq 195 lost 0 | sold 200000 crashes 195 dead_letters 195 dead_letters_sold 195 zero_row_failures 49725 zero_row_successes 0"},
		{Name: "max_receives=1000, zero_rows=failure", Set: []string{"max_receives", "1000", "zero_rows", "failure"},
			Want: "messages 200000 deliveries 394805 effects 200000 duplicates 0 end 18:21:54.355 | held 0 done 199805 dlq 195 lost 0 | sold 200000 crashes 195 dead_letters 195 dead_letters_sold 195 zero_row_failures 194805 zero_row_successes 0"},
		{Name: "visibility_timeout=20ms, max_receives=1", Set: []string{"visibility_timeout", "20ms", "max_receives", "1"},
			Want: "messages 200000 deliveries 200000 effects 200000 duplicates 0 end 10:01:56.234 | held 0 done 0 dlq 200000 lost 0 | sold 200000 crashes 195 dead_letters 200000 dead_letters_sold 200000 zero_row_failures 0 zero_row_successes 0"},
		{Name: "crash_p=1, restart_after=0s, visibility_timeout=1ms", Set: []string{"crash_p", "1", "restart_after", "0s", "visibility_timeout", "1ms"},
			Want: "messages 200000 deliveries 600000 effects 200000 duplicates 0 end 10:05:15 | held 0 done 0 dlq 200000 lost 0 | sold 200000 crashes 600000 dead_letters 200000 dead_letters_sold 200000 zero_row_failures 0 zero_row_successes 400000"},
	})
}

// TestForkKeepsTheDelivery: hold 2291's second delivery begins at
// 10:00:31.200 and its update matches zero rows at 10:00:31.220. A fork to
// zero_rows=failure at 10:00:31.210 applies to the deliveries after it;
// 2291's keeps the handler it began with (success, acked), where the knob
// used to be read again at the update. A fork 10 ms before the delivery
// fails it with the rest.
func TestForkKeepsTheDelivery(t *testing.T) {
	figs := []string{"sold", "crashes", "dead_letters", "dead_letters_sold", "zero_row_failures", "zero_row_successes"}
	familytest.Table(t, familytest.Incident(t, "stagefront"), 1, 10_000_000, figs, []familytest.Case{
		{Name: "10:00:31.19", Fork: familytest.Fork{At: "10:00:31.19", Set: familytest.Set(failure.Knob, failure.Value)}, Want: "messages 200000 deliveries 200390 effects 200000 duplicates 0 end 10:03:24.334 | held 0 done 199805 dlq 195 lost 0 | sold 200000 crashes 195 dead_letters 195 dead_letters_sold 195 zero_row_failures 390 zero_row_successes 0"},
		{Name: "10:00:31.21", Fork: familytest.Fork{At: "10:00:31.21", Set: familytest.Set(failure.Knob, failure.Value)}, Want: "messages 200000 deliveries 200389 effects 200000 duplicates 0 end 10:03:24.333 | held 0 done 199806 dlq 194 lost 0 | sold 200000 crashes 195 dead_letters 194 dead_letters_sold 194 zero_row_failures 388 zero_row_successes 1"},
	})
}

// TestCloneWithShortLeases: a checkpoint while leases run out under
// consumers still handling dead-lettered seats.
func TestCloneWithShortLeases(t *testing.T) {
	familytest.CloneMidRun(t, familytest.Incident(t, "stagefront"), 1, familytest.Set("visibility_timeout", "20ms", "max_receives", "1"), "10:00:30",
		"sold", "dead_letters", "dead_letters_sold")
}
