package fifowindow

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	DedupWindow   engine.Duration // the broker's deduplication interval
	RetryDeadline engine.Duration // the producer gives up retrying after this
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (f *Family) BindKnobs(p *engine.Params) { f.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "fifo-window",
	Doc:  "an SQS FIFO producer retries past the broker's deduplication interval",
	Knobs: engine.KnobsOver[Knobs](
		// SQS FIFO's fixed interval; a fork's change follows "a window is an
		// admission" (Family.KnobsChanged)
		engine.DurKnob("dedup_window", "the broker's deduplication interval, for ids admitted from the change on: an id already remembered keeps the expiry it was admitted with, a forgotten one stays forgotten", func(k *Knobs) *engine.Duration { return &k.DedupWindow }, true, 5*engine.Minute),
		// the producer's own give-up point
		engine.DurKnob("retry_deadline", "the sender re-sends until this long after its first send (a turbine: after taking the reading), then gives up", func(k *Knobs) *engine.Duration { return &k.RetryDeadline }, true, 10*engine.Minute),
	),
	New: New,
}
