package randsuite

import "inflight/engine"

// The broker rules of the queues: the SQS-like queue, fifo-window's
// dedup records, cashback's stream entries, stagefront's leases.

// --- the SQS-like queue: the tally checks leases; here, receive counts
// against the max_receives in force, and the holdings ---

type queueRules struct {
	recv    []uint16 // receive count per message: the last delivery's number
	dlq     []int32
	deliv   int64
	redrive engine.Kind
}

func (q *queueRules) deliveries() int64 { return q.deliv }

func (q *queueRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	switch e.Kind {
	case engine.EvPublish:
		c.hold.hold(e.Msg, e.T)
	case engine.EvDeliver:
		q.deliv++
		for int(e.Msg) >= len(q.recv) {
			q.recv = append(q.recv, 0)
		}
		q.recv[e.Msg] = e.Delivery
	case engine.EvAck:
		if !engine.NoopAck(e.Aux) {
			c.hold.leave(e.Msg)
		}
	case engine.EvDLQ:
		// the broker dead-letters at a lease's expiry once the receive
		// count reaches the limit in force then, counts a fork kept
		if mr := c.knobInt(w, "max_receives"); e.Msg >= 0 && int(e.Msg) < len(q.recv) && int(q.recv[e.Msg]) < mr {
			c.fail(e, "dead-lettered after %d receives, below max_receives=%d", q.recv[e.Msg], mr)
		}
		c.hold.leave(e.Msg)
		q.dlq = append(q.dlq, e.Msg)
	case q.redrive:
		// back in the queue with the time it was first sent
		for _, id := range q.dlq {
			c.hold.hold(id, c.pub(id))
		}
		q.dlq = q.dlq[:0]
	}
}

// --- fifo-window: the dedup records the broker keeps ---

type fifoRules struct {
	records []dedupRecord // every accepted send, with the expiry it was given
	deliv   int64
	dup     engine.Kind // a send dropped as a duplicate
}

type dedupRecord struct{ at, until engine.Time }

func (f *fifoRules) deliveries() int64 { return f.deliv }

// live is the latest record still remembered at t, if any.
func (f *fifoRules) live(t engine.Time) (dedupRecord, bool) {
	for i := len(f.records) - 1; i >= 0; i-- {
		if t < f.records[i].until {
			return f.records[i], true
		}
	}
	return dedupRecord{}, false
}

func (f *fifoRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	switch e.Kind {
	case engine.EvPublish:
		// an accepted send: stored, and its id remembered for the window
		// in force at its admission
		if r, ok := f.live(e.T); ok {
			c.fail(e, "stores a send whose id the broker still remembers (admitted %s, until %s)", r.at.Short(), r.until.Short())
		}
		win := max(c.knobDur(w, "dedup_window"), engine.Millisecond)
		f.records = append(f.records, dedupRecord{e.T, e.T + win})
		c.hold.hold(e.Msg, e.T) // each stored copy ages from its own send
	case f.dup:
		r, ok := f.live(e.T)
		switch {
		case !ok && len(f.records) > 0:
			last := f.records[len(f.records)-1]
			c.fail(e, "drops a send as seen within the interval, but the broker forgot the id at %s (admitted %s): a record brought back", last.until.Short(), last.at.Short())
		case !ok:
			c.fail(e, "drops a send as a duplicate of an id never accepted")
		case engine.Time(e.Aux) != r.until:
			c.fail(e, "says the id is remembered until %s; the record admitted at %s was given until %s", engine.Time(e.Aux).Short(), r.at.Short(), r.until.Short())
		}
	case engine.EvDeliver:
		f.deliv++
		if !c.hold.held(e.Msg) {
			c.fail(e, "delivers a message the queue does not hold")
		}
	case engine.EvAck:
		c.hold.leave(e.Msg)
	}
}

// --- cashback: a Redis Streams consumer group's pending entries ---

type streamRules struct {
	count []uint16 // per entry: 0 never delivered, else its delivery count
	acked []bool
	dead  bool // between a crash and the restart
	deliv int64
}

func (s *streamRules) deliveries() int64 { return s.deliv }

func (s *streamRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	k := e.Msg
	if k >= 0 {
		for int(k) >= len(s.count) {
			s.count = append(s.count, 0)
			s.acked = append(s.acked, false)
		}
	}
	switch e.Kind {
	case engine.EvPublish:
		c.hold.hold(k, e.T)
	case engine.EvDeliver:
		s.deliv++
		switch {
		case s.dead:
			c.fail(e, "an entry read by a consumer that has crashed and not restarted")
		case !c.hold.held(k) && !s.acked[k]:
			c.fail(e, "reads an entry not yet added to the stream")
		case s.acked[k]:
			c.fail(e, "reads an entry again after its XACK")
		case e.Value == 0 && s.count[k] > 0:
			c.fail(e, "XREADGROUP > hands out an entry already delivered %d times", s.count[k])
		case e.Value != 0 && s.count[k] == 0:
			c.fail(e, "a read of the pending list returns an entry never delivered")
		case e.Delivery != s.count[k]+1:
			c.fail(e, "delivery count %d, the entry's previous count was %d", e.Delivery, s.count[k])
		}
		s.count[k] = e.Delivery
	case engine.EvAck:
		s.acked[k] = true
		c.hold.leave(k)
	case engine.EvDLQ:
		s.acked[k] = true // XADD to the dead-letter stream, then XACK
		c.hold.leave(k)
	case engine.EvCrash:
		s.dead = true
	case engine.EvRestart:
		s.dead = false
	}
}

// --- stagefront: an SQS-like queue's leases ---

var leaseStates = [...]string{"unpublished", "visible", "leased", "acked", "in the DLQ"}

type leaseRules struct {
	state []uint8       // 0 unseen, 1 visible, 2 leased, 3 acked, 4 in the DLQ
	recv  []uint16      // receive count
	until []engine.Time // the current lease's end
	deliv int64
}

func (l *leaseRules) deliveries() int64 { return l.deliv }

func (l *leaseRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	id := e.Msg
	if id < 0 {
		return
	}
	for int(id) >= len(l.state) {
		l.state = append(l.state, 0)
		l.recv = append(l.recv, 0)
		l.until = append(l.until, 0)
	}
	names := &leaseStates
	switch e.Kind {
	case engine.EvPublish:
		l.state[id] = 1
		c.hold.hold(id, e.T)
	case engine.EvDeliver:
		l.deliv++
		if l.state[id] != 1 {
			c.fail(e, "delivered while %s (lease until %s)", names[l.state[id]], l.until[id].Short())
		}
		if e.Delivery != l.recv[id]+1 {
			c.fail(e, "receive %d after %d", e.Delivery, l.recv[id])
		}
		l.state[id], l.recv[id], l.until[id] = 2, e.Delivery, engine.Time(e.Value)
	case engine.EvLeaseExpired, engine.EvDLQ:
		if l.state[id] != 2 || e.T < l.until[id] {
			c.fail(e, "a lease ends at %s while %s until %s", e.T.Short(), names[l.state[id]], l.until[id].Short())
		}
		l.state[id] = 1
		if e.Kind == engine.EvDLQ {
			if mr := c.knobInt(w, "max_receives"); int(l.recv[id]) < mr {
				c.fail(e, "dead-lettered after %d receives, below max_receives=%d", l.recv[id], mr)
			}
			l.state[id] = 4
			c.hold.leave(id)
		}
	case engine.EvAck:
		// the tie rule: an ack at the lease's last millisecond is late
		if l.state[id] != 2 || e.T >= l.until[id] || e.Delivery != l.recv[id] {
			c.fail(e, "an ack of delivery %d accepted while %s, lease until %s", e.Delivery, names[l.state[id]], l.until[id].Short())
		}
		l.state[id] = 3
		c.hold.leave(id)
	}
}
