package sqs

import "inflight/engine"

// The queue's own event kinds. They were the kernel's before the queue
// became a family, and trace hashes, JSON traces and share codes hold
// their numbers and names: so they keep them, in the numbers the kernel
// leaves free below engine.FamilyKind.
//
//	kind    Value                           Aux
//	claim   0                               0
//	defer   when it is visible again (Time) age of the claim found
//	stamp   the call's duration (ms)        0
//	renew   new lease expiry (Time)         0
//	wedge   1 if the lease is renewed       0
//	answer  the call's duration (ms)        0
//	purge   messages deleted                of them in flight
//	stop    1 stopped now, 0 once its message is done  the state it stopped from
//
// wedge's Aux says who wedged the call: 0 wedge_p, 1 an operator (wedge=W),
// 2 an operator wedging the next call of a worker not calling (Msg -1).
// Purge and stop are an operator's actions' own (64 on: no trace before
// actions holds them).
const (
	EvClaim     engine.Kind = 11                    // the handler writes a sent_at claim
	EvDefer     engine.Kind = 12                    // the handler hands the message back with a delay
	EvStamp     engine.Kind = 13                    // the handler stamps sent_at
	EvRenew     engine.Kind = 14                    // the handler extends its lease
	EvWedge     engine.Kind = 17                    // a handler is stuck; its lease is renewed forever
	EvAnswer    engine.Kind = 20                    // the provider answers a call the handler already acked
	EvPurge     engine.Kind = engine.FamilyKind     // an operator purges the queue (purge)
	EvStop      engine.Kind = engine.FamilyKind + 1 // an operator stops workers (workers=-N)
	EvScriptOff engine.Kind = engine.FamilyKind + 2 // an operator stands the repair script down (no_script)
)

var kindNames = map[engine.Kind]string{
	EvClaim: "claim", EvDefer: "defer", EvStamp: "stamp", EvRenew: "renew", EvWedge: "wedge", EvAnswer: "answer",
	EvPurge: "purge", EvStop: "stop", EvScriptOff: "script_off",
}

// KindName names the queue's own kinds for the trace.
func (q *Family) KindName(k engine.Kind) string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return k.String()
}

// claimAge is the age of the claim the handler found (defer).
func claimAge(e *engine.Event) engine.Duration { return engine.Duration(e.Aux) }

// renewing reports that the wedged handler's lease is renewed for ever
// (wedge).
func renewing(e *engine.Event) bool { return e.Value == 1 }
