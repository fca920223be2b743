package ordering

import (
	"inflight/engine"
	"inflight/engine/kafka"
)

func (f *Family) threadsWanted(w *engine.World) int { return max(1, f.k.ConsumerThreads) }

func (f *Family) kickAll(w *engine.World) {
	for i := range f.Cons {
		f.kick(w, i)
	}
}

// kick schedules a poll for consumer i when its buffer is empty and a
// thread is free (one thread: when it is idle, so records are handled in
// the order the partition holds them).
func (f *Family) kick(w *engine.World, i int) {
	c := &f.Cons[i]
	if c.Leaving || c.Gone {
		f.stopping(w, i)
		return
	}
	if (c.Polling && !c.PollBG) || len(c.Buf) > 0 || c.running() >= f.threadsWanted(w) {
		return
	}
	f.schedulePoll(w, i, w.Now, false)
}

// schedulePoll replaces consumer i's pending poll: an idle poll is a
// background step once nothing is left to do, and new work must not wait
// behind one (the run could end first).
func (f *Family) schedulePoll(w *engine.World, i int, at engine.Time, bg bool) {
	c := &f.Cons[i]
	c.PollGen++
	c.Polling, c.PollBG = true, bg
	w.Schedule(at, engine.FamilyStep{Op: opPoll, Actor: int16(i), Gen: c.PollGen}, bg)
}

// workLeft says whether anything remains to produce, handle or commit.
func (f *Family) workLeft() bool {
	if !f.LastOrder || f.Produced < 3*f.Orders || f.PendingTail > 0 {
		return true
	}
	for i := range f.Cons {
		if len(f.Cons[i].Buf) > 0 || f.Cons[i].running() > 0 {
			return true
		}
	}
	for p := 0; p < f.C.Partitions(Topic); p++ {
		tp := kafka.TP{Topic: Topic, Partition: p}
		if off, _ := f.C.Committed(Group, tp); off < f.C.LogEndOffset(tp) {
			return true
		}
	}
	return false
}

func (f *Family) poll(w *engine.World, i int, gen uint16) {
	c := &f.Cons[i]
	if gen != c.PollGen {
		return // replaced by a later poll
	}
	c.Polling = false
	if c.Leaving || c.Gone {
		return // stopped: it polls no more (its leave step is due or done)
	}
	if len(c.Buf) > 0 || c.running() >= f.threadsWanted(w) {
		return
	}
	recs := c.C.Poll(f.C, int64(w.Now))
	if len(recs) > 0 {
		c.Buf = recs
		w.Emit(EvPoll, -1, -1, 0, int64(len(recs)), int64(i))
		f.dispatch(w, i)
		return
	}
	left := f.workLeft()
	f.schedulePoll(w, i, w.Now+PollIdle, !left)
}

// dispatch hands buffered records to free threads, in buffer order.
func (f *Family) dispatch(w *engine.World, i int) {
	c := &f.Cons[i]
	t := f.threadsWanted(w)
	for len(c.Threads) < t {
		c.Threads = append(c.Threads, thread{})
	}
	for th := 0; th < t && len(c.Buf) > 0; th++ {
		if c.Threads[th].Busy {
			continue
		}
		c.Threads[th] = thread{Busy: true, Rec: c.Buf[0]}
		c.Buf = c.Buf[1:]
		w.Schedule(w.Now, engine.FamilyStep{Op: opStart, Actor: int16(i), Gen: uint16(th)}, false)
	}
	if len(c.Buf) == 0 {
		c.Buf = nil
	}
	f.kick(w, i)
}

// start: a thread begins an attempt at its record. How long it takes is a
// decision (it is what interleaves the threads).
func (f *Family) start(w *engine.World, i, th int) {
	t := &f.Cons[i].Threads[th]
	id := msgOf(t.Rec.Record)
	f.Attempts[id]++
	t.Attempt, t.Waiting = f.Attempts[id], false
	w.Truth().Hold(id) // a record read again after a rebalance is held again
	natural := engine.Uniform(w.Draw(streamHandle, uint64(id), uint64(t.Attempt)), int64(HandleMin), int64(HandleMax))
	h := engine.Duration(w.Decide(DecHandle, id, -1, t.Attempt, natural, int64(HandleMin), int64(HandleMax)))
	t.Until = w.Now + h
	w.Stats.Count(1, 0, 0)
	w.Stats.AddBusy(h)
	w.Emit(engine.EvDeliver, id, -1, t.Attempt, int64(t.Rec.TP.Partition), deliverAux(t.Rec.Offset, i, th))
	w.Schedule(t.Until, engine.FamilyStep{Op: opEnd, Actor: int16(i), Gen: uint16(th)}, false)
}

// end: the attempt's database call succeeds or fails (a decision). A
// success applies the event, or, with versions, ignores one older than the
// version applied (stale) or of that version (a duplicate: the lesson
// ignores events "older than what you've already applied").
func (f *Family) end(w *engine.World, i, th int) {
	c := &f.Cons[i]
	t := &c.Threads[th]
	id := msgOf(t.Rec.Record)
	natural := int64(0)
	if engine.Chance(w.Draw(streamFail, uint64(id), uint64(t.Attempt)), FailP) {
		natural = 1
	}
	if w.Decide(DecFail, id, -1, t.Attempt, natural, 0, 1) == 1 {
		f.Fails++
		if f.k.RetryToTail {
			// the consumer moves on; the event goes to the back of the line
			// once the backoff is over
			w.Emit(EvFail, id, -1, t.Attempt, int64(t.Rec.TP.Partition), int64(w.Now+RetryBackoff)<<1|1)
			*t = thread{}
			f.PendingTail++
			w.Schedule(w.Now+RetryBackoff, engine.FamilyStep{Op: opRetryTail, Item: id}, false)
			f.dispatch(w, i)
			return
		}
		t.Waiting = true
		w.Emit(EvFail, id, -1, t.Attempt, int64(t.Rec.TP.Partition), int64(w.Now+RetryBackoff)<<1)
		w.Schedule(w.Now+RetryBackoff, engine.FamilyStep{Op: opStart, Actor: int16(i), Gen: uint16(th)}, false)
		return
	}
	o, v := f.MsgOrder[id], f.MsgVer[id]
	late := f.Seen[o] > v
	if late {
		f.OutOfOrder++
	}
	f.Seen[o] = max(f.Seen[o], v)
	f.Handled[o]++
	n := w.Truth().Effect(id)
	w.Truth().Finish(id) // handled: the age of the oldest unhandled event moves on
	part := int64(t.Rec.TP.Partition)
	*t = thread{}
	var aux int64
	if late {
		aux = 1
	}
	switch {
	case f.k.Versions && v < f.Status[o]:
		f.Ignored++
		w.Emit(EvStale, id, -1, uint16(n), part, int64(f.Status[o]))
	case f.k.Versions && v == f.Status[o]:
		f.IgnoredDup++
		w.Emit(EvDuplicate, id, -1, uint16(n), part, int64(f.Status[o]))
	default:
		prev := f.Status[o]
		f.Status[o] = v
		f.Applied++
		w.Emit(engine.EvEffect, id, -1, uint16(n), part, aux|int64(prev)<<1)
	}
	f.dispatch(w, i)
}

// WrongFinal counts orders whose applied status is not their last event's.
func (f *Family) WrongFinal() int {
	n := 0
	for _, s := range f.Status {
		if s != 3 {
			n++
		}
	}
	return n
}

// Figures implements engine.Family.
func (f *Family) Figures(w *engine.World) map[string]any {
	return map[string]any{
		"orders":            f.Orders,
		"out_of_order":      f.OutOfOrder,
		"wrong_final":       f.WrongFinal(),
		"ignored_stale":     f.Ignored,
		"ignored_duplicate": f.IgnoredDup,
		"applied":           f.Applied,
		"handler_failures":  f.Fails,
		"retried_to_tail":   f.ToTail,
		"rebalances":        f.Rebalances,
		"partitions":        f.C.Partitions(Topic),
		"sticky_switches":   f.Switches,
	}
}

// Counts implements engine.Family: records not yet fetched, and records
// fetched and not finished.
func (f *Family) Counts(w *engine.World) (waiting, taken int) {
	for p := 0; p < f.C.Partitions(Topic); p++ {
		tp := kafka.TP{Topic: Topic, Partition: p}
		pos, ok := int64(0), false
		for i := range f.Cons {
			if f.Cons[i].Gone {
				continue // its positions are client memory it no longer has
			}
			if q, has := f.Cons[i].C.Position(tp); has && (!ok || q > pos) {
				pos, ok = q, true
			}
		}
		if !ok {
			pos, _ = f.C.Committed(Group, tp)
		}
		waiting += int(max(0, f.C.LogEndOffset(tp)-pos))
	}
	for i := range f.Cons {
		taken += len(f.Cons[i].Buf) + f.Cons[i].running()
	}
	return waiting, taken
}

// deliverAux packs a delivery's offset, consumer and thread into its
// event's Aux: the offset above bit 8, the consumer in bits 4–7, the
// thread's low four bits in 0–3 and its high bits from bit 58 up
// (consumer_threads allows 64; a thread number cut to four bits would
// name the wrong thread). Threads below 16 pack as they always did, so
// their traces keep their hashes.
func deliverAux(off int64, consumer, thread int) int64 {
	return int64(thread>>4)<<auxThreadHigh | off<<8 | int64(consumer)<<4 | int64(thread&15)
}

// auxThreadHigh is where a delivery's thread number continues; offsets
// stay below 2^50.
const auxThreadHigh = 58

// unpackDeliver is deliverAux's inverse.
func unpackDeliver(aux int64) (off int64, consumer, thread int) {
	return (aux >> 8) & (1<<(auxThreadHigh-8) - 1), int(aux>>4) & 15, int(aux&15) | int(aux>>auxThreadHigh)<<4
}

// KnobsChanged implements engine.FamilyKnobs; the knobs are read where
// they act.
func (f *Family) KnobsChanged(w *engine.World, was *engine.Params) {}

// KnobsApplied wakes every consumer holding fetched records after the knob
// event, as every knob change wakes the dispatcher: more consumer_threads
// take buffered records at the fork's moment, not when a busy thread ends.
func (f *Family) KnobsApplied(w *engine.World) {
	for i := range f.Cons {
		if len(f.Cons[i].Buf) > 0 {
			f.dispatch(w, i)
		}
	}
}
