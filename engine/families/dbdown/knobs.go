package dbdown

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	Breaker bool // a circuit breaker pauses consumption
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (f *Family) BindKnobs(p *engine.Params) { f.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "db-down",
	Doc:  "a consumer keeps taking messages while its database is down",
	Knobs: engine.KnobsOver[Knobs](
		engine.BoolChoice("breaker", "a circuit breaker pauses consumption while the database is down", [2]string{"false", "true"},
			func(k *Knobs) *bool { return &k.Breaker }, "false"),
	),
	New: New,
}
