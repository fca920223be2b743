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

// tickKnobs is a knob struct of a family declared outside the engine.
type tickKnobs struct {
	N    int
	Step engine.Duration
	P    float64
}

// A descriptor's defaults are typed: a default its knob's parser refuses,
// or a knob over another family's struct, fails Check; Params sets the
// defaults on the family's own struct.
func TestDescriptorCheck(t *testing.T) {
	n := engine.IntKnob("n", "ticks", func(k *tickKnobs) *int { return &k.N }, 1, 10, 5)
	step := engine.SignedDurKnob("step", "a step", func(k *tickKnobs) *engine.Duration { return &k.Step }, -6*engine.Second)
	prob := engine.ProbKnob("p", "a chance", func(k *tickKnobs) *float64 { return &k.P }, 0.01)
	ok := engine.Descriptor{Name: "x", New: func(*engine.Params) engine.Family { return nil },
		Knobs: engine.KnobsOver[tickKnobs](n, step, prob)}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	type other struct{ N int }
	for _, k := range []*engine.Knob{
		engine.IntKnob("n", "", func(k *tickKnobs) *int { return &k.N }, 1, 10, 0),                      // out of range
		engine.ProbKnob("p", "", func(k *tickKnobs) *float64 { return &k.P }, 2),                        // not a probability
		engine.TextKnob("id", "", func(k *tickKnobs) *string { return new(string) }, "a b"),             // refused by the knob
		engine.ChoiceKnob("c", "", []string{"a", "b"}, func(*tickKnobs) int { return 0 }, nil, "maybe"), // not a choice
		engine.IntKnob("o", "", func(k *other) *int { return &k.N }, 0, 10, 1),                          // another struct's
		n, // twice
	} {
		d := ok
		d.Knobs = engine.KnobsOver[tickKnobs](n, k)
		if err := d.Check(); err == nil {
			t.Errorf("%s: Check passed", k.Name)
		}
	}
	// a file section of the family's must name its knobs
	d := ok
	d.File.Sections = []engine.KnobSection{{Name: "ticker", Knobs: []string{"n", "m"}}}
	if err := d.Check(); err == nil || !strings.Contains(err.Error(), "section ticker names knob m") {
		t.Errorf("a section naming an undeclared knob: %v", err)
	}
	if d.Called() != "family x" {
		t.Errorf("Called: %q", d.Called())
	}
	p, err := ok.Params()
	if k := engine.KnobsOf[tickKnobs](&p); err != nil || k.N != 5 || k.Step != -6*engine.Second || k.P != 0.01 {
		t.Fatalf("Params: %+v %v", k, err)
	}
	// a copy of a Params does not see a later change to the original
	q := p
	if err := p.Apply([]engine.Setting{{Knob: "n", Value: "7"}}); err != nil {
		t.Fatal(err)
	}
	if engine.KnobsOf[tickKnobs](&q).N != 5 || engine.KnobsOf[tickKnobs](&p).N != 7 {
		t.Fatalf("Apply wrote through a copy: %d %d", engine.KnobsOf[tickKnobs](&q).N, engine.KnobsOf[tickKnobs](&p).N)
	}
}
