package dbdown

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "db-down",
	Doc:  "a consumer keeps taking messages while its database is down",
	Knobs: []engine.KnobDefault{
		engine.Choice("breaker", "false"),
	},
	New: New,
}

// Defaults sets the incident's knobs on p, before the file's params.
func Defaults(p *engine.Params) {
	if err := Descriptor.SetDefaults(p); err != nil {
		panic(err) // checked by the registry's test
	}
}
