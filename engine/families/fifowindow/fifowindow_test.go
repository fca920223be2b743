package fifowindow_test

import (
	"fmt"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

func spec(t *testing.T) *engine.Spec {
	t.Helper()
	s, err := incidents.Get("fifo-window")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

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
			sum, _, err := engine.Run(spec(t), engine.RunOptions{Seed: 1, Set: c.set})
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

// A fork that lets the first answer through: no retries, one email.
func TestAnswerDecisionIsForkable(t *testing.T) {
	w, err := engine.NewWorld(spec(t), 1, nil)
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
	w, _ := engine.NewWorld(spec(t), 1, nil)
	for w.Now < 14*engine.Hour+2*engine.Minute && w.Step(nil) {
	}
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
		sum, _, err := engine.Run(spec(t), engine.RunOptions{Seed: 1, HasAt: true, At: at, AtSet: []engine.Setting{{Knob: "dedup_window", Value: c.window}}})
		if err != nil {
			t.Fatal(err)
		}
		if sum.DuplicateEffects != c.dups || sum.Figures["window_change_kept"] != c.kept {
			t.Errorf("%s at %s: dups %d kept %v; want %d %v", c.window, c.at, sum.DuplicateEffects, sum.Figures["window_change_kept"], c.dups, c.kept)
		}
	}
}
