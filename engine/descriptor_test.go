package engine_test

import (
	"strings"
	"testing"

	"inflight/engine"
)

// A misspelt knob name is an error, not a knob quietly left out.
func TestKnobsNamedRefusesUnknown(t *testing.T) {
	if _, err := engine.KnobsNamed([]string{"events", "evnets"}); err == nil || !strings.Contains(err.Error(), `"evnets"`) {
		t.Fatalf("KnobsNamed with a misspelt name: %v", err)
	}
	ks, err := engine.KnobsNamed([]string{"events", "crash_p"})
	if err != nil || len(ks) != 2 || ks[0].Name != "crash_p" {
		t.Fatalf("KnobsNamed: %v %v", ks, err)
	}
}

// A descriptor's defaults are typed: a default of the wrong type, or one
// the knob's parser refuses, fails Check.
func TestDescriptorCheck(t *testing.T) {
	ok := engine.Descriptor{Name: "x", New: func(*engine.Params) engine.Family { return nil },
		Knobs: []engine.KnobDefault{engine.Int("events", 5), engine.Dur("clock_step", -6*engine.Second), engine.Prob("crash_p", 0.01)}}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for _, kd := range []engine.KnobDefault{
		engine.Dur("events", engine.Second),    // wrong type
		engine.Choice("dedupe", "maybe"),       // not a choice
		engine.Int("evnets", 1),                // no such knob
		engine.Int("max_receives", 0),          // out of range
		engine.Prob("crash_p", 2),              // not a probability
		engine.Text("transactional_id", "a b"), // refused by the knob
	} {
		d := ok
		d.Knobs = []engine.KnobDefault{kd}
		if err := d.Check(); err == nil {
			t.Errorf("%+v: Check passed", kd)
		}
	}
	var p engine.Params
	if err := ok.SetDefaults(&p); err != nil || p.Events != 5 || p.ClockStep != -6*engine.Second || p.CrashP != 0.01 {
		t.Fatalf("SetDefaults: %+v %v", p, err)
	}
}
