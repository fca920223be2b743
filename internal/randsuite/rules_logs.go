package randsuite

import "inflight/engine"

// The broker rules of db-down's consumer, galewatch's turbines and the
// Kafka families' partitions and group.

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
