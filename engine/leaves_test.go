package engine_test

import (
	"testing"

	"inflight/engine"
	"inflight/engine/families/sqs"
)

func TestLeavesReleased(t *testing.T) {
	spec := &engine.Spec{ID: "t", Start: 0, Featured: -1, Label: "order",
		Sources:   []engine.Source{{Name: "orders", Every: 50 * engine.Second, Count: 10}},
		Workers:   engine.WorkerSetup{Boxes: []string{"A", "B"}, PerBox: 2},
		Params:    engine.Params{Orders: 10, VisibilityTimeout: 30 * engine.Second, MaxReceives: 3, LatencyMin: 31 * engine.Second, LatencyMax: 40 * engine.Second},
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
