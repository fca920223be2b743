package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// family is the registry's descriptor named name: the engine's tests
// reach a family through the registry, as every package but incidents
// and the family's own does.
func family(t *testing.T, name string) *engine.Descriptor {
	t.Helper()
	for _, d := range incidents.Families() {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("the registry has no family %s", name)
	return nil
}

func TestLeavesReleased(t *testing.T) {
	queue := family(t, "sqs")
	p, err := queue.Params()
	if err == nil {
		err = p.Apply([]engine.Setting{{Knob: "max_receives", Value: "3"}, {Knob: "latency_min", Value: "31s"}, {Knob: "latency_max", Value: "40s"}})
	}
	if err != nil {
		t.Fatal(err)
	}
	spec := &engine.Spec{ID: "t", Start: 0, Featured: -1, Label: "order",
		Sources:   []engine.Source{{Name: "orders", Every: 50 * engine.Second, Count: 10}},
		Workers:   engine.WorkerSetup{Boxes: []string{"A", "B"}, PerBox: 2},
		Params:    p,
		NewFamily: queue.New}
	w, err := engine.NewWorld(spec, 1, []engine.Setting{{Knob: "orders", Value: "20000"}})
	if err != nil {
		t.Fatal(err)
	}
	for w.Step(nil) {
	}
	live, total, dlq := engine.Leaves(w)
	t.Logf("msg leaves %d of %d live; dlq %d entries", live, total, dlq)
	if live > 2 {
		t.Errorf("%d message leaves still live after the run", live)
	}
}
