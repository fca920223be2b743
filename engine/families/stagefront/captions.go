package stagefront

import (
	"fmt"
	"strconv"

	"inflight/engine"
)

// Consumer names consumer i: c01…c40.
func Consumer(i int) string {
	if i < 0 || i > 98 {
		return fmt.Sprintf("c%02d", i+1)
	}
	return string([]byte{'c', byte('0' + (i+1)/10), byte('0' + (i+1)%10)})
}

func seat(id int32) string { return "hold " + strconv.Itoa(int(id)) }

// KindName names the family's event kinds for the trace.
func (s *Family) KindName(k engine.Kind) string {
	if i := int(k - engine.FamilyKind); k >= engine.FamilyKind && i < len(kindNames) {
		return kindNames[i]
	}
	return "unknown"
}

// Caption tells each event in the lesson's words.
func (s *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	who := Consumer(int(e.Worker))
	switch e.Kind {
	case engine.EvPublish:
		return "a press at " + engine.Time(e.T).Clock() + " holds a seat: “sell " + seat(e.Msg) + "” queued", true
	case engine.EvDeliver:
		if e.Delivery > 1 {
			return fmt.Sprintf("%s delivered again, to %s (delivery %d): its last lease ran out with no ack", seat(e.Msg), who, e.Delivery), true
		}
		return seat(e.Msg) + " delivered to " + who + " (lease until " + engine.Time(engine.Time(e.Value)).Clock() + ")", true
	case engine.EvEffect:
		return who + ": update holds set status='sold' where id=" + strconv.Itoa(int(e.Msg)) + " and status='held' — 1 row: the seat is sold", true
	case KindZeroRows:
		if e.Aux == 1 {
			return fmt.Sprintf("%s runs the same statement for %s, matches zero rows, and takes it for a failure: no ack — a false failure, the seat was sold", who, seat(e.Msg)), true
		}
		return fmt.Sprintf("%s runs the same statement for %s, matches zero rows, and treats zero rows as success, because that is what zero rows means here", who, seat(e.Msg)), true
	case engine.EvAck:
		return who + " acks " + seat(e.Msg) + ": deleted", true
	case engine.EvAckRefused:
		return fmt.Sprintf("%s acks %s, refused: its lease expired at %s", who, seat(e.Msg), engine.Time(e.Value).Short()), true
	case engine.EvCrash:
		return fmt.Sprintf("%s crashes after its commit and before its ack: %s will come back when its lease runs out; restart at %s", who, seat(e.Msg), engine.Time(e.Value).Short()), true
	case engine.EvRestart:
		return fmt.Sprintf("%s is back", who), true
	case engine.EvLeaseExpired:
		return fmt.Sprintf("the lease on %s (delivery %d) ran out with no ack: visible again", seat(e.Msg), e.Delivery), true
	case engine.EvDLQ:
		if !s.h.at(e.Msg).sold {
			// the lease ran out as the update was about to commit
			return fmt.Sprintf("%s moved to the dead letter queue after its last delivery — while a consumer still runs its update, which will sell the seat all the same", seat(e.Msg)), true
		}
		return fmt.Sprintf("%s moved to the dead letter queue after its last delivery — its seat was sold exactly once", seat(e.Msg)), true
	}
	return "", false
}

// DecisionText: the family decides only crashes, a standard kind.
func (s *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	return "does " + Consumer(int(d.Worker)) + " crash after committing " + seat(d.Msg) + ": " + [2]string{"no", "yes"}[d.Value&1]
}
