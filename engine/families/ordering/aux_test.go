package ordering

import (
	"fmt"
	"strings"
	"testing"

	"inflight/engine"
)

// TestDeliverAux: consumer_threads allows 64, and a delivery's event used
// to keep four bits of its thread number, so threads 17 to 64 were told
// as threads 1 to 16. The packing keeps every thread the knob allows and
// packs threads below 16 exactly as before (their traces keep their
// hashes).
func TestDeliverAux(t *testing.T) {
	for _, tc := range []struct {
		off           int64
		consumer, th  int
		wantAux       int64
		wantSameAsOld bool
	}{
		{0, 0, 0, 0, true},
		{1234, 2, 15, 1234<<8 | 2<<4 | 15, true},
		{1234, 2, 16, 1<<58 | 1234<<8 | 2<<4, false},
		{99_999, 1, 40, 2<<58 | 99_999<<8 | 1<<4 | 8, false},
		{1<<40 - 1, 2, 63, 3<<58 | (1<<40-1)<<8 | 2<<4 | 15, false},
	} {
		aux := deliverAux(tc.off, tc.consumer, tc.th)
		old := tc.off<<8 | int64(tc.consumer)<<4 | int64(tc.th&15)
		off, c, th := unpackDeliver(aux)
		if aux != tc.wantAux || (aux == old) != tc.wantSameAsOld || off != tc.off || c != tc.consumer || th != tc.th {
			t.Errorf("%+v: aux %#x (old %#x) unpacks to %d %d %d", tc, aux, old, off, c, th)
		}
	}
}

// TestCaptionNamesWideThreads: a delivery by thread 41 of 64 is told as
// thread 41.
func TestCaptionNamesWideThreads(t *testing.T) {
	spec := &engine.Spec{ID: "ordering", Title: "ordering", Label: "event", Start: 12 * engine.Hour, Featured: -1,
		NewFamily: New, Knobs: []string{"consumer_threads"}}
	spec.Params.ConsumerThreads = 64
	w, err := engine.NewWorld(spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	sink := sinkFn(func(w *engine.World, e *engine.Event, d *engine.Decision) {
		if e.Kind == engine.EvDeliver && len(got) == 0 {
			off, c, _ := unpackDeliver(e.Aux)
			for _, th := range []int{0, 15, 16, 40, 63} {
				x := *e
				x.Aux = deliverAux(off, c, th)
				got = append(got, w.Caption(&x, nil))
			}
		}
	})
	for len(got) == 0 && w.Step(sink) {
	}
	for i, th := range []int{1, 16, 17, 41, 64} {
		if i >= len(got) || !strings.Contains(got[i], fmt.Sprintf(" thread %d handles", th)) {
			t.Fatalf("thread %d: captions %q", th, got)
		}
	}
}

type sinkFn func(w *engine.World, e *engine.Event, d *engine.Decision)

func (f sinkFn) Event(w *engine.World, e *engine.Event, d *engine.Decision) { f(w, e, d) }
