package galewatch_test

import (
	"fmt"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/galewatch"
)

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
			s := familytest.Summary(t, familytest.Incident(t, "galewatch"), seed, tc.set...)
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
	straight := familytest.Summary(t, familytest.Incident(t, "galewatch"), 1)
	w := familytest.WorldAt(t, familytest.Incident(t, "galewatch"), 1, nil, "10:04:00")
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
	w := familytest.WorldAt(t, familytest.Incident(t, "galewatch"), 1, familytest.Set("clock_step", "7s"), "10:06:00")
	g := w.Family().(*galewatch.Family)
	if len(g.OlderRuns()) != 1 {
		t.Fatalf("a forward step left %d older runs, want 1", len(g.OlderRuns()))
	}
	n := g.OlderRuns()[0]
	c := g.Clone().(*galewatch.Family)
	c.SetOlderRunLen(0, 1)
	c.Store(int(galewatch.Stepped), 1)
	c.Store(0, 1)
	if len(g.OlderRuns()) != 1 || g.OlderRuns()[0] != n || g.Stored(int(galewatch.Stepped), 1) || g.Stored(0, 1) {
		t.Fatalf("a clone's writes show in the original: %v", g.OlderRuns())
	}
}

// TestForcedTimeout: forcing one answer lost adds exactly one rejected
// retry.
func TestForcedTimeout(t *testing.T) {
	w, _ := engine.NewWorld(familytest.Incident(t, "galewatch"), 1, nil)
	w.Forcing().Override(engine.DecisionOverride{Index: 0, Value: 1})
	for w.Step(nil) {
	}
	s := w.Summarize("")
	if s.Figure("retries") != 349 || s.Figure("retries_rejected") != 349 || s.DuplicateEffects != 0 {
		t.Fatalf("forced timeout: retries %d rejected %d", s.Figure("retries"), s.Figure("retries_rejected"))
	}
}

func TestPanesAndCaptions(t *testing.T) {
	w, _ := engine.NewWorld(familytest.Incident(t, "galewatch"), 1, nil)
	bad, lost, copies := 0, false, false
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind != engine.EvEffect || e.Pos%5000 == 0 || (d != nil && d.Value == 1) {
			c := w.Caption(e, d)
			if c == "" || c == "unknown" || c == e.Kind.String() || (d != nil && w.DecisionText(d) == "") {
				bad++
			}
		}
		if e.Kind == galewatch.KindCollision || e.Kind == galewatch.KindReject {
			p := w.Family().Panes(w, engine.CursorOf(w))
			for _, r := range p[2].Rows {
				lost = lost || r.Mark == "LOST"
			}
			for _, r := range p[3].Rows {
				copies = copies || r.Mark == "COPY"
			}
			listed := 0 // the readings, besides the note that counts the rest
			for _, r := range p[0].Rows {
				if r.Msg >= 0 {
					listed++
				}
			}
			if q, _ := w.Family().Counts(w); min(q, 40) != listed || (q > 40) != (len(p[0].Rows) > listed) {
				t.Fatalf("counts %d, queue pane %d readings of %d rows", q, listed, len(p[0].Rows))
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
	familytest.BenchHeadless(b, familytest.Incident(b, "galewatch"), 1, func(s engine.Summary) bool { return s.Lost == 3 })
}

// BenchmarkGalewatchClone is one checkpoint's copy of the family.
func BenchmarkGalewatchClone(b *testing.B) {
	familytest.BenchClone(b, familytest.Incident(b, "galewatch"), 1, "10:06:00")
}

// TestEveryRunEnds: with every answer lost a turbine used to re-send each
// reading for ever; it now stops re-sending retry_deadline after taking
// the reading (10 minutes by default: the first write and ten re-sends).
// Every write lands, so the readings it gives up on are stored all the
// same — done, not lost; only the stepped clock's three are lost. A fork
// that lowers the deadline stops the re-sends already queued when they
// fall due.
func TestEveryRunEnds(t *testing.T) {
	figs := []string{"rows", "timeouts", "retries", "retries_rejected", "gave_up", "collisions"}
	familytest.Table(t, familytest.Incident(t, "galewatch"), 1, 20_000_000, figs, []familytest.Case{
		{Name: "write_timeout_p=1", Set: []string{"write_timeout_p", "1"},
			Want: "messages 372000 deliveries 4092000 effects 371997 duplicates 0 end 10:19:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 4092000 retries 3720000 retries_rejected 3720000 gave_up 372000 collisions 3"},
		{Name: "write_timeout_p=1, retry_deadline=0s", Set: []string{"write_timeout_p", "1", "retry_deadline", "0s"},
			Want: "messages 372000 deliveries 372000 effects 371997 duplicates 0 end 10:09:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 372000 retries 0 retries_rejected 0 gave_up 372000 collisions 3"},
		{Name: "write_timeout_p=1, retry_deadline=2m30s", Set: []string{"write_timeout_p", "1", "retry_deadline", "2m30s"},
			Want: "messages 372000 deliveries 1116000 effects 371997 duplicates 0 end 10:11:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 1116000 retries 744000 retries_rejected 744000 gave_up 372000 collisions 3"},
		{Name: "write_timeout_p=0.5, retry_deadline=3m", Set: []string{"write_timeout_p", "0.5", "retry_deadline", "3m"},
			Want: "messages 372000 deliveries 698054 effects 371997 duplicates 0 end 10:12:59.979 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 349343 retries 326054 retries_rejected 326054 gave_up 23289 collisions 3"},
		{Name: "at 10:09 write_timeout_p=1, retry_deadline=1m", Fork: familytest.Fork{At: "10:09:00", Set: familytest.Set("write_timeout_p", "1", "retry_deadline", "1m")},
			Want: "messages 372000 deliveries 409521 effects 371997 duplicates 0 end 10:10:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 74752 retries 37521 retries_rejected 37521 gave_up 37231 collisions 3"},
		{Name: "write_timeout_p=1, at 10:03 retry_deadline=30s", Set: []string{"write_timeout_p", "1"}, Fork: familytest.Fork{At: "10:03:00", Set: familytest.Set("retry_deadline", "30s")},
			Want: "messages 372000 deliveries 483600 effects 371997 duplicates 0 end 10:09:59.998 | held 0 done 371997 dlq 0 lost 3 | rows 371997 timeouts 483600 retries 111600 retries_rejected 111600 gave_up 372000 collisions 3"},
	})
}

// TestCloneWithEveryAnswerLost: a checkpoint in the middle of a run whose
// re-send queue holds hundreds of thousands of readings (and has dropped
// its served front) carries the whole queue.
func TestCloneWithEveryAnswerLost(t *testing.T) {
	familytest.CloneMidRun(t, familytest.Incident(t, "galewatch"), 1, familytest.Set("write_timeout_p", "1", "retry_deadline", "3m"), "10:04:00.5",
		"rows", "timeouts", "retries", "gave_up")
}

// TestReadingsPlural: one lost answer is "1 reading", not "1 readings".
func TestReadingsPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 readings", 1: "1 reading", 2: "2 readings"} {
		if got := galewatch.ReadingsText(n); got != want {
			t.Errorf("readings(%d) = %q, want %q", n, got, want)
		}
	}
}

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// The documented rule at p=0.9, event by event: a reading is re-sent a
// minute after each lost answer until retry_deadline (10 minutes) after it
// was taken, so at most 11 sends; a reading is given up only when its
// 11th send, at exactly 10 minutes, loses its answer too. (The issue saw
// "a limit of 10" in the mean: it is these ten re-sends.) The counts are
// the figures: 2,180,315 re-sends, 116,772 readings given up — about
// 372,000 × 0.9^11 = 116,737.
func TestGiveUpFollowsTheDeadline(t *testing.T) {
	w, err := engine.NewWorld(familytest.Incident(t, "galewatch"), 1, []engine.Setting{{Knob: "write_timeout_p", Value: "0.9"}})
	if err != nil {
		t.Fatal(err)
	}
	taken := map[int32]engine.Time{}
	resends, gaveUp, bad := 0, 0, 0
	for w.Step(sinkFn(func(w *engine.World, e *engine.Event, _ *engine.Decision) {
		if e.Msg < 0 {
			return
		}
		switch {
		case e.Delivery == 1 && (e.Kind == engine.EvEffect || e.Kind == galewatch.KindCollision):
			taken[e.Msg] = e.T
		case e.Kind == galewatch.KindReject || e.Kind == engine.EvEffect:
			resends++
			if at := taken[e.Msg] + engine.Time(e.Delivery-1)*engine.Time(galewatch.RetryAfter); e.T != at || e.Delivery > 11 {
				bad++
			}
		case e.Kind == galewatch.KindGiveUp:
			gaveUp++
			if e.Delivery != 11 || e.T-taken[e.Msg] != engine.Time(10*engine.Minute) {
				bad++
			}
			delete(taken, e.Msg)
		}
	})) {
	}
	if bad > 0 {
		t.Errorf("%d sends or give-ups off the rule", bad)
	}
	s := w.Summarize("")
	got := fmt.Sprintf("re-sends %d (%v) gave_up %d (%v) end %s", resends, s.Figures["retries"], gaveUp, s.Figures["gave_up"], s.End)
	if want := "re-sends 2180315 (2180315) gave_up 116772 (116772) end 10:19:59.998"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}
