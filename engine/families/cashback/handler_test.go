package cashback_test

import (
	"testing"

	"inflight/engine"
	"inflight/engine/families/cashback"
	"inflight/engine/families/familytest"
)

// ackAfter runs spec and returns, for entry 0's first delivery, the time
// from its credit to its XACK, and the handler-time decisions made.
func ackAfter(t *testing.T, spec *engine.Spec, force ...engine.DecisionOverride) (engine.Duration, []engine.Decision) {
	t.Helper()
	w := familytest.World(t, spec, engine.Setting{Knob: "events", Value: "30"})
	w.Forcing().Decisions(force...)
	var credit, ack engine.Time = -1, -1
	var decs []engine.Decision
	for w.Step(sinkFn(func(_ *engine.World, e *engine.Event, d *engine.Decision) {
		if d != nil && d.Kind == cashback.DecHandle {
			decs = append(decs, *d)
		}
		if e.Msg == 0 && e.Delivery == 1 {
			switch e.Kind {
			case engine.EvEffect:
				credit = e.T
			case engine.EvAck:
				ack = e.T
			}
		}
	})) {
	}
	if credit < 0 || ack < 0 {
		t.Fatal("entry 0 was never credited and acked")
	}
	return ack - credit, decs
}

// TestHandlerTime: the lesson's runs make no handler-time decision (each
// write takes 1 ms); with handler-time pins each handled delivery makes
// one, pinned where a pin stands, else drawn from the pinned values; a
// fork may force it, and the XACK moves with it.
func TestHandlerTime(t *testing.T) {
	spec := familytest.Incident(t, "cashback")
	if d, decs := ackAfter(t, spec); d != engine.Millisecond || len(decs) != 0 {
		t.Fatalf("the lesson's run: XACK %d ms after the credit, %d handler-time decisions; want 1 ms, none", d, len(decs))
	}
	pinned := *spec
	pinned.Pins = []engine.Pin{{Kind: cashback.DecHandle, Message: 0, Delivery: 1, Value: 7}, {Kind: cashback.DecHandle, Message: 1, Delivery: 1, Value: 3}}
	d, decs := ackAfter(t, &pinned)
	if d != 7 || len(decs) < 30 || !decs[0].Forced || decs[0].Lo != 3 || decs[0].Hi != 7 {
		t.Fatalf("pinned: XACK %d ms after the credit, %d decisions, first %+v; want 7 ms, one a delivery, pinned, 3–7", d, len(decs), decs[0])
	}
	for _, x := range decs[2:] {
		if x.Forced || x.Value != 3 && x.Value != 7 {
			t.Fatalf("an unpinned delivery's handler time %+v: want a draw of 3 or 7", x)
		}
	}
	if d, _ := ackAfter(t, &pinned, engine.DecisionOverride{Index: decs[0].Index, Value: 5}); d != 5 {
		t.Errorf("forced to 5 ms: XACK %d ms after the credit", d)
	}
}
