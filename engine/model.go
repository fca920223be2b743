package engine

import (
	"cmp"
	"fmt"
	"slices"
)

// The model: an SQS-like broker, single-threaded workers under a
// supervisor, the handler variants, a slow provider and the ground truth.
// Each step emits at most one event.

// Crash reasons, as EvCrash's Aux.
const (
	CrashKeyError   = 1 // the new consumer raises on an old-format message
	CrashAfterClaim = 2 // killed a moment after writing its claim
)

func (w *World) publish(src, k int) {
	if k >= w.sourceCount(src) {
		return // a fork lowered the count after this step was scheduled
	}
	s := &w.spec.Sources[src]
	id := int32(w.msgs.push(w.owner))
	m := w.msgForWrite(id)
	*m = Msg{Published: w.Now, ClaimAt: -1, SentAt: -1, Holder: -1, Source: uint8(src), Poison: s.Poison}
	w.setVisible(id, m)
	w.enqueue(id, m)
	w.Stats.Published++
	w.srcSent[src] = k + 1
	if k+1 < w.sourceCount(src) {
		w.schedule(item{t: s.Start + s.Every*Time(k+1), op: opPublish, who: int16(src), msg: int32(k + 1)})
	}
	w.emit(EvPublish, id, -1, 0, int64(k), 0)
	w.wake()
	w.ensureAgeCheck()
}

func (w *World) startWorkers() {
	for i := range w.workers {
		if w.workers[i].State == WOff {
			w.workers[i].State = WIdle
			w.idle++
			w.workers[i].Since = w.Now
		}
	}
	w.emit(EvStart, -1, -1, 0, int64(len(w.workers)), 0)
	w.wake()
}

// wake asks for a dispatch at the current time: workers poll continuously,
// so a visible message and an idle worker meet at once.
func (w *World) wake() {
	if !w.dispatchOn && w.idle > 0 && w.visible > 0 {
		w.dispatchOn = true
		w.schedule(item{t: w.Now, op: opDispatch})
	}
}

// head returns the next deliverable message, or -1. Standard queues hand
// out the oldest visible message; an ordered queue only its head, and only
// while the head is not in flight.
func (w *World) head() int32 {
	for w.queue.len() > 0 {
		q := w.queue.at(0)
		m := w.msgs.ptr(int(q.id))
		if m != nil && m.QSeq == q.qseq {
			switch {
			case m.Status == StVisible:
				return q.id
			case m.Status == StInFlight && w.Knobs.Mode == ModeOrdered:
				return -1
			}
		}
		w.queue.popFront() // stale: delivered, deleted, dead-lettered or requeued
	}
	return -1
}

func (w *World) dispatch() {
	w.dispatchOn = false
	var mask uint64
	n := 0
	for i := range w.workers {
		if w.workers[i].State == WIdle {
			mask |= 1 << uint(i)
			n++
		}
	}
	if n == 0 {
		return
	}
	id := w.head()
	if id < 0 {
		return
	}
	m := w.msgForWrite(id)
	delivery := m.Receives + 1
	pick := int(draw(w.seed, StreamWorker, uint64(id), uint64(delivery)) % uint64(n))
	natural := -1
	for i := range w.workers {
		if mask&(1<<uint(i)) != 0 {
			if pick == 0 {
				natural = i
				break
			}
			pick--
		}
	}
	wi := int(w.decide(DecWorker, id, -1, delivery, int64(natural), 0, int64(len(w.workers)-1), mask))
	if w.Knobs.Mode == ModeStandard {
		w.queue.popFront()
	}
	w.lease(id, m)
	m.Receives = delivery
	m.LeaseAt = w.Now
	m.Expiry = w.Now + w.Knobs.VisibilityTimeout
	m.Holder = int16(wi)
	m.Holders++
	wk := &w.workers[wi]
	w.idle--
	// field by field: the name and box stay, and are not rewritten
	wk.State, wk.Msg, wk.Delivery, wk.Since, wk.CallEnd, wk.LeaseEnd = WBusy, id, delivery, w.Now, Never, m.Expiry
	wk.Wedged, wk.claimed, wk.ackBefore = false, false, w.Knobs.Ack == AckBefore
	w.Stats.Deliveries++
	w.schedule(item{t: m.Expiry, op: opLeaseExpire, msg: id, delivery: delivery})
	w.schedule(item{t: w.Now, op: opHandle, who: int16(wi)})
	w.emit(EvDeliver, id, wi, delivery, int64(m.Expiry), 0)
	w.wake()
}

func (w *World) handle(wi int) {
	wk := &w.workers[wi]
	id := wk.Msg
	switch {
	case wk.ackBefore:
		// at-most-once: the broker forgets it before any work is done
		how, val := int64(AckBeforeWork), int64(0)
		if w.remove(id, w.msgForWrite(id), StDeleted) {
			w.Stats.Acks++
		} else {
			// a late ack deleted it since this delivery: DeleteMessage
			// succeeds, changes nothing, and the handler works on
			how, val = AckGoneNoop, AckBeforeWork
		}
		w.schedule(item{t: w.Now, op: opWork, who: int16(wi)})
		w.emit(EvAck, id, wi, wk.Delivery, val, how)
		w.wake() // in an ordered queue the next message is now the head
	case w.Knobs.Claim:
		w.claimBranch(wi)
	default:
		w.work(wi)
	}
}

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
)

// NoopAck reports whether an ack event with this Aux deleted nothing.
func NoopAck(aux int64) bool { return aux == AckLateNoop || aux == AckGoneNoop }

func (w *World) work(wi int) {
	wk := &w.workers[wi]
	m := w.msgs.ptr(int(wk.Msg)) // held by the worker: never released
	if m.Poison && !m.Repaired {
		w.crash(wi, CrashKeyError)
		return
	}
	w.send(wi)
}

func (w *World) claimBranch(wi int) {
	wk := &w.workers[wi]
	id := wk.Msg
	m := w.msgForWrite(id)
	natural := int64(BranchSend)
	age := w.Now - m.ClaimAt
	switch {
	case m.SentAt >= 0:
		natural = BranchAckOld
	case m.ClaimAt >= 0 && age < w.Knobs.ClaimWindow:
		natural = BranchDefer
	}
	switch w.decide(DecBranch, id, wi, wk.Delivery, natural, BranchSend, BranchAckOld, 0) {
	case BranchDefer:
		// ChangeMessageVisibility on this receipt: back in ClaimWindow, no ack
		m.Expiry = w.Now + w.Knobs.ClaimWindow
		m.Deferred = true
		m.Holder = -1
		w.schedule(item{t: m.Expiry, op: opLeaseExpire, msg: id, delivery: wk.Delivery})
		w.emit(EvDefer, id, wi, wk.Delivery, int64(m.Expiry), int64(age))
		w.finish(wi)
	case BranchAckOld:
		w.ackNow(wi, AckAlreadySent)
	default:
		m.ClaimAt = w.Now
		wk.claimed = true
		if w.Knobs.CrashAfterClaim > 0 && id == w.spec.Featured && wk.Delivery == 1 {
			w.schedule(item{t: w.Now + w.Knobs.CrashAfterClaim, op: opCrashAfterClaim, who: int16(wi)})
		} else {
			w.schedule(item{t: w.Now, op: opSend, who: int16(wi)})
		}
		w.emit(EvClaim, id, wi, wk.Delivery, 0, 0)
	}
}

// send calls the provider; the email leaves at the call's start.
func (w *World) send(wi int) {
	wk := &w.workers[wi]
	id := wk.Msg
	lo, hi := int64(w.Knobs.LatencyMin), int64(w.Knobs.LatencyMax)
	natural := uniform(draw(w.seed, StreamLatency, uint64(id), uint64(wk.Delivery)), lo, hi)
	lat := Duration(w.decide(DecLatency, id, wi, wk.Delivery, natural, lo, hi, 0))
	copies := w.Effect(id)
	wk.CallEnd = w.Now + lat
	w.schedule(item{t: wk.CallEnd, op: opCallReturn, who: int16(wi)})
	if w.Knobs.Heartbeat > 0 && !wk.ackBefore {
		w.schedule(item{t: w.Now + w.Knobs.Heartbeat, op: opRenew, who: int16(wi), msg: id, delivery: wk.Delivery})
	}
	w.emit(EvEffect, id, wi, wk.Delivery, int64(lat), int64(copies))
}

func (w *World) callReturn(wi int) {
	wk := &w.workers[wi]
	id := wk.Msg
	if w.Knobs.WedgeP > 0 {
		wedged := chance(draw(w.seed, StreamWedge, uint64(id), uint64(wk.Delivery)), w.Knobs.WedgeP)
		if w.decide(DecWedge, id, wi, wk.Delivery, int64(boolIdx(wedged)), 0, 1, 0) == 1 {
			wk.Wedged = true
			wk.CallEnd = Never
			m := w.msgForWrite(id)
			renewing := w.Knobs.Heartbeat > 0 && m.Status == StInFlight && m.Receives == wk.Delivery && w.Now < m.Expiry
			if renewing {
				// the renewal thread cannot tell a wedged call from a slow one
				m.Expiry = Never
				wk.LeaseEnd = Never
			}
			w.emit(EvWedge, id, wi, wk.Delivery, int64(boolIdx(renewing)), 0)
			return
		}
	}
	switch {
	case wk.claimed:
		m := w.msgForWrite(id)
		m.SentAt = w.Now
		w.schedule(item{t: w.Now, op: opAck, who: int16(wi)})
		w.emit(EvStamp, id, wi, wk.Delivery, int64(w.Now-wk.Since), 0)
	case wk.ackBefore:
		w.emit(EvAnswer, id, wi, wk.Delivery, int64(w.Now-wk.Since), 0)
		w.finish(wi)
	default:
		w.ack(wi, false)
	}
}

// ack deletes the message if the worker's lease is still current; a late
// ack is refused or accepted by the broker (the late_ack knob).
//
// The tie rule: a lease covers [delivery, expiry), so an ack at the very
// millisecond its lease expires is late. The expiry runs first (the message
// is visible again, or dead-lettered at max_receives), whichever step was
// scheduled first; then the ack meets late_ack.
func (w *World) ack(wi int, again bool) {
	wk := &w.workers[wi]
	m := w.msgs.ptr(int(wk.Msg)) // held by the worker: never released
	// A deleted message keeps the receipt it was last delivered with: if
	// that is this delivery's, still current, the ack is not late (it
	// becomes AckGoneNoop in ackNow).
	if (m.Status == StInFlight || m.Status == StDeleted) && m.Receives == wk.Delivery && !m.Deferred {
		if w.Now < m.Expiry {
			w.ackNow(wi, AckNormal)
			return
		}
		if w.Now == m.Expiry && !again {
			// the expiry due now has not run yet: let it
			w.schedule(item{t: w.Now, op: opAck, who: int16(wi), msg: 1})
			return
		}
	}
	natural := int64(boolIdx(w.Knobs.LateAckAccept))
	if w.decide(DecLateAck, wk.Msg, wi, wk.Delivery, natural, 0, 1, 0) == 1 {
		if m.Held() {
			w.ackNow(wi, AckLateDeleted)
		} else {
			w.ackNow(wi, AckLateNoop)
		}
		w.Stats.LateAccepted++
		return
	}
	w.Stats.LateRefused++
	w.emit(EvAckRefused, wk.Msg, wi, wk.Delivery, int64(wk.LeaseEnd), 0)
	w.finish(wi)
}

func (w *World) ackNow(wi int, how int64) {
	wk := &w.workers[wi]
	id := wk.Msg
	var val int64
	if how != AckLateNoop {
		if w.remove(id, w.msgForWrite(id), StDeleted) {
			w.Stats.Acks++
		} else {
			// deleted since this delivery by another worker's late ack
			how, val = AckGoneNoop, how
		}
	}
	w.emit(EvAck, id, wi, wk.Delivery, val, how)
	w.finish(wi)
}

// finish ends the worker's handler: it is idle and polls again.
func (w *World) finish(wi int) {
	w.release(wi)
	w.workers[wi].State = WIdle
	w.idle++
	w.workers[wi].Since = w.Now
	w.wake()
}

// release ends the worker's hold on its message without deciding what the
// worker does next.
func (w *World) release(wi int) {
	wk := &w.workers[wi]
	w.Stats.BusyMs += int64(w.Now - wk.Since)
	id := wk.Msg
	m := w.msgForWrite(id)
	m.Holders--
	if m.Holders == 0 && m.Status == StDeleted && m.Effects == 0 {
		w.goneWorked-- // nobody will act on it now: lost
	}
	w.maybeRetire(id, m)
	wk.Msg, wk.Delivery, wk.CallEnd, wk.claimed, wk.Wedged, wk.ackBefore = -1, 0, Never, false, false, false
}

func (w *World) crash(wi int, reason int64) {
	wk := &w.workers[wi]
	id, del := wk.Msg, wk.Delivery
	w.release(wi)
	wk.State = WDead
	wk.Since = w.Now
	w.Stats.Crashes++
	w.schedule(item{t: w.Now + w.Knobs.RestartAfter, op: opRestart, who: int16(wi)})
	w.emit(EvCrash, id, wi, del, int64(w.Now+w.Knobs.RestartAfter), reason)
}

func (w *World) restart(wi int) {
	wk := &w.workers[wi]
	wk.State = WIdle
	w.idle++
	wk.Since = w.Now
	w.emit(EvRestart, -1, wi, 0, 0, 0)
	w.wake()
}

func (w *World) renew(wi int, id int32, delivery uint16) {
	wk := &w.workers[wi]
	if wk.State != WBusy || wk.Msg != id || wk.Delivery != delivery || wk.Wedged || w.Now >= wk.CallEnd {
		return
	}
	m := w.msgForWrite(id)
	if m.Status != StInFlight || m.Receives != delivery || w.Now >= m.Expiry {
		return // the receipt has expired: ChangeMessageVisibility fails
	}
	m.Expiry = w.Now + w.Knobs.VisibilityTimeout
	wk.LeaseEnd = m.Expiry
	w.schedule(item{t: m.Expiry, op: opLeaseExpire, msg: id, delivery: delivery})
	w.schedule(item{t: w.Now + w.Knobs.Heartbeat, op: opRenew, who: int16(wi), msg: id, delivery: delivery})
	w.emit(EvRenew, id, wi, delivery, int64(m.Expiry), 0)
}

func (w *World) leaseExpire(id int32, delivery uint16) {
	m := w.msgs.ptr(int(id))
	if m == nil || m.Status != StInFlight || m.Receives != delivery || m.Expiry != w.Now {
		return // acked, renewed or superseded since
	}
	holder := m.Holder
	mm := w.msgForWrite(id)
	if int(mm.Receives) >= w.Knobs.MaxReceives {
		w.deadLetter(id, mm)
		return
	}
	deferred := mm.Deferred
	w.unlease(id)
	w.setVisible(id, mm)
	if w.Knobs.Mode == ModeStandard {
		w.enqueue(id, mm)
	}
	w.emit(EvLeaseExpired, id, int(holder), delivery, 0, int64(boolIdx(deferred)))
	w.wake()
}

func (w *World) deadLetter(id int32, m *Msg) {
	if !w.remove(id, m, StDLQ) {
		return // gone already: nothing to move
	}
	if !w.countOnly {
		i := w.dlq.push(w.owner)
		*w.dlq.mut(i, w.owner) = DeadLetter{Msg: id, Receives: m.Receives, Effects: m.Effects, Poison: m.Poison && !m.Repaired,
			Source: m.Source, Published: m.Published, At: w.Now}
	}
	w.dlqLen++
	w.Stats.DLQTotal++
	w.Stats.DLQPeak = max(w.Stats.DLQPeak, int64(w.dlqLen))
	w.emit(EvDLQ, id, -1, m.Receives, int64(m.Effects), 0)
	for i, a := range w.spec.Alerts {
		if a.Kind == AlertDLQNonEmpty && w.AlertAt[i] < 0 {
			w.schedule(item{t: w.Now, op: opAlert, who: int16(i)})
		}
	}
	for i, a := range w.spec.WouldHave {
		if a.Kind == AlertDLQNonEmpty && w.WouldAt[i] < 0 {
			w.schedule(item{t: w.Now, op: opAlert, who: int16(i), delivery: 1})
		}
	}
	for i, o := range w.spec.Operators {
		if !w.opDone[i] && o.WhenDLQ > 0 && w.dlqLen >= o.WhenDLQ {
			w.opDone[i] = true
			w.schedule(item{t: w.Now, op: opOperator, who: int16(i)})
		}
	}
	// in an ordered queue the message behind it is now the head
	w.wake()
}

// remove takes a message out of the broker (acked or dead-lettered),
// recording the oldest message's age as it goes. It reports false, and
// changes nothing, for a message the broker no longer holds: a removal
// is counted once.
func (w *World) remove(id int32, m *Msg, st MsgStatus) bool {
	if !m.Held() {
		return false
	}
	if int32(w.advanceOldest()) == id {
		w.Stats.MaxOldestAge = max(w.Stats.MaxOldestAge, w.Now-m.Published)
	}
	switch m.Status {
	case StVisible:
		w.visible--
	case StInFlight:
		w.unlease(id)
	}
	m.Status = st
	m.Holder = -1
	if st == StDeleted {
		w.countGone(m, 1)
	}
	w.maybeRetire(id, m)
	return true
}

// countGone adds d to the counters of deleted messages behind States as
// m (just deleted, or about to be held again) enters or leaves them.
func (w *World) countGone(m *Msg, d int64) {
	w.gone += d
	switch {
	case m.Effects > 0:
		w.goneDone += d
	case m.Holders > 0:
		w.goneWorked += d
	}
}

func (w *World) maybeRetire(id int32, m *Msg) {
	if m.Holders == 0 && (m.Status == StDeleted || m.Status == StDLQ) {
		w.msgs.retire(int(id), w.owner)
	}
}

// advanceOldest moves the cursor past messages the broker no longer holds
// and returns it. Ids grow with publish time, so the cursor is the oldest
// held message.
func (w *World) advanceOldest() int {
	for w.oldest < w.msgs.n {
		m, ok := w.msgs.at(w.oldest)
		if !ok {
			w.oldest = (w.oldest/leafSize + 1) * leafSize
			continue
		}
		if m.Held() {
			break
		}
		w.oldest++
	}
	return w.oldest
}

// OldestAge is the age of the oldest message the broker holds, or -1.
func (w *World) OldestAge() Duration {
	i := w.advanceOldest()
	if i >= w.msgs.n {
		return -1
	}
	m, _ := w.msgs.at(i)
	return w.Now - m.Published
}

func (w *World) ensureAgeCheck() {
	at := Never
	for i, a := range w.spec.Alerts {
		if a.Kind == AlertOldestAge && w.AlertAt[i] < 0 {
			i := w.advanceOldest()
			if i >= w.msgs.n {
				return
			}
			m, _ := w.msgs.at(i)
			at = min(at, m.Published+a.Threshold)
		}
	}
	if at == Never || (w.ageCheckAt >= 0 && w.ageCheckAt <= at) {
		return
	}
	w.ageCheckAt = at
	w.schedule(item{t: max(at, w.Now), op: opAgeCheck, bg: true})
}

func (w *World) ageCheck() {
	w.ageCheckAt = -1
	if age := w.OldestAge(); age >= 0 {
		for i, a := range w.spec.Alerts {
			if a.Kind == AlertOldestAge && w.AlertAt[i] < 0 && age >= a.Threshold {
				w.fireAlert(i, false)
				break
			}
		}
	}
	w.ensureAgeCheck()
}

func (w *World) fireAlert(i int, would bool) {
	if would {
		if w.WouldAt[i] >= 0 {
			return
		}
		w.WouldAt[i] = w.Now
	} else {
		if w.AlertAt[i] >= 0 {
			return
		}
		w.AlertAt[i] = w.Now
	}
	w.emit(EvAlert, -1, -1, 0, int64(i), int64(boolIdx(would)))
}

// operate runs operator i's action.
func (w *World) operate(i int) {
	a := w.spec.Operators[i].Action
	if w.fam != nil {
		fo, ok := w.fam.(FamilyOperator)
		if !ok {
			panic(fmt.Sprintf("operator %d: action %s in a family that has none", i, a))
		}
		fo.Operate(w, i, a)
		return
	}
	switch a {
	case ActionRepairRedrive:
		w.repairRedrive(i)
	default:
		panic(fmt.Sprintf("operator %d: action %s in a world that has none", i, a))
	}
}

// repairRedrive is the queue's repair_redrive: the repair script gives
// every dead letter its missing field and redrives it to the tail of the
// queue.
func (w *World) repairRedrive(i int) {
	n := 0
	for j := 0; j < w.dlq.n; j++ {
		d, _ := w.dlq.at(j)
		if d.Redriven {
			continue
		}
		w.dlq.mut(j, w.owner).Redriven = true
		m := w.msgForWrite(d.Msg)
		if m.Holders == 0 {
			w.msgs.unretire(int(d.Msg), w.owner)
			*m = Msg{Published: d.Published, Effects: d.Effects, Source: d.Source, ClaimAt: -1, SentAt: -1, Poison: d.Poison}
		}
		m.Repaired = true
		m.Receives = 0 // the redrive sends it as a new message
		w.setVisible(d.Msg, m)
		w.enqueue(d.Msg, m)
		w.oldest = min(w.oldest, int(d.Msg))
		n++
	}
	w.dlqLen = 0
	w.Stats.Redriven += int64(n)
	w.emit(EvRedrive, -1, -1, 0, int64(n), int64(i))
	w.wake()
	w.ensureAgeCheck()
}

func (w *World) applyKnobs() {
	if len(w.pending) == 0 {
		return
	}
	// validated when scheduled
	was := w.Knobs
	_ = w.Knobs.Apply(w.pending)
	if w.fam == nil {
		if was.Mode != w.Knobs.Mode && w.Knobs.Mode == ModeOrdered {
			w.rehome()
		}
		if w.Knobs.Orders > was.Orders {
			w.resumeSources()
		}
	}
	n := len(w.pending)
	w.applied = w.pending
	w.pending = nil
	w.emit(EvKnob, -1, -1, 0, int64(n), 0)
	w.wake()
}

// rehome gives every message a standard queue holds a place in the ordered
// queue a fork switches to: the visible ones and the ones in flight (a
// standard queue keeps no place for those), in the order they last entered
// the queue. A message in flight at the switch is then the head it was, and
// nothing published after it overtakes it.
func (w *World) rehome() {
	type place struct {
		age uint32 // enqueues since: wraps safely, the queue is far shorter
		id  int32
	}
	var held []place
	for i := 0; i < w.queue.len(); i++ {
		q := w.queue.at(i)
		if m := w.msgs.ptr(int(q.id)); m != nil && m.QSeq == q.qseq && m.Status == StVisible {
			held = append(held, place{w.qseq - m.QSeq, q.id})
		}
	}
	for _, id := range w.leased {
		held = append(held, place{w.qseq - w.msgs.ptr(int(id)).QSeq, id})
	}
	slices.SortFunc(held, func(a, b place) int {
		if a.age != b.age {
			return cmp.Compare(b.age, a.age)
		}
		return cmp.Compare(a.id, b.id)
	})
	w.queue = deque{}
	for _, p := range held {
		w.enqueue(p.id, w.msgForWrite(p.id))
	}
}

// resumeSources restarts a source whose count a fork raised after its
// publishing had ended: it publishes at its own spacing from the fork on
// (the slots already past stay empty).
func (w *World) resumeSources() {
	for i := range w.spec.Sources {
		s := &w.spec.Sources[i]
		k := w.srcSent[i]
		if k >= w.sourceCount(i) || w.publishPending(i) {
			continue
		}
		if s.Every > 0 && s.Start+s.Every*Time(k) < w.Now {
			k = int((w.Now - s.Start + s.Every - 1) / s.Every)
		}
		if k < w.sourceCount(i) {
			w.schedule(item{t: max(w.Now, s.Start+s.Every*Time(k)), op: opPublish, who: int16(i), msg: int32(k)})
		}
	}
}

func (w *World) publishPending(src int) bool {
	for _, it := range w.heap {
		if it.op == opPublish && int(it.who) == src {
			return true
		}
	}
	for _, it := range w.soon[w.soonHead:] {
		if it.op == opPublish && int(it.who) == src {
			return true
		}
	}
	return false
}

// deliverable reports whether an idle worker could take a message now,
// without changing anything (see head).
func (w *World) deliverable() bool {
	if w.fam != nil || w.idle == 0 || w.visible == 0 {
		return false
	}
	for i := 0; i < w.queue.len(); i++ {
		q := w.queue.at(i)
		m := w.msgs.ptr(int(q.id))
		if m == nil || m.QSeq != q.qseq {
			continue
		}
		switch {
		case m.Status == StVisible:
			return true
		case m.Status == StInFlight && w.Knobs.Mode == ModeOrdered:
			return false
		}
	}
	return false
}

// revive is the settled-state rule: a run settles only when no message can
// move again, so when nothing live is left while a message waits for an
// idle worker, it dispatches. Every move wakes the dispatcher itself; this
// is the guard that no missing wake can strand a queue.
func (w *World) revive() bool {
	if w.dispatchOn || !w.deliverable() {
		return false
	}
	w.revived++ // a missing wake: tests assert it stays 0
	w.wake()
	return w.live > 0
}
