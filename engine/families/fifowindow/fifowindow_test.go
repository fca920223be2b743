package fifowindow_test

import (
	"fmt"
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
	w.Override(engine.DecisionOverride{Index: 0, Value: 0})
	for w.Step(nil) {
	}
	s := w.Summarize("")
	if s.Effects != 1 || s.Figures["attempts"] != 1 {
		t.Errorf("answer delivered: effects %d attempts %v, want 1 and 1", s.Effects, s.Figures["attempts"])
	}
}

func TestPanes(t *testing.T) {
	w := familytest.WorldAt(t, familytest.Incident(t, "fifo-window"), 1, nil, "14:02:00")
	p := w.Family().Panes(w)
	if len(p.Queue) < 2 || p.Queue[1].Mark != "" || p.Queue[1].Bar <= 0 {
		t.Errorf("at 14:03 the dedup id should be remembered with a countdown: %+v", p.Queue)
	}
	for w.Step(nil) {
	}
	p = w.Family().Panes(w)
	if len(p.Inbox) != 2 || p.Inbox[1].Mark != "COPY 2" {
		t.Errorf("inbox at the end: %+v", p.Inbox)
	}
	if p.Queue[1].Mark != "FORGOTTEN" {
		t.Errorf("the first acceptance should be forgotten by 14:07: %+v", p.Queue)
	}
}

// A fork that changes dedup_window mid-run replays the queue's calls under
// the new interval and adopts it only when the past comes out the same.
func TestWindowChangedMidRun(t *testing.T) {
	cases := []struct {
		at, window string
		dups       int64
		kept       bool
	}{
		{"14:02:00", "10m", 0, false}, // same past; the id is remembered at 14:07
		{"14:06:00", "10m", 0, false}, // forgotten at 14:05 only silently: same past
		{"14:02:00", "30s", 1, true},  // with 30 s the 14:01 retry would have been new
		{"14:06:00", "7m", 1, false},  // adopted, and still forgotten exactly at 14:07
	}
	for _, c := range cases {
		at, err := engine.ParseClock(c.at)
		if err != nil {
			t.Fatal(err)
		}
		sum, _, err := engine.Run(familytest.Incident(t, "fifo-window"), engine.RunOptions{Seed: 1, HasAt: true, At: at, AtSet: []engine.Setting{{Knob: "dedup_window", Value: c.window}}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.DuplicateEffects != c.dups || sum.Figures["window_change_kept"] != c.kept {
			t.Errorf("%s at %s: dups %d kept %v; want %d %v", c.window, c.at, sum.DuplicateEffects, sum.Figures["window_change_kept"], c.dups, c.kept)
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
