package sqs

import (
	"fmt"
	"unsafe"

	"inflight/engine"
)

// setVisible, lease and unlease keep the visible count and the leased
// list, so that the panes' counts cost O(1).
func (q *Family) setVisible(m *engine.Msg, r *Record) {
	m.Status = engine.StVisible
	r.Holder = -1
	r.Deferred = false
	q.visible++
}

func (q *Family) lease(id int32, m *engine.Msg) {
	if m.Status == engine.StVisible {
		q.visible--
	}
	m.Status = engine.StInFlight
	q.leased = append(q.leased, id)
}

func (q *Family) unlease(id int32) {
	for i, x := range q.leased {
		if x == id {
			q.leased = append(q.leased[:i], q.leased[i+1:]...)
			return
		}
	}
}

// enqueue stamps the message with a world-unique sequence, so any entry an
// earlier enqueue left in the ring no longer matches it.
func (q *Family) enqueue(id int32, r *Record) {
	q.qseq++
	r.QSeq = q.qseq
	q.queue.pushBack(qentry{id, r.QSeq})
}

// current reports whether queue entry e is its message's latest enqueue,
// the message not released.
func (q *Family) current(e qentry) bool {
	r := q.recs.Ptr(int(e.id))
	return r != nil && r.QSeq == e.qseq
}

// rec is message id's record, to change.
func (q *Family) rec(id int32) *Record { return q.recs.Mut(int(id)) }

// Record reads message id's record; ok is false for an id never published
// or a message released (as engine.World.Msg).
func (q *Family) Record(id int32) (Record, bool) {
	if q == nil || id < 0 || int(id) >= q.recs.Len() {
		return Record{}, false
	}
	return q.recs.At(int(id))
}

// newRecord starts message id's record as the kernel adds it.
func (q *Family) newRecord(id int32) *Record {
	if i := q.recs.Push(); i != int(id) {
		panic(fmt.Sprintf("sqs: record %d for message %d", i, id))
	}
	r := q.rec(id)
	*r = Record{ClaimAt: -1, SentAt: -1, Holder: -1}
	return r
}

// Retired releases message id's record with the kernel's.
func (q *Family) Retired(id int32) { q.recs.Retire(int(id)) }

// Revived gives message id a fresh record with the kernel's (a redrive).
func (q *Family) Revived(id int32) {
	q.recs.Unretire(int(id))
	*q.rec(id) = Record{ClaimAt: -1, SentAt: -1}
}

// unhold takes a held message out of the queue's counts, before the world
// removes it.
func (q *Family) unhold(id int32, m *engine.Msg) {
	switch m.Status {
	case engine.StVisible:
		q.visible--
	case engine.StInFlight:
		q.unlease(id)
	}
}

// remove takes a message out of the queue (acked or dead-lettered). It
// reports false, and changes nothing, for a message the queue no longer
// holds: a removal is counted once.
func (q *Family) remove(w *engine.World, id int32, m *engine.Msg, st engine.MsgStatus) bool {
	if !m.Held() {
		return false
	}
	q.unhold(id, m)
	q.rec(id).Holder = -1 // before the kernel may release it
	return w.Truth().Remove(id, m, st)
}

func boolIdx(b bool) int {
	if b {
		return 1
	}
	return 0
}

// KnobsChanged re-homes the messages a fork's switch to an ordered queue
// finds, and restarts a source whose count it raised.
func (q *Family) KnobsChanged(w *engine.World, was *engine.Params) {
	old := KnobsOf(was)
	if old.Mode != q.k.Mode && q.k.Mode == ModeOrdered {
		q.rehome(w)
	}
	if q.k.Orders > old.Orders {
		q.resumeSources(w)
	}
}

// KnobsApplied wakes the dispatcher after the knob event: a longer lease
// or a new mode may free a message.
func (q *Family) KnobsApplied(w *engine.World) { q.wake(w) }

// Running is what the summary reads off the workers at end: the time
// handlers still running have spent so far, the workers wedged, and how
// many of those have seen their message delivered again.
func (q *Family) Running(w *engine.World, end engine.Time) (busy int64, wedged, retried int) {
	for _, wk := range q.workers {
		if wk.State == WBusy {
			busy += int64(end - wk.Since)
			if wk.Wedged {
				wedged++
				if m, ok := w.Msg(wk.Msg); ok && m.Receives > wk.Delivery {
					retried++ // delivered again after its handler wedged
				}
			}
		}
	}
	return busy, wedged, retried
}

// Stalled words why a settled run still holds messages: no consumer, every
// worker wedged, or an ordered queue's head held by a wedged worker.
func (q *Family) Stalled(w *engine.World, st engine.States) string {
	many := w.Spec().Count
	wedged, started := 0, 0
	for _, wk := range q.workers {
		if wk.State != WOff {
			started++
		}
		if wk.State == WBusy && wk.Wedged {
			wedged++
		}
	}
	waiting := int64(q.visible)
	inFlight := st.Held - waiting
	switch {
	case started == 0:
		return fmt.Sprintf("stalled: no consumer, %s waiting", many(waiting))
	case wedged == inServiceOf(q.workers):
		return fmt.Sprintf("stalled: %d of %d workers wedged, %s waiting, %d in flight", wedged, inServiceOf(q.workers), many(waiting), inFlight)
	}
	if q.k.Mode == ModeOrdered {
		for i := 0; i < q.queue.len(); i++ {
			e := q.queue.at(i)
			if m := w.Truth().MsgPtr(e.id); m != nil && q.current(e) && m.Held() {
				r := q.recs.Ptr(int(e.id))
				if m.Status == engine.StInFlight && r.Holder >= 0 && q.workers[r.Holder].Wedged {
					return fmt.Sprintf("stalled: the ordered queue's head (%s) is held by wedged worker %s, %s waiting behind it",
						w.MsgName(e.id), q.workers[r.Holder].Name, many(waiting))
				}
				break
			}
		}
	}
	return fmt.Sprintf("stalled: %d of %d workers wedged, %s waiting, %d in flight", wedged, inServiceOf(q.workers), many(waiting), inFlight)
}

// Footprint is what the queue adds to a checkpoint's estimated size.
func (q *Family) Footprint() int64 {
	return int64(unsafe.Sizeof(*q)) + int64(q.queue.n)*int64(unsafe.Sizeof(qentry{})) +
		int64(len(q.leased))*4 + int64(len(q.workers))*int64(unsafe.Sizeof(Worker{})) +
		q.recs.Footprint()
}
