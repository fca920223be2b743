package stagefront

import "inflight/engine"

// FaultAfterCommit is the consumers' one fault point, the lesson's crash
// after the seat's update commits and before the ack: the delivery's crash
// decision (crash_p), which forcing the fault forces to "crash".
const FaultAfterCommit = 0

var faultPoints = []engine.FaultPoint{
	FaultAfterCommit: {Name: "after_commit", Words: "%s crashes after its commit, before its ack",
		Doc: "the seat is sold, the ack not sent: the message comes back when its lease expires, and the redelivery's update matches zero rows"},
}

// FaultPoints lists the consumers' fault points.
func (s *Family) FaultPoints() []engine.FaultPoint { return faultPoints }

// FaultActor names the consumer a fault strikes.
func (s *Family) FaultActor(_ *engine.World, actor int) string {
	if actor < 0 {
		return "the consumer"
	}
	return "consumer " + Consumer(actor)
}
