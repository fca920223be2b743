package sqs

import "inflight/engine"

// The queue's fault points, as indices into faultPoints: a worker crash at
// each step of its handler, and an ack lost on the way to the broker.
// Unforced, none of them changes anything (see engine.World.Fault). A
// forced crash is the trace's crash event (reason CrashFault plus the
// point), with no decision: the worker restarts after restart_after, and
// the message comes back when its lease expires. A lost ack is the trace's
// ack event saying so (AckLost): nothing is deleted.
const (
	FaultAfterReceive = iota
	FaultAfterClaim
	FaultAfterEffect
	FaultAfterStamp
	FaultBeforeAck
	FaultAckLost
)

var faultPoints = []engine.FaultPoint{
	FaultAfterReceive: {Name: "after_receive", Words: "%s crashes right after receiving it",
		Doc: "the handler's first step, before any work (and before ack=before's ack): the message stays leased until its lease expires, then is delivered again"},
	FaultAfterClaim: {Name: "after_claim", Words: "%s crashes after its claim",
		Doc: "claim handler: the claim row is written (sent_at null), the email not sent; the next delivery finds the claim and defers or, once it is older than claim_window, sends"},
	FaultAfterEffect: {Name: "after_effect", Words: "%s crashes after the email leaves, before the provider answers",
		Doc: "the provider call has started (the email has left) and the worker dies with it in flight: no stamp, no ack, so the next delivery sends again (a duplicate)"},
	FaultAfterStamp: {Name: "after_stamp", Words: "%s crashes after stamping sent_at, before its ack",
		Doc: "claim handler: sent_at is stamped, the ack not sent; the next delivery finds the stamp and acks without sending"},
	FaultBeforeAck: {Name: "before_ack", Words: "%s crashes before its ack",
		Doc: "the work is done and the worker dies just before acking: after the provider answers (a handler without a claim), or when a claim handler finds sent_at stamped; the message comes back"},
	FaultAckLost: {Name: "ack_lost", Words: "the ack from %s is lost on the way to the broker",
		Doc: "an ack after the work (not ack=before's) never reaches the broker: the worker moves on, the lease runs out and the message is delivered again"},
}

// FaultPoints lists the queue's fault points.
func (q *Family) FaultPoints() []engine.FaultPoint { return faultPoints }

// FaultActor names the worker a fault strikes.
func (q *Family) FaultActor(w *engine.World, actor int) string {
	if actor < 0 || actor >= len(q.workers) {
		return "the worker"
	}
	return "worker " + q.workers[actor].Name
}
