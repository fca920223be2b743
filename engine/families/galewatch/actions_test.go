package galewatch_test

import (
	"bytes"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/engine/families/familytest"
)

var clock, act = familytest.Clock, familytest.Act

// stepCaption is the operator's clock_step in a trace.
func stepCaption(t testing.TB, tr *bytes.Buffer) engine.TraceLine {
	t.Helper()
	for _, l := range familytest.Trace(t, tr) {
		if l.Kind == "clock_step" && l.Actor == "operator" {
			return l
		}
	}
	t.Fatal("no operator clock_step in the trace")
	return engine.TraceLine{}
}

// The lesson's window, stepped by hand: a jump back by a whole number of
// periods reuses stamps the key holds and throws genuine readings away, on
// top of the daemon's; a forward jump loses nothing, and one just before
// the daemon's step back cancels it. Figures against the incident's run
// (3 lost to the daemon); the test holds their direction.
func TestStepClock(t *testing.T) {
	spec := familytest.Incident(t, "galewatch")
	base := familytest.Summary(t, spec, spec.Seed)
	for _, tc := range []struct {
		at, do string
		more   int // sign of the change in genuine readings lost
		words  string
		name   string
	}{
		{"10:05:01", "step_clock=-6s", +1, "a stamp the key already holds: genuine readings will be thrown away", "step T0417's clock back 6s @10:05:01"},
		{"10:02:00", "step_clock=-1m", +1, "a stamp the key already holds", "step T0417's clock back 1m @10:02:00"},
		{"10:02:00", "step_clock=-5s", 0, "is not one the key holds: nothing collides", "step T0417's clock back 5s @10:02:00"},
		{"10:02:00", "step_clock=+6s", 0, "forward, its stamps leave a gap", "step T0417's clock forward 6s @10:02:00"},
		// the daemon's −6 s a second later only brings the clock back right
		{"10:04:59", "step_clock=+6s", -1, "forward", "step T0417's clock forward 6s @10:04:59"},
		// back past every stamp it has stored: nothing to collide with
		{"10:01:00", "step_clock=-1h", 0, "is not one the key holds", "step T0417's clock back 1h @10:01:00"},
	} {
		t.Run(tc.at+"/"+tc.do, func(t *testing.T) {
			var tr bytes.Buffer
			got, _, err := engine.Run(spec, engine.RunOptions{Seed: spec.Seed, HasAt: true, At: clock(t, tc.at), AtDo: []engine.Action{act(t, tc.do)}, Trace: &tr})
			if err != nil {
				t.Fatal(err)
			}
			l := stepCaption(t, &tr)
			t.Logf("lost %d → %d, collisions %v → %v; %s", base.Lost, got.Lost, base.Figures["collisions"], got.Figures["collisions"], l.Caption)
			if sign(got.Lost-base.Lost) != tc.more || got.Figures["collisions"] != got.Lost {
				t.Errorf("lost %d (collisions %v), %d without the step", got.Lost, got.Figures["collisions"], base.Lost)
			}
			if got.DuplicateEffects != 0 || got.Messages != base.Messages || got.Effects != got.Messages-got.Lost {
				t.Errorf("duplicates %d, messages %d, effects %d", got.DuplicateEffects, got.Messages, got.Effects)
			}
			if l.T != clock(t, tc.at).Clock() || !strings.HasPrefix(l.Caption, "T0417's host clock jumps ") || !strings.Contains(l.Caption, tc.words) {
				t.Errorf("step at %s: %q", l.T, l.Caption)
			}
			if len(got.Forks) != 1 || got.Forks[0].Name != tc.name {
				t.Errorf("forks %+v, want %q", got.Forks, tc.name)
			}
		})
	}
}

func sign(n int64) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// A headless run's code carries the step and replays to the same trace;
// the code parses and formats as itself.
func TestStepClockCode(t *testing.T) {
	spec := familytest.Incident(t, "galewatch")
	ro := engine.RunOptions{Seed: spec.Seed, HasAt: true, At: clock(t, "10:05:01"), AtDo: []engine.Action{act(t, "step_clock=-6s"), act(t, "step_clock=+2s")}}
	s, w, err := engine.Run(spec, ro)
	if err != nil {
		t.Fatal(err)
	}
	if s.Messages != 372000 || s.Lost <= 3 { // net 4 s further back than the daemon's 6 s
		t.Errorf("messages %d, lost %d", s.Messages, s.Lost)
	}
	code := engine.RunCode(spec, ro, w).String()
	if !strings.Contains(code, "@10:05:01;do=step_clock=-6s;do=step_clock=+2s#") {
		t.Fatalf("code %s", code)
	}
	c, err := engine.ParseCode(code)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != code {
		t.Errorf("%s formats as %s", code, c)
	}
	rs, _, err := engine.ReplayCode(spec, c, engine.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rs.TraceSHA256 != s.TraceSHA256 || rs.Lost != s.Lost || len(rs.Forks) != 1 || rs.Forks[0] != s.Forks[0] {
		t.Errorf("replay of %s: %s lost %d %+v; the run's %s lost %d %+v", code, rs.TraceSHA256, rs.Lost, rs.Forks, s.TraceSHA256, s.Lost, s.Forks)
	}
	if want := "step T0417's clock back 6s; step T0417's clock forward 2s @10:05:01"; s.Forks[0].Name != want {
		t.Errorf("name %q, want %q", s.Forks[0].Name, want)
	}
}

// Bad steps are refused naming what is wrong.
func TestStepClockRefused(t *testing.T) {
	spec := familytest.Incident(t, "galewatch")
	familytest.Refused(t, spec, [][2]string{
		{"step_clock", "give step_clock=+D or -D"},
		{"step_clock=0s", `action "step_clock=0s": a step is 1ms to 1h, back (-) or forward (+)`},
		{"step_clock=-2h", `action "step_clock=-2h": a step is 1ms to 1h`},
		{"step_clock=+61m", "a step is 1ms to 1h"},
		{"step_clock=back", `action "step_clock=back": want a signed duration, like -6s (back) or +6s (forward)`},
		{"step_clock=+-6s", "want a signed duration"},
		{"step_clock=--6s", "want a signed duration"},
		{"step_clock=6", "want a signed duration"},
		{"clock_step=-6s", "incident galewatch's actions are step_clock"},
	})
	w := familytest.World(t, spec)
	for _, ok := range []string{"step_clock=-6s", "step_clock=6s", "step_clock=+1h", "step_clock=-1ms", "step_clock=+1m30s"} {
		if err := w.CheckActions([]engine.Action{act(t, ok)}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// Any argument is refused in one line naming it, or accepted as a step
// the world takes.
func FuzzStepClockArg(f *testing.F) {
	familytest.FuzzActionArg(f, familytest.Incident(f, "galewatch"), familytest.FuzzArg{Prefix: "step_clock=", Steps: 50},
		"-6s", "+6s", "6s", "0s", "-1h", "+1h1ms", "+-6s", "--6s", "6", "-1.5s", "+1m30s")
}
