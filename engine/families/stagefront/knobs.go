package stagefront

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	CrashP            float64         // chance of a crash after commit, before the ack
	ZeroRowsFail      bool            // the consumer treats zero rows as failure
	VisibilityTimeout engine.Duration // the broker's lease on a delivered message
	MaxReceives       int             // deliveries before the broker dead-letters a message
	RestartAfter      engine.Duration // the supervisor's delay before a consumer is back
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (s *Family) BindKnobs(p *engine.Params) { s.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "stagefront",
	Doc:  "a ticket sale's seat holds; an update that matched no rows is taken for success",
	Knobs: engine.KnobsOver[Knobs](
		engine.ProbKnob("crash_p", "chance the consumer dies after its commit and before its ack", func(k *Knobs) *float64 { return &k.CrashP }, 0.001),
		engine.BoolChoice("zero_rows", "what the consumer makes of an update that matched no rows", [2]string{"success", "failure"},
			func(k *Knobs) *bool { return &k.ZeroRowsFail }, "success"),
		engine.DurKnob("visibility_timeout", "the broker's lease on a delivered message", func(k *Knobs) *engine.Duration { return &k.VisibilityTimeout }, false, 30*engine.Second),
		engine.IntKnob("max_receives", "deliveries before a message goes to the DLQ; every delivery counts, a redelivery or re-read after a crash included", func(k *Knobs) *int { return &k.MaxReceives }, 1, 1000, 3),
		engine.DurKnob("restart_after", "the supervisor's delay before a dead worker is back", func(k *Knobs) *engine.Duration { return &k.RestartAfter }, true, 2*engine.Second),
	),
	// every sale crashing is 200,000 messages through max_receives
	// deliveries each
	ExploreMax: map[string]float64{"crash_p": 0.01},
	New:        New,
}
