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
