package fifo

// Stats counts a queue's messages at a moment, for the simulator's panes
// and run summary.
type Stats struct {
	Visible    int // queued and not in flight
	Inflight   int
	Deleted    int
	DLQ        int
	Accepted   int // distinct messages ever accepted
	Duplicates int // sends accepted but not delivered as duplicates
}

// Stats returns the counts at time now.
func (q *Queue) Stats(now int64) Stats {
	s := Stats{Accepted: len(q.msgs), Duplicates: q.duplicates}
	for i := range q.msgs {
		m := &q.msgs[i]
		switch {
		case m.State == Deleted:
			s.Deleted++
		case m.State == DeadLettered:
			s.DLQ++
		case m.inflight(now):
			s.Inflight++
		default:
			s.Visible++
		}
	}
	return s
}

// Message returns the stored message with a MessageId, if any.
func (q *Queue) Message(id string) (Message, bool) {
	for i := range q.msgs {
		if q.msgs[i].ID == id {
			return q.msgs[i], true
		}
	}
	return Message{}, false
}

// Messages returns a copy of every message ever accepted, in queue order:
// the ground truth behind what consumers see.
func (q *Queue) Messages() []Message {
	return append([]Message(nil), q.msgs...)
}

// DLQ returns copies of the dead-lettered messages in the order they were
// moved.
func (q *Queue) DLQ() []Message {
	out := make([]Message, len(q.dlq))
	for i, idx := range q.dlq {
		out[i] = q.msgs[idx]
	}
	return out
}

// NextVisible returns the earliest time after now at which an in-flight
// message's lease ends, so the simulator knows when to wake consumers
// blocked on a group. ok is false when nothing is in flight.
func (q *Queue) NextVisible(now int64) (at int64, ok bool) {
	for i := q.head; i < len(q.msgs); i++ {
		m := &q.msgs[i]
		if m.inflight(now) && (!ok || m.VisibleAt < at) {
			at, ok = m.VisibleAt, true
		}
	}
	return at, ok
}

// OldestAge is ApproximateAgeOfOldestMessage: the age at now of the oldest
// message still queued, in flight or not; 0 when the queue is empty.
func (q *Queue) OldestAge(now int64) int64 {
	for i := q.head; i < len(q.msgs); i++ {
		if q.msgs[i].State == Queued {
			return now - q.msgs[i].SentAt
		}
	}
	return 0
}
