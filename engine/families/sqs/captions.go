package sqs

import (
	"fmt"

	"inflight/engine"
)

// Ending is how a lease ended without an ack (Record.Ended), as the world
// knew it when it ended.
type Ending uint8

// The endings.
const (
	EndUnknown        Ending = iota // nothing recorded for this lease
	EndWorking                      // it expired while the holder still worked: nothing failed
	EndWedged                       // it expired while the holder's call was wedged
	EndCrashed                      // the holder died holding it
	EndAckLost                      // the holder acked, the ack never reached the broker
	EndDeferred                     // the claim handler handed it back with a delay
	EndWorkingCrashed               // expired while the holder still worked; the holder died since
	EndWorkingWedged                // expired while the holder still worked; its call wedged since
	EndRedriven                     // an operator redrove it from the dead letter queue (EndedOf 0)
	EndKilled                       // an operator killed the holder (crash=W) while it held it
	EndPurged                       // an operator purged the queue while it was in flight
)

// ended is why the lease on delivery del of message id ended, and who held
// it: EndUnknown when the record says nothing of that delivery.
func (q *Family) ended(id int32, del uint16) (Ending, string) {
	r, ok := q.Record(id)
	if !ok || r.EndedOf != del {
		return EndUnknown, ""
	}
	who := ""
	if h := int(r.EndedBy); h >= 0 && h < len(q.workers) {
		who = q.workers[h].Name
	}
	return r.Ended, who
}

// why words an ending for a redelivery's caption, after "a redelivery: ".
func why(e Ending, who string) string {
	switch e {
	case EndWorking:
		return fmt.Sprintf("a timer expired while %s still worked on it, nothing failed", who)
	case EndWedged:
		return fmt.Sprintf("%s's call is wedged and its lease ran out", who)
	case EndCrashed:
		return fmt.Sprintf("%s died holding it and its lease ran out", who)
	case EndKilled:
		return fmt.Sprintf("an operator killed %s, which died holding it, and its lease ran out", who)
	case EndAckLost:
		return fmt.Sprintf("%s's ack was lost on the way and its lease ran out", who)
	case EndDeferred:
		return fmt.Sprintf("%s handed it back while a claim was in flight, and the delay is over", who)
	case EndWorkingCrashed:
		return fmt.Sprintf("a timer expired while %s still worked on it (%s has died since)", who, who)
	case EndWorkingWedged:
		return fmt.Sprintf("a timer expired while %s still worked on it (its call has wedged since)", who)
	}
	return "its last lease ran out with no ack"
}

// Caption tells one of the queue's events in the lesson's words; the world
// words alerts and knob changes itself.
func (q *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	name := w.MsgName(e.Msg)
	who := "the broker"
	if e.Worker >= 0 && int(e.Worker) < len(q.workers) {
		who = "worker " + q.workers[e.Worker].Name
	}
	switch e.Kind {
	case engine.EvPublish:
		m, _ := w.Msg(e.Msg)
		if m.Poison {
			return fmt.Sprintf("%s published by the old producer (missing the new field)", name), true
		}
		return fmt.Sprintf("%s published", name), true
	case engine.EvStart:
		return fmt.Sprintf("%d consumers start polling", e.Count()), true
	case engine.EvDeliver:
		s := fmt.Sprintf("%s delivered to %s (%s delivery, lease until %s)", name, who, engine.Ordinal(e.Delivery), e.Until().Short())
		if how, by := q.ended(e.Msg, e.Delivery-1); e.Delivery > 1 {
			s += " — a redelivery: " + why(how, by)
		} else if how == EndRedriven {
			if m, _ := w.Msg(e.Msg); m.Repaired {
				s += " — the repair script gave it its missing field and an operator redrove it from the dead letter queue"
			} else {
				s += " — an operator redrove it from the dead letter queue"
			}
		}
		return s, true
	case engine.EvEffect:
		s := fmt.Sprintf("%s calls the provider for %s: the email leaves (answer in %s)", who, name, engine.FormatSeconds(e.Latency()))
		if e.Copy() > 1 {
			s += fmt.Sprintf(" — copy %d of the same confirmation", e.Copy())
		}
		return s, true
	case engine.EvAck:
		switch e.AckHow() {
		case engine.AckLateDeleted:
			return fmt.Sprintf("late ack for %s accepted: the broker deletes a message whose lease %s no longer holds", name, who), true
		case engine.AckLateNoop:
			return fmt.Sprintf("late ack for %s accepted, but the message is already gone", name), true
		case engine.AckAlreadySent:
			return fmt.Sprintf("%s finds sent_at stamped for %s: ack without sending", who, name), true
		case engine.AckBeforeWork:
			return fmt.Sprintf("%s acks %s before doing the work: the broker forgets it", who, name), true
		case engine.AckLost:
			return fmt.Sprintf("%s acks %s, but the ack is lost on the way to the broker (forced): the lease runs on", who, name), true
		case engine.AckGoneNoop:
			why := ""
			switch e.AckMeant() {
			case engine.AckAlreadySent:
				why = " finds sent_at stamped and"
			case engine.AckBeforeWork:
				why = " (ack before the work)"
			}
			if how, _ := q.ended(e.Msg, e.Delivery); how == EndPurged {
				return fmt.Sprintf("%s%s acks %s: DeleteMessage succeeds, but the queue was purged under it — nothing changes", who, why, name), true
			}
			return fmt.Sprintf("%s%s acks %s: DeleteMessage succeeds, but a late ack already deleted it — nothing changes", who, why, name), true
		}
		return fmt.Sprintf("%s acks %s: deleted", who, name), true
	case engine.EvAckRefused:
		ago := w.Now - e.QuotedLease()
		return fmt.Sprintf("%s acks %s, refused: the lease it quotes expired %s ago", who, name, engine.FormatSeconds(ago)), true
	case engine.EvLeaseExpired:
		if e.WasDeferred() {
			return fmt.Sprintf("%s's delay is over: visible again", name), true
		}
		switch how, by := q.ended(e.Msg, e.Delivery); how {
		case EndWorking:
			return fmt.Sprintf("%s's lease expired with no ack (%s still works on it): visible again", name, by), true
		case EndWedged:
			return fmt.Sprintf("%s's lease expired with no ack (%s's call is wedged): visible again", name, by), true
		case EndCrashed, EndKilled:
			return fmt.Sprintf("%s's lease expired with no ack (%s died holding it): visible again", name, by), true
		case EndAckLost:
			return fmt.Sprintf("%s's lease expired with no ack (%s's ack was lost on the way): visible again", name, by), true
		}
		return fmt.Sprintf("%s's lease expired with no ack: visible again", name), true
	case engine.EvDLQ:
		if e.EffectsBefore() > 0 {
			return fmt.Sprintf("%s moved to the dead letter queue after %d deliveries — its work was done %s", name, e.Delivery, times(e.EffectsBefore())), true
		}
		return fmt.Sprintf("%s moved to the dead letter queue after %d deliveries", name, e.Delivery), true
	case engine.EvCrash:
		switch e.CrashReason() {
		case engine.CrashKeyError:
			return fmt.Sprintf("%s raises KeyError on %s and dies; restart at %s", who, name, e.RestartAt().Short()), true
		case engine.CrashAfterClaim:
			return fmt.Sprintf("%s dies after claiming %s, before sending; restart at %s", who, name, e.RestartAt().Short()), true
		case engine.CrashOperator:
			if e.Msg < 0 {
				return fmt.Sprintf("an operator kills %s, idle; restart at %s", who, e.RestartAt().Short()), true
			}
			return fmt.Sprintf("an operator kills %s holding %s; restart at %s", who, name, e.RestartAt().Short()), true
		}
		if p := e.CrashReason() - engine.CrashFault; p >= 0 && p < int64(len(faultPoints)) {
			return fmt.Sprintf(faultPoints[p].Words+" (%s, forced); restart at %s", who, name, e.RestartAt().Short()), true
		}
		return fmt.Sprintf("%s dies holding %s", who, name), true
	case engine.EvRestart:
		return fmt.Sprintf("the supervisor restarts %s", who), true
	case EvClaim:
		return fmt.Sprintf("%s writes a claim for %s (sent_at null)", who, name), true
	case EvDefer:
		return fmt.Sprintf("%s finds a claim %s old for %s: in flight, hands it back until %s", who, engine.FormatSeconds(claimAge(e)), name, e.Until().Short()), true
	case EvStamp:
		return fmt.Sprintf("the provider answers %s after %s: sent_at stamped", name, engine.FormatSeconds(e.Latency())), true
	case EvRenew:
		return fmt.Sprintf("%s extends its lease on %s until %s", who, name, e.Until().Short()), true
	case EvWedge:
		switch e.Aux {
		case wedgeArmed:
			return fmt.Sprintf("an operator wedges %s's next call: it will never return", who), true
		case wedgeByOperator:
			if renewing(e) {
				return fmt.Sprintf("an operator wedges %s's call for %s: it never returns, and its renewal thread will extend the lease forever", who, name), true
			}
			return fmt.Sprintf("an operator wedges %s's call for %s: it never returns", who, name), true
		}
		if renewing(e) {
			return fmt.Sprintf("%s's call for %s never returns; its renewal thread will extend the lease forever", who, name), true
		}
		return fmt.Sprintf("%s's call for %s never returns", who, name), true
	case EvAnswer:
		return fmt.Sprintf("the provider answers %s after %s", name, engine.FormatSeconds(e.Latency())), true
	case EvPurge:
		if n := e.Aux; n > 0 {
			return fmt.Sprintf("an operator purges the queue: %d messages deleted, %d of them in flight (their workers work on; no ack can delete them now)", e.Count(), n), true
		}
		return fmt.Sprintf("an operator purges the queue: %d messages deleted", e.Count()), true
	case EvScriptOff:
		return "an operator stands the repair script down: it will not run on this branch", true
	case EvStop:
		switch {
		case e.Value == stopLater:
			return fmt.Sprintf("an operator stops %s: it stops once its message is done", who), true
		case WorkerState(e.Aux) == WBusy:
			return fmt.Sprintf("%s's handler has ended: it stops, as an operator asked", who), true
		case WorkerState(e.Aux) == WDead:
			return fmt.Sprintf("an operator stops %s, dead: the supervisor will not restart it", who), true
		}
		return fmt.Sprintf("an operator stops %s, %s", who, WorkerState(e.Aux)), true
	case engine.EvRedrive:
		if e.Count() == 0 { // a redrive got there first, or nothing failed
			if e.Operator() < 0 {
				return "an operator redrives the dead letter queue: it is empty, nothing moves", true
			}
			return "an operator runs the repair script: the dead letter queue is empty, nothing to repair", true
		}
		if e.Operator() == repairByAction {
			return fmt.Sprintf("an operator runs the repair script: it repairs the %d dead letters and redrives them to the tail of the queue", e.Count()), true
		}
		if e.Operator() < 0 { // a fork's action (--do redrive): nothing repaired
			return fmt.Sprintf("an operator redrives %d dead letters to the tail of the queue, as new messages", e.Count()), true
		}
		return fmt.Sprintf("an operator repairs the %d dead letters and redrives them to the tail of the queue", e.Count()), true
	}
	return "", false
}

// afterLease words a worker still calling for a message whose lease it no
// longer holds: SUPERSEDED only when another worker holds the message now,
// else where the message is.
func afterLease(w *engine.World, wk Worker) string {
	q := Of(w)
	mm, ok := w.Msg(wk.Msg)
	r, _ := q.Record(wk.Msg)
	where := "the message is gone"
	switch {
	case ok && mm.Status == engine.StInFlight && r.Holder >= 0 && int(r.Holder) < len(q.workers):
		return fmt.Sprintf("SUPERSEDED by %s (lease ended %s), still calling", q.workers[r.Holder].Name, wk.LeaseEnd.Short())
	case ok && mm.Status == engine.StInFlight && r.Deferred:
		where = "the message is handed back with a delay"
	case ok && mm.Status == engine.StVisible:
		where = "the message is visible again"
	case mm.Status == engine.StDLQ:
		where = "the message is in the DLQ"
	case mm.Status == engine.StDeleted:
		where = "the message is deleted"
	}
	// no clock: a wrapped line in a narrow pane would start with it (the
	// dead letters and the queue say when)
	return "past its lease, still calling: " + where
}

// pastLease is the in-flight pane title's count of the workers still
// calling past their lease (stale): superseded, and the rest.
func pastLease(w *engine.World, stale []int) string {
	q := Of(w)
	sup := 0
	for _, i := range stale {
		wk := q.workers[i]
		mm, ok := w.Msg(wk.Msg)
		if r, _ := q.Record(wk.Msg); ok && mm.Status == engine.StInFlight && r.Holder >= 0 {
			sup++
		}
	}
	s := ""
	if sup > 0 {
		s += fmt.Sprintf(" · %d superseded", sup)
	}
	if n := len(stale) - sup; n > 0 {
		s += fmt.Sprintf(" · %d past the lease", n)
	}
	return s
}

// times says how often: "once", "twice", "3 times".
func times(n int64) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
