package engine

import "iter"

// pinKey is what a decision matches a pin on.
type pinKey struct {
	kind     DecisionKind
	msg      int32
	delivery int
}

// pinIndex holds, for each key, the positions in Spec.Pins of its pins in
// file order. Imported incidents pin every delivery (thousands of pins),
// so a scan of them all on each pinned decision is quadratic.
type pinIndex struct {
	base *Pin // &Pins[0] when built: a spec whose Pins were replaced, or
	n    int  // grown or cut since, falls back to the scan
	at   map[pinKey][]int32
}

// IndexPins builds the index of the spec's pins. Call it once the spec is
// made, before it is shared: a spec is read by many worlds at once, so the
// index is never built on first use. Without it (or with one left stale
// by Pins replaced, grown or cut) a decision scans the pins as before; a
// pin's key is not to change in place once indexed.
func (s *Spec) IndexPins() {
	s.pinIdx = nil
	if len(s.Pins) == 0 {
		return
	}
	x := &pinIndex{base: &s.Pins[0], n: len(s.Pins), at: make(map[pinKey][]int32)}
	for i, p := range s.Pins {
		k := pinKey{p.Kind, p.Message, p.Delivery}
		x.at[k] = append(x.at[k], int32(i))
	}
	s.pinIdx = x
}

// pinsFor yields the pins for the key in file order, the order they are
// tried in: from the index while it matches Pins, else by a scan.
func (s *Spec) pinsFor(k DecisionKind, msg int32, delivery uint16) iter.Seq[Pin] {
	return func(yield func(Pin) bool) {
		match := func(p Pin) bool { return p.Kind == k && p.Message == msg && p.Delivery == int(delivery) }
		if x := s.pinIdx; x != nil && x.n == len(s.Pins) && x.base == &s.Pins[0] {
			for _, i := range x.at[pinKey{k, msg, int(delivery)}] {
				// the key is checked again: a pin changed in place is not held
				if p := s.Pins[i]; match(p) && !yield(p) {
					return
				}
			}
			return
		}
		for _, p := range s.Pins {
			if match(p) && !yield(p) {
				return
			}
		}
	}
}
