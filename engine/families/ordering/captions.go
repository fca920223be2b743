package ordering

import (
	"fmt"

	"inflight/engine"
)

// KindName names the family's event kinds for the trace.
func (f *Family) KindName(k engine.Kind) string {
	switch k {
	case EvPoll:
		return "poll"
	case EvFail:
		return "fail"
	case EvStale:
		return "stale_ignored"
	case EvRepartition:
		return "repartition"
	case EvRebalance:
		return "rebalance"
	case EvRetryTail:
		return "retry_to_tail"
	case EvDuplicate:
		return "duplicate_ignored"
	case EvMembers:
		return "consumers"
	case EvLeave:
		return "leave"
	}
	return "unknown"
}

func (f *Family) ev(id int32) string {
	if id < 0 || int(id) >= len(f.MsgOrder) {
		return "?"
	}
	v := f.MsgVer[id]
	return fmt.Sprintf("order %d %s (v%d)", f.MsgOrder[id], statuses[v], v)
}

// Caption tells each event in the lesson's words.
func (f *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	switch e.Kind {
	case engine.EvPublish:
		key := fmt.Sprintf("key order-%d", f.MsgOrder[e.Msg])
		if f.k.KeyNone {
			key = "no key (the sticky partitioner chooses)"
		}
		return fmt.Sprintf("%s published, %s → %s-%d offset %d", f.ev(e.Msg), key, Topic, e.Value, e.Aux), true
	case EvPoll:
		if e.Value == 1 {
			return fmt.Sprintf("%s polls: 1 record", memberID(int(e.Aux))), true
		}
		return fmt.Sprintf("%s polls: %d records", memberID(int(e.Aux)), e.Value), true
	case engine.EvDeliver:
		off, c, th := unpackDeliver(e.Aux)
		who := memberID(c)
		if f.k.ConsumerThreads > 1 || th > 0 {
			who = fmt.Sprintf("%s thread %d", who, th+1)
		}
		s := fmt.Sprintf("%s handles %s from %s-%d offset %d", who, f.ev(e.Msg), Topic, e.Value, off)
		if e.Delivery > 1 {
			s += fmt.Sprintf(" (attempt %d)", e.Delivery)
		}
		return s, true
	case engine.EvEffect:
		o := f.MsgOrder[e.Msg]
		prev := statuses[e.Aux>>1]
		if e.Aux&1 == 1 {
			s := fmt.Sprintf("OUT OF ORDER: %s applied after a later event of order %d — the row goes from %s back to %s", f.ev(e.Msg), o, prev, statuses[f.MsgVer[e.Msg]])
			if e.Aux>>1 == 3 {
				s += "; unless shipped is read again, the order ends wrong (wrong_final: its final status is not its last event's)"
			}
			return s, true
		}
		return fmt.Sprintf("%s applied: order %d's row %s → %s", f.ev(e.Msg), o, prev, statuses[f.MsgVer[e.Msg]]), true
	case EvStale:
		return fmt.Sprintf("%s arrives late and is ignored: \"I'm already at status %s, version %d; ignore this %s event with version %d\"",
			f.ev(e.Msg), statuses[e.Aux], e.Aux, statuses[f.MsgVer[e.Msg]], f.MsgVer[e.Msg]), true
	case EvDuplicate:
		return fmt.Sprintf("%s is a duplicate and is ignored: the row is already at status %s, version %d, this event's own version — nothing older, nothing to apply",
			f.ev(e.Msg), statuses[e.Aux], e.Aux), true
	case EvFail:
		if e.Aux&1 == 1 {
			return fmt.Sprintf("the database call for %s fails; the consumer moves on, and the event goes back at the end of the queue at %s", f.ev(e.Msg), engine.Time(e.Aux>>1).Short()), true
		}
		if f.k.ConsumerThreads > 1 {
			return fmt.Sprintf("the database call for %s fails; its thread retries at %s while the other threads carry on", f.ev(e.Msg), engine.Time(e.Aux>>1).Short()), true
		}
		return fmt.Sprintf("the database call for %s fails; the consumer retries it in place at %s, holding the partition", f.ev(e.Msg), engine.Time(e.Aux>>1).Short()), true
	case EvRetryTail:
		return fmt.Sprintf("the database call for %s fails; it is put back at the end of the queue: %s-%d offset %d, now behind newer events for the same order",
			f.ev(e.Msg), Topic, e.Value, e.Aux), true
	case EvMembers, EvLeave:
		return captionMembers(e), true
	case EvRepartition:
		if e.Aux <= e.Value {
			return captionRefused(e), true
		}
		return fmt.Sprintf("an operator raises %s from %d to %d partitions: hash(key) %% partitions changes, so new events for an order may land in a different partition than old ones", Topic, e.Value, e.Aux), true
	case EvRebalance:
		return fmt.Sprintf("the group notices %d partitions and rebalances (generation %d): every consumer resumes from the committed offsets", e.Value, e.Aux), true
	}
	return "", false
}

// DecisionText words the family's three decisions: how long the handler
// takes, whether its database call fails, and the sticky partitioner's
// next partition.
func (f *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	switch d.Kind {
	case DecHandle:
		return fmt.Sprintf("how long the handler takes on %s, attempt %d: %d ms (%d–%d ms)", f.ev(d.Msg), d.Delivery, d.Value, d.Lo, d.Hi)
	case DecFail:
		return fmt.Sprintf("does the database call for %s fail, attempt %d: %s", f.ev(d.Msg), d.Delivery, [2]string{"no", "yes"}[d.Value&1])
	case DecPartition:
		return fmt.Sprintf("the sticky partitioner's next partition, from %s: %d (0–%d)", f.ev(d.Msg), d.Value, d.Hi)
	}
	return "unknown"
}
