package tui

import (
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// The fork form lists the queue's operator actions beside the knobs, and
// a branch forked with one there is the headless run with --at and --do.
func TestForkFormActions(t *testing.T) {
	for _, tc := range []struct{ id, clock, do, name string }{
		{"thursday", "21:10:00", "redrive", "redrive 106 dead letters @21:10:00"},
		{"thursday", "19:52:00", "crash=B2", "crash B2 @19:52:00"},
		{"thursday-fixed", "19:52:00", "workers=+2,crash=A1", "add 2 workers; crash A1 @19:52:00"},
	} {
		spec, err := incidents.Get(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		m := newTest(t, Options{Spec: spec}, 120, 40)
		m = press(m, keysOf("/"+tc.clock+" f")...)
		if m.state != stateFork {
			t.Fatalf("state %s", m.state)
		}
		if v := m.View(); !strings.Contains(v, "Operator actions at this moment") {
			t.Fatalf("%s: the form lists no actions:\n%s", tc.id, v)
		}
		for m.fork.row != len(m.fork.knobs)+2 {
			m = press(m, "up")
		}
		m = press(m, keysOf(tc.do)...)
		if v := m.View(); !strings.Contains(v, "default: "+tc.name) {
			t.Errorf("%s: the form's default name is not %q:\n%s", tc.id, tc.name, v)
		}
		m = press(m, "enter")
		if m.state != stateMain || m.x.Branch().Parent == nil {
			t.Fatalf("%s: no fork: %s %q", tc.id, m.state, m.fork.err)
		}
		if b := m.x.Branch(); b.Name != tc.name {
			t.Errorf("%s: branch %q, want %q", tc.id, b.Name, tc.name)
		}
		m = settle(press(m, "G"))
		got := m.x.Summary(m.x.Branch())
		var acts []engine.Action
		for _, s := range strings.Split(tc.do, ",") {
			a, err := engine.ParseAction(s)
			if err != nil {
				t.Fatal(err)
			}
			acts = append(acts, a)
		}
		want, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: clock(t, tc.clock), AtDo: acts})
		if err != nil {
			t.Fatal(err)
		}
		if got.TraceSHA256 != want.TraceSHA256 || got.Effects != want.Effects {
			t.Errorf("%s %s: the form's branch has %d effects (%s), the headless run %d (%s)", tc.id, tc.do, got.Effects, got.TraceSHA256[:8], want.Effects, want.TraceSHA256[:8])
		}
	}
}
