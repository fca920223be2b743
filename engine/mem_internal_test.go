package engine

import "testing"

func TestLeavesReleased(t *testing.T) {
	spec := &Spec{ID: "t", Start: 0, Featured: -1, Label: "order",
		Sources: []Source{{Name: "orders", Every: 50 * Second, Count: 10}},
		Workers: WorkerSetup{Boxes: []string{"A", "B"}, PerBox: 2},
		Params:  Params{Orders: 10, VisibilityTimeout: 30 * Second, MaxReceives: 3, LatencyMin: 31 * Second, LatencyMax: 40 * Second}}
	w, _ := NewWorld(spec, 1, []Setting{{Knob: "orders", Value: "20000"}})
	for w.Step(nil) {
	}
	live := 0
	for _, l := range w.msgs.leaves {
		if l != nil {
			live++
		}
	}
	t.Logf("msg leaves %d of %d live; dlq %d entries", live, len(w.msgs.leaves), w.dlq.n)
	if live > 2 {
		t.Errorf("%d message leaves still live after the run", live)
	}
}
