package engine

// broker is the SQS-like queue's own state: the queue and its leases, the
// workers that poll it, the sources that publish to it and the letters of
// its dead letter queue. The kernel's state (clock, steps, the ground truth
// per message and the counts behind States, alerts, operators, the
// fingerprint) stays in World. The world embeds a broker while the queue's
// model (model.go) still runs as world methods; it is the state the queue
// takes with it when it becomes a Family in engine/families/sqs.
type broker struct {
	queue   deque   // standard: visible ids; ordered: every held id in order
	qseq    uint32  // enqueue stamps handed out
	leased  []int32 // in-flight ids, for the in-flight pane
	visible int     // messages in StVisible
	idle    int     // workers in WIdle
	workers []Worker
	srcSent []int // per source: messages it has published
	dlq     cowVec[DeadLetter]
	// countOnly: keep only counts of dead letters, not the letters. A
	// headless run that no operator redrives keeps memory flat this way.
	countOnly  bool
	revived    int // dispatches only the settled-state guard started
	dispatchOn bool
}

// clone copies the broker for a checkpoint or a fork, sharing unchanged
// leaves of the queue and the dead letters.
func (b *broker) clone() broker {
	c := *b
	c.queue = b.queue.clone()
	c.leased = append([]int32(nil), b.leased...)
	c.workers = append([]Worker(nil), b.workers...)
	c.srcSent = append([]int(nil), b.srcSent...)
	c.dlq = b.dlq.clone()
	return c
}

// Workers lists the workers (read-only).
func (b *broker) Workers() []Worker { return b.workers }

// Leased lists the ids of messages in flight (read-only).
func (b *broker) Leased() []int32 { return b.leased }

// QueueLen is the number of messages waiting in the queue (visible).
func (b *broker) QueueLen() int { return b.visible }

// DeadLetters lists up to max dead letters still in the DLQ, newest first.
func (b *broker) DeadLetters(max int) []DeadLetter {
	var out []DeadLetter
	for i := b.dlq.n - 1; i >= 0 && len(out) < max; i-- {
		if d, ok := b.dlq.at(i); ok && !d.Redriven {
			out = append(out, d)
		}
	}
	return out
}

// setVisible, lease and unlease keep the visible count and the leased
// list, so that the panes' counts cost O(1).
func (b *broker) setVisible(id int32, m *Msg) {
	m.Status = StVisible
	m.Holder = -1
	m.Deferred = false
	b.visible++
}

func (b *broker) lease(id int32, m *Msg) {
	if m.Status == StVisible {
		b.visible--
	}
	m.Status = StInFlight
	b.leased = append(b.leased, id)
}

func (b *broker) unlease(id int32) {
	for i, x := range b.leased {
		if x == id {
			b.leased = append(b.leased[:i], b.leased[i+1:]...)
			return
		}
	}
}

// enqueue stamps the message with a world-unique sequence, so any entry an
// earlier enqueue left in the ring no longer matches it.
func (b *broker) enqueue(id int32, m *Msg) {
	b.qseq++
	m.QSeq = b.qseq
	b.queue.pushBack(qentry{id, m.QSeq})
}
