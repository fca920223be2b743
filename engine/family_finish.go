package engine

// Finish is Done for a system that may hand the message out again later
// (a Kafka record read again after a rebalance or a crash): the system no
// longer holds it, so the oldest-age figures move past it, but its ground
// truth stays in memory, so a later effect still counts as a duplicate.
// (Done releases finished messages' memory; an effect on a released one
// would start its count again.)
func (w *World) Finish(id int32) {
	m := w.msgForWrite(id)
	if !m.Held() {
		return
	}
	if int32(w.advanceOldest()) == id {
		w.Stats.MaxOldestAge = max(w.Stats.MaxOldestAge, w.Now-m.Published)
	}
	m.Status = StDeleted
	w.countGone(m, 1)
}

// Hold says the system holds message id again after Finish: a record is
// being read again. Its age still counts from its first publication.
func (w *World) Hold(id int32) {
	m := w.msgForWrite(id)
	if m.Held() || m.Status == StUnpublished {
		return
	}
	switch m.Status {
	case StDeleted:
		w.countGone(m, -1)
	case StDLQ:
		w.dlqLen--
	}
	m.Status = StHeld
	w.oldest = min(w.oldest, int(id))
	w.ensureAgeCheck()
}
