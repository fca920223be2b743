package ordering

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	KeyNone         bool // unkeyed producer instead of key=order_id
	ConsumerThreads int  // threads inside one consumer
	Repartition     int  // partitions after the mid-run increase (0: none)
	RetryToTail     bool // failed events go to the back of the line
	Versions        bool // ignore events older than the applied version (and duplicates of it)
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (f *Family) BindKnobs(p *engine.Params) { f.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "ordering",
	Doc:  "Kafka consumers apply an order's events out of order",
	Knobs: engine.KnobsOver[Knobs](
		engine.BoolChoice("key", "the producer's message key", [2]string{"order_id", "none"},
			func(k *Knobs) *bool { return &k.KeyNone }, "order_id"),
		engine.IntKnob("consumer_threads", "threads handling records inside one consumer", func(k *Knobs) *int { return &k.ConsumerThreads }, 1, 64, 1),
		engine.IntKnob("repartition", "partitions after the mid-run increase (0: no increase)", func(k *Knobs) *int { return &k.Repartition }, 0, 1024, 0),
		engine.BoolChoice("retry", "where a failed event is retried", [2]string{"in_place", "to_tail"},
			func(k *Knobs) *bool { return &k.RetryToTail }, "in_place"),
		engine.BoolChoice("versions", "ignore events older than the version already applied (stale) or of that version (duplicates)", [2]string{"false", "true"},
			func(k *Knobs) *bool { return &k.Versions }, "false"),
	),
	New: New,
}
