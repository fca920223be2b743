package cashback

import "inflight/engine"

// PinRange: an imported incident pins each delivery's crash decision to
// what happened; a run whose crash_p makes that outcome impossible (0:
// never dies, 1: always dies) lets the pin give way, so the fork
// crash_p=0 asks "what if it had not crashed" (engine.FamilyPinRange).
func (c *Family) PinRange(k engine.DecisionKind, lo, hi int64) (int64, int64) {
	if k == engine.DecCrash {
		switch {
		case c.k.CrashP <= 0:
			hi = lo
		case c.k.CrashP >= 1:
			lo = hi
		}
	}
	return lo, hi
}
