package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/engine/families/sqs"
)

func TestLeavesReleased(t *testing.T) {
	p, err := sqs.Descriptor.Params()
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
		NewFamily: sqs.New}
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
