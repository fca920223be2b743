package kafkarestart

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "kafka-restart",
	Doc:  "a restarted Kafka producer sends its batch again; the consumer emails twice",
	Knobs: []engine.KnobDefault{
		engine.Text("transactional_id", ""),
		engine.Int("batch", 100),
		engine.Choice("email_crash", "false"),
	},
	New: New,
}
