package ordering_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/ordering"
)

// The published figures on several seeds, not only the lesson's: keyed →
// 0 out of order; each breaking knob → out_of_order and wrong_final above
// 0; versions=true with it → wrong_final 0; nothing lost anywhere.
func TestFiguresAcrossSeeds(t *testing.T) {
	breakers := []engine.Setting{
		{Knob: "key", Value: "none"},
		{Knob: "consumer_threads", Value: "8"},
		{Knob: "repartition", Value: "8"},
		{Knob: "retry", Value: "to_tail"},
	}
	for seed := uint64(1); seed <= 4; seed++ {
		s := familytest.Summary(t, familytest.Incident(t, "ordering"), seed)
		if int(s.Figure("out_of_order")) != 0 || int(s.Figure("wrong_final")) != 0 || s.Lost != 0 || s.DuplicateEffects != 0 || s.Messages != 3*int64(int(s.Figure("orders"))) {
			t.Errorf("seed %d keyed: out_of_order %d wrong_final %d lost %d dups %d messages %d", seed, int(s.Figure("out_of_order")), int(s.Figure("wrong_final")), s.Lost, s.DuplicateEffects, s.Messages)
		}
		for _, b := range breakers {
			s := familytest.Summary(t, familytest.Incident(t, "ordering"), seed, b)
			if int(s.Figure("out_of_order")) <= 0 || int(s.Figure("wrong_final")) <= 0 || s.Lost != 0 {
				t.Errorf("seed %d %s=%s: out_of_order %d wrong_final %d lost %d", seed, b.Knob, b.Value, int(s.Figure("out_of_order")), int(s.Figure("wrong_final")), s.Lost)
			}
			v := familytest.Summary(t, familytest.Incident(t, "ordering"), seed, b, engine.Setting{Knob: "versions", Value: "true"})
			if int(v.Figure("wrong_final")) != 0 || int(v.Figure("ignored_stale")) <= 0 || v.Lost != 0 {
				t.Errorf("seed %d %s=%s versions: wrong_final %d ignored %d lost %d", seed, b.Knob, b.Value, int(v.Figure("wrong_final")), int(v.Figure("ignored_stale")), v.Lost)
			}
		}
	}
}

// max_oldest_age_s is the lag in time: the oldest event not yet handled.
// The lunchtime rush puts it above a minute; it is far below the run.
func TestLagInTime(t *testing.T) {
	s := familytest.Summary(t, familytest.Incident(t, "ordering"), 1)
	if s.MaxOldestAgeS < 60 || s.MaxOldestAgeS > 300 {
		t.Errorf("max_oldest_age_s %v, want a minute to five", s.MaxOldestAgeS)
	}
}

// A wrong final row is always an order whose last event was overtaken:
// with versions off, wrong_final never exceeds out_of_order.
func TestWrongFinalNeedsOutOfOrder(t *testing.T) {
	for _, set := range [][]engine.Setting{nil, {{Knob: "key", Value: "none"}}, {{Knob: "consumer_threads", Value: "8"}}} {
		s := familytest.Summary(t, familytest.Incident(t, "ordering"), 1, set...)
		if int(s.Figure("wrong_final")) > int(s.Figure("out_of_order")) {
			t.Errorf("%v: wrong_final %d > out_of_order %d", set, int(s.Figure("wrong_final")), int(s.Figure("out_of_order")))
		}
	}
}

// Forking a decision: forcing order 2's first database call to succeed
// removes its in-place retry.
func TestFailDecisionIsForkable(t *testing.T) {
	s := familytest.Incident(t, "ordering")
	w, _ := engine.NewWorld(s, 1, nil)
	var idx int64 = -1
	for idx < 0 && w.Step(familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if d != nil && d.Kind == ordering.DecFail && d.Value == 1 {
			idx = d.Index
		}
	})) {
	}
	if idx < 0 {
		t.Fatal("no failing database call")
	}
	base := familytest.Summary(t, familytest.Incident(t, "ordering"), 1)
	w, _ = engine.NewWorld(s, 1, nil)
	w.Forcing().Override(engine.DecisionOverride{Index: idx, Value: 0})
	for w.Step(nil) {
	}
	got := w.Summarize("")
	if int(got.Figure("handler_failures")) != int(base.Figure("handler_failures"))-1 {
		t.Errorf("forced success: failures %d, base %d", int(got.Figure("handler_failures")), int(base.Figure("handler_failures")))
	}
}

func TestPanesAndCounts(t *testing.T) {
	w, _ := engine.NewWorld(familytest.Incident(t, "ordering"), 1, []engine.Setting{{Knob: "consumer_threads", Value: "8"}, {Knob: "repartition", Value: "8"}})
	maxTaken := 0
	for w.Step(nil) {
		_, tk := w.Family().Counts(w)
		maxTaken = max(maxTaken, tk)
	}
	if maxTaken < 2 {
		t.Errorf("eight threads never held two records at once (max %d)", maxTaken)
	}
	p := w.Family().Panes(w, engine.CursorOf(w))
	if len(p[0].Rows) != 8 || !strings.Contains(p[0].Rows[7].Text, "LEO") {
		t.Errorf("partition rows: %+v", p[0].Rows)
	}
	if last := fmt.Sprintf("order %d ", int(w.Summarize("").Figure("orders"))-1); len(p[3].Rows) != 201 || !strings.HasPrefix(p[3].Rows[0].Text, last) {
		t.Errorf("orders table: %d rows, first %q", len(p[3].Rows), p[3].Rows[0].Text)
	}
	if wf := int(w.Summarize("").Figure("wrong_final")); wf == 0 || wf > 200 || len(p[2].Rows) != wf {
		t.Errorf("%d behind rows, wrong_final %d", len(p[2].Rows), wf)
	}
	if wt, tk := w.Family().Counts(w); wt != 0 || tk != 0 {
		t.Errorf("counts at the end: %d waiting, %d taken", wt, tk)
	}
}

// TestExtremeKnobs: the widest settings end, with every event accounted
// for (applied or ignored once, none held at the end).
func TestExtremeKnobs(t *testing.T) {
	figs := []string{"orders", "partitions", "rebalances", "out_of_order", "wrong_final", "handler_failures", "retried_to_tail"}
	familytest.Table(t, familytest.Incident(t, "ordering"), 1, 10_000_000, figs, []familytest.Case{
		{Name: "consumer_threads=64, repartition=1024", Set: []string{"consumer_threads", "64", "repartition", "1024"},
			Want: "messages 4680 deliveries 4809 effects 4680 duplicates 0 end 12:10:06.309 | held 0 done 4680 dlq 0 lost 0 | orders 1560 partitions 1024 rebalances 1 out_of_order 112 wrong_final 69 handler_failures 129 retried_to_tail 0"},
		{Name: "key=none, retry=to_tail, versions", Set: []string{"key", "none", "retry", "to_tail", "versions", "true"},
			Want: "messages 4680 deliveries 4809 effects 4680 duplicates 0 end 12:11:23.117 | held 0 done 4680 dlq 0 lost 0 | orders 1560 partitions 6 rebalances 0 out_of_order 236 wrong_final 0 handler_failures 129 retried_to_tail 129"},
		{Name: "at 12:04:59.9 repartition=7, consumer_threads=1", Set: []string{"consumer_threads", "16"}, Fork: familytest.Fork{At: "12:04:59.9", Set: familytest.Set("repartition", "7", "consumer_threads", "1")},
			Want: "messages 4680 deliveries 4832 effects 4703 duplicates 23 end 12:10:11.924 | held 0 done 4680 dlq 0 lost 0 | orders 1560 partitions 7 rebalances 1 out_of_order 68 wrong_final 36 handler_failures 129 retried_to_tail 0"},
	})
}

// TestCaptionNamesWideThreads: a delivery by thread 41 of 64 is told as
// thread 41.
func TestCaptionNamesWideThreads(t *testing.T) {
	w, err := engine.NewWorld(familytest.Incident(t, "ordering"), 1, familytest.Set("consumer_threads", "64"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == engine.EvDeliver && len(got) == 0 {
			off, c, _ := ordering.UnpackDeliver(e.Aux)
			for _, th := range []int{0, 15, 16, 40, 63} {
				x := *e
				x.Aux = ordering.DeliverAux(off, c, th)
				got = append(got, w.Caption(&x, nil))
			}
		}
	})
	for len(got) == 0 && w.Step(sink) {
	}
	for i, th := range []int{1, 16, 17, 41, 64} {
		if i >= len(got) || !strings.Contains(got[i], fmt.Sprintf(" thread %d handles", th)) {
			t.Fatalf("thread %d: captions %q", th, got)
		}
	}
}

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// With versions, an event older than the version applied is stale and one
// of that very version is a duplicate (a record read again after the
// rebalance): the lesson ignores events "older than what you've already
// applied", so ignored_stale counts only those — here exactly the events
// handled out of order. Position 9638 was counted as stale: "ignore this
// shipped event with version 3" while the row was at version 3.
func TestDuplicateIsNotStale(t *testing.T) {
	w, err := engine.NewWorld(familytest.Incident(t, "ordering"), 1, []engine.Setting{{Knob: "repartition", Value: "8"}, {Knob: "versions", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	stale, dups := 0, 0
	at9638 := ""
	for w.Step(sinkFn(func(w *engine.World, e *engine.Event, _ *engine.Decision) {
		if e.Msg < 0 {
			return
		}
		v := int64(w.Family().(*ordering.Family).MsgVer[e.Msg])
		switch e.Kind {
		case ordering.EvStale:
			stale++
			if v >= e.Aux {
				t.Errorf("position %d: version %d called stale against applied %d", w.Pos-1, v, e.Aux)
			}
		case ordering.EvDuplicate:
			dups++
			if v != e.Aux {
				t.Errorf("position %d: version %d called a duplicate of applied %d", w.Pos-1, v, e.Aux)
			}
		}
		if w.Pos-1 == 9638 {
			at9638 = fmt.Sprintf("%s %s message %d v%d applied v%d", e.T.Short(), w.KindName(e.Kind), e.Msg, v, e.Aux)
		}
	})) {
	}
	if want := "12:06:18.021 duplicate_ignored message 1691 v3 applied v3"; at9638 != want {
		t.Errorf("position 9638: %s, want %s", at9638, want)
	}
	s := w.Summarize("")
	got := fmt.Sprintf("stale %v (%d events) duplicate %v (%d events) out_of_order %v wrong_final %v",
		s.Figures["ignored_stale"], stale, s.Figures["ignored_duplicate"], dups, s.Figures["out_of_order"], s.Figures["wrong_final"])
	if want := "stale 223 (223 events) duplicate 123 (123 events) out_of_order 223 wrong_final 0"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}

// More consumer_threads at a fork take the records each consumer has
// already fetched at the fork's moment, as every knob change wakes the
// dispatcher: at 12:05:00.000 threads 2–8 of all three consumers start
// (21 deliveries). They used to wait for the busy thread to end
// (12:05:00.071 for fulfilment-2).
func TestThreadsRaisedAtForkStartAtOnce(t *testing.T) {
	at, _ := engine.ParseClock("12:05:00")
	w, err := engine.NewWorld(familytest.Incident(t, "ordering"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ScheduleKnobs(at, []engine.Setting{{Knob: "consumer_threads", Value: "8"}}); err != nil {
		t.Fatal(err)
	}
	started := map[string]bool{}
	for w.Step(sinkFn(func(w *engine.World, e *engine.Event, _ *engine.Decision) {
		if e.Kind == engine.EvDeliver && e.T == at {
			_, c, th := ordering.UnpackDeliver(e.Aux)
			started[fmt.Sprintf("%d.%d", c, th)] = true
		}
	})) {
		if w.Now > at {
			break
		}
	}
	if len(started) != 21 {
		t.Errorf("%d threads started at the fork, want 21: %v", len(started), started)
	}
	for c := 0; c < 3; c++ {
		for th := 1; th < 8; th++ {
			if !started[fmt.Sprintf("%d.%d", c, th)] {
				t.Errorf("consumer %d thread %d did not start at the fork", c, th)
			}
		}
	}
}
