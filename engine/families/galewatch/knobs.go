package galewatch

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "galewatch",
	Doc:  "turbines re-send readings whose answer was lost, with a clock that steps back",
	Knobs: []engine.KnobDefault{
		engine.Prob("write_timeout_p", 0.001),
		engine.Dur("clock_step", -6*engine.Second),
		engine.Dur("retry_deadline", DefaultRetryDeadline),
	},
	New: New,
}

// Defaults sets the lesson's knobs on p.
func Defaults(p *engine.Params) {
	if err := Descriptor.SetDefaults(p); err != nil {
		panic(err) // checked by the registry's test
	}
}

// Knobs are the names of the knobs the family reads, in its order.
var Knobs = Descriptor.KnobNames()
