package engine

// Kind is what an event is. The names are the trace's `kind` values.
type Kind uint8

// The kernel's event kinds. The numbers between them are not the
// kernel's: a family may declare its own kinds there as well as from
// FamilyKind on. Kinds a family took over from the kernel keep the numbers
// they had, which trace hashes and codes hold (Kernel tells them apart).
const (
	EvPublish      Kind = 1  // a message reaches the system
	EvDeliver      Kind = 2  // the system hands a message to a worker (a lease begins)
	EvEffect       Kind = 3  // the handler acts on the world: an email leaves
	EvAck          Kind = 4  // the system lets the message go on the worker's ack
	EvAckRefused   Kind = 5  // an ack quoting an expired lease is refused
	EvLeaseExpired Kind = 6  // a lease ran out: the message is visible again
	EvDLQ          Kind = 7  // the message moves to the dead letter queue
	EvCrash        Kind = 8  // a worker process dies
	EvRestart      Kind = 9  // the supervisor brings a worker back
	EvAlert        Kind = 10 // an alert fires (or would have, for a missing one)
	EvRedrive      Kind = 16 // an operator moves the dead letters back (Truth.Redrive)
	EvKnob         Kind = 18 // a knob changed (a fork's changes)
	EvStart        Kind = 19 // the consumers begin polling
	numKinds            = 20
)

var kindNames = [numKinds]string{
	EvPublish: "publish", EvDeliver: "deliver", EvEffect: "effect", EvAck: "ack",
	EvAckRefused: "ack_refused", EvLeaseExpired: "lease_expired", EvDLQ: "dlq",
	EvCrash: "crash", EvRestart: "restart", EvAlert: "alert",
	EvRedrive: "redrive", EvKnob: "knob", EvStart: "start",
}

// Kernel reports whether k is one of the kernel's kinds; any other is the
// family's, named and told by it.
func (k Kind) Kernel() bool { return k < numKinds && kindNames[k] != "" }

// String names a kernel kind; a family's is "unknown" here (World.KindName
// names it).
func (k Kind) String() string {
	if k.Kernel() {
		return kindNames[k]
	}
	return "unknown"
}

// Event is one line of the trace. Pos is its index in its branch's trace;
// the world "at Pos p" is the state after p events.
//
// Value and Aux are two kind-specific operands; the fingerprint covers
// both, and the typed readings below (Until, Latency, AckHow…) name them.
// For the kernel's kinds:
//
//	kind           Value                           Aux
//	publish        message's number in its source  0
//	start          workers                         0
//	deliver        lease expiry (Time)             0
//	effect         the call's latency (ms)         copies of the effect so far
//	ack            0, or the ack meant (AckGoneNoop) an Ack* variant
//	ack_refused    the expired lease's end (Time)  0
//	lease_expired  0                               1 if it was deferred
//	dlq            effects the message had         0
//	crash          when it restarts (Time)         a Crash* reason
//	alert          index in Alerts or WouldHave    1 for WouldHave
//	redrive        messages redriven               operator index
//	knob           settings applied                0
//
// A family's kinds give them their own meanings, told by its Caption.
type Event struct {
	Pos      int64
	T        Time
	Kind     Kind
	Msg      int32 // -1: none
	Worker   int16 // -1: the broker or an operator
	Delivery uint16
	Value    int64 // kind-specific, see the table above
	Aux      int64 // kind-specific, see the table above
	Dec      int64 // the decision made here, or -1
}

// The typed readings of Value and Aux for the kernel's kinds: captions and
// screens read these rather than the raw operands. Each says the kinds it
// is meant for; on another kind it returns that kind's operand unread.

// Until is when a lease ends (deliver), or a time a family's kind carries.
func (e *Event) Until() Time { return Time(e.Value) }

// QuotedLease is the end of the expired lease a refused ack quoted
// (ack_refused).
func (e *Event) QuotedLease() Time { return Time(e.Value) }

// RestartAt is when a crashed worker comes back (crash).
func (e *Event) RestartAt() Time { return Time(e.Value) }

// CrashReason is why the worker died, a Crash* constant (crash).
func (e *Event) CrashReason() int64 { return e.Aux }

// Latency is how long the call the effect started takes (effect), or a
// duration a family's kind carries.
func (e *Event) Latency() Duration { return Duration(e.Value) }

// Copy is how many effects the message has had so far, this one included
// (effect): 2 and up is a duplicate.
func (e *Event) Copy() int64 { return e.Aux }

// AckHow is the ack's variant, an Ack* constant (ack).
func (e *Event) AckHow() int64 { return e.Aux }

// AckMeant is the ack the handler meant when AckHow is AckGoneNoop (ack).
func (e *Event) AckMeant() int64 { return e.Value }

// WasDeferred reports that the expiring lease was a handler's delay, not
// a delivery's (lease_expired).
func (e *Event) WasDeferred() bool { return e.Aux == 1 }

// EffectsBefore is how many effects a dead-lettered message had (dlq).
func (e *Event) EffectsBefore() int64 { return e.Value }

// Count is how many: workers started (start), messages redriven (redrive),
// settings applied (knob).
func (e *Event) Count() int64 { return e.Value }

// Alert is the alert's index in the incident's Alerts, or in WouldHave
// when Would (alert).
func (e *Event) Alert() int { return int(e.Value) }

// Would reports an alert the lesson says was missing (alert).
func (e *Event) Would() bool { return e.Aux == 1 }

// Operator is the index of the operator who acted (redrive).
func (e *Event) Operator() int { return int(e.Aux) }

// Number is the message's number in its source (publish).
func (e *Event) Number() int64 { return e.Value }

// DecisionKind names what was decided.
type DecisionKind uint8

// The decision kinds.
const (
	DecLatency DecisionKind = iota + 1 // how long the provider takes to answer
	DecWorker                          // which idle worker takes a message
	DecLateAck                         // the broker accepts or refuses a late ack
	DecBranch                          // the claim handler's branch
	DecWedge                           // whether a provider call never returns
	DecCrash                           // whether a worker dies at a given point
)

var decisionNames = []string{"", "latency", "worker", "late_ack", "branch", "wedge", "crash"}

func (k DecisionKind) String() string {
	if int(k) < len(decisionNames) && k > 0 {
		return decisionNames[k]
	}
	return "unknown"
}

// DecisionKindByName finds a decision kind from its name.
func DecisionKindByName(s string) (DecisionKind, bool) {
	for i, n := range decisionNames {
		if n == s && i > 0 {
			return DecisionKind(i), true
		}
	}
	return 0, false
}

// The claim handler's branches, as DecBranch values.
const (
	BranchSend   = 0 // no claim or a stale one: claim and send
	BranchDefer  = 1 // a young claim: hand the message back
	BranchAckOld = 2 // sent_at stamped: ack without sending
)

// Decision is a point where the run could have gone another way, with what
// was chosen and what else it could have been: a range [Lo, Hi] or a set
// of worker indices (Mask).
type Decision struct {
	Index    int64
	Pos      int64 // the event that carries it
	T        Time
	Kind     DecisionKind
	Msg      int32
	Worker   int16
	Delivery uint16
	Value    int64
	Lo, Hi   int64
	Mask     uint64 // DecWorker: the idle workers that could have taken it
	Forced   bool   // a pin or a fork's override chose Value
}

// DecisionOverride forces the outcome of one decision in a fork.
type DecisionOverride struct {
	Index int64 // the decision's index in the branch
	Value int64
}
