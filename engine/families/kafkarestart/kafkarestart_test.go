package kafkarestart_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/kafkarestart"
)

// The published rule, for several batch sizes: no transactional id →
// duplicate_effects = batch; with one → 0; each consumer crash before its
// offset commit adds one duplicate email, transactions or not.
func TestFiguresDirectly(t *testing.T) {
	for _, batch := range []int{1, 2, 7, 100, 333} {
		for _, txn := range []string{"", "shop-1"} {
			for _, crash := range []bool{false, true} {
				name := fmt.Sprintf("batch=%d,txn=%q,crash=%v", batch, txn, crash)
				t.Run(name, func(t *testing.T) {
					set := []engine.Setting{{Knob: "batch", Value: fmt.Sprint(batch)}, {Knob: "email_crash", Value: fmt.Sprint(crash)}}
					if txn != "" {
						set = append(set, engine.Setting{Knob: "transactional_id", Value: txn})
					}
					s, _, err := engine.Run(familytest.Incident(t, "kafka-restart"), engine.RunOptions{Seed: 1, Set: set})
					if err != nil {
						t.Fatal(err)
					}
					crashes := s.Figures["consumer_crashes"].(int)
					wantCrashes := 0
					if crash {
						wantCrashes = 1
					}
					want := int64(wantCrashes)
					if txn == "" {
						want += int64(batch)
					}
					if crashes != wantCrashes || s.DuplicateEffects != want || s.Lost != 0 || s.Messages != int64(batch) {
						t.Errorf("crashes %d dups %d lost %d messages %d; want %d %d 0 %d", crashes, s.DuplicateEffects, s.Lost, s.Messages, wantCrashes, want, batch)
					}
					if s.Figures["producer_retries_dropped"] != 1 {
						t.Errorf("the producer's own retry should be dropped once: %v", s.Figures["producer_retries_dropped"])
					}
					if txn != "" && s.Figures["records_aborted"] != batch {
						t.Errorf("records_aborted %v, want %d", s.Figures["records_aborted"], batch)
					}
				})
			}
		}
	}
}

// Forcing the consumer-crash decision on any commit adds exactly one
// duplicate email: the decision is forkable.
func TestConsumerCrashDecisionIsForkable(t *testing.T) {
	s := familytest.Incident(t, "kafka-restart")
	for _, txn := range []string{"", "shop-1"} {
		set := []engine.Setting{{Knob: "batch", Value: "12"}, {Knob: "transactional_id", Value: txn}}
		base, _, err := engine.Run(s, engine.RunOptions{Seed: 1, Set: set})
		if err != nil {
			t.Fatal(err)
		}
		// find a consumer-crash decision by stepping a world
		w, _ := engine.NewWorld(s, 1, set)
		var idx int64 = -1
		sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
			if d != nil && idx < 0 && e.Kind.String() == "unknown" && strings.Contains(w.DecisionText(d), "die after the email") && d.Index > 10 {
				idx = d.Index
			}
		})
		for w.Step(sink) {
		}
		if idx < 0 {
			t.Fatal("no consumer crash decision")
		}
		w, _ = engine.NewWorld(s, 1, set)
		w.Forcing().Override(engine.DecisionOverride{Index: idx, Value: 1})
		for w.Step(nil) {
		}
		got := w.Summarize("")
		if got.DuplicateEffects != base.DuplicateEffects+1 || got.Figures["consumer_crashes"] != 1 {
			t.Errorf("txn %q: forced crash gives dups %d (base %d), crashes %v", txn, got.DuplicateEffects, base.DuplicateEffects, got.Figures["consumer_crashes"])
		}
	}
}

func TestPanesAndCounts(t *testing.T) {
	set := []engine.Setting{{Knob: "transactional_id", Value: "shop-1"}, {Knob: "batch", Value: "10"}}
	w, _ := engine.NewWorld(familytest.Incident(t, "kafka-restart"), 1, set)
	sawOpen := false
	for w.Step(nil) {
		p := w.Family().Panes(w, engine.CursorOf(w))
		for _, r := range p[1].Rows {
			sawOpen = sawOpen || r.Mark == "OPEN"
		}
		if len(p[0].Rows) != 3 {
			t.Fatalf("want 3 partition rows, got %+v", p[0].Rows)
		}
	}
	if !sawOpen {
		t.Error("the open transaction never showed in the in-flight pane")
	}
	p := w.Family().Panes(w, engine.CursorOf(w))
	if len(p[2].Rows) != 10 || p[2].Rows[0].Mark != "ABORTED" {
		t.Errorf("aborted pane: %+v", p[2].Rows)
	}
	if len(p[3].Rows) != 10 {
		t.Errorf("inbox: %d rows, want 10", len(p[3].Rows))
	}
	if !strings.Contains(p[0].Rows[0].Text, "LEO") || !strings.Contains(p[0].Rows[0].Text, "committed") {
		t.Errorf("partition row: %q", p[0].Rows[0].Text)
	}
	if wt, tk := w.Family().Counts(w); wt != 0 || tk != 0 {
		t.Errorf("counts at the end: %d waiting, %d taken", wt, tk)
	}
}

// Forks that change transactional_id mid-run: the restarted instance reads
// it when it starts. Dropping the id leaves the first transaction open
// until transaction.timeout.ms aborts it; adding one cannot undo the first
// instance's plain records.
func TestTransactionalIDChangedMidRun(t *testing.T) {
	at, _ := engine.ParseClock("10:00:02")
	cases := []struct {
		from, to           string
		dups, timeouts, ab int64
	}{
		{"shop-1", "", 0, 1, 100},
		{"", "shop-1", 100, 0, 0},
	}
	for _, c := range cases {
		s, _, err := engine.Run(familytest.Incident(t, "kafka-restart"), engine.RunOptions{Seed: 1, Set: []engine.Setting{{Knob: "transactional_id", Value: c.from}},
			HasAt: true, At: at, AtSet: []engine.Setting{{Knob: "transactional_id", Value: c.to}}})
		if err != nil {
			t.Fatal(err)
		}
		if s.DuplicateEffects != c.dups || int64(s.Figures["txn_timeouts"].(int)) != c.timeouts || int64(s.Figures["records_aborted"].(int)) != c.ab || s.Lost != 0 {
			t.Errorf("%q → %q: dups %d timeouts %v aborted %v lost %d", c.from, c.to, s.DuplicateEffects, s.Figures["txn_timeouts"], s.Figures["records_aborted"], s.Lost)
		}
	}
}

// TestForkBatch: batch is read when the first producer instance starts
// (10:00:01), so a fork before then decides how many orders there are —
// a fork at 10:00:00.5 used to publish the 100 of the start regardless —
// and a fork after it changes nothing: the orders exist, and the
// restarted producer re-sends the same ones.
func TestForkBatch(t *testing.T) {
	figs := []string{"batch", "emails", "records_stored", "records_stored_twice", "consumer_crashes"}
	familytest.Table(t, familytest.Incident(t, "kafka-restart"), 1, 10_000_000, figs, []familytest.Case{
		{Name: "at 10:00:00.5 batch=5", Fork: familytest.Fork{At: "10:00:00.5", Set: familytest.Set("batch", "5")},
			Want: "messages 5 deliveries 10 effects 10 duplicates 5 end 10:00:05.12 | held 0 done 5 dlq 0 lost 0 | batch 5 emails 10 records_stored 10 records_stored_twice 5 consumer_crashes 0"},
		{Name: "at 10:00:00.5 batch=500", Fork: familytest.Fork{At: "10:00:00.5", Set: familytest.Set("batch", "500")},
			Want: "messages 500 deliveries 1000 effects 1000 duplicates 500 end 10:02:51.22 | held 0 done 500 dlq 0 lost 0 | batch 500 emails 1000 records_stored 1000 records_stored_twice 500 consumer_crashes 0"},
		{Name: "at 10:00:02 batch=5", Fork: familytest.Fork{At: "10:00:02", Set: familytest.Set("batch", "5")},
			Want: "messages 100 deliveries 200 effects 200 duplicates 100 end 10:00:35.22 | held 0 done 100 dlq 0 lost 0 | batch 100 emails 200 records_stored 200 records_stored_twice 100 consumer_crashes 0"},
		{Name: "batch=1, email_crash", Set: []string{"batch", "1", "email_crash", "true"},
			Want: "messages 1 deliveries 3 effects 3 duplicates 2 end 10:00:46.73 | held 0 done 1 dlq 0 lost 0 | batch 1 emails 3 records_stored 2 records_stored_twice 1 consumer_crashes 1"},
		{Name: "batch=1, email_crash, transactional_id", Set: []string{"batch", "1", "email_crash", "true", "transactional_id", "shop-1"},
			Want: "messages 1 deliveries 2 effects 2 duplicates 1 end 10:00:49.56 | held 0 done 1 dlq 0 lost 0 | batch 1 emails 2 records_stored 2 records_stored_twice 0 consumer_crashes 1"},
	})
}

// TestRebalanceWaitsForTheDeadMember: with no static membership the
// restarted consumer is a new member, and its rebalance cannot finish
// before the coordinator drops the dead one (session.timeout.ms, 45 s
// after the crash). So the partitions change hands, and the uncommitted
// record is read and emailed again, only after the eviction — "by another
// route" — not two seconds after the crash, as the model once had it.
func TestRebalanceWaitsForTheDeadMember(t *testing.T) {
	cases := []struct {
		name                                      string
		set                                       []engine.Setting
		crash, restart, evict, firstRead, reemail string
		order                                     int32
		dups                                      int64
	}{
		{"transactional", familytest.Set("transactional_id", "shop-1", "email_crash", "true"),
			"10:00:12.910", "10:00:14.910", "10:00:57.910", "10:00:57.920", "10:01:03.510", 35, 1},
		{"plain", familytest.Set("email_crash", "true"),
			"10:00:09.710", "10:00:11.710", "10:00:54.710", "10:00:54.720", "10:01:00.310", 43, 101},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, _ := engine.NewWorld(familytest.Incident(t, "kafka-restart"), 1, c.set)
			var crash, restart, evict, firstRead, reemail string
			var crashed int32 = -1
			sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
				at := e.T.Clock()
				switch {
				case e.Kind == engine.EvCrash && e.Msg >= 0:
					crash, crashed = at, e.Msg
				case e.Kind == engine.EvRestart:
					restart = at
					if q := w.Family().Panes(w, engine.CursorOf(w))[0].Rows; !strings.Contains(q[0].Text, "mailer-1 (dead: keeps it until its session times out)") {
						t.Errorf("partition row while mailer-2 waits: %q", q[0].Text)
					}
				case e.Kind == kafkarestart.EvSessionOver:
					evict = at
				case e.Kind == engine.EvDeliver && restart != "" && firstRead == "":
					firstRead = at
					if evict == "" {
						t.Errorf("mailer-2 reads at %s, before the coordinator drops mailer-1", at)
					}
				case e.Kind == engine.EvEffect && e.Msg == crashed && strings.Contains(w.Caption(e, d), "read again"):
					reemail = at
				}
			})
			for w.Step(sink) {
			}
			got := [5]string{crash, restart, evict, firstRead, reemail}
			if want := [5]string{c.crash, c.restart, c.evict, c.firstRead, c.reemail}; got != want || crashed != c.order {
				t.Errorf("crash, restart, eviction, first read, email again: %v (order %d); want %v (order %d)", got, crashed, want, c.order)
			}
			if s := w.Summarize(""); s.DuplicateEffects != c.dups || s.Figures["duplicates_from_consumer"] != int64(1) {
				t.Errorf("duplicates %d (from the consumer %v), want %d (1)", s.DuplicateEffects, s.Figures["duplicates_from_consumer"], c.dups)
			}
		})
	}
}
