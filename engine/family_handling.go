package engine

// Handling tells the world that one of a family's handlers starts (delta
// +1) or stops (delta -1) working on message id. As with the queue's
// workers (Msg.Holders), a message someone is still handling keeps its
// ground truth in memory after the system lets it go — dead-lettered
// under a lease that ran out mid-handler — so an effect the handler still
// makes lands on the message's own record instead of a released one.
func (w *World) Handling(id int32, delta int) {
	m := w.msgForWrite(id)
	if delta > 0 {
		m.Holders++
		return
	}
	if m.Holders == 0 {
		return
	}
	m.Holders--
	if m.Holders == 0 && m.Status == StDeleted && m.Effects == 0 {
		w.goneWorked-- // deleted before its work and nobody works on it now: lost
	}
	w.maybeRetire(id, m)
}
