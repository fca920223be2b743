package cashback

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	Events       int             // stream entries
	CrashP       float64         // chance of a crash after commit, before the ack
	Dedupe       int             // DedupeNone, DedupeSame or DedupeSeparate
	RestartAfter engine.Duration // the supervisor's delay before the consumer is back
	MaxReceives  int             // deliveries before an entry goes to the dead stream
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (c *Family) BindKnobs(p *engine.Params) { c.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "cashback",
	Doc:  "a Redis Streams consumer credits a wallet; a crash between its commit and its ack credits twice",
	Knobs: engine.KnobsOver[Knobs](
		engine.IntKnob("events", "stream entries the producer writes", func(k *Knobs) *int { return &k.Events }, 0, 10_000_000, 5000),
		engine.ProbKnob("crash_p", "chance the consumer dies after its commit and before its ack", func(k *Knobs) *float64 { return &k.CrashP }, 0.01),
		engine.ChoiceKnob("dedupe", "a processed-ids table: none, in the same transaction, or in a separate store", []string{"false", "true", "separate"},
			func(k *Knobs) int { return k.Dedupe }, func(k *Knobs, i int) { k.Dedupe = i }, "false"),
		engine.DurKnob("restart_after", "the supervisor's delay before a dead worker is back", func(k *Knobs) *engine.Duration { return &k.RestartAfter }, true, engine.Second),
		engine.IntKnob("max_receives", "deliveries before a message goes to the DLQ; every delivery counts, a redelivery or re-read after a crash included", func(k *Knobs) *int { return &k.MaxReceives }, 1, 1000, DefaultMaxReceives),
	),
	New:     New,
	Pins:    pinKinds,
	Publish: true,
}
