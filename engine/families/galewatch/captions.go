package galewatch

import (
	"fmt"
	"strconv"

	"inflight/engine"
)

// Turbine names turbine t (0-based) as the fleet does: T0001…T1240.
func Turbine(t int) string {
	n := t + 1
	if n < 1 || n > 9999 {
		return fmt.Sprintf("T%04d", n)
	}
	return string([]byte{'T', byte('0' + n/1000), byte('0' + n/100%10), byte('0' + n/10%10), byte('0' + n%10)})
}

func stamp(v int64) string { return engine.Time(v).Clock() }

// KindName names the family's event kinds for the trace.
func (g *Family) KindName(k engine.Kind) string {
	if i := int(k - engine.FamilyKind); k >= engine.FamilyKind && i < len(kindNames) {
		return kindNames[i]
	}
	return "unknown"
}

func answer(w *engine.World, d *engine.Decision) string {
	if d != nil && d.Kind == DecTimeout && d.Value == 1 {
		if d.T+RetryAfter-readingAt(w.Spec().Start, d.Msg) > KnobsOf(&w.Knobs).RetryDeadline {
			return " — the write landed, but its answer was lost, and a re-send would be past the turbine's retry deadline: it gives up"
		}
		return fmt.Sprintf(" — the write landed, but its answer was lost: the turbine sends it again at %s", (d.T + RetryAfter).Short())
	}
	return ""
}

// Caption tells each event in the lesson's words.
func (g *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	t := int(e.Aux)
	switch e.Kind {
	case engine.EvEffect:
		if e.Delivery > 1 {
			return fmt.Sprintf("%s's re-sent reading stamped %s finds no row and is stored%s", Turbine(t), stamp(e.Value), answer(w, d)), true
		}
		if d == nil || d.Value == 0 {
			return Turbine(t) + "'s reading stamped " + stamp(e.Value) + " stored", true
		}
		return fmt.Sprintf("%s's reading stamped %s stored%s", Turbine(t), stamp(e.Value), answer(w, d)), true
	case KindReject:
		return fmt.Sprintf("%s sends the reading stamped %s again a minute later: the unique key (turbine, timestamp) throws the copy away%s", Turbine(t), stamp(e.Value), answer(w, d)), true
	case KindCollision:
		return fmt.Sprintf("%s's genuine reading at %s is stamped %s by its stepped clock: the key is taken, and a genuine reading is thrown away as a duplicate%s", Turbine(t), e.T.Clock(), stamp(e.Value), answer(w, d)), true
	case KindGiveUp:
		return fmt.Sprintf("%s drops reading %d after %d sends with no answer: another would be more than %s after it was taken", Turbine(t), e.Msg, e.Delivery, engine.FormatDuration(engine.Duration(e.Value))), true
	case KindClockStep:
		if e.Delivery == 1 {
			return g.actionCaption(w, e), true
		}
		dir := "back"
		step := engine.Duration(e.Value)
		if step > 0 {
			dir = "forward"
		} else {
			step = -step
		}
		return fmt.Sprintf("a daemon steps %s's clock %s %s: the key's idea of identity is a turbine and a clock reading", Turbine(t), dir, engine.FormatDuration(step)), true
	}
	return "", false
}

// DecisionText describes the timeout decision (without fmt: every
// reading carries one).
func (g *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	t := int(d.Msg) % Turbines
	what := "write"
	if d.Delivery > 1 {
		what = "re-send " + strconv.Itoa(int(d.Delivery)-1)
	}
	return "is the answer to " + Turbine(t) + "'s " + what + " of reading " + strconv.Itoa(int(d.Msg)) +
		" lost (timeout): " + [2]string{"no", "yes"}[d.Value&1] + " (0 no, 1 yes)"
}
