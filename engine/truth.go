package engine

import "unsafe"

// Truth is the world's ground truth per message, whatever system carries
// it: each message's record, the dead letter queue, the counts behind
// States and the cursor at the oldest held message. A family's model
// (engine/families/<name>) moves its messages through these calls; the
// world's clock, counters and alerts see each change.
type Truth struct {
	w      *World // whose clock stamps the records and whose Stats count them
	msgs   cowVec[Msg]
	dlq    cowVec[DeadLetter]
	dlqLen int
	// countOnly: keep only counts of dead letters, not the letters. A
	// headless run that no operator redrives keeps memory flat this way.
	countOnly bool
	// deleted messages, those with an effect, and those without one that a
	// handler is still running on: the counts behind States
	gone, goneDone, goneWorked int64
	oldest                     int           // cursor: no id below it is held
	backs                      int64         // times a message below the cursor was held again (see watch.arm)
	owner                      *token        // the leaves this world may write in place
	recs                       FamilyRecords // the family, when it keeps a table per message: told of retirements
}

// clone is t's copy for world c: it shares t's leaves until either writes.
func (t *Truth) clone(c *World) Truth {
	n := *t
	n.w = c
	n.msgs = t.msgs.clone()
	n.dlq = t.dlq.clone()
	n.recs, _ = c.fam.(FamilyRecords)
	n.owner = &token{}
	if t.msgs.owns(t.owner) || t.dlq.owns(t.owner) {
		// the original must now copy shared leaves too; one that owns
		// none (a checkpoint) is left unwritten, for concurrent clones
		t.owner = &token{}
	}
	return n
}

// Msg reads message id. ok is false for an id never published or a
// message the world has finished with (deleted, its leaf released).
func (t *Truth) Msg(id int32) (Msg, bool) {
	if id < 0 || int(id) >= t.msgs.n {
		return Msg{}, false
	}
	return t.msgs.at(int(id))
}

// MsgPtr is message id's record for reading only, or nil when the world
// has finished with it: the hot path's read, without a copy.
func (t *Truth) MsgPtr(id int32) *Msg { return t.msgs.ptr(int(id)) }

// MsgForWrite is message id's record, to change: a family counts its
// deliveries (Receives) and its holders, and moves the status between the
// held ones (StHeld, StVisible, StInFlight); Remove, Done and DeadLetter
// take it out of the system. The leaf holding it is copied first if a
// checkpoint shares it. The family's own state per message is its own
// (see FamilyRecords).
func (t *Truth) MsgForWrite(id int32) *Msg { return t.msgs.mut(int(id), t.owner) }

// NewMessage publishes a message into the ground truth: the family's
// system now holds it, it has no effect yet.
func (t *Truth) NewMessage() int32 {
	id := int32(t.msgs.push(t.owner))
	*t.MsgForWrite(id) = Msg{Published: t.w.Now, Status: StHeld}
	t.w.Stats.Published++
	t.w.watch.arm()
	return id
}

// AddMessage publishes a message from source src into the ground truth
// and returns its record to place (its status is StHeld): NewMessage
// without the oldest-age watch, which the caller starts with WatchAge
// once the step's event is out.
func (t *Truth) AddMessage(src uint8, poison bool) (int32, *Msg) {
	id := int32(t.msgs.push(t.owner))
	m := t.MsgForWrite(id)
	*m = Msg{Published: t.w.Now, Source: src, Poison: poison, Status: StHeld}
	t.w.Stats.Published++
	return id, m
}

// WatchAge schedules the oldest_age alerts' next check, if any is due.
func (t *Truth) WatchAge() { t.w.watch.arm() }

// Effect counts one effect on message id (an email, a credit, a row); a
// second one on the same message is a duplicate.
func (t *Truth) Effect(id int32) int {
	m := t.MsgForWrite(id)
	m.Effects++
	st := &t.w.Stats
	st.Effects++
	if m.Effects == 1 {
		if m.Status == StDeleted { // acked before the work: lost until now
			t.goneDone++
			if m.Holders > 0 {
				t.goneWorked--
			}
		}
		st.Effected++
	} else {
		st.Duplicates++
	}
	st.LastEffect = t.w.Now
	return int(m.Effects)
}

// Done says the system no longer holds message id (acked, committed past,
// stored or thrown away).
func (t *Truth) Done(id int32) {
	if m := t.MsgForWrite(id); m.Held() {
		t.remove(id, m, StDeleted)
	}
}

// DeadLetter moves message id to the dead letter queue.
func (t *Truth) DeadLetter(id int32) {
	if m := t.MsgForWrite(id); m.Held() {
		t.deadLetter(id, m)
	}
}

// Remove takes message id (m, its record from MsgForWrite) out of the
// system with status st (StDeleted or StDLQ, the latter without the dead
// letter queue's bookkeeping: use DeadLetter). It reports false, and
// changes nothing, for a message the system no longer holds.
func (t *Truth) Remove(id int32, m *Msg, st MsgStatus) bool { return t.remove(id, m, st) }

// Release ends one worker's hold on message id (Msg.Holders, which the
// family counts up when a worker takes it): a deleted message nobody
// works on any more without an effect is lost from now on.
func (t *Truth) Release(id int32) {
	m := t.MsgForWrite(id)
	m.Holders--
	if m.Holders == 0 && m.Status == StDeleted && m.Effects == 0 {
		t.goneWorked-- // nobody will act on it now: lost
	}
	t.maybeRetire(id, m)
}

// Handling tells the world that one of a family's handlers starts (delta
// +1) or stops (delta -1) working on message id. As with the queue's
// workers (Msg.Holders), a message someone is still handling keeps its
// ground truth in memory after the system lets it go — dead-lettered
// under a lease that ran out mid-handler — so an effect the handler still
// makes lands on the message's own record instead of a released one.
func (t *Truth) Handling(id int32, delta int) {
	m := t.MsgForWrite(id)
	if delta > 0 {
		m.Holders++
		return
	}
	if m.Holders == 0 {
		return
	}
	m.Holders--
	if m.Holders == 0 && m.Status == StDeleted && m.Effects == 0 {
		t.goneWorked-- // deleted before its work and nobody works on it now: lost
	}
	t.maybeRetire(id, m)
}

// Finish is Done for a system that may hand the message out again later
// (a Kafka record read again after a rebalance or a crash): the system no
// longer holds it, so the oldest-age figures move past it, but its ground
// truth stays in memory, so a later effect still counts as a duplicate.
// (Done releases finished messages' memory; an effect on a released one
// would start its count again.)
func (t *Truth) Finish(id int32) {
	m := t.MsgForWrite(id)
	if !m.Held() {
		return
	}
	t.passOldest(id, m)
	m.Status = StDeleted
	t.countGone(m, 1)
}

// Hold says the system holds message id again after Finish: a record is
// being read again. Its age still counts from its first publication.
func (t *Truth) Hold(id int32) {
	m := t.MsgForWrite(id)
	if m.Held() || m.Status == StUnpublished {
		return
	}
	switch m.Status {
	case StDeleted:
		t.countGone(m, -1)
	case StDLQ:
		t.dlqLen--
	}
	m.Status = StHeld
	t.oldest = min(t.oldest, int(id))
	t.backs++
	t.w.watch.arm()
}

// remove takes a message out of its system (acked or dead-lettered),
// recording the oldest message's age as it goes. It reports false, and
// changes nothing, for a message the system no longer holds: a removal
// is counted once.
func (t *Truth) remove(id int32, m *Msg, st MsgStatus) bool {
	if !m.Held() {
		return false
	}
	t.passOldest(id, m)
	m.Status = st
	if st == StDeleted {
		t.countGone(m, 1)
	}
	t.maybeRetire(id, m)
	return true
}

// passOldest records the oldest message's age as message id (m), about to
// leave the system, stops being held.
func (t *Truth) passOldest(id int32, m *Msg) {
	if int32(t.advanceOldest()) == id {
		t.w.Stats.MaxOldestAge = max(t.w.Stats.MaxOldestAge, t.w.Now-m.Published)
	}
}

// countGone adds d to the counters of deleted messages behind States as
// m (just deleted, or about to be held again) enters or leaves them.
func (t *Truth) countGone(m *Msg, d int64) {
	t.gone += d
	switch {
	case m.Effects > 0:
		t.goneDone += d
	case m.Holders > 0:
		t.goneWorked += d
	}
}

func (t *Truth) maybeRetire(id int32, m *Msg) {
	if m.Holders == 0 && (m.Status == StDeleted || m.Status == StDLQ) {
		t.msgs.retire(int(id), t.owner)
		if t.recs != nil {
			t.recs.Retired(id)
		}
	}
}

// advanceOldest moves the cursor past messages the system no longer holds
// and returns it. Ids grow with publish time, so the cursor is the oldest
// held message.
func (t *Truth) advanceOldest() int {
	for t.oldest < t.msgs.n {
		// through the pointer: a copy of the record, read back at once,
		// stalls on the store of the copy
		m := t.msgs.ptr(t.oldest)
		if m == nil {
			t.oldest = (t.oldest/leafSize + 1) * leafSize
			continue
		}
		if m.Held() {
			break
		}
		t.oldest++
	}
	return t.oldest
}

// oldestPublished is when the oldest message the system holds was
// published; ok is false when it holds none.
func (t *Truth) oldestPublished() (Time, bool) {
	i := t.advanceOldest()
	if i >= t.msgs.n {
		return 0, false
	}
	return t.msgs.ptr(i).Published, true // held: its leaf is there
}

// OldestAge is the age of the oldest message the system holds, or -1.
func (t *Truth) OldestAge() Duration {
	p, ok := t.oldestPublished()
	if !ok {
		return -1
	}
	return t.w.Now - p
}

// HeldWithoutEffect counts the messages the world (or a family's system)
// still holds that have had no effect yet (States counts every state in
// O(1); this is for tests that want the unworked share). It scans from the
// oldest held message, so it costs the span of messages still in play.
func (t *Truth) HeldWithoutEffect() int {
	n := 0
	for i := t.advanceOldest(); i < t.msgs.n; i++ {
		if m, ok := t.msgs.at(i); ok && m.Held() && m.Effects == 0 {
			n++
		}
	}
	return n
}

// states reads the counts behind World.States.
func (t *Truth) states(published int64) States {
	dlq := int64(t.dlqLen)
	return States{
		Published: published,
		Held:      published - dlq - t.gone + t.goneWorked,
		Done:      t.goneDone,
		DLQ:       dlq,
		Lost:      t.gone - t.goneDone - t.goneWorked,
	}
}

// tableBytes is the leaf tables' share of a checkpoint's estimated size.
func (t *Truth) tableBytes() int64 {
	return int64(len(t.msgs.leaves)+len(t.dlq.leaves)) * int64(unsafe.Sizeof(uintptr(0)))
}

// leafBytes is the size of the leaves this world owns: written since its
// last clone, so no checkpoint shares them.
func (t *Truth) leafBytes() int64 {
	var n int64
	for _, l := range t.msgs.leaves {
		if l != nil && l.owner == t.owner {
			n += int64(unsafe.Sizeof(*l))
		}
	}
	for _, l := range t.dlq.leaves {
		if l != nil && l.owner == t.owner {
			n += int64(unsafe.Sizeof(*l))
		}
	}
	return n
}
