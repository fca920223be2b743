package sqs

import (
	"cmp"
	"fmt"
	"slices"

	"inflight/engine"
)

// publish publishes source src's k-th message.
func (q *Family) publish(w *engine.World, src, k int) {
	q.srcNext[src] = false
	count := q.sourceCount(w, src)
	if k >= count {
		return // a fork lowered the count after this step was scheduled
	}
	s := &w.Spec().Sources[src]
	id, m := w.Truth().AddMessage(uint8(src), s.Poison)
	r := q.newRecord(id)
	q.setVisible(m, r)
	q.enqueue(id, r)
	q.srcSent[src] = k + 1
	if k+1 < count {
		q.srcNext[src] = true
		schedule(w, s.Start+s.Every*engine.Time(k+1), opPublish, int32(k+1), src, 0)
	}
	w.Emit(engine.EvPublish, id, -1, 0, int64(k), 0)
	q.wake(w)
	w.Truth().WatchAge()
}

func (q *Family) sourceCount(w *engine.World, i int) int {
	// the orders knob read as a field: this runs for every message
	if s := &w.Spec().Sources[i]; s.OrdersKnob {
		return q.k.Orders
	}
	return w.Spec().Sources[i].Count
}

func (q *Family) startWorkers(w *engine.World) {
	for i := range q.workers {
		if q.workers[i].State == WOff {
			q.workers[i].State = WIdle
			q.idle++
			q.workers[i].Since = w.Now
		}
	}
	w.Emit(engine.EvStart, -1, -1, 0, int64(len(q.workers)), 0)
	q.wake(w)
}

// wake asks for a dispatch at the current time: workers poll continuously,
// so a visible message and an idle worker meet at once.
func (q *Family) wake(w *engine.World) {
	if !q.dispatchOn && q.idle > 0 && q.visible > 0 {
		q.dispatchOn = true
		schedule(w, w.Now, opDispatch, 0, 0, 0)
	}
}

// head returns the next deliverable message, or -1. Standard queues hand
// out the oldest visible message; an ordered queue only its head, and only
// while the head is not in flight.
func (q *Family) head(w *engine.World) int32 {
	for q.queue.len() > 0 {
		e := q.queue.at(0)
		m := w.Truth().MsgPtr(e.id)
		if m != nil && q.current(e) {
			switch {
			case m.Status == engine.StVisible:
				return e.id
			case m.Status == engine.StInFlight && q.k.Mode == ModeOrdered:
				return -1
			}
		}
		q.queue.popFront() // stale: delivered, deleted, dead-lettered or requeued
	}
	return -1
}

func (q *Family) dispatch(w *engine.World) {
	q.dispatchOn = false
	// the idle workers in order, and as a mask for the decision: built
	// without a branch a worker, whose state the predictor cannot guess
	var idle [64]uint8 // the world has checked there are at most 64 workers
	var mask uint64
	n := 0
	for i := range q.workers {
		b := boolIdx(q.workers[i].State == WIdle)
		idle[n] = uint8(i)
		n += b
		mask |= uint64(b) << uint(i)
	}
	if n == 0 {
		return
	}
	id := q.head(w)
	if id < 0 {
		return
	}
	m := w.Truth().MsgForWrite(id)
	delivery := m.Receives + 1
	x := w.Draw(engine.StreamWorker, uint64(id), uint64(delivery))
	var pick int
	if n&(n-1) == 0 {
		pick = int(x & uint64(n-1)) // x % n without a division
	} else {
		pick = int(x % uint64(n))
	}
	natural := int(idle[pick]) // the pick-th idle worker
	wi := int(w.DecideAmong(engine.DecWorker, id, -1, delivery, int64(natural), 0, int64(len(q.workers)-1), mask))
	if q.k.Mode == ModeStandard {
		q.queue.popFront()
	}
	q.lease(id, m)
	m.Receives = delivery
	m.Holders++
	r := q.rec(id)
	r.LeaseAt = w.Now
	r.Expiry = w.Now + q.k.VisibilityTimeout
	r.Holder = int16(wi)
	wk := &q.workers[wi]
	q.idle--
	// field by field: the name and box stay, and are not rewritten
	wk.State, wk.Msg, wk.Delivery, wk.Since, wk.CallEnd, wk.LeaseEnd = WBusy, id, delivery, w.Now, engine.Never, r.Expiry
	wk.Wedged, wk.claimed, wk.ackBefore = false, false, q.k.Ack == AckBefore
	w.Stats.Deliveries++
	schedule(w, r.Expiry, opLeaseExpire, id, 0, delivery)
	schedule(w, w.Now, opHandle, 0, wi, q.workers[wi].gen)
	w.Emit(engine.EvDeliver, id, wi, delivery, int64(r.Expiry), 0)
	q.wake(w)
}

func (q *Family) handle(w *engine.World, wi int) {
	wk := &q.workers[wi]
	id := wk.Msg
	if w.Fault(FaultAfterReceive, id, wi, wk.Delivery) {
		q.crash(w, wi, engine.CrashFault+FaultAfterReceive)
		return
	}
	switch {
	case wk.ackBefore:
		// at-most-once: the broker forgets it before any work is done
		how, val := int64(engine.AckBeforeWork), int64(0)
		if q.remove(w, id, w.Truth().MsgForWrite(id), engine.StDeleted) {
			w.Stats.Acks++
		} else {
			// a late ack deleted it since this delivery: DeleteMessage
			// succeeds, changes nothing, and the handler works on
			how, val = engine.AckGoneNoop, engine.AckBeforeWork
		}
		schedule(w, w.Now, opWork, 0, wi, q.workers[wi].gen)
		w.Emit(engine.EvAck, id, wi, wk.Delivery, val, how)
		q.wake(w) // in an ordered queue the next message is now the head
	case q.k.Claim:
		q.claimBranch(w, wi)
	default:
		q.work(w, wi)
	}
}

func (q *Family) work(w *engine.World, wi int) {
	if q.poison {
		m := w.Truth().MsgPtr(q.workers[wi].Msg) // held by the worker: never released
		if m.Poison && !m.Repaired {
			q.crash(w, wi, engine.CrashKeyError)
			return
		}
	}
	q.send(w, wi)
}

func (q *Family) claimBranch(w *engine.World, wi int) {
	wk := &q.workers[wi]
	id := wk.Msg
	r := q.rec(id)
	natural := int64(engine.BranchSend)
	age := w.Now - r.ClaimAt
	switch {
	case r.SentAt >= 0:
		natural = engine.BranchAckOld
	case r.ClaimAt >= 0 && age < q.k.ClaimWindow:
		natural = engine.BranchDefer
	}
	switch w.Decide(engine.DecBranch, id, wi, wk.Delivery, natural, engine.BranchSend, engine.BranchAckOld) {
	case engine.BranchDefer:
		// ChangeMessageVisibility on this receipt: back in ClaimWindow, no ack
		r.Expiry = w.Now + q.k.ClaimWindow
		r.Deferred = true
		r.Holder = -1
		r.Ended, r.EndedBy, r.EndedOf = EndDeferred, int16(wi), wk.Delivery
		schedule(w, r.Expiry, opLeaseExpire, id, 0, wk.Delivery)
		w.Emit(EvDefer, id, wi, wk.Delivery, int64(r.Expiry), int64(age))
		q.finish(w, wi)
	case engine.BranchAckOld:
		if w.Fault(FaultBeforeAck, id, wi, wk.Delivery) {
			q.crash(w, wi, engine.CrashFault+FaultBeforeAck)
			return
		}
		q.ackNow(w, wi, engine.AckAlreadySent)
	default:
		r.ClaimAt = w.Now
		wk.claimed = true
		if w.Fault(FaultAfterClaim, id, wi, wk.Delivery) {
			schedule(w, w.Now, opFaultCrash, FaultAfterClaim, wi, q.workers[wi].gen)
		} else if q.k.CrashAfterClaim > 0 && id == w.Spec().Featured && wk.Delivery == 1 {
			schedule(w, w.Now+q.k.CrashAfterClaim, opCrashAfterClaim, 0, wi, q.workers[wi].gen)
		} else {
			schedule(w, w.Now, opSend, 0, wi, q.workers[wi].gen)
		}
		w.Emit(EvClaim, id, wi, wk.Delivery, 0, 0)
	}
}

// send calls the provider; the email leaves at the call's start.
func (q *Family) send(w *engine.World, wi int) {
	wk := &q.workers[wi]
	id := wk.Msg
	lo, hi := int64(q.k.LatencyMin), int64(q.k.LatencyMax)
	natural := engine.Uniform(w.Draw(engine.StreamLatency, uint64(id), uint64(wk.Delivery)), lo, hi)
	lat := engine.Duration(w.Decide(engine.DecLatency, id, wi, wk.Delivery, natural, lo, hi))
	copies := w.Truth().Effect(id)
	wk.CallEnd = w.Now + lat
	if w.Fault(FaultAfterEffect, id, wi, wk.Delivery) {
		// the worker dies with the call in flight: nobody hears the answer
		schedule(w, w.Now, opFaultCrash, FaultAfterEffect, wi, q.workers[wi].gen)
	} else {
		schedule(w, wk.CallEnd, opCallReturn, 0, wi, q.workers[wi].gen)
	}
	if q.k.Heartbeat > 0 && !wk.ackBefore {
		schedule(w, w.Now+q.k.Heartbeat, opRenew, id, wi, wk.Delivery)
	}
	w.Emit(engine.EvEffect, id, wi, wk.Delivery, int64(lat), int64(copies))
}

func (q *Family) callReturn(w *engine.World, wi int) {
	wk := &q.workers[wi]
	id := wk.Msg
	if wk.wedgeNext { // an operator's wedge=W: this is the call
		wk.wedgeNext = false
		q.wedge(w, wi, wedgeByOperator)
		return
	}
	if q.k.WedgeP > 0 {
		wedged := engine.Chance(w.Draw(engine.StreamWedge, uint64(id), uint64(wk.Delivery)), q.k.WedgeP)
		if w.Decide(engine.DecWedge, id, wi, wk.Delivery, int64(boolIdx(wedged)), 0, 1) == 1 {
			q.wedge(w, wi, 0)
			return
		}
	}
	switch {
	case wk.claimed:
		q.rec(id).SentAt = w.Now
		if w.Fault(FaultAfterStamp, id, wi, wk.Delivery) {
			schedule(w, w.Now, opFaultCrash, FaultAfterStamp, wi, q.workers[wi].gen)
		} else {
			schedule(w, w.Now, opAck, 0, wi, q.workers[wi].gen)
		}
		w.Emit(EvStamp, id, wi, wk.Delivery, int64(w.Now-wk.Since), 0)
	case wk.ackBefore:
		w.Emit(EvAnswer, id, wi, wk.Delivery, int64(w.Now-wk.Since), 0)
		q.finish(w, wi)
	case w.Fault(FaultBeforeAck, id, wi, wk.Delivery):
		q.crash(w, wi, engine.CrashFault+FaultBeforeAck)
	default:
		q.ack(w, wi, false)
	}
}

// wedge makes worker wi's call in flight never return (by says who: 0
// for wedge_p, wedgeByOperator for an operator's wedge=W).
func (q *Family) wedge(w *engine.World, wi int, by int64) {
	wk := &q.workers[wi]
	id := wk.Msg
	wk.Wedged = true
	wk.CallEnd = engine.Never
	m, r := w.Truth().MsgPtr(id), q.rec(id) // held by the worker: never released
	renewing := q.k.Heartbeat > 0 && m.Status == engine.StInFlight && m.Receives == wk.Delivery && w.Now < r.Expiry
	if renewing {
		// the renewal thread cannot tell a wedged call from a slow one
		r.Expiry = engine.Never
		wk.LeaseEnd = engine.Never
	}
	q.since(id, wi, wk.Delivery, EndWorkingWedged)
	w.Emit(EvWedge, id, wi, wk.Delivery, int64(boolIdx(renewing)), by)
}

// ack deletes the message if the worker's lease is still current; a late
// ack is refused or accepted by the broker (the late_ack knob).
//
// The tie rule: a lease covers [delivery, expiry), so an ack at the very
// millisecond its lease expires is late. The expiry runs first (the message
// is visible again, or dead-lettered at max_receives), whichever step was
// scheduled first; then the ack meets late_ack.
func (q *Family) ack(w *engine.World, wi int, again bool) {
	wk := &q.workers[wi]
	m, r := w.Truth().MsgPtr(wk.Msg), q.recs.Ptr(int(wk.Msg)) // held by the worker: never released
	// A deleted message keeps the receipt it was last delivered with: if
	// that is this delivery's, still current, the ack is not late (it
	// becomes engine.AckGoneNoop in ackNow).
	if (m.Status == engine.StInFlight || m.Status == engine.StDeleted) && m.Receives == wk.Delivery && !r.Deferred {
		if w.Now < r.Expiry {
			q.ackNow(w, wi, engine.AckNormal)
			return
		}
		if w.Now == r.Expiry && !again {
			// the expiry due now has not run yet: let it
			schedule(w, w.Now, opAck, 1, wi, q.workers[wi].gen)
			return
		}
	}
	natural := int64(boolIdx(q.k.LateAckAccept))
	if w.Decide(engine.DecLateAck, wk.Msg, wi, wk.Delivery, natural, 0, 1) == 1 {
		if m.Held() {
			q.ackNow(w, wi, engine.AckLateDeleted)
		} else {
			q.ackNow(w, wi, engine.AckLateNoop)
		}
		w.Stats.LateAccepted++
		return
	}
	w.Stats.LateRefused++
	w.Emit(engine.EvAckRefused, wk.Msg, wi, wk.Delivery, int64(wk.LeaseEnd), 0)
	q.finish(w, wi)
}

func (q *Family) ackNow(w *engine.World, wi int, how int64) {
	wk := &q.workers[wi]
	id := wk.Msg
	var val int64
	if how != engine.AckLateNoop && w.Fault(FaultAckLost, id, wi, wk.Delivery) {
		// the handler has acked as far as it knows; the broker never heard
		q.endNow(w, id, wi, wk.Delivery, EndAckLost)
		w.Emit(engine.EvAck, id, wi, wk.Delivery, how, engine.AckLost)
		q.finish(w, wi)
		return
	}
	if how != engine.AckLateNoop {
		if q.remove(w, id, w.Truth().MsgForWrite(id), engine.StDeleted) {
			w.Stats.Acks++
		} else {
			// deleted since this delivery by another worker's late ack
			how, val = engine.AckGoneNoop, how
		}
	}
	w.Emit(engine.EvAck, id, wi, wk.Delivery, val, how)
	q.finish(w, wi)
}

// finish ends the worker's handler: it is idle and polls again.
func (q *Family) finish(w *engine.World, wi int) {
	q.release(w, wi)
	if q.stopping > 0 && q.workers[wi].stopping {
		// an operator's workers=-N: it stops now, its stop an event of
		// the next step (the one that ended the handler emitted its own)
		wk := &q.workers[wi]
		wk.stopping = false
		q.stopping--
		wk.State, wk.Since = WGone, w.Now
		schedule(w, w.Now, opStopped, 0, wi, 0)
		return
	}
	q.workers[wi].State = WIdle
	q.idle++
	q.workers[wi].Since = w.Now
	q.wake(w)
}

// release ends the worker's hold on its message without deciding what the
// worker does next.
func (q *Family) release(w *engine.World, wi int) {
	wk := &q.workers[wi]
	w.Stats.BusyMs += int64(w.Now - wk.Since)
	id := wk.Msg
	w.Truth().Release(id)
	wk.Msg, wk.Delivery, wk.CallEnd, wk.claimed, wk.Wedged, wk.ackBefore = -1, 0, engine.Never, false, false, false
}

func (q *Family) crash(w *engine.World, wi int, reason int64) {
	wk := &q.workers[wi]
	id, del := wk.Msg, wk.Delivery
	q.endNow(w, id, wi, del, EndCrashed)
	q.since(id, wi, del, EndWorkingCrashed)
	q.release(w, wi)
	wk.State = WDead
	wk.Since = w.Now
	w.Stats.Crashes++
	schedule(w, w.Now+q.k.RestartAfter, opRestart, 0, wi, 0)
	w.Emit(engine.EvCrash, id, wi, del, int64(w.Now+q.k.RestartAfter), reason)
}

// endNow records that worker wi's lease on delivery del of message id
// ends now without an ack (ending e), if that lease is still current.
func (q *Family) endNow(w *engine.World, id int32, wi int, del uint16, e Ending) {
	m, r := w.Truth().MsgPtr(id), q.recs.Ptr(int(id))
	if m != nil && r != nil && m.Status == engine.StInFlight && m.Receives == del && r.Holder == int16(wi) && !r.Deferred {
		r = q.rec(id)
		r.Ended, r.EndedBy, r.EndedOf = e, int16(wi), del
	}
}

// since turns "expired while worker wi still worked" into ending e when
// the worker fails after its lease on delivery del ran out.
func (q *Family) since(id int32, wi int, del uint16, e Ending) {
	if r := q.recs.Ptr(int(id)); r != nil && r.Ended == EndWorking && r.EndedOf == del && r.EndedBy == int16(wi) {
		q.rec(id).Ended = e
	}
}

func (q *Family) restart(w *engine.World, wi int) {
	wk := &q.workers[wi]
	if wk.State == WGone || wk.stopping { // stopped by an operator while dead
		if wk.stopping {
			q.stopped(w, wi)
		}
		return
	}
	wk.State = WIdle
	q.idle++
	wk.Since = w.Now
	w.Emit(engine.EvRestart, -1, wi, 0, 0, 0)
	q.wake(w)
}

func (q *Family) renew(w *engine.World, wi int, id int32, delivery uint16) {
	wk := &q.workers[wi]
	if q.k.Heartbeat <= 0 {
		return // turned off at a fork: the renewal thread stops (it rescheduled itself at now+0 for ever)
	}
	if wk.State != WBusy || wk.Msg != id || wk.Delivery != delivery || wk.Wedged || w.Now >= wk.CallEnd {
		return
	}
	m, r := w.Truth().MsgPtr(id), q.rec(id) // held by the worker: never released
	if m.Status != engine.StInFlight || m.Receives != delivery || w.Now >= r.Expiry {
		return // the receipt has expired: ChangeMessageVisibility fails
	}
	r.Expiry = w.Now + q.k.VisibilityTimeout
	wk.LeaseEnd = r.Expiry
	schedule(w, r.Expiry, opLeaseExpire, id, 0, delivery)
	schedule(w, w.Now+q.k.Heartbeat, opRenew, id, wi, delivery)
	w.Emit(EvRenew, id, wi, delivery, int64(r.Expiry), 0)
}

func (q *Family) leaseExpire(w *engine.World, id int32, delivery uint16) {
	m := w.Truth().MsgPtr(id)
	if m == nil || m.Status != engine.StInFlight || m.Receives != delivery || q.recs.Ptr(int(id)).Expiry != w.Now {
		return // acked, renewed or superseded since
	}
	mm, r := w.Truth().MsgForWrite(id), q.rec(id)
	holder := r.Holder
	if h := int(holder); h >= 0 && h < len(q.workers) {
		if wk := &q.workers[h]; wk.State == WBusy && wk.Msg == id && wk.Delivery == delivery {
			r.Ended, r.EndedBy, r.EndedOf = EndWorking, holder, delivery
			if wk.Wedged {
				r.Ended = EndWedged
			}
		}
	}
	if r.EndedOf != delivery {
		r.Ended, r.EndedBy, r.EndedOf = EndUnknown, holder, delivery
	}
	if int(mm.Receives) >= q.k.MaxReceives {
		q.deadLetter(w, id, mm)
		return
	}
	deferred := r.Deferred
	q.unlease(id)
	q.setVisible(mm, r)
	if q.k.Mode == ModeStandard {
		q.enqueue(id, r)
	}
	w.Emit(engine.EvLeaseExpired, id, int(holder), delivery, 0, int64(boolIdx(deferred)))
	q.wake(w)
}

// deadLetter moves the message to the dead letter queue (the world keeps
// the letters and fires the alerts and operators that watch it).
func (q *Family) deadLetter(w *engine.World, id int32, m *engine.Msg) {
	if !m.Held() {
		return // gone already: nothing to move
	}
	q.unhold(id, m)
	q.rec(id).Holder = -1 // before the kernel may release it
	w.Truth().DeadLetter(id)
	// in an ordered queue the message behind it is now the head
	q.wake(w)
}

// Operate carries out operator i's action: the queue's one is
// repair_redrive.
func (q *Family) Operate(w *engine.World, i int, a engine.OperatorAction) {
	if a != engine.ActionRepairRedrive {
		panic(fmt.Sprintf("operator %d: action %s in a queue that has none", i, a))
	}
	if q.scriptOff {
		return // stood down on this branch (no_script)
	}
	q.repairRedrive(w, i)
}

// repairRedrive is the queue's repair_redrive: the repair script gives
// every dead letter its missing field and redrives it to the tail of the
// queue.
func (q *Family) repairRedrive(w *engine.World, i int) {
	n := w.Truth().Redrive(func(id int32, m *engine.Msg) {
		m.Repaired = true
		m.Receives = 0 // the redrive sends it as a new message
		r := q.rec(id)
		r.Ended, r.EndedBy, r.EndedOf = EndRedriven, -1, 0
		q.setVisible(m, r)
		q.enqueue(id, r)
	})
	w.Emit(engine.EvRedrive, -1, -1, 0, int64(n), int64(i))
	q.wake(w)
	w.Truth().WatchAge()
}

// rehome gives every message a standard queue holds a place in the ordered
// queue a fork switches to: the visible ones and the ones in flight (a
// standard queue keeps no place for those), in the order they last entered
// the queue. A message in flight at the switch is then the head it was, and
// nothing published after it overtakes it.
func (q *Family) rehome(w *engine.World) {
	type place struct {
		age uint32 // enqueues since: wraps safely, the queue is far shorter
		id  int32
	}
	var held []place
	for i := 0; i < q.queue.len(); i++ {
		e := q.queue.at(i)
		if m := w.Truth().MsgPtr(e.id); m != nil && q.current(e) && m.Status == engine.StVisible {
			held = append(held, place{q.qseq - e.qseq, e.id})
		}
	}
	for _, id := range q.leased {
		held = append(held, place{q.qseq - q.recs.Ptr(int(id)).QSeq, id})
	}
	slices.SortFunc(held, func(a, b place) int {
		if a.age != b.age {
			return cmp.Compare(b.age, a.age)
		}
		return cmp.Compare(a.id, b.id)
	})
	q.queue = deque{}
	for _, p := range held {
		q.enqueue(p.id, q.rec(p.id))
	}
}

// resumeSources restarts a source whose count a fork raised after its
// publishing had ended: it publishes at its own spacing from the fork on
// (the slots already past stay empty).
func (q *Family) resumeSources(w *engine.World) {
	for i := range w.Spec().Sources {
		s := &w.Spec().Sources[i]
		k := q.srcSent[i]
		if k >= q.sourceCount(w, i) || q.srcNext[i] {
			continue
		}
		if s.Every > 0 && s.Start+s.Every*engine.Time(k) < w.Now {
			k = int((w.Now - s.Start + s.Every - 1) / s.Every)
		}
		if k < q.sourceCount(w, i) {
			q.srcNext[i] = true
			schedule(w, max(w.Now, s.Start+s.Every*engine.Time(k)), opPublish, int32(k), i, 0)
		}
	}
}

// deliverable reports whether an idle worker could take a message now,
// without changing anything (see head).
func (q *Family) deliverable(w *engine.World) bool {
	if q.idle == 0 || q.visible == 0 {
		return false
	}
	for i := 0; i < q.queue.len(); i++ {
		e := q.queue.at(i)
		m := w.Truth().MsgPtr(e.id)
		if m == nil || !q.current(e) {
			continue
		}
		switch {
		case m.Status == engine.StVisible:
			return true
		case m.Status == engine.StInFlight && q.k.Mode == ModeOrdered:
			return false
		}
	}
	return false
}

// Stranded is the settled-state rule: a run settles only when no message
// can move again, so when nothing live is left while a message waits for
// an idle worker, the world calls Revive. Every move wakes the dispatcher
// itself; this is the guard that no missing wake can strand a queue.
func (q *Family) Stranded(w *engine.World) bool { return !q.dispatchOn && q.deliverable(w) }

// Revive dispatches a stranded message.
func (q *Family) Revive(w *engine.World) { q.wake(w) }
