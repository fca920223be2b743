package incidents

import (
	"strings"
	"testing"

	"inflight/engine"
)

// tick is a system defined outside the engine, with a knob of its own: it
// emits one event a second, `ticks` times. TestAddingAFamily registers it
// with one line, as a new family package would be.
type tick struct{ k *tickKnobs }

type tickKnobs struct{ Ticks int }

var tickDescriptor = engine.Descriptor{
	Name: "tick",
	Doc:  "a clock that ticks",
	Knobs: engine.KnobsOver[tickKnobs](
		engine.IntKnob("ticks", "ticks before the clock stops", func(k *tickKnobs) *int { return &k.Ticks }, 0, 100, 3),
	),
	New: func(*engine.Params) engine.Family { return &tick{} },
}

func (f *tick) BindKnobs(p *engine.Params) { f.k = engine.KnobsOf[tickKnobs](p) }
func (f *tick) Clone() engine.Family       { c := *f; return &c }
func (f *tick) Start(w *engine.World) {
	w.Schedule(w.Now+engine.Second, engine.FamilyStep{}, false)
}
func (f *tick) Step(w *engine.World, s engine.FamilyStep) {
	if int(s.Item) >= f.k.Ticks {
		return // a fork lowered the count
	}
	w.Emit(engine.FamilyKind, -1, -1, 0, int64(s.Item), 0)
	if int(s.Item)+1 < f.k.Ticks {
		w.Schedule(w.Now+engine.Second, engine.FamilyStep{Item: s.Item + 1}, false)
	}
}
func (f *tick) Figures(*engine.World) map[string]any { return nil }
func (f *tick) KindName(engine.Kind) string          { return "tick" }
func (f *tick) Caption(*engine.World, *engine.Event, *engine.Decision) (string, bool) {
	return "tick", true
}
func (f *tick) DecisionText(*engine.World, *engine.Decision) string { return "" }
func (f *tick) Panes(*engine.World, engine.Cursor) []engine.Pane    { return nil }
func (f *tick) Counts(*engine.World) (int, int)                     { return 0, 0 }

type tickCount struct{ n int }

func (c *tickCount) Event(_ *engine.World, e *engine.Event, _ *engine.Decision) {
	if e.Kind == engine.FamilyKind {
		c.n++
	}
}

// A family is its own package and one registry line: the tick family runs
// from an incident file with its knob's default, a file's params and
// --set, with no edit to the engine; the engine then knows its knob.
func TestAddingAFamily(t *testing.T) {
	was := families
	t.Cleanup(func() { families = engine.Register(was...) })
	families = engine.Register(append(append([]*engine.Descriptor(nil), was...), &tickDescriptor)...)

	if err := tickDescriptor.Check(); err != nil {
		t.Fatal(err)
	}
	file := "id: clock\ntitle: Clock\nstart: \"10:00:00\"\nfamily: tick\n"
	for _, c := range []struct {
		params string
		set    []string
		want   int
	}{
		{"", nil, 3},
		{"params: {ticks: 5}\n", nil, 5},
		{"params: {ticks: 5}\n", []string{"ticks=2"}, 2},
	} {
		spec, err := Parse("clock.yaml", []byte(file+c.params))
		if err != nil {
			t.Fatal(err)
		}
		var set []engine.Setting
		for _, s := range c.set {
			st, err := engine.ParseSetting(s)
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, st)
		}
		w, err := engine.NewWorld(spec, 1, set)
		if err != nil {
			t.Fatal(err)
		}
		var n tickCount
		for w.Step(&n) {
		}
		if n.n != c.want {
			t.Errorf("%q %v: %d ticks, want %d", c.params, c.set, n.n, c.want)
		}
	}
	// a fork raises the knob at its moment; the clone it runs on reads it
	spec, _ := Parse("clock.yaml", []byte(file))
	w, _ := engine.NewWorld(spec, 1, nil)
	if err := w.ScheduleKnobs(spec.Start, []engine.Setting{{Knob: "ticks", Value: "1"}}); err != nil {
		t.Fatal(err)
	}
	fork := w.Clone()
	var n tickCount
	for fork.Step(&n) {
	}
	if n.n != 1 {
		t.Errorf("fork with ticks=1: %d ticks", n.n)
	}
	if _, err := engine.ParseSetting("tick=1"); err == nil || !strings.Contains(err.Error(), "ticks") {
		t.Errorf("the engine's knob list does not name ticks: %v", err)
	}
	if _, err := Parse("clock.yaml", []byte(file+"params: {ticks: 500}\n")); err == nil || !strings.Contains(err.Error(), "knob ticks=500: 500 is outside 0…100") {
		t.Errorf("ticks=500: %v", err)
	}
}
