package engine_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// A pinned decision holds only while its value lies inside the knobs in
// force: thursday pins order 14's first call to 34 s, and a fast provider
// (or a fast provider against a short timeout) makes that pin give way to
// the call's ordinary draw, so order 14 gets one email, as every order does.
func TestPinGivesWayOutsideKnobs(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	figures := map[string]any{
		"crashes": 0, "dlq_peak": 0, "held_at_end": 0, "last_effect": "21:09:30",
		"late_acks_accepted": 0, "redriven": 0, "wedged": 0, "wedged_retried": 0,
	}
	for _, tc := range []struct {
		name    string
		set     []engine.Setting
		want    engine.Summary
		effects int // order 14's
		line    string
	}{
		{
			name: "fast provider",
			set:  []engine.Setting{{Knob: "latency_min", Value: "1s"}, {Knob: "latency_max", Value: "2s"}},
			want: engine.Summary{
				Incident: "thursday", Seed: 1, Messages: 108, Deliveries: 108, Effects: 108,
				DuplicateEffects: 0, Done: 108, HeldAtEnd: 0, Lost: 0, DLQ: 0, LateAcksRefused: 0,
				MaxOldestAgeS: 1.979, Busy: 0.0075, Alerts: []engine.AlertFiring{}, WouldHaveFired: []engine.AlertFiring{},
				End: "21:09:31.979", Events: 433, Decisions: 216,
				TraceSHA256: "1e43aed8e9fe277de9455ea445f398623a81e3e2ac3d9988ae0f7518a1c6ea3e",
			},
			effects: 1,
			line:    "pin gave way: order 14's first call 34s is outside latency 1s–2s; drawn instead",
		},
		{
			name: "half-second provider, 10 s timeout",
			set: []engine.Setting{{Knob: "latency_min", Value: "0.5s"}, {Knob: "latency_max", Value: "0.5s"},
				{Knob: "visibility_timeout", Value: "10s"}},
			want: engine.Summary{
				Incident: "thursday", Seed: 1, Messages: 108, Deliveries: 108, Effects: 108,
				DuplicateEffects: 0, Done: 108, HeldAtEnd: 0, Lost: 0, DLQ: 0, LateAcksRefused: 0,
				MaxOldestAgeS: 0.5, Busy: 0.0025, Alerts: []engine.AlertFiring{}, WouldHaveFired: []engine.AlertFiring{},
				End: "21:09:30.5", Events: 433, Decisions: 216,
			},
			effects: 1,
			line:    "pin gave way: order 14's first call 34s is outside latency 500ms–500ms; drawn instead",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, w, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, Set: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := w.Msg(14); !ok || int(m.Effects) != tc.effects {
				t.Errorf("order 14: %d emails, want %d", m.Effects, tc.effects)
			}
			if len(s.PinsGaveWay) != 1 || s.PinsGaveWay[0].Line != tc.line || s.PinsGaveWay[0].Decision != "latency" ||
				s.PinsGaveWay[0].Message != 14 || s.PinsGaveWay[0].Delivery != 1 || s.PinsGaveWay[0].Pinned != "34s" {
				t.Errorf("pins gave way: %+v, want one: %q", s.PinsGaveWay, tc.line)
			}
			// figures compare through JSON: their values are ints and strings
			gotFig, _ := json.Marshal(s.Figures)
			wantFig, _ := json.Marshal(figures)
			if string(gotFig) != string(wantFig) {
				t.Errorf("figures %s, want %s", gotFig, wantFig)
			}
			got := s
			got.Figures, got.PinsGaveWay, got.Code = nil, nil, ""
			if tc.want.TraceSHA256 == "" {
				got.TraceSHA256 = ""
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("summary\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// A pin inside the knobs in force still holds, and says nothing: the
// lesson's own run keeps order 14's 34 s call and its three emails.
func TestPinHoldsInsideKnobs(t *testing.T) {
	spec, err := incidents.Get("thursday")
	if err != nil {
		t.Fatal(err)
	}
	s, w, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.PinsGaveWay) != 0 {
		t.Errorf("main run: pins gave way: %+v", s.PinsGaveWay)
	}
	if m, ok := w.Msg(14); !ok || m.Effects != 3 {
		t.Errorf("order 14: %d emails, want 3", m.Effects)
	}
	if b, _ := json.Marshal(s); strings.Contains(string(b), "pins_gave_way") {
		t.Errorf("pins_gave_way present when empty")
	}
}
