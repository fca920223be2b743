package cashback

import (
	"slices"

	"inflight/engine"
)

// DecHandle is a handled delivery's handler time: from its first write to
// its crash point, then XACK (ms). The lesson's run never makes it: each
// write takes 1 ms. An imported incident pins each handled delivery's
// recorded time by (entry, delivery count); those pins are the observed
// distribution, and a delivery without one (a branch's new delivery)
// draws one of them, uniformly, on its own stream.
const DecHandle = engine.FamilyDecision

// StreamHandle is the handler-time draws' stream: "handle". Its own, so
// that the crash draws of a run with handler times are the lesson's.
const StreamHandle engine.Stream = 0x68616e646c65

var pinKinds = []engine.PinKind{{Name: "handle", Kind: DecHandle}}

// handlerTable is the handler-time pins' values, sorted; nil without any.
func handlerTable(pins []engine.Pin) []engine.Duration {
	var out []engine.Duration
	for _, p := range pins {
		if p.Kind == DecHandle {
			out = append(out, engine.Duration(p.Value))
		}
	}
	slices.Sort(out)
	return out
}

// handlerTime is delivery count of entry k's handler time: 1 ms and no
// decision without handler-time pins, so the lesson's runs keep their
// decisions; else the pin's, or a draw from the pinned values.
func (c *Family) handlerTime(w *engine.World, k int32, count uint16) engine.Duration {
	t := c.handlerTimes
	if len(t) == 0 {
		return engine.Millisecond
	}
	natural := t[engine.Uniform(w.Draw(StreamHandle, uint64(k), uint64(count)), 0, int64(len(t)-1))]
	return engine.Duration(w.Decide(DecHandle, k, -1, count, int64(natural), int64(t[0]), int64(t[len(t)-1])))
}
