package sqs

import (
	"fmt"
	"unsafe"

	"inflight/engine"
)

// setVisible, lease and unlease keep the visible count and the leased
// list, so that the panes' counts cost O(1).
func (q *Family) setVisible(id int32, m *engine.Msg) {
	m.Status = engine.StVisible
	m.Holder = -1
	m.Deferred = false
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
func (q *Family) enqueue(id int32, m *engine.Msg) {
	q.qseq++
	m.QSeq = q.qseq
	q.queue.pushBack(qentry{id, m.QSeq})
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
	return w.Remove(id, m, st)
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
	label := w.Spec().Label
	if label == "" {
		label = "message"
	}
	many := func(n int64) string {
		if n == 1 {
			return fmt.Sprintf("1 %s", label)
		}
		return fmt.Sprintf("%d %ss", n, label)
	}
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
	case wedged == len(q.workers):
		return fmt.Sprintf("stalled: %d of %d workers wedged, %s waiting, %d in flight", wedged, len(q.workers), many(waiting), inFlight)
	}
	if q.k.Mode == ModeOrdered {
		for i := 0; i < q.queue.len(); i++ {
			e := q.queue.at(i)
			if m := w.MsgPtr(e.id); m != nil && m.QSeq == e.qseq && m.Held() {
				if m.Status == engine.StInFlight && m.Holder >= 0 && q.workers[m.Holder].Wedged {
					return fmt.Sprintf("stalled: the ordered queue's head (%s %d) is held by wedged worker %s, %s waiting behind it",
						label, e.id, q.workers[m.Holder].Name, many(waiting))
				}
				break
			}
		}
	}
	return fmt.Sprintf("stalled: %d of %d workers wedged, %s waiting, %d in flight", wedged, len(q.workers), many(waiting), inFlight)
}

// Footprint is what the queue adds to a checkpoint's estimated size.
func (q *Family) Footprint() int64 {
	return int64(unsafe.Sizeof(*q)) + int64(q.queue.n)*int64(unsafe.Sizeof(qentry{})) +
		int64(len(q.leased))*4 + int64(len(q.workers))*int64(unsafe.Sizeof(Worker{}))
}
