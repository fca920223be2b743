package fifowindow_test

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
	"inflight/engine/families/fifowindow"
)

func TestFiguresDirectly(t *testing.T) {
	cases := []struct {
		set                       []engine.Setting
		deliveries, dups, dropped int64
	}{
		{nil, 2, 1, 2},
		{[]engine.Setting{{Knob: "dedup_window", Value: "10m"}}, 1, 0, 3},
		{[]engine.Setting{{Knob: "retry_deadline", Value: "4m"}}, 1, 0, 2},
		{[]engine.Setting{{Knob: "dedup_window", Value: "7m"}}, 2, 1, 2},    // half-open: forgotten at exactly 14:07
		{[]engine.Setting{{Knob: "dedup_window", Value: "7m1ms"}}, 1, 0, 3}, // remembered one millisecond longer
		{[]engine.Setting{{Knob: "retry_deadline", Value: "7m"}}, 2, 1, 2},  // the deadline includes minute 7
		{[]engine.Setting{{Knob: "dedup_window", Value: "30s"}}, 4, 3, 0},   // a short memory drops nothing
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.set), func(t *testing.T) {
			sum, _, err := engine.Run(familytest.Incident(t, "fifo-window"), engine.RunOptions{Seed: 1, Set: c.set})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Deliveries != c.deliveries || sum.DuplicateEffects != c.dups || sum.Figures["dropped_duplicates"] != int(c.dropped) || sum.Lost != 0 {
				t.Errorf("deliveries %d dups %d dropped %v lost %d; want %d %d %d 0",
					sum.Deliveries, sum.DuplicateEffects, sum.Figures["dropped_duplicates"], sum.Lost, c.deliveries, c.dups, c.dropped)
			}
		})
	}
}

type sinkFn func(*engine.World, *engine.Event, *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }

// The lesson's figure is not only how many sends the broker drops but
// which: of the bundled incident's sends at minutes 0, 1, 3 and 7, the
// broker drops those at 1 and 3 (inside the 5-minute window) and accepts
// the one at 7 as a new message.
func TestWhichSendsAreDropped(t *testing.T) {
	w, err := engine.NewWorld(familytest.Incident(t, "fifo-window"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sends []string
	first := engine.Time(-1)
	for w.Step(sinkFn(func(_ *engine.World, e *engine.Event, _ *engine.Decision) {
		if e.Kind != engine.EvPublish && e.Kind != fifowindow.EvDuplicate {
			return
		}
		if first < 0 {
			first = e.T
		}
		what := "accepted"
		if e.Kind == fifowindow.EvDuplicate {
			what = "dropped"
		}
		sends = append(sends, fmt.Sprintf("minute %d %s", (e.T-first)/engine.Time(engine.Minute), what))
	})) {
	}
	want := "[minute 0 accepted minute 1 dropped minute 3 dropped minute 7 accepted]"
	if got := fmt.Sprint(sends); got != want {
		t.Errorf("sends %s; want %s", got, want)
	}
}

// A fork that lets the first answer through: no retries, one email.
func TestAnswerDecisionIsForkable(t *testing.T) {
	w, err := engine.NewWorld(familytest.Incident(t, "fifo-window"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Forcing().Override(engine.DecisionOverride{Index: 0, Value: 0})
	for w.Step(nil) {
	}
	s := w.Summarize("")
	if s.Effects != 1 || s.Figures["attempts"] != 1 {
		t.Errorf("answer delivered: effects %d attempts %v, want 1 and 1", s.Effects, s.Figures["attempts"])
	}
}

func TestPanes(t *testing.T) {
	w := familytest.WorldAt(t, familytest.Incident(t, "fifo-window"), 1, nil, "14:02:00")
	p := w.Family().Panes(w, engine.CursorOf(w))
	if len(p[0].Rows) < 2 || p[0].Rows[1].Mark != "" || p[0].Rows[1].Bar <= 0 {
		t.Errorf("at 14:03 the dedup id should be remembered with a countdown: %+v", p[0].Rows)
	}
	for w.Step(nil) {
	}
	p = w.Family().Panes(w, engine.CursorOf(w))
	if len(p[3].Rows) != 2 || p[3].Rows[1].Mark != "COPY 2" {
		t.Errorf("inbox at the end: %+v", p[3].Rows)
	}
	if p[0].Rows[1].Mark != "FORGOTTEN" {
		t.Errorf("the first acceptance should be forgotten by 14:07: %+v", p[0].Rows)
	}
}

// A dedup_window changed by a fork follows one rule at every moment: it
// applies to ids admitted from the fork on; the id admitted at 14:00 keeps
// its 14:05:00 expiry (a longer window does not stretch it, a shorter one
// does not cut it) and, once forgotten, stays forgotten. Only a change in
// force at the first send (14:00:00, ahead of it) changes its memory.
func TestWindowChangedAtFork(t *testing.T) {
	cases := []struct {
		at, window string
		sends      string // what the broker did with each send, by minute
		emails     string
		memory     string // each admission and the expiry it was given
	}{
		// grown while remembered: the expiry stays 14:05
		{"14:02:00", "10m", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:17:00"},
		// grown after it was forgotten, at every moment from 14:05 to 14:06:59
		{"14:04:59.999", "1h", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-15:07:00"},
		{"14:05:00", "10m", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:17:00"},
		{"14:06:00", "10m", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:17:00"},
		{"14:06:59.999", "1h", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-15:07:00"},
		// shrunk while remembered: the expiry stays 14:05, early or late
		{"14:00:30", "1m", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:08:00"},
		{"14:00:30", "0s", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:07:00.001"},
		{"14:02:00", "1m", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:08:00"},
		// in force at the first send: the id is admitted under it
		{"14:00:00", "10m", "0 accepted 1 dropped 3 dropped 7 dropped", "14:00:00.45", "14:00:00-14:10:00"},
		{"14:00:00", "30s", "0 accepted 1 accepted 3 accepted 7 accepted", "14:00:00.45 14:01:00.45 14:03:00.45 14:07:00.45", "14:00:00-14:00:30 14:01:00-14:01:30 14:03:00-14:03:30 14:07:00-14:07:30"},
		// shorter than the time since the first send: still no cut
		{"14:02:00", "30s", "0 accepted 1 dropped 3 dropped 7 accepted", "14:00:00.45 14:07:00.45", "14:00:00-14:05:00 14:07:00-14:07:30"},
	}
	for _, c := range cases {
		t.Run(c.window+"@"+c.at, func(t *testing.T) {
			at, err := engine.ParseClock(c.at)
			if err != nil {
				t.Fatal(err)
			}
			w, err := engine.NewWorld(familytest.Incident(t, "fifo-window"), 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.ScheduleKnobs(at, []engine.Setting{{Knob: "dedup_window", Value: c.window}}); err != nil {
				t.Fatal(err)
			}
			start := w.Now
			var sends, emails []string
			for w.Step(sinkFn(func(_ *engine.World, e *engine.Event, _ *engine.Decision) {
				switch e.Kind {
				case engine.EvPublish:
					sends = append(sends, fmt.Sprint((e.T-start)/engine.Time(engine.Minute)), "accepted")
				case fifowindow.EvDuplicate:
					sends = append(sends, fmt.Sprint((e.T-start)/engine.Time(engine.Minute)), "dropped")
				case engine.EvEffect:
					emails = append(emails, e.T.Short())
				}
			})) {
			}
			if got, want := strings.Join(sends, " "), c.sends; got != want {
				t.Errorf("sends %q; want %q", got, want)
			}
			if got, want := strings.Join(emails, " "), c.emails; got != want {
				t.Errorf("emails %q; want %q", got, want)
			}
			var mem []string
			for _, m := range w.Family().(*fifowindow.Family).Memory {
				mem = append(mem, m.Accepted.Short()+"-"+m.Until.Short())
			}
			if got := strings.Join(mem, " "); got != c.memory {
				t.Errorf("memory %q; want %q", got, c.memory)
			}
			sum := w.Summarize("")
			n := int64(len(emails))
			if sum.Effects != n || sum.DuplicateEffects != n-1 || sum.Lost != 0 || sum.MaxOldestAgeS != 0.48 {
				t.Errorf("effects %d duplicates %d lost %d oldest %v; want %d %d 0 0.48", sum.Effects, sum.DuplicateEffects, sum.Lost, sum.MaxOldestAgeS, n, n-1)
			}
		})
	}
}

// max_oldest_age_s is the age of the oldest message the broker still holds
// (SQS's ApproximateAgeOfOldestMessage): each stored message lives 0.48 s,
// from its acceptance to its delete; a dropped duplicate is never stored,
// and nothing ages while the broker holds nothing. The explorer's running
// figure agrees at every moment.
func TestOldestAgeIsWhatTheBrokerHolds(t *testing.T) {
	first := "14:00:00 0s, 14:00:00.05 50ms, 14:00:00.12 120ms, 14:00:00.45 450ms"
	sets := [][]engine.Setting{nil, {{Knob: "retry_deadline", Value: "3m"}}, {{Knob: "dedup_window", Value: "0s"}}}
	want := []string{
		first + ", 14:07:00 0s, 14:07:00.05 50ms, 14:07:00.12 120ms, 14:07:00.45 450ms",
		first,
		first + ", 14:01:00 0s, 14:01:00.05 50ms, 14:01:00.12 120ms, 14:01:00.45 450ms" +
			", 14:03:00 0s, 14:03:00.05 50ms, 14:03:00.12 120ms, 14:03:00.45 450ms" +
			", 14:07:00 0s, 14:07:00.05 50ms, 14:07:00.12 120ms, 14:07:00.45 450ms",
	}
	for i, set := range sets {
		w, err := engine.NewWorld(familytest.Incident(t, "fifo-window"), 1, set)
		if err != nil {
			t.Fatal(err)
		}
		var held []string
		for w.Step(sinkFn(func(w *engine.World, e *engine.Event, _ *engine.Decision) {
			if age := w.Truth().OldestAge(); age >= 0 {
				held = append(held, fmt.Sprintf("%s %s", e.T.Short(), engine.FormatDuration(age)))
			}
		})) {
		}
		if s := w.Summarize(""); s.MaxOldestAgeS != 0.48 {
			t.Errorf("%v: max_oldest_age_s %v, want 0.48", set, s.MaxOldestAgeS)
		}
		if got := strings.Join(held, ", "); got != want[i] {
			t.Errorf("%v: the broker holds\n%s\nwant\n%s", set, got, want[i])
		}
	}
}

// TestEveryRunEnds: the one order at the knobs' edges — a queue that
// remembers nothing, a producer that never retries, one that retries past
// the window — ends done (at least one email), never held. A fork that
// lowers retry_deadline stops the retry already scheduled (minute 3,
// scheduled at 14:01 under the 10-minute deadline): it used to be sent.
func TestEveryRunEnds(t *testing.T) {
	figs := []string{"attempts", "accepted", "dropped_duplicates", "emails", "producer_gave_up"}
	familytest.Table(t, familytest.Incident(t, "fifo-window"), 1, 1_000_000, figs, []familytest.Case{
		{Name: "defaults",
			Want: "messages 1 deliveries 2 effects 2 duplicates 1 end 14:07:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 4 accepted 2 dropped_duplicates 2 emails 2 producer_gave_up false"},
		{Name: "dedup_window=0s", Set: []string{"dedup_window", "0s"},
			Want: "messages 1 deliveries 4 effects 4 duplicates 3 end 14:07:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 4 accepted 4 dropped_duplicates 0 emails 4 producer_gave_up false"},
		{Name: "retry_deadline=0s", Set: []string{"retry_deadline", "0s"},
			Want: "messages 1 deliveries 1 effects 1 duplicates 0 end 14:00:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 1 accepted 1 dropped_duplicates 0 emails 1 producer_gave_up true"},
		{Name: "dedup_window=0s, retry_deadline=0s", Set: []string{"dedup_window", "0s", "retry_deadline", "0s"},
			Want: "messages 1 deliveries 1 effects 1 duplicates 0 end 14:00:00.48 | held 0 done 1 dlq 0 lost 0 | attempts 1 accepted 1 dropped_duplicates 0 emails 1 producer_gave_up true"},
		{Name: "retry_deadline=0s at 14:02", Fork: familytest.Fork{At: "14:02:00", Set: familytest.Set("retry_deadline", "0s")},
			Want: "messages 1 deliveries 1 effects 1 duplicates 0 end 14:03:00 | held 0 done 1 dlq 0 lost 0 | attempts 2 accepted 1 dropped_duplicates 1 emails 1 producer_gave_up true"},
	})
}
