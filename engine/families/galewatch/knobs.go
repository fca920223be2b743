package galewatch

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	WriteTimeoutP float64         // chance a write's answer is lost
	ClockStep     engine.Duration // a turbine's clock steps by this at 10:05 (may be negative)
	RetryDeadline engine.Duration // a turbine gives up re-sending after this
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (g *Family) BindKnobs(p *engine.Params) { g.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "galewatch",
	Doc:  "turbines re-send readings whose answer was lost, with a clock that steps back",
	Knobs: engine.KnobsOver[Knobs](
		engine.ProbKnob("write_timeout_p", "chance a write lands but its answer is lost", func(k *Knobs) *float64 { return &k.WriteTimeoutP }, 0.001),
		engine.SignedDurKnob("clock_step", "a daemon steps one turbine's clock by this at 10:05 (0s: never)", func(k *Knobs) *engine.Duration { return &k.ClockStep }, -6*engine.Second),
		engine.DurKnob("retry_deadline", "the sender re-sends until this long after its first send (a turbine: after taking the reading), then gives up", func(k *Knobs) *engine.Duration { return &k.RetryDeadline }, true, DefaultRetryDeadline),
	),
	New: New,
}
