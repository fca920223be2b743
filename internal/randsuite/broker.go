package randsuite

import (
	"container/heap"

	"inflight/engine"
)

// The broker's rules, from the trace alone: what each system held and
// when, rebuilt from its events (and the decisions and knobs that shaped
// them), so that a fork's change is checked against what a real broker
// would do with the state it already had. Two promises, family by family:
// a change never revives what the system had discarded (a dedup record
// the window forgot, a reading given up, an acked entry), and a consumer
// never acts on what its broker would not yet have handed it (a message
// still leased, a retry not yet due, a partition a dead member's session
// still holds). The same rebuilt holdings give max_oldest_age_s and
// deliveries, which Finish compares with the summary.

// rules is one family's broker, rebuilt from the events.
type rules interface {
	event(c *Checker, w *engine.World, e *engine.Event, d *engine.Decision)
	// deliveries is the summary's deliveries recounted from the events.
	deliveries() int64
}

// rulesFor picks the family's rules by its registry name (nil: none but
// the tally's), each with the family's kinds it reads looked up by name.
func rulesFor(c *Checker, w *engine.World) rules {
	ks := c.kinds
	switch familyName(c.spec) {
	case queueFamily:
		return &queueRules{redrive: c.evRed}
	case "fifo-window":
		return &fifoRules{dup: ks.Own("duplicate_dropped")}
	case "db-down":
		return &dbRules{timers: map[int32]engine.Time{}, fail: ks.Own("db_error"),
			open: ks.Own("breaker_open"), half: ks.Own("breaker_half_open"), closed: ks.Own("breaker_closed")}
	case "galewatch":
		return &galeRules{collision: ks.Own("collision"), reject: ks.Own("reject"), giveUp: ks.Own("give_up")}
	case "ordering":
		return &orderRules{recs: map[int32][]int64{}, retryTail: ks.Own("retry_to_tail"),
			stale: ks.Own("stale_ignored"), dup: ks.Own("duplicate_ignored")}
	case "kafka-restart":
		return &kafkaRules{initProducer: ks.Own("init_producer"), sessionOver: ks.Own("session_timeout"), commit: ks.Own("commit")}
	case "cashback":
		return &streamRules{}
	case "stagefront":
		return &leaseRules{}
	}
	return nil
}

// holdings are the messages the broker (or the family's system) holds,
// each with the time it was stored, and the oldest age seen: SQS's
// ApproximateAgeOfOldestMessage, its maximum over the run.
type holdings struct {
	in    []bool        // by message id
	since []engine.Time // when the held copy was stored
	// held copies, oldest first: most are stored in time order (a queue,
	// q[qh:]); one stored earlier than the last (a record read again, a
	// redrive) goes to the heap. Stale entries are dropped as they surface.
	q      []aged
	qh     int
	h      ageHeap
	maxAge engine.Duration
}

type aged struct {
	t  engine.Time
	id int32
}

type ageHeap []aged

func (h ageHeap) Len() int { return len(h) }
func (h ageHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].id < h[j].id
}
func (h ageHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *ageHeap) Push(x any)   { *h = append(*h, x.(aged)) }
func (h *ageHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s *holdings) live(a aged) bool { return s.in[a.id] && s.since[a.id] == a.t }

// observe records the oldest held copy's age at t, before the event at t
// changes anything: ages only grow between events, so the maximum is
// reached at one.
func (s *holdings) observe(t engine.Time) {
	for s.qh < len(s.q) && !s.live(s.q[s.qh]) {
		s.qh++
	}
	if s.qh > 4096 && 2*s.qh > len(s.q) {
		s.q = append(s.q[:0], s.q[s.qh:]...)
		s.qh = 0
	}
	for len(s.h) > 0 && !s.live(s.h[0]) {
		heap.Pop(&s.h)
	}
	oldest := engine.Never
	if s.qh < len(s.q) {
		oldest = s.q[s.qh].t
	}
	if len(s.h) > 0 {
		oldest = min(oldest, s.h[0].t)
	}
	if oldest != engine.Never {
		s.maxAge = max(s.maxAge, t-oldest)
	}
}

// hold says the broker holds message id from t (its copy stored at t);
// a message already held keeps its time.
func (s *holdings) hold(id int32, t engine.Time) {
	for int(id) >= len(s.in) {
		s.in = append(s.in, false)
		s.since = append(s.since, 0)
	}
	if s.in[id] {
		return
	}
	s.in[id], s.since[id] = true, t
	if n := len(s.q); n == s.qh || s.q[n-1].t <= t {
		s.q = append(s.q, aged{t, id})
		return
	}
	heap.Push(&s.h, aged{t, id})
}

func (s *holdings) leave(id int32) {
	if int(id) < len(s.in) {
		s.in[id] = false
	}
}

func (s *holdings) held(id int32) bool { return int(id) < len(s.in) && s.in[id] }

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

// --- db-down: the consumer's line, its retry timers and the breaker ---

type dbRules struct {
	waiting int                   // in line (new, or back at the head)
	timers  map[int32]engine.Time // retries on their timers: due at
	busy    bool
	breaker int // 0 closed, 1 open, 2 half-open, as the events say
	idle    engine.Time
	idleSet bool
	deliv   int64

	fail, open, half, closed engine.Kind // db_error, breaker_open, _half_open, _closed
}

// What a failed write leads to: db_error's Aux in the trace.
const (
	failRetry  = 0 // retried after its backoff
	failTrip   = 2 // the failure that opens the breaker
	failProbe  = 3 // the half-open trial failed: open again
	failRetryB = 4 // retried, the breaker counting
)

func (b *dbRules) deliveries() int64 { return b.deliv }

func (b *dbRules) due(t engine.Time) int {
	n := 0
	for _, at := range b.timers {
		if at <= t {
			n++
		}
	}
	return n
}

func (b *dbRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	on := c.knob(w, "breaker") == "true"
	if b.idleSet && e.T > b.idle {
		c.fail(e, "the consumer sat idle from %s with messages waiting (breaker=%v, %s)", b.idle.Short(), on, []string{"closed", "open", "half-open"}[b.breaker])
		b.idleSet = false
	}
	switch e.Kind {
	case engine.EvPublish:
		b.waiting++
		c.hold.hold(e.Msg, e.T)
	case engine.EvDeliver:
		b.deliv++
		if b.busy {
			c.fail(e, "delivered while the consumer's one handler is busy")
		}
		if on && b.breaker == 1 {
			c.fail(e, "delivered while the breaker is open")
		}
		if at, ok := b.timers[e.Msg]; ok {
			if e.T < at {
				c.fail(e, "a retry delivered before its timer (due %s)", at.Short())
			}
			delete(b.timers, e.Msg)
		} else {
			b.waiting--
		}
		b.busy = true
	case engine.EvEffect:
		b.busy = false
		c.hold.leave(e.Msg)
	case b.fail:
		b.busy = false
		switch e.Aux {
		case failRetry, failRetryB:
			b.timers[e.Msg] = engine.Time(e.Value)
		case failTrip, failProbe:
			b.waiting++ // back at the head
		}
	case b.open:
		if int(e.Aux) != len(b.timers) {
			c.fail(e, "the breaker puts %d back at the head; %d were waiting for a retry", e.Aux, len(b.timers))
		}
		b.waiting += len(b.timers)
		clear(b.timers)
		b.breaker = 1
	case b.half:
		b.breaker = 2
	case b.closed:
		b.breaker = 0
	case engine.EvDLQ:
		c.hold.leave(e.Msg)
	}
	// a knob change, like any other move, wakes the consumer: idle with
	// work it may take, it takes it at this instant
	mayTake := !on || b.breaker != 1
	if !b.busy && mayTake && b.waiting+b.due(e.T) > 0 {
		if !b.idleSet {
			b.idle, b.idleSet = e.T, true
		}
	} else {
		b.idleSet = false
	}
}

// --- galewatch: the turbines' re-send buffers ---

type galeRules struct {
	first  []engine.Time // per reading: when it was taken (its first write)
	state  []uint8       // 0 unseen, 1 kept for re-sending, 2 answered, 3 given up
	dueAt  []engine.Time // the next re-send's earliest moment
	writes int64

	collision, reject, giveUp engine.Kind
}

// galeRetryAfter is how long a turbine waits before re-sending a write
// whose answer it lost.
const galeRetryAfter = engine.Minute

func (g *galeRules) deliveries() int64 { return g.writes }

func (g *galeRules) event(c *Checker, w *engine.World, e *engine.Event, d *engine.Decision) {
	r := e.Msg
	switch e.Kind {
	case engine.EvEffect, g.collision, g.reject:
	case g.giveUp:
		if int(r) >= len(g.state) || g.state[r] != 1 {
			c.fail(e, "gives up a reading it does not keep")
		} else {
			g.state[r] = 3
		}
		c.hold.leave(r)
		return
	default:
		return
	}
	g.writes++
	for int(r) >= len(g.state) {
		g.first = append(g.first, e.T)
		g.state = append(g.state, 0)
		g.dueAt = append(g.dueAt, 0)
	}
	switch g.state[r] {
	case 0:
		g.first[r] = e.T
	case 2, 3:
		c.fail(e, "writes reading %d again after the turbine %s", r, []string{"", "", "got its answer", "gave it up"}[g.state[r]])
	case 1:
		if e.T < g.dueAt[r] {
			c.fail(e, "re-sends before the minute is up (due %s)", g.dueAt[r].Short())
		}
		if dl := c.knobDur(w, "retry_deadline"); e.T-g.first[r] > dl {
			c.fail(e, "re-sends %s after the reading, past retry_deadline=%s", engine.FormatDuration(e.T-g.first[r]), engine.FormatDuration(dl))
		}
	}
	// the family's one decision: is the write's answer lost
	if d == nil || d.Kind != engine.FamilyDecision {
		c.fail(e, "a write without its answer's decision")
		return
	}
	if d.Value == 0 {
		g.state[r] = 2
		c.hold.leave(r)
		return
	}
	c.hold.hold(r, g.first[r]) // kept for re-sending (answered at once, it ages 0)
	g.state[r] = 1
	g.dueAt[r] = e.T + galeRetryAfter
}

// --- ordering: a record is read only once its partition holds it ---

type orderRules struct {
	recs  map[int32][]int64 // per message: partition<<50 | offset of each record of it
	deliv int64

	retryTail, stale, dup engine.Kind
}

func (o *orderRules) deliveries() int64 { return o.deliv }

func (o *orderRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	switch e.Kind {
	case engine.EvPublish, o.retryTail:
		o.recs[e.Msg] = append(o.recs[e.Msg], e.Value<<50|e.Aux)
		c.hold.hold(e.Msg, c.pub(e.Msg))
	case engine.EvDeliver:
		o.deliv++
		off := (e.Aux >> 8) & (1<<50 - 1)
		found := false
		for _, r := range o.recs[e.Msg] {
			found = found || r == e.Value<<50|off
		}
		if !found {
			c.fail(e, "reads partition %d offset %d, a record the topic does not hold for this event", e.Value, off)
		}
		c.hold.hold(e.Msg, c.pub(e.Msg)) // read again after a rebalance: not handled yet
	case engine.EvEffect, o.stale, o.dup:
		c.hold.leave(e.Msg)
	}
}

// --- kafka-restart: group membership, from the events ---

// kafkaRules rebuilds the consumer group from its members' lives: a
// member that dies stays in the group until its session times out. A
// member joining meanwhile starts a rebalance that cannot complete
// without the dead member (it never rejoins), so until the coordinator
// drops it nobody is handed a partition: no record may be read.
type kafkaRules struct {
	created  bool
	member   int     // the live consumer instance (mailer-N), 0 while none
	dead     []death // members dead whose session has not ended
	messages int
	deliv    int64

	initProducer, sessionOver, commit engine.Kind
}

type death struct {
	member int
	at     engine.Time
	joined engine.Time // a member joined since (a rebalance is pending), or -1
}

func (k *kafkaRules) deliveries() int64 { return k.deliv }

func (k *kafkaRules) event(c *Checker, w *engine.World, e *engine.Event, _ *engine.Decision) {
	switch e.Kind {
	case k.initProducer:
		if !k.created {
			// the orders exist once the first producer instance sends them
			k.created = true
			k.messages = max(c.knobInt(w, "batch"), 1)
			for id := 0; id < k.messages; id++ {
				c.hold.hold(int32(id), e.T)
			}
		}
	case engine.EvStart:
		k.member = 1
	case engine.EvRestart:
		k.member = int(e.Value)
		for i := range k.dead {
			if k.dead[i].joined < 0 {
				k.dead[i].joined = e.T
			}
		}
	case engine.EvCrash:
		if e.Msg >= 0 { // the consumer (the producer's crash names no message)
			k.dead = append(k.dead, death{int(e.Delivery), e.T, -1})
			k.member = 0
		}
	case k.sessionOver:
		for i, d := range k.dead {
			if d.member == int(e.Delivery) {
				k.dead = append(k.dead[:i], k.dead[i+1:]...)
				break
			}
		}
	case engine.EvDeliver:
		k.deliv++
		if k.member == 0 {
			c.fail(e, "a record read while no consumer is alive")
			break
		}
		for _, d := range k.dead {
			if d.joined >= 0 {
				c.fail(e, "mailer-%d reads partition %d, but it joined at %s after mailer-%d died at %s: no partition is handed on before mailer-%d's session times out",
					k.member, e.Aux, d.joined.Short(), d.member, d.at.Short(), d.member)
				break
			}
		}
		c.hold.hold(e.Msg, c.pub(e.Msg))
	case k.commit:
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

// oldestAge is max_oldest_age_s as the holdings give it, up to end.
func (c *Checker) oldestAge(end engine.Time) float64 {
	c.hold.observe(end)
	return c.hold.maxAge.Seconds()
}

// pub is when message id was first stored, as the events say.
func (c *Checker) pub(id int32) engine.Time {
	if int(id) < len(c.hold.since) && c.hold.since[id] != 0 {
		return c.hold.since[id]
	}
	if int(id) < len(c.firstSeen) {
		return c.firstSeen[id]
	}
	return c.spec.Start
}

func (c *Checker) brokerEvent(w *engine.World, e *engine.Event, d *engine.Decision) {
	if c.rules == nil {
		return
	}
	c.hold.observe(e.T)
	if e.Msg >= 0 {
		for int(e.Msg) >= len(c.firstSeen) {
			c.firstSeen = append(c.firstSeen, e.T)
		}
	}
	c.rules.event(c, w, e, d)
}

func (c *Checker) brokerFinish(sum engine.Summary, end engine.Time) {
	if c.rules == nil {
		return
	}
	if got, want := sum.MaxOldestAgeS, c.oldestAge(end); got != want {
		c.fail(nil, "summary max_oldest_age_s %v, the broker's holdings give %v", got, want)
	}
	if got, want := sum.Deliveries, c.rules.deliveries(); got != want {
		c.fail(nil, "summary deliveries %d, the events give %d", got, want)
	}
	if k, ok := c.rules.(*kafkaRules); ok && int64(k.messages) != sum.Messages {
		c.fail(nil, "summary messages %d, the first producer instance created %d", sum.Messages, k.messages)
	}
}
