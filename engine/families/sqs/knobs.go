// Package sqs is the SQS-like queue of the Marlow Books incidents
// (thursday, thursday-fixed, christmas-friday): a standard queue or one
// strictly ordered FIFO group, leases, a dead letter queue, single-threaded
// workers on boxes and a provider behind them.
//
// The package holds the queue's descriptor (the knobs it reads, typed,
// with their defaults), its model (model.go), captions and panes (Panes,
// drawn with the explorer's cursor).
package sqs

import "inflight/engine"

// Descriptor is the queue as the incidents package builds it, for every
// incident file without a `family:` key.
var Descriptor = engine.Descriptor{
	Name: "sqs",
	Doc:  "an SQS-like queue: leases, redelivery, a dead letter queue, workers calling a provider",
	Knobs: []engine.KnobDefault{
		engine.Given("orders", engine.KnobInt), // the count of the source named orders
		engine.Choice("mode", "standard"),
		engine.Dur("visibility_timeout", 30*engine.Second),
		engine.Int("max_receives", 1000),
		engine.Choice("late_ack", "refuse"),
		engine.Choice("ack", "after"),
		engine.Choice("claim", "false"),
		engine.Dur("claim_window", 2*engine.Minute),
		engine.Dur("crash_after_claim", 0),
		engine.Dur("heartbeat", 0),
		engine.Prob("wedge_p", 0),
		engine.Dur("latency_min", 0),
		engine.Dur("latency_max", 0),
		engine.Dur("restart_after", 0),
	},
	Actions: engine.QueueActions,
	New:     New,
}
