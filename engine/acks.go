package engine

// Crash reasons, as EvCrash's Aux.
const (
	CrashKeyError   = 1 // the new consumer raises on an old-format message
	CrashAfterClaim = 2 // killed a moment after writing its claim
	CrashOperator   = 3 // crashed by an operator's action (a fork's --do crash=W)
	// CrashFault and above: a fault a fork forced, CrashFault plus the
	// index of the family's fault point (FaultPoints)
	CrashFault = 16
)

// Ack variants, as EvAck's Aux.
const (
	AckNormal      = 0
	AckLateDeleted = 1 // a late ack accepted: deletes a message another worker may hold
	AckAlreadySent = 2 // the claim handler found sent_at stamped
	AckBeforeWork  = 3 // ack=before
	AckLateNoop    = 4 // a late ack accepted for a message already gone
	// AckGoneNoop: an ack on a current receipt for a message another
	// worker's late ack already deleted. SQS's DeleteMessage succeeds for
	// a message that is no longer there and deletes nothing; the event's
	// Value is the ack the handler meant (AckNormal, AckAlreadySent or
	// AckBeforeWork).
	AckGoneNoop = 5
	// AckLost: a forced fault, the ack lost on the way to the broker. The
	// handler believes it acked; the broker deletes nothing and the lease
	// runs on. Value is the ack the handler meant.
	AckLost = 6
)

// NoopAck reports whether an ack event with this Aux deleted nothing.
func NoopAck(aux int64) bool { return aux == AckLateNoop || aux == AckGoneNoop || aux == AckLost }
