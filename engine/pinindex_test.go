package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func yielded(s *Spec, k DecisionKind, msg int32, d uint16) []Pin {
	var out []Pin
	for p := range s.pinsFor(k, msg, d) {
		out = append(out, p)
	}
	return out
}

// TestPinIndex: the index yields, for every key, the pins the scan does in
// the same order (several pins on one key are tried in file order), and a
// spec whose Pins changed after IndexPins falls back to the scan.
func TestPinIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := []DecisionKind{DecLatency, DecWorker, DecCrash}
	var pins []Pin
	for i := 0; i < 400; i++ {
		pins = append(pins, Pin{Kind: kinds[r.IntN(3)], Message: r.Int32N(40), Delivery: 1 + r.IntN(3), Value: int64(i)})
	}
	pins = append(pins, Pin{Kind: DecLatency, Message: 1, Delivery: 70_000}) // no uint16 delivery reaches it
	scan := &Spec{Pins: pins}
	indexed := &Spec{Pins: pins}
	indexed.IndexPins()
	if indexed.pinIdx == nil {
		t.Fatal("no index built")
	}
	same := func(what string, a, b *Spec) {
		t.Helper()
		for _, k := range kinds {
			for m := int32(-1); m <= 41; m++ {
				for d := uint16(0); d <= 4; d++ {
					if x, y := yielded(a, k, m, d), yielded(b, k, m, d); !slices.Equal(x, y) {
						t.Fatalf("%s: %v message %d delivery %d: %v, scan %v", what, k, m, d, x, y)
					}
				}
			}
		}
	}
	same("indexed", indexed, scan)

	// a copy given one more pin, other pins of the same length or fewer
	// pins: the scan, never the stale index
	grown := *indexed
	grown.Pins = append(slices.Clip(pins), Pin{Kind: DecCrash, Message: 2, Delivery: 1, Value: 1})
	same("grown", &grown, &Spec{Pins: grown.Pins})
	other := *indexed
	other.Pins = slices.Clone(pins)
	other.Pins[0].Message = 41
	same("replaced", &other, &Spec{Pins: other.Pins})
	cut := *indexed
	cut.Pins = pins[:10]
	same("cut", &cut, &Spec{Pins: cut.Pins})

	empty := &Spec{}
	empty.IndexPins()
	if empty.pinIdx != nil || len(yielded(empty, DecLatency, 0, 1)) != 0 {
		t.Fatal("a spec without pins")
	}
}
