package dbdown_test

import (
	"strconv"
	"testing"

	"inflight/engine"
	"inflight/engine/families/dbdown"
	"inflight/engine/families/familytest"
)

type hashes struct {
	n  int
	fp []uint64
}

func (h *hashes) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	h.n++
	h.fp = append(h.fp, w.Fingerprint())
}

// TestPublishedFigures checks the incident's figures, main and forks.
func TestPublishedFigures(t *testing.T) {
	res, err := engine.CheckSpec(familytest.Incident(t, "db-down"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) < 10 {
		t.Fatalf("only %d figures", len(res))
	}
	for _, r := range res {
		if !r.OK {
			t.Errorf("%s %s: want %s, got %s", r.Run, r.Key, r.Want, r.Got)
		}
	}
}

// TestCloneMidRun clones the world mid-outage (breaker open, retries on
// their timers) and checks that the clone and the original, stepped apart,
// give the trace a straight run gives.
func TestCloneMidRun(t *testing.T) {
	for _, set := range [][]engine.Setting{nil, {{Knob: "breaker", Value: "true"}}} {
		straight, err := engine.NewWorld(familytest.Incident(t, "db-down"), 1, set)
		if err != nil {
			t.Fatal(err)
		}
		var sh hashes
		for straight.Step(&sh) {
		}
		for _, cut := range []int{1, 2000, 2405, 2410, 5000, sh.n - 3} {
			w, _ := engine.NewWorld(familytest.Incident(t, "db-down"), 1, set)
			for i := 0; i < cut; i++ {
				w.Step(nil)
			}
			c := w.Clone()
			// scribble on the original first: the clone must not notice
			var hw, hc hashes
			for w.Step(&hw) {
			}
			for c.Step(&hc) {
			}
			for _, h := range []hashes{hw, hc} {
				if h.n != sh.n-cut || h.fp[len(h.fp)-1] != sh.fp[len(sh.fp)-1] {
					t.Fatalf("%v cut %d: %d events, fingerprint %x; straight %d, %x", set, cut, h.n, h.fp[len(h.fp)-1], sh.n-cut, sh.fp[len(sh.fp)-1])
				}
			}
			if a, b := w.Summarize(""), c.Summarize(""); a.DLQ != b.DLQ || a.Effects != b.Effects || a.MaxOldestAgeS != b.MaxOldestAgeS {
				t.Fatalf("cut %d: summaries differ: %+v vs %+v", cut, a, b)
			}
		}
	}
}

// TestExplorerForkMatchesHeadless forks breaker=true at 10:05 in the
// explorer and compares with `run --at 10:05:00`.
func TestExplorerForkMatchesHeadless(t *testing.T) {
	s := familytest.Incident(t, "db-down")
	at, _ := engine.ParseClock("10:05:00")
	set := []engine.Setting{{Knob: "breaker", Value: "true"}}
	want, _, err := engine.Run(s, engine.RunOptions{Seed: 1, HasAt: true, At: at, AtSet: set})
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.NewExplorer(s, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.SeekTime(at)
	b, err := x.Fork(engine.ForkOptions{Pos: x.Pos(), At: at, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	got := x.Summary(b)
	if got.TraceSHA256 != want.TraceSHA256 || got.DLQ != want.DLQ {
		t.Fatalf("explorer fork: dlq %d %s; headless: dlq %d %s", got.DLQ, got.TraceSHA256, want.DLQ, want.TraceSHA256)
	}
}

// TestBreakerStory checks the breaker's beats: it trips within two
// seconds of the outage, probes every 30 s, closes on the first trial
// after 10:10, and the backlog drains within two minutes.
func TestBreakerStory(t *testing.T) {
	w, _ := engine.NewWorld(familytest.Incident(t, "db-down"), 1, []engine.Setting{{Knob: "breaker", Value: "true"}})
	var opens, closes []engine.Time
	var lastLate engine.Time
	sink := familytest.SinkFunc(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		switch e.Kind {
		case dbdown.KindBreakerOpen:
			opens = append(opens, e.T)
		case dbdown.KindClosed:
			closes = append(closes, e.T)
		case engine.EvDLQ:
			t.Fatalf("a dead letter with the breaker at %s", e.T.Short())
		}
		if e.Kind == engine.EvEffect && w.Caption(e, d) != "" && e.T > dbdown.DownUntil {
			if age := w.Truth().OldestAge(); age > engine.Minute {
				lastLate = e.T
			}
		}
	})
	for w.Step(sink) {
	}
	if len(opens) == 0 || opens[0] > dbdown.DownFrom+2*engine.Second {
		t.Fatalf("breaker opens %v", opens)
	}
	for i := 1; i < len(opens); i++ {
		if d := opens[i] - opens[i-1]; d < dbdown.CoolDown || d > dbdown.CoolDown+engine.Second {
			t.Fatalf("open %d after %s", i, engine.FormatDuration(d))
		}
	}
	if len(closes) != 1 || closes[0] < dbdown.DownUntil || closes[0] > dbdown.DownUntil+dbdown.CoolDown {
		t.Fatalf("breaker closes %v", closes)
	}
	if lastLate > dbdown.DownUntil+2*engine.Minute {
		t.Fatalf("backlog still over a minute old at %s", lastLate.Short())
	}
}

// TestForcedAnswer forks the first trial to succeed at 10:00:31.55: the
// breaker closes, the next writes fail and trip it again.
func TestForcedAnswer(t *testing.T) {
	x, err := engine.NewExplorer(familytest.Incident(t, "db-down"), 1, []engine.Setting{{Knob: "breaker", Value: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	x.SeekTime(dbdown.DownFrom + 31*engine.Second)
	var trial *engine.Entry
	for trial == nil {
		e, ok := x.NextDecision()
		if !ok {
			t.Fatal("no trial")
		}
		if e.Event.Kind == dbdown.KindFail && e.Event.Aux == dbdown.FailProbe {
			trial = &e
		}
	}
	b, err := x.Fork(engine.ForkOptions{Pos: trial.Event.Pos, At: trial.Event.T, Override: &engine.DecisionOverride{Index: trial.Decision.Index, Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	s := x.Summary(b)
	if s.DLQ != 0 || s.Lost != 0 || s.Figures["breaker_opened"].(int64) < 2 {
		t.Fatalf("forced trial: %+v", s)
	}
	evs := x.EventsOn(b, trial.Event.Pos, trial.Event.Pos+3)
	if evs[0].Event.Kind != engine.EvEffect || evs[1].Event.Kind != dbdown.KindClosed {
		t.Fatalf("after the forced answer: %s / %s", evs[0].Caption, evs[1].Caption)
	}
}

// TestEveryMessageAccounted: every message ends written (done) or in the
// dead letter queue — none held, none lost — with the breaker off, on, or
// switched at a fork either way; the DLQ's messages are the ones retried
// four times inside the outage.
func TestEveryMessageAccounted(t *testing.T) {
	figs := []string{"retries", "db_errors", "breaker_opened", "probes", "rows_written", "requeued"}
	familytest.Table(t, familytest.Incident(t, "db-down"), 1, 10_000_000, figs, []familytest.Case{
		{Name: "breaker=false",
			Want: "messages 3000 deliveries 6592 effects 1814 duplicates 0 end 10:19:59.55 | held 0 done 1814 dlq 1186 lost 0 | retries 3592 db_errors 4778 breaker_opened 0 probes 0 rows_written 1814 requeued 0"},
		{Name: "breaker=true", Set: []string{"breaker", "true"},
			Want: "messages 3000 deliveries 3024 effects 3000 duplicates 0 end 10:19:59.55 | held 0 done 3000 dlq 0 lost 0 | retries 4 db_errors 24 breaker_opened 20 probes 20 rows_written 3000 requeued 3"},
		{Name: "breaker on at 10:05", Fork: familytest.Fork{At: "10:05:00", Set: familytest.Set("breaker", "true")},
			Want: "messages 3000 deliveries 4802 effects 2414 duplicates 0 end 10:19:59.55 | held 0 done 2414 dlq 586 lost 0 | retries 1792 db_errors 2388 breaker_opened 10 probes 10 rows_written 2414 requeued 14"},
		{Name: "breaker off at 10:05", Set: []string{"breaker", "true"}, Fork: familytest.Fork{At: "10:05:00", Set: familytest.Set("breaker", "false")},
			Want: "messages 3000 deliveries 6606 effects 1814 duplicates 0 end 10:19:59.55 | held 0 done 1814 dlq 1186 lost 0 | retries 3596 db_errors 4792 breaker_opened 10 probes 9 rows_written 1814 requeued 3"},
	})
}

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// Taking the breaker out while it is open wakes the consumer at the fork's
// moment, as every knob change wakes the dispatcher: event 600 (at the
// head of the line, its attempts forgiven) is taken at once, not at the
// next arrival, and its four refused attempts put it in the dead letter
// queue 7.2 s later. It used to wait for the arrival at 10:04:04.000 (and
// 10:03:11.500), putting the first dead letter at 10:04:11.2 (10:03:18.7).
func TestBreakerRemovedWhileOpenWakesTheConsumer(t *testing.T) {
	cases := []struct{ at, take, dlq string }{
		{"10:04:03.904", "10:04:03.904", "10:04:11.104"},
		{"10:03:11.427", "10:03:11.427", "10:03:18.627"},
	}
	for _, c := range cases {
		at, err := engine.ParseClock(c.at)
		if err != nil {
			t.Fatal(err)
		}
		w, err := engine.NewWorld(familytest.Incident(t, "db-down"), 1, []engine.Setting{{Knob: "breaker", Value: "true"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.ScheduleKnobs(at, []engine.Setting{{Knob: "breaker", Value: "false"}}); err != nil {
			t.Fatal(err)
		}
		take, dlq, waiting := "", "", -1
		for w.Step(sinkFn(func(w *engine.World, e *engine.Event, _ *engine.Decision) {
			switch {
			case e.Kind == engine.EvKnob:
				waiting, _ = w.Family().Counts(w)
			case e.Kind == engine.EvDeliver && take == "" && e.T >= at:
				take = e.T.Short() + " " + w.KindName(e.Kind) + " " + itoa(e.Msg)
			case e.Kind == engine.EvDLQ && dlq == "":
				dlq = e.T.Short() + " " + itoa(e.Msg)
			}
		})) {
		}
		if want := c.take + " deliver 600"; take != want {
			t.Errorf("breaker off at %s: first delivery %q, want %q", c.at, take, want)
		}
		if want := c.dlq + " 600"; dlq != want {
			t.Errorf("breaker off at %s: first dead letter %q, want %q", c.at, dlq, want)
		}
		if waiting <= 0 {
			t.Errorf("breaker off at %s: %d events waiting at the fork; the case needs a backlog", c.at, waiting)
		}
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
