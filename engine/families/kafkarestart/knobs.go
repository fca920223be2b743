package kafkarestart

import "inflight/engine"

// Knobs are the family's knobs.
type Knobs struct {
	TransactionalID string // empty for none
	Batch           int    // records in the re-sent batch
	EmailCrash      bool   // the consumer crashes before its offset commit
}

// KnobsOf is the family's knobs in p, to read.
func KnobsOf(p *engine.Params) *Knobs { return engine.KnobsOf[Knobs](p) }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (f *Family) BindKnobs(p *engine.Params) { f.k = KnobsOf(p) }

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "kafka-restart",
	Doc:  "a restarted Kafka producer sends its batch again; the consumer emails twice",
	Knobs: engine.KnobsOver[Knobs](
		engine.TextKnob("transactional_id", "the producer's transactional.id (empty: none)", func(k *Knobs) *string { return &k.TransactionalID }, ""),
		engine.IntKnob("batch", "records in the batch the restarted producer sends again", func(k *Knobs) *int { return &k.Batch }, 1, 1_000_000, 100),
		engine.BoolChoice("email_crash", "the consumer crashes after its email and before committing its offset; with no static membership its restart is a new member, which gets the partitions only when the coordinator drops the dead one (session.timeout.ms, 45 s)", [2]string{"false", "true"},
			func(k *Knobs) *bool { return &k.EmailCrash }, "false"),
	),
	New: New,
}
