package randsuite

import (
	"fmt"
	"strings"

	"inflight/engine"
)

// A message's state as the checker's own tally has it, from the events
// alone: the engine's counters are what is being checked, so the tally
// never reads them, only compares with them.
const (
	sNone     uint8 = iota // no event has named it (a family may create messages silently)
	sWaiting               // visible in the queue
	sInFlight              // leased to a worker (or handed back with a delay)
	sHeld                  // held by a family's system: the events say no more
	sDeleted               // acked, committed past, stored
	sDLQ                   // in the dead letter queue
	nStates
)

var stateNames = [nStates]string{"unseen", "waiting", "in flight", "held", "deleted", "in the DLQ"}

type tally struct {
	state    uint8
	effects  uint32
	acked    bool   // some delivery acked it
	ackDel   uint16 // the delivery of the last ack
	beforeOf uint16 // the delivery that acked before its work (ack=before)
}

// Checker is a Sink that keeps an independent tally of every message from
// the events, checks each event against the tally's rules, and cross-checks
// the tally with the world's own view after every event (conservation).
// Finish then checks the summary and the settled state (liveness).
type Checker struct {
	spec  *engine.Spec
	queue bool // the SQS-like queue model: every transition has its event
	msgs  []tally
	n     [nStates]int64
	dlq   []int32 // ids in the DLQ, for a redrive

	published, effects, dups   int64
	done                       int64 // deleted with at least one effect
	effected                   int64 // with at least one effect
	events, deliveries, refuse int64
	lastT                      engine.Time

	// a fork's count: after a knob event, the source may not publish an
	// index at or past the new count
	capKnob string
	capped  bool
	cap     int64

	// alerts[0] the configured alerts' firings, alerts[1] the missing
	// ones': "name at clock", in the order the events fired them
	alerts [2][]string

	errs []string
	seen map[string]bool

	// NoRules leaves out the broker's rules (broker.go), for a run too
	// big to check them on every case
	NoRules bool

	// the broker's rules and holdings, rebuilt from the events
	rules     rules
	rulesSet  bool
	hold      holdings
	firstSeen []engine.Time // per message: the first event naming it

	// read off the world at its first event (view.go)
	kinds    kinds
	knobVals map[string]string // knobs in force by name, until a knob event
	// the queue's: its workers (its start event's count), and its own
	// kinds (a handler's renew and answer, an operator's redrive)
	workers                  int64
	evRenew, evAnswer, evRed engine.Kind
}

// NewChecker makes a checker for a run of spec.
func NewChecker(spec *engine.Spec) *Checker {
	c := &Checker{spec: spec, queue: familyName(spec) == queueFamily, lastT: spec.Start}
	for _, k := range engine.KnobsFor(spec) {
		if k.Name == "orders" || k.Name == "events" {
			c.capKnob = k.Name
		}
	}
	return c
}

// Errs are the violations found so far (the first few of them).
func (c *Checker) Errs() []string { return c.errs }

func (c *Checker) fail(e *engine.Event, format string, args ...any) {
	// one report of each kind: a counter that wraps would fill pages
	if len(c.errs) >= 6 || c.seen[format] {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[format] = true
	where := "at the end"
	if e != nil {
		where = fmt.Sprintf("event %d (%s %s msg %d delivery %d)", e.Pos, e.T.Short(), kindName(e.Kind), e.Msg, e.Delivery)
	}
	c.errs = append(c.errs, where+": "+fmt.Sprintf(format, args...))
}

func kindName(k engine.Kind) string {
	if k >= engine.FamilyKind {
		return fmt.Sprintf("family#%d", k-engine.FamilyKind)
	}
	return k.String()
}

func (c *Checker) msg(id int32) *tally {
	for int(id) >= len(c.msgs) {
		c.msgs = append(c.msgs, tally{})
	}
	return &c.msgs[id]
}

func (c *Checker) move(m *tally, to uint8) {
	if m.state == sDeleted && m.effects > 0 {
		c.done--
	}
	c.n[m.state]--
	c.n[to]++
	m.state = to
	if to == sDeleted && m.effects > 0 {
		c.done++
	}
}

func (c *Checker) held(s uint8) bool { return s == sWaiting || s == sInFlight || s == sHeld }

// Event implements engine.Sink.
func (c *Checker) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	if e.Pos != c.events {
		c.fail(e, "position %d, but %d events came before it", e.Pos, c.events)
	}
	if c.events == 0 {
		c.kinds = kindsOf(w)
		c.evRenew, c.evAnswer, c.evRed = c.kinds.Std("renew"), c.kinds.Std("answer"), c.kinds.Std("redrive")
	}
	c.events++
	if e.T < c.lastT {
		c.fail(e, "time went back from %s to %s", c.lastT.Clock(), e.T.Clock())
	}
	c.lastT = e.T
	var m *tally
	if e.Msg >= 0 {
		m = c.msg(e.Msg)
	}
	switch e.Kind {
	case engine.EvKnob:
		clear(c.knobVals)
		if c.capKnob != "" {
			c.capped = true
			c.cap = int64(c.knobInt(w, c.capKnob))
		}
	case engine.EvStart:
		c.workers = e.Value
	case engine.EvPublish:
		if m == nil {
			break
		}
		if m.state != sNone {
			if c.queue || !c.held(m.state) {
				c.fail(e, "published again while %s", stateNames[m.state])
			}
			// a family's producer re-sending what the broker holds
			// (fifo-window after its dedup window) is one message
			break
		}
		c.published++
		c.n[sNone]++ // move takes it from unseen
		if c.queue {
			c.move(m, sWaiting)
		} else {
			c.move(m, sHeld)
		}
		if c.capped && c.fromCapped(w, e) && e.Value >= c.cap {
			c.fail(e, "publishes #%d after a fork set %s=%d", e.Value+1, c.capKnob, c.cap)
		}
	case engine.EvDeliver:
		c.deliveries++
		if c.queue && m != nil {
			if m.state != sWaiting {
				c.fail(e, "delivered while %s", stateNames[m.state])
			} else {
				c.move(m, sInFlight)
			}
		}
	case engine.EvAlert:
		c.alert(e)
	case engine.EvEffect:
		c.effect(m)
	case engine.EvAck:
		c.ack(e, m)
	default:
		if e.Kind >= engine.FamilyKind && handledKinds[w.Family().KindName(e.Kind)] {
			c.effect(m)
		} else {
			c.other(e, m)
		}
	}
	c.crossCheck(w, e, m)
	if !c.rulesSet {
		c.rulesSet = true
		if !c.NoRules {
			c.rules = rulesFor(c, w)
		}
	}
	c.brokerEvent(w, e, d)
}

func (c *Checker) alert(e *engine.Event) {
	would := e.Aux == 1
	list := c.spec.Alerts
	if would {
		list = c.spec.WouldHave
	}
	if e.Value < 0 || int(e.Value) >= len(list) {
		c.fail(e, "alert %d of %d", e.Value, len(list))
		return
	}
	name := list[e.Value].Name
	for _, a := range c.alerts[e.Aux&1] {
		if strings.HasPrefix(a, name+" at ") {
			c.fail(e, "alert %s fires a second time", name)
			return
		}
	}
	c.alerts[e.Aux&1] = append(c.alerts[e.Aux&1], name+" at "+e.T.Short())
}

// handledKinds are family event kinds that end a message's work in
// another way than an effect event, and that the family counts as its
// effect: ordering's consumer ignoring an event older than the applied
// version (stale) or of that version (a duplicate).
var handledKinds = map[string]bool{"stale_ignored": true, "duplicate_ignored": true}

func (c *Checker) effect(m *tally) {
	if m == nil {
		return
	}
	m.effects++
	c.effects++
	if m.effects > 1 {
		c.dups++
	}
	if m.effects == 1 {
		c.effected++
	}
	if m.effects == 1 && m.state == sDeleted {
		c.done++ // ack=before: the work after the ack
	}
}

func (c *Checker) ack(e *engine.Event, m *tally) {
	if m == nil {
		return
	}
	{
		noop := c.queue && engine.NoopAck(e.Aux)
		switch {
		case m.state == sDLQ && !noop:
			c.fail(e, "an ack deletes a message already in the dead letter queue")
		case c.queue && noop && e.Aux != engine.AckLost && c.held(m.state): // a lost ack leaves it held, rightly
			c.fail(e, "a no-op late ack for a message the broker still holds (%s)", stateNames[m.state])
		case c.queue && !noop && m.state == sDeleted:
			c.fail(e, "acked after it was already deleted")
		case c.queue && !noop:
			c.move(m, sDeleted)
		}
		m.acked, m.ackDel = true, e.Delivery
		if c.queue && (e.Aux == engine.AckBeforeWork || e.Aux == engine.AckGoneNoop && e.Value == engine.AckBeforeWork) {
			m.beforeOf = e.Delivery
		}
	}
}

func (c *Checker) other(e *engine.Event, m *tally) {
	switch e.Kind {
	case engine.EvAckRefused:
		c.refuse++
		if m != nil && m.acked && m.ackDel == e.Delivery && e.Delivery > 0 {
			c.fail(e, "refuses an ack of delivery %d, which that delivery already made", e.Delivery)
		}
	case c.evAnswer:
		if c.queue && m != nil && m.beforeOf != e.Delivery {
			c.fail(e, "delivery %d finishes as ack=before but never acked before its work", e.Delivery)
		}
	case engine.EvLeaseExpired:
		if m == nil {
			break
		}
		if c.queue {
			if m.state != sInFlight {
				c.fail(e, "lease expired while %s", stateNames[m.state])
			} else {
				c.move(m, sWaiting)
			}
		} else if !c.held(m.state) && m.state != sNone {
			c.fail(e, "lease expired while %s", stateNames[m.state])
		}
	case engine.EvDLQ:
		if m == nil {
			break
		}
		if !c.held(m.state) && !(m.state == sNone && !c.queue) {
			c.fail(e, "dead-lettered while %s", stateNames[m.state])
			break
		}
		if m.state == sNone {
			c.n[sNone]++
		}
		c.move(m, sDLQ)
		c.dlq = append(c.dlq, e.Msg)
	case c.evRed:
		if e.Value != int64(len(c.dlq)) {
			c.fail(e, "redrives %d, but %d are in the dead letter queue", e.Value, len(c.dlq))
		}
		to := sHeld
		if c.queue {
			to = sWaiting
		}
		for _, id := range c.dlq {
			c.move(c.msg(id), to)
		}
		c.dlq = c.dlq[:0]
	}
}

// fromCapped says whether a publish comes from the source the count knob
// sizes: the queue's "orders" source, or a family's only one.
func (c *Checker) fromCapped(w *engine.World, e *engine.Event) bool {
	if !c.queue {
		return true
	}
	m, ok := w.Msg(e.Msg)
	return ok && int(m.Source) < len(c.spec.Sources) && c.spec.Sources[m.Source].Name == "orders"
}

// crossCheck compares the tally with the world's own view of the same
// moment: conservation, after every event.
func (c *Checker) crossCheck(w *engine.World, e *engine.Event, m *tally) {
	if got := int64(w.DLQLen()); got != c.n[sDLQ] {
		c.fail(e, "the engine's DLQ holds %d, the events put %d there", got, c.n[sDLQ])
	}
	if m != nil {
		if wm, ok := w.Msg(e.Msg); ok && uint32(wm.Effects) != m.effects {
			c.fail(e, "the engine counts %d effects on the message, the events %d", wm.Effects, m.effects)
		}
	}
	if !c.queue {
		// a family's events do not say when its system lets a message
		// go, so the engine's split of held, done and lost is bounded,
		// not matched: they add up, a message with an effect is never
		// lost, one without is never done
		st := w.States()
		if st.Held+st.Done+st.DLQ+st.Lost != st.Published || st.Held < 0 || st.Lost < 0 ||
			st.DLQ != c.n[sDLQ] || st.Done > c.effected || st.Lost > st.Published-c.effected {
			c.fail(e, "the engine's states %+v; the events give %d with an effect, %d in the DLQ", st, c.effected, c.n[sDLQ])
		}
		return
	}
	waiting, inFlight := w.Family().Counts(w)
	if got := int64(waiting); got != c.n[sWaiting] {
		c.fail(e, "the engine has %d waiting, the events %d", got, c.n[sWaiting])
	}
	if got := int64(inFlight); got != c.n[sInFlight] {
		c.fail(e, "the engine has %d in flight, the events %d", got, c.n[sInFlight])
	}
	if got := int64(w.Published()); got != c.published {
		c.fail(e, "the engine has published %d, the events %d", got, c.published)
	}
	// the engine's own count of every message's state, against the
	// tally's: done and the DLQ match at every moment; a message acked
	// before its work is lost to the tally until its effect, held to the
	// engine while its handler runs, so only their sum is compared
	st := w.States()
	held, gone := c.n[sWaiting]+c.n[sInFlight], c.n[sDeleted]-c.done
	switch {
	case st.Published != c.published || st.Done != c.done || st.DLQ != c.n[sDLQ]:
		c.fail(e, "the engine's states %+v; the events give published %d, done %d, dlq %d", st, c.published, c.done, c.n[sDLQ])
	case st.Held+st.Lost != held+gone || st.Held < held || st.Held < 0 || st.Lost < 0:
		c.fail(e, "the engine's states %+v; the events give %d held and %d gone with no effect", st, held, gone)
	}
}
