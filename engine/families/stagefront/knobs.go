package stagefront

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "stagefront",
	Doc:  "a ticket sale's seat holds; an update that matched no rows is taken for success",
	Knobs: []engine.KnobDefault{
		engine.Prob("crash_p", 0.001),
		engine.Choice("zero_rows", "success"),
		engine.Dur("visibility_timeout", 30*engine.Second),
		engine.Int("max_receives", 3),
		engine.Dur("restart_after", 2*engine.Second),
	},
	New: New,
}

// Defaults sets the sale's knobs on p.
func Defaults(p *engine.Params) {
	if err := Descriptor.SetDefaults(p); err != nil {
		panic(err) // checked by the registry's test
	}
}

// Knobs are the names of the knobs the family reads, in its order.
var Knobs = Descriptor.KnobNames()
