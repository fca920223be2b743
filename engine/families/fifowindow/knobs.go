package fifowindow

import "inflight/engine"

// Descriptor is the family as the incidents registry runs it.
var Descriptor = engine.Descriptor{
	Name: "fifo-window",
	Doc:  "an SQS FIFO producer retries past the broker's deduplication interval",
	Knobs: []engine.KnobDefault{
		engine.Dur("dedup_window", 5*engine.Minute),    // SQS FIFO's fixed interval
		engine.Dur("retry_deadline", 10*engine.Minute), // the producer's own give-up point
	},
	New: New,
}
