package galewatch

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// The fleet's operator action (engine.FamilyActions): the lesson's clock
// step, a wall-clock jump on the stepped turbine's host (T0417), at a
// moment the user picks — on top of the daemon's step at 10:05 and of any
// earlier jump. Its stamps shift at once; readings already queued for a
// re-send keep the stamps they were taken with. A step back by a whole
// number of periods (2 s) reuses stamps already stored, and the key throws
// genuine readings away; a step forward, or back by a part of a period,
// leaves a gap in the stamps and loses nothing.
var actionSpecs = []engine.ActionSpec{
	{Name: "step_clock", Arg: "+D or -D", NeedsArg: true, Repeat: engine.RepeatAdds,
		Doc: "step " + Turbine(int(Stepped)) + "'s clock now by D (step_clock=-6s back, step_clock=+6s forward; 1ms to 1h either way): its next readings carry the stepped stamps, and a step back reuses stamps the key already holds"},
}

// maxClockStep bounds a jump either way: the incident runs ten minutes.
const maxClockStep = engine.Hour

// ActionSpecs lists the fleet's operator action.
func (g *Family) ActionSpecs() []engine.ActionSpec { return actionSpecs }

// CheckAction refuses a step that is not a signed duration in bounds.
func (g *Family) CheckAction(w *engine.World, a engine.Action) error {
	_, err := clockStepOf(a.Arg)
	return err
}

func clockStepOf(arg string) (engine.Duration, error) {
	d, err := engine.ParseDuration(strings.TrimPrefix(arg, "+"), true)
	if err != nil || strings.HasPrefix(arg, "+-") {
		return 0, fmt.Errorf("action \"step_clock=%s\": want a signed duration, like -6s (back) or +6s (forward)", arg)
	}
	if d == 0 || d > maxClockStep || d < -maxClockStep {
		return 0, fmt.Errorf("action \"step_clock=%s\": a step is 1ms to %s, back (-) or forward (+)", arg, engine.SpanText(maxClockStep))
	}
	return d, nil
}

// stepWords are "back 6s", "forward 1m".
func stepWords(d engine.Duration) string {
	if d < 0 {
		return "back " + engine.SpanText(-d)
	}
	return "forward " + engine.SpanText(d)
}

// ActionWords tell what a checked step does, for a fork's name.
func (g *Family) ActionWords(w *engine.World, a engine.Action) string {
	d, _ := clockStepOf(a.Arg)
	return fmt.Sprintf("step %s's clock %s", Turbine(int(Stepped)), stepWords(d))
}

// Act steps the clock now: one clock_step event, its delivery 1 (the
// daemon's is 0).
func (g *Family) Act(w *engine.World, a engine.Action) {
	d, _ := clockStepOf(a.Arg)
	g.skew += d
	g.stepped = true
	w.Emit(KindClockStep, -1, -1, 1, int64(d), int64(Stepped))
}

// actionCaption tells an operator's step, and what it does to the
// turbine's next reading: its stamp stored already (a genuine reading
// thrown away) or not.
func (g *Family) actionCaption(w *engine.World, e *engine.Event) string {
	t := int(e.Aux)
	start := w.Spec().Start
	var what string
	k := int32(0)
	if w.Now > start {
		k = int32((w.Now - start - 1) / Period)
	}
	r := k*Turbines + int32(t)
	for int(r) < Readings && readingAt(start, r) < w.Now {
		r += Turbines
	}
	switch next := readingAt(start, r) + g.skew; {
	case int(r) >= Readings:
		what = "it takes no more readings"
	case g.has(t, next):
		what = fmt.Sprintf("its next reading will be stamped %s, a stamp the key already holds: genuine readings will be thrown away as duplicates", next.Clock())
	case engine.Duration(e.Value) > 0:
		what = fmt.Sprintf("forward, its stamps leave a gap, and the next, %s, is not one the key holds", next.Clock())
	default:
		what = fmt.Sprintf("its next stamp, %s, is not one the key holds: nothing collides", next.Clock())
	}
	return fmt.Sprintf("%s's host clock jumps %s now (it reads %s against true time): the key's idea of identity is a turbine and a clock reading — %s",
		Turbine(t), stepWords(engine.Duration(e.Value)), skewText(g.skew), what)
}
