package cashback

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "cashback",
	Doc:  "a Redis Streams consumer credits a wallet; a crash between its commit and its ack credits twice",
	Knobs: []engine.KnobDefault{
		engine.Int("events", 5000),
		engine.Prob("crash_p", 0.01),
		engine.Choice("dedupe", "false"), // DedupeNone
		engine.Dur("restart_after", engine.Second),
		engine.Int("max_receives", DefaultMaxReceives),
	},
	New: New,
}

// Defaults sets the lesson's knobs on p: 5,000 events, a 1% crash, no
// dedupe, a one-second restart.
func Defaults(p *engine.Params) {
	if err := Descriptor.SetDefaults(p); err != nil {
		panic(err) // checked by the registry's test
	}
}

// Knobs are the names of the knobs the family reads, in its order.
var Knobs = Descriptor.KnobNames()
