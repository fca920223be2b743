package cashback

import (
	"fmt"
	"strconv"

	"inflight/engine"
)

// Rupees formats an amount the Indian way: ₹5,05,500.
func Rupees(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	if len(s) > 3 {
		head, tail := s[:len(s)-3], s[len(s)-3:]
		out := ""
		for len(head) > 2 {
			out = "," + head[len(head)-2:] + out
			head = head[:len(head)-2]
		}
		s = head + out + "," + tail
	}
	if neg {
		return "−₹" + s
	}
	return "₹" + s
}

func ev(k int32) string { return fmt.Sprintf("event %d", k) }

// KindName names the family's event kinds for the trace.
func (c *Family) KindName(k engine.Kind) string {
	if i := int(k - engine.FamilyKind); k >= engine.FamilyKind && i < len(kindNames) {
		return kindNames[i]
	}
	return "unknown"
}

// Caption tells each event in the lesson's words.
func (c *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	k := e.Msg
	if e.Worker == byOperator {
		return c.captionOperator(w, e), true
	}
	switch e.Kind {
	case engine.EvPublish:
		return fmt.Sprintf("XADD: %s, “credit ₹100 cashback to user u1”, written to the stream", ev(k)), true
	case engine.EvDeliver:
		if e.Value == 1 {
			return fmt.Sprintf("XREADGROUP … 0 re-reads %s from consumer-1's own pending list (delivery count %d): delivered but unacknowledged", ev(k), e.Delivery), true
		}
		return fmt.Sprintf("XREADGROUP … > hands %s to consumer-1: it enters the pending list, delivery count 1", ev(k)), true
	case engine.EvEffect:
		s := fmt.Sprintf("UPDATE wallet SET balance = balance + 100 for %s, committed: u1 has %s", ev(k), Rupees(e.Value))
		if c.k.Dedupe == DedupeSame {
			s = fmt.Sprintf("INSERT INTO processed(%s) and the ₹100 credit commit together: u1 has %s", ev(k), Rupees(e.Value))
		}
		if e.Aux > 1 {
			s += fmt.Sprintf(" — credit %d for the same event: ₹100 credited for nothing", e.Aux)
		}
		return s, true
	case KindSkip:
		if e.Aux == skipSeparateStore {
			s := fmt.Sprintf("%s is already in the processed set in Redis: skip the credit, but still ack", ev(k))
			if m, ok := w.Msg(k); ok && m.Effects == 0 {
				s += " — yet the wallet never got it: ₹100 lost"
			}
			return s, true
		}
		return fmt.Sprintf("INSERT INTO processed(%s) raises IntegrityError: already processed — rollback, skip the credit, but still ack", ev(k)), true
	case KindMark:
		return fmt.Sprintf("SADD processed %s in Redis: the dedupe record, written apart from the wallet", ev(k)), true
	case engine.EvCrash:
		switch e.Aux {
		case CrashBetweenWrites:
			return fmt.Sprintf("consumer-1 crashes between the two writes: %s is recorded “processed” in Redis, the wallet update never committed; restart at %s", ev(k), engine.Time(e.Value).Short()), true
		case CrashSkippedNoXAck:
			return fmt.Sprintf("consumer-1 crashes before XACK of %s, which it skipped: nothing to repeat; restart at %s", ev(k), engine.Time(e.Value).Short()), true
		}
		return fmt.Sprintf("consumer-1 “crashes” after committing the wallet update but before XACK: %s stays pending; restart at %s", ev(k), engine.Time(e.Value).Short()), true
	case engine.EvRestart:
		return fmt.Sprintf("consumer-1 restarts and, as it should, first re-reads its own pending (delivered but unacknowledged) messages: %d pending", e.Value), true
	case engine.EvAck:
		if e.Aux&ackNothingPending != 0 {
			return fmt.Sprintf("XACK %s returns 0: an operator had claimed it from consumer-1 and acked it already", ev(k)), true
		}
		if e.Aux&ackOfClaimed != 0 {
			return fmt.Sprintf("XACK %s: off the pending list — an operator had claimed it, but an XACK is the group's, whoever holds the entry", ev(k)), true
		}
		if e.Aux == ackAfterSkip {
			return fmt.Sprintf("XACK %s: off the pending list, credited once", ev(k)), true
		}
		return fmt.Sprintf("XACK %s: off the pending list", ev(k)), true
	case KindBacklogDone:
		return "XREADGROUP … 0 comes back empty: no pending entries left, back to new ones (>)", true
	case engine.EvDLQ:
		what := "its ₹100 was never credited: a delivery count counts reads, the pending list's re-reads included, not failures"
		if e.Value > 0 {
			what = fmt.Sprintf("its ₹100 was credited %d× already", e.Value)
		}
		return fmt.Sprintf("%s has been delivered more than max_receives (%d) times: consumer-1 XADDs it to %s and XACKs it instead of handling it again — %s", ev(k), c.k.MaxReceives, DeadStream, what), true
	case KindCaughtUp:
		return fmt.Sprintf("XREADGROUP … > has nothing new: all %d events consumed", e.Value), true
	}
	return "", false
}

// DecisionText words the handler time, the family's own decision (a
// crash is a standard kind).
func (c *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	if d.Kind == DecHandle {
		return fmt.Sprintf("how long consumer-1's handler takes on %s, delivery %d: %d ms (observed %d–%d ms)", ev(d.Msg), d.Delivery, d.Value, d.Lo, d.Hi)
	}
	return fmt.Sprintf("does consumer-1 crash on %s, delivery %d: %v", ev(d.Msg), d.Delivery, d.Value == 1)
}

// captionOperator tells the operator's replay: the claim, then each
// claimed entry's delivery, handling and XACK.
func (c *Family) captionOperator(w *engine.World, e *engine.Event) string {
	k := e.Msg
	switch e.Kind {
	case KindReplay:
		return captionReplay(e)
	case engine.EvDeliver:
		return fmt.Sprintf("XAUTOCLAIM hands %s to the operator (delivery count %d): delivered before, never acknowledged", ev(k), e.Delivery)
	case engine.EvEffect:
		s := fmt.Sprintf("the replay credits %s, committed: u1 has %s", ev(k), Rupees(e.Value))
		if e.Aux > 1 {
			s += fmt.Sprintf(" — credit %d for the same event: ₹100 credited for nothing, the handler is not idempotent", e.Aux)
		}
		return s
	case KindSkip:
		where := "INSERT INTO processed raises IntegrityError"
		if e.Aux == skipSeparateStore {
			where = "the processed set in Redis has it"
		}
		s := fmt.Sprintf("the replay finds %s already processed (%s): it skips the credit and acks", ev(k), where)
		if m, ok := w.Msg(k); ok && m.Effects == 0 {
			s += " — yet the wallet never got it: ₹100 lost"
		}
		return s
	case KindMark:
		return fmt.Sprintf("the replay SADDs processed %s in Redis, before its wallet write", ev(k))
	case engine.EvAck:
		if e.Aux&ackNothingPending != 0 {
			return fmt.Sprintf("the replay's XACK %s returns 0: consumer-1, which still held it, acked it first", ev(k))
		}
		return fmt.Sprintf("the replay XACKs %s: off the pending list", ev(k))
	}
	return "the operator acts"
}
