package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// The worst recovery as a run's summary gives it, read from its events:
// none where no worker crashed or wedged holding a current lease, the
// wait to the next delivery where one did, and a wait still open at the
// end where a renewed lease holds a wedged call for ever.
func TestWorstRecovery(t *testing.T) {
	for _, tc := range []struct {
		id    string
		o     engine.RunOptions
		words string // "" none
	}{
		{"thursday", engine.RunOptions{}, ""},
		{"thursday-fixed", engine.RunOptions{}, ""},
		// thursday's provider outlasts every lease: a wedge is noticed
		// after the message has gone elsewhere, so nothing waits on it
		{"thursday", engine.RunOptions{Set: []engine.Setting{{Knob: "wedge_p", Value: "0.01"}}}, ""},
		{"thursday", engine.RunOptions{Set: []engine.Setting{{Knob: "heartbeat", Value: "10s"}, {Knob: "wedge_p", Value: "0.01"}}}, "order 51 invisible 2796.3s so far since A1 wedged"},
		{"christmas-friday", engine.RunOptions{}, "order 0 invisible 30.0s after A1 crashed"},
		{"thursday-fixed", engine.RunOptions{Set: []engine.Setting{{Knob: "crash_after_claim", Value: "1s"}}}, "order 14 invisible 29.0s after B1 crashed"},
		{"thursday", engine.RunOptions{HasAt: true, At: clock(t, "19:52:00"), AtMid: true, AtPos: 181, AtDo: []engine.Action{{Name: "crash", Arg: "B2"}}}, "order 14 invisible 30.0s after B2 crashed"},
	} {
		spec, err := incidents.Get(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		tc.o.Seed = spec.Seed
		s, _, err := engine.Run(spec, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if s.WorstRecovery != nil {
			got = s.WorstRecovery.Words
		}
		if got != tc.words {
			t.Errorf("%s %+v: worst recovery %q, want %q", tc.id, tc.o.Set, got, tc.words)
		}
	}
}
