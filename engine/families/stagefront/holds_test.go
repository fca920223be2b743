package stagefront

import (
	"testing"
)

// TestHoldsCopyOnWrite: a clone's writes never show in the original, nor
// the original's in the clone.
func TestHoldsCopyOnWrite(t *testing.T) {
	h := newHolds(5000)
	h.mut(7).sold = true
	c := h.clone()
	c.mut(7).sold = false
	c.mut(4000).receives = 3
	h.mut(8).state = stDLQ
	if !h.at(7).sold || h.at(4000).receives != 0 || c.at(7).sold || c.at(4000).receives != 3 || c.at(8).state != stVisible {
		t.Fatalf("shared writes: %+v %+v %+v / %+v %+v", h.at(7), h.at(4000), h.at(8), c.at(7), c.at(4000))
	}
}
