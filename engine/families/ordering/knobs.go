package ordering

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "ordering",
	Doc:  "Kafka consumers apply an order's events out of order",
	Knobs: []engine.KnobDefault{
		engine.Choice("key", "order_id"),
		engine.Int("consumer_threads", 1),
		engine.Int("repartition", 0),
		engine.Choice("retry", "in_place"),
		engine.Choice("versions", "false"),
	},
	New: New,
}
