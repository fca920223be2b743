package randsuite

import (
	"strconv"

	"inflight/engine"
	"inflight/incidents"
)

// The checker reads a family only as any tool may, without importing it:
// its name from the registry (incidents.FamilyOf), its event kinds by
// their trace names, its knobs by their --set names. Its rules are its
// own model of each broker, written from the trace's documented meaning.

// familyName is the registry's name for the family spec runs ("" for a
// spec no registered family's knobs describe).
func familyName(spec *engine.Spec) string {
	if d := incidents.FamilyOf(spec); d != nil {
		return d.Name
	}
	return ""
}

// queueFamily is the SQS-like queue, the one model whose every move of a
// message has its event (the tally follows it state by state).
const queueFamily = "sqs"

// kinds are a world's event kinds by trace name: the standard ones (below
// engine.FamilyKind) and the family's own, apart, since a family may give
// one of its own a standard kind's name (fifo-window's "answer").
type kinds struct{ std, own map[string]engine.Kind }

func kindsOf(w *engine.World) kinds {
	ks := kinds{std: map[string]engine.Kind{}, own: map[string]engine.Kind{}}
	for k := engine.Kind(1); k != 0; k++ {
		n := w.KindName(k)
		if n == "" || n == "unknown" {
			continue
		}
		m := ks.std
		if k >= engine.FamilyKind {
			m = ks.own
		}
		if _, dup := m[n]; !dup {
			m[n] = k
		}
	}
	return ks
}

// Std is the standard kind named n, or 0 (no event's kind) when the
// world has none of that name.
func (ks kinds) Std(n string) engine.Kind { return ks.std[n] }

// Own is the family's own kind named n, or 0.
func (ks kinds) Own(n string) engine.Kind { return ks.own[n] }

// knob is the value in force of the world's knob name, as --set gives it
// ("" if the family has no such knob). Cached until the next knob event.
func (c *Checker) knob(w *engine.World, name string) string {
	if v, ok := c.knobVals[name]; ok {
		return v
	}
	if c.knobVals == nil {
		c.knobVals = map[string]string{}
	}
	v := ""
	for _, k := range w.Knobs.Knobs() {
		if k.Name == name {
			v = k.Get(&w.Knobs)
		}
	}
	c.knobVals[name] = v
	return v
}

func (c *Checker) knobInt(w *engine.World, name string) int {
	n, _ := strconv.Atoi(c.knob(w, name))
	return n
}

func (c *Checker) knobDur(w *engine.World, name string) engine.Duration {
	d, _ := engine.ParseDuration(c.knob(w, name), true)
	return d
}
