package sqs

import (
	"fmt"

	"inflight/engine"
)

// The queue's operator actions that reach into the workers and the queue
// itself: purge, wedge=W, workers=-N. None of them runs on a branch that
// does not take it; the model's hot path only tests a flag for them
// (Worker.wedgeNext in callReturn, Family.stopping in finish).

// purge is PurgeQueue: every message the queue holds is deleted, visible
// or in flight. A worker on a purged message works on: its lease expiry
// finds the message gone, its ack deletes nothing. The dead letter queue
// is a queue of its own: a purge of the main queue leaves it.
func (q *Family) purge(w *engine.World) {
	var ids []int32
	for i := 0; i < q.queue.len(); i++ {
		e := q.queue.at(i)
		if m := w.Truth().MsgPtr(e.id); m != nil && q.current(e) && m.Status == engine.StVisible {
			ids = append(ids, e.id)
		}
	}
	flying := len(q.leased)
	ids = append(ids, q.leased...) // a copy: remove changes q.leased
	for _, id := range ids {
		m := w.Truth().MsgForWrite(id)
		if m.Status == engine.StInFlight {
			r := q.rec(id)
			r.Ended, r.EndedBy, r.EndedOf = EndPurged, r.Holder, m.Receives
		}
		q.remove(w, id, m, engine.StDeleted)
	}
	q.queue = deque{} // every entry is stale now
	w.Emit(EvPurge, -1, -1, 0, int64(len(ids)), int64(flying))
	w.Truth().WatchAge()
}

// operatorWedge wedges worker wi's provider call: the one in flight now,
// or else the next one it makes (the call's return is where wedge_p
// wedges it too). A wedged worker's process is alive, so no supervisor
// restarts it.
func (q *Family) operatorWedge(w *engine.World, wi int) {
	wk := &q.workers[wi]
	if wk.State == WGone || wk.Wedged || wk.wedgeNext {
		return // changed since it was checked at the same clock: nothing to do
	}
	// a call whose answer is due now and not yet heard is wedged at its
	// return (wedgeNext); one that has answered is not in flight
	if wk.State == WBusy && wk.CallEnd != engine.Never && w.Now < wk.CallEnd {
		wk.gen++ // the call's return, due later, is dropped: it never comes
		q.wedge(w, wi, wedgeByOperator)
		return
	}
	wk.wedgeNext = true
	w.Emit(EvWedge, -1, wi, 0, 0, wedgeArmed)
}

// stopPlan names the n workers workers=-n stops, in the order it takes
// them: now (idle, not started or dead) and later (busy: once their
// message is done; a wedged one last).
func (q *Family) stopPlan(n int) (now, later []string) {
	for _, i := range q.stopOrder(n) {
		if q.workers[i].State == WBusy {
			later = append(later, q.workers[i].Name+" after its message")
		} else {
			now = append(now, q.workers[i].Name)
		}
	}
	return now, later
}

// stopOrder picks the n workers to stop: idle (or not started) first, then
// dead, then busy, then wedged; the newest first in each.
func (q *Family) stopOrder(n int) []int {
	rank := func(wk *Worker) int {
		switch {
		case wk.State == WGone || wk.stopping:
			return -1
		case wk.State == WIdle || wk.State == WOff:
			return 0
		case wk.State == WDead:
			return 1
		case !wk.Wedged:
			return 2
		}
		return 3
	}
	var out []int
	for r := 0; r < 4 && len(out) < n; r++ {
		for i := len(q.workers) - 1; i >= 0 && len(out) < n; i-- {
			if rank(&q.workers[i]) == r {
				out = append(out, i)
			}
		}
	}
	return out
}

// stopWorkers stops n workers (at least one stays, as checked; a stop
// due at the same clock as another may find fewer): the ones not busy at
// once, the busy ones when their handler ends (finish) or, if they die
// first, instead of their restart. Each stop is an event naming the
// worker, so the trace says who stopped when: one worker a step, the rest
// as the action's next step (the engine's one event per step).
func (q *Family) stopWorkers(w *engine.World, n int) {
	order := q.stopOrder(min(n, q.inService()-1))
	if len(order) == 0 {
		return
	}
	if len(order) > 1 {
		w.ContinueAction(engine.Action{Name: "workers", Arg: fmt.Sprintf("-%d", len(order)-1)})
	}
	i := order[0]
	wk := &q.workers[i]
	was := wk.State
	switch was {
	case WBusy:
		wk.stopping = true
		q.stopping++
		w.Emit(EvStop, -1, i, 0, stopLater, int64(was))
		return
	case WIdle:
		q.idle--
	}
	wk.State, wk.Since = WGone, w.Now
	w.Emit(EvStop, -1, i, 0, stopNow, int64(was))
}

// stopped ends a stopping worker who died before its handler ended.
func (q *Family) stopped(w *engine.World, wi int) {
	wk := &q.workers[wi]
	was := wk.State
	wk.stopping = false
	q.stopping--
	wk.State, wk.Since = WGone, w.Now
	w.Emit(EvStop, -1, wi, 0, stopNow, int64(was))
}

// The Value of a stop event: the worker stops now, or once its handler
// ends. Its Aux is the state it stopped from (a WorkerState).
const (
	stopLater = 0
	stopNow   = 1
)

// inServiceOf counts the workers not stopped (for the panes).
func inServiceOf(workers []Worker) int {
	n := 0
	for i := range workers {
		if workers[i].State != WGone {
			n++
		}
	}
	return n
}

// WorkerName names worker i for the trace, an added one too
// (engine.FamilyWorkerNames).
func (q *Family) WorkerName(i int) string {
	if i < 0 || i >= len(q.workers) {
		return ""
	}
	return q.workers[i].Name
}
