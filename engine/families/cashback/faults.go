package cashback

import "inflight/engine"

// The consumer's fault points: the lesson's crash between the wallet
// COMMIT and XACK, and, with the dedupe record in a separate store, the
// crash between the two writes. Each is the delivery's one crash decision
// (crash_p): forcing the fault forces that decision to "crash", so a
// forced run has the decisions, and indices, an unforced one has.
const (
	FaultAfterCommit = iota
	FaultBetweenWrites
)

var faultPoints = []engine.FaultPoint{
	FaultAfterCommit: {Name: "after_commit", Words: "%s crashes after the wallet COMMIT, before XACK",
		Doc: "after the handler's writes (or a skip), before XACK: the entry stays pending and is re-read after the restart; without dedupe it is credited again"},
	FaultBetweenWrites: {Name: "between_writes", Words: "%s crashes between SADD processed and the wallet COMMIT",
		Doc: "dedupe=separate only: the processed record is in Redis, the credit never committed; the redelivery skips it and the credit is lost"},
}

// FaultPoints lists the consumer's fault points.
func (c *Family) FaultPoints() []engine.FaultPoint { return faultPoints }

// FaultActor: one consumer takes every entry.
func (c *Family) FaultActor(*engine.World, int) string { return "consumer-1" }
