package randsuite

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"inflight/engine"
	"inflight/incidents"
)

// TestCaptionsTellWhatHappened walks every caption of every event, and the
// in-flight and consumer panes after each, over the random suite's quick
// cases, the bundled incidents and the queue incidents with each fault
// point forced, and checks what each says against the events before it in
// the same trace (claims, below, that the events alone settle):
//
//   - a redelivery's "nothing failed" never follows a crash, a wedge or a
//     lost ack of the delivery before; "died holding it", "wedged", "ack was
//     lost", "handed it back" and "redrove it" each follow that event; "still
//     works/worked on it" only when the holder had not finished or died
//     when the lease expired;
//   - a row says SUPERSEDED by X only when X holds the message now, "in the
//     DLQ" only when it was moved there, "visible again" only when its lease
//     expired since its last delivery;
//   - a status row never says "nothing to take" while a retry is on its
//     timer or a message waits, nor counts idle workers that are dead.
func TestCaptionsTellWhatHappened(t *testing.T) {
	var y claimTally
	for _, spec := range incidents.All() {
		g, err := genFor(spec)
		if err != nil {
			t.Fatal(err)
		}
		queue := familyName(spec) == queueFamily
		if g.Events > bigRun && testing.Short() {
			continue
		}
		// the incident as bundled, then random cases
		c := newClaims(spec)
		w, err := engine.NewWorld(spec, spec.Seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for w.Step(c) {
		}
		y.add(spec.ID, c)
		if g.Events > bigRun {
			continue // a run of 800,000 events: the bundled one is enough
		}
		var events int64
		for i := 0; i < captionCases && (i < quickMin || events < captionEvents); i++ {
			cs := g.Case(*suiteSeed, i)
			c := newClaims(spec)
			r := g.check(cs, false, c)
			if r.World != nil {
				events += r.World.Pos
			}
			y.add(cs.Repro(), c)
		}
		if !queue {
			continue
		}
		// every fault point forced on the first messages' first two deliveries
		points := w.Forcing().Points()
		for _, p := range points {
			for id := int32(0); id < 4; id++ {
				for del := uint16(1); del <= 2; del++ {
					w, err := engine.NewWorld(spec, spec.Seed, nil)
					if err != nil {
						t.Fatal(err)
					}
					ids := []int32{id}
					if f := spec.Featured; f >= 0 {
						ids = append(ids, f)
					}
					var fs []engine.Fault
					for _, m := range ids {
						fs = append(fs, engine.Fault{Point: p.Name, Msg: m, Delivery: del})
					}
					if err := w.Forcing().Faults(fs...); err != nil {
						t.Fatal(err)
					}
					c := newClaims(spec)
					for w.Step(c) {
					}
					y.add(fmt.Sprintf("%s forcing %s on %v delivery %d", spec.ID, p.Name, ids, del), c)
				}
			}
		}
	}
	if len(y.bad) > 0 {
		t.Errorf("captions and panes that say what did not happen:\n\t%s", strings.Join(y.bad, "\n\t"))
	}
	// a check that never meets its claim proves nothing: each is met
	for _, k := range []string{"nothing failed", "died holding it", "ack was lost", "still worked", "handed it back", "redrove it",
		"wedged", "still works on it",
		"SUPERSEDED", "past lease: the message is visible again", "past lease: the message is in the DLQ", "nothing to take", "workers idle", "workers dead"} {
		if y.seen[k] == 0 {
			t.Errorf("no caption or row claimed %q: the check of it checked nothing", k)
		}
	}
	t.Logf("claims checked: %v", y.seen)
}

// claimTally gathers many runs' claims: how often each was checked, and the
// first two false ones of each kind, each with the run that made it.
type claimTally struct {
	seen, kinds map[string]int
	bad         []string
}

func (y *claimTally) add(where string, c *claims) {
	if y.seen == nil {
		y.seen, y.kinds = map[string]int{}, map[string]int{}
	}
	for k, n := range c.seen {
		y.seen[k] += n
	}
	for _, e := range c.errs {
		k, _, _ := strings.Cut(e, ":")
		if y.kinds[k]++; y.kinds[k] <= 2 {
			y.bad = append(y.bad, where+": "+e)
		}
	}
}

// The random cases each incident gets here: the suite's first ones, up to
// a share of its events (every event's panes are read: the check costs
// several times the run).
const (
	captionCases  = 8
	captionEvents = 60_000
)

// where a message is, by the events.
const (
	wVisible = iota
	wHeld
	wDelayed
	wDLQ
	wDeleted
)

type delKey struct {
	msg int32
	del uint16
}

// lapse is what the events said of one delivery: the positions of its
// failures, of its handler's end and of its lease's expiry (0: none yet).
type lapse struct {
	crash, wedge, ackLost, deferred, done, expired int64
	killed, purged                                 int64 // an operator's crash of its holder; a purge while it was held
	// the worker that took the delivery: a redriven message counts its
	// deliveries from 1 again, and a handler of its last life still
	// running is another worker, whose events are not this delivery's
	worker int16
}

// handler is the lapse a handler's event (ack, crash, wedge…) tells of:
// nil for a handler of the message's life before a redrive.
func (c *claims) handler(e *engine.Event) *lapse {
	if l := c.lapse(e.Msg, e.Delivery); l.worker == e.Worker {
		return l
	}
	return nil
}

// claims is the checker: an independent account of the trace, and the
// claims of its captions and rows checked against it.
type claims struct {
	spec    *engine.Spec
	panes   bool // the family has the panes checked (the queue's, db-down's)
	kinds   map[engine.Kind]string
	where   map[int32]int
	holder  map[int32]string // the worker holding the message's lease, by name
	last    map[int32]uint16 // the message's latest delivery
	lapses  map[delKey]*lapse
	redrove map[int32]bool  // redriven since its last delivery
	dlqFx   map[int32]int64 // the effects a dead letter had when it moved (what redrive=unfinished reads)
	dead    map[int16]bool
	retries map[int32]bool // db-down: a retry on its timer
	waiting map[int32]bool // published, not taken yet
	seen    map[string]int
	bad     map[string]int
	errs    []string
}

func newClaims(spec *engine.Spec) *claims {
	f := familyName(spec)
	return &claims{spec: spec, panes: f == queueFamily || f == "db-down", kinds: map[engine.Kind]string{}, where: map[int32]int{}, holder: map[int32]string{},
		last: map[int32]uint16{}, lapses: map[delKey]*lapse{}, redrove: map[int32]bool{}, dlqFx: map[int32]int64{}, dead: map[int16]bool{},
		retries: map[int32]bool{}, waiting: map[int32]bool{}, seen: map[string]int{}, bad: map[string]int{}}
}

// fail records a false claim of kind k, the first two of each kind.
func (c *claims) fail(k string, e *engine.Event, format string, args ...any) {
	if c.bad[k]++; c.bad[k] <= 2 {
		c.errs = append(c.errs, fmt.Sprintf("%s: event %d at %s: ", k, e.Pos, e.T.Clock())+fmt.Sprintf(format, args...))
	}
}

func (c *claims) lapse(msg int32, del uint16) *lapse {
	k := delKey{msg, del}
	l := c.lapses[k]
	if l == nil {
		l = &lapse{}
		c.lapses[k] = l
	}
	return l
}

func (c *claims) kind(w *engine.World, k engine.Kind) string {
	n, ok := c.kinds[k]
	if !ok {
		n = w.KindName(k)
		c.kinds[k] = n
	}
	return n
}

func (c *claims) Event(w *engine.World, e *engine.Event, d *engine.Decision) {
	actor := ""
	if e.Kind == engine.EvDeliver {
		actor = w.Line(e, d).Actor // who holds it, by name, as the panes name it
	}
	c.checkCaption(e, w.Caption(e, d))
	c.account(w, e, actor)
	if c.panes {
		c.checkPanes(w, e)
	}
}

// account follows the trace: where each message is, who holds it, what
// became of each delivery.
func (c *claims) account(w *engine.World, e *engine.Event, actor string) {
	pos := e.Pos + 1 // 0 stays "none"
	switch k := c.kind(w, e.Kind); {
	case e.Kind == engine.EvPublish:
		c.where[e.Msg] = wVisible
		c.waiting[e.Msg] = true
	case e.Kind == engine.EvDeliver:
		c.where[e.Msg], c.holder[e.Msg], c.last[e.Msg] = wHeld, actor, e.Delivery
		c.lapses[delKey{e.Msg, e.Delivery}] = &lapse{worker: e.Worker}
		delete(c.redrove, e.Msg)
		delete(c.retries, e.Msg)
		delete(c.waiting, e.Msg)
	case e.Kind == engine.EvLeaseExpired:
		c.where[e.Msg] = wVisible
		if l := c.lapse(e.Msg, e.Delivery); l.expired == 0 {
			l.expired = pos
		}
	case e.Kind == engine.EvDLQ:
		c.where[e.Msg] = wDLQ
		c.dlqFx[e.Msg] = e.EffectsBefore()
	case e.Kind == engine.EvAck:
		if !engine.NoopAck(e.AckHow()) && e.AckHow() != engine.AckLost {
			c.where[e.Msg] = wDeleted
		}
		if l := c.handler(e); l != nil {
			if e.AckHow() == engine.AckLost {
				l.ackLost = pos
			}
			c.ended(l, pos)
		}
	case e.Kind == engine.EvAckRefused:
		if l := c.handler(e); l != nil {
			c.ended(l, pos)
		}
	case e.Kind == engine.EvCrash:
		if l := c.handler(e); e.Msg >= 0 && l != nil {
			l.crash = pos
			if e.CrashReason() == engine.CrashOperator {
				l.killed = pos
			}
			c.ended(l, pos)
		}
		c.dead[e.Worker] = true
	case e.Kind == engine.EvRestart:
		delete(c.dead, e.Worker)
	case e.Kind == engine.EvRedrive:
		// all the dead letters, or (redrive=unfinished) those that moved
		// with no effect: the count says which
		all, unfinished := 0, 0
		for id, wh := range c.where {
			if wh == wDLQ {
				all++
				if c.dlqFx[id] == 0 {
					unfinished++
				}
			}
		}
		n := int(e.Count())
		if n != all && n != unfinished {
			c.fail("redrive", e, "redrives %d, but %d are in the DLQ, %d of them unfinished", n, all, unfinished)
		}
		for id, wh := range c.where {
			if wh == wDLQ && (n == all || c.dlqFx[id] == 0) {
				c.where[id], c.redrove[id] = wVisible, true
				// it comes back as a new message: its deliveries count from 1 again
				for d := uint16(0); d <= c.last[id]; d++ {
					delete(c.lapses, delKey{id, d})
				}
				c.last[id] = 0
			}
		}
	case k == "purge":
		for id, wh := range c.where {
			switch wh {
			case wHeld, wDelayed:
				c.lapse(id, c.last[id]).purged = pos
				fallthrough
			case wVisible:
				c.where[id] = wDeleted
				delete(c.waiting, id)
			}
		}
	case k == "stop":
		if e.Value == 1 { // stopped now: no longer one of the workers, dead or not
			delete(c.dead, e.Worker)
		}
	case k == "wedge":
		if l := c.handler(e); e.Msg >= 0 && l != nil {
			l.wedge = pos
		}
	case k == "defer":
		c.where[e.Msg] = wDelayed
		if l := c.handler(e); l != nil {
			l.deferred = pos
			c.ended(l, pos)
		}
	case k == "db_error":
		if e.Value > 0 {
			c.retries[e.Msg] = true // Value: when the retry is due
		}
	case k == "breaker_open":
		for id := range c.retries {
			c.waiting[id] = true // back at the head of the line
		}
		clear(c.retries)
	}
}

func (c *claims) ended(l *lapse, pos int64) {
	if l.done == 0 {
		l.done = pos
	}
}

// checkCaption checks the caption of event e against the events before it.
func (c *claims) checkCaption(e *engine.Event, caption string) {
	if e.Msg < 0 {
		return
	}
	// the delivery the caption tells the end of: the one before a
	// redelivery, else the event's own
	del := e.Delivery
	if e.Kind == engine.EvDeliver {
		del--
	}
	l := c.lapses[delKey{e.Msg, del}]
	if l == nil {
		l = &lapse{}
	}
	claim := func(k string, ok bool, why string) {
		if strings.Contains(caption, k) {
			c.seen[k]++
			if !ok {
				c.fail(k, e, "%q but %s", caption, why)
			}
		}
	}
	claim("nothing failed", l.crash == 0 && l.wedge == 0 && l.ackLost == 0, fmt.Sprintf("delivery %d's holder crashed, wedged or lost its ack (events %d, %d, %d)", del, l.crash-1, l.wedge-1, l.ackLost-1))
	claim("died holding it", l.crash > 0, fmt.Sprintf("no crash of delivery %d", del))
	claim("wedged", l.wedge > 0 || (e.Kind != engine.EvDeliver && e.Kind != engine.EvLeaseExpired), fmt.Sprintf("no wedge of delivery %d", del))
	claim("ack was lost", l.ackLost > 0, fmt.Sprintf("no lost ack of delivery %d", del))
	claim("handed it back", l.deferred > 0, fmt.Sprintf("delivery %d was not handed back", del))
	claim("redrove it", c.redrove[e.Msg] && e.Delivery == 1, "no redrive since it was last delivered")
	claim("an operator killed", l.killed > 0, fmt.Sprintf("no operator's crash of delivery %d's holder", del))
	claim("purged under it", l.purged > 0, fmt.Sprintf("no purge while delivery %d was held", del))
	// still working when the lease expired: the lease expired (before or
	// with this event) and the handler had not ended by then
	expired := l.expired
	if e.Kind == engine.EvLeaseExpired {
		expired = e.Pos + 1
	}
	working := expired > 0 && (l.done == 0 || l.done > expired) && (l.crash == 0 || l.crash > expired)
	claim("still works on it", working, fmt.Sprintf("delivery %d's handler ended at event %d, its lease expired at %d", del, l.done-1, expired-1))
	claim("still worked", working, fmt.Sprintf("delivery %d's handler ended at event %d, its lease expired at %d", del, l.done-1, expired-1))
}

var (
	supersededBy = regexp.MustCompile(`^(\S+ \d+)\s+(\S+)@\S+ #(\d+) SUPERSEDED by (\S+) `)
	pastLease    = regexp.MustCompile(`^(\S+ \d+)\s+(\S+)@\S+ #(\d+) past its lease, still calling: (.*)$`)
	idleOf       = regexp.MustCompile(`(\d+) of (\d+) workers idle`)
	allDead      = regexp.MustCompile(`all (\d+) workers dead`)
	someDead     = regexp.MustCompile(`, (\d+) dead`)
)

// checkPanes checks the in-flight pane's rows and the consumer's status
// row as they stand after event e.
func (c *claims) checkPanes(w *engine.World, e *engine.Event) {
	for _, p := range w.Family().Panes(w, engine.CursorOf(w)) {
		switch {
		case strings.HasPrefix(p.Title, "In flight"):
			for _, r := range p.Rows {
				c.flightRow(e, r)
			}
		case strings.HasPrefix(p.Title, "Consumer"):
			for _, r := range p.Rows {
				if strings.Contains(r.Text, "nothing to take") {
					c.seen["nothing to take"]++
					if len(c.retries) > 0 || len(c.waiting) > 0 {
						c.fail("nothing to take", e, "the consumer says %q with %d retries on their timers and %d messages waiting", r.Text, len(c.retries), len(c.waiting))
					}
				}
			}
		}
	}
}

func (c *claims) flightRow(e *engine.Event, r engine.PaneRow) {
	dead := len(c.dead)
	if m := idleOf.FindStringSubmatch(r.Text); m != nil {
		c.seen["workers idle"]++
		idle, _ := strconv.Atoi(m[1])
		of, _ := strconv.Atoi(m[2])
		if idle > of-dead {
			c.fail("workers idle", e, "%q with %d of %d workers dead", r.Text, dead, of)
		}
		n := 0
		if d := someDead.FindStringSubmatch(r.Text); d != nil {
			n, _ = strconv.Atoi(d[1])
		}
		if n != dead {
			c.fail("workers idle", e, "%q with %d workers dead", r.Text, dead)
		}
	}
	if m := allDead.FindStringSubmatch(r.Text); m != nil {
		c.seen["workers dead"]++
		if n, _ := strconv.Atoi(m[1]); n != dead {
			c.fail("workers dead", e, "%q with %d workers dead", r.Text, dead)
		}
	}
	if m := supersededBy.FindStringSubmatch(r.Text); m != nil {
		c.seen["SUPERSEDED"]++
		id := r.Msg
		if c.where[id] != wHeld || c.holder[id] != m[4] || m[4] == m[2] {
			c.fail("SUPERSEDED", e, "%q but %s is held by %q (where %d)", r.Text, m[1], c.holder[id], c.where[id])
		}
	} else if strings.Contains(r.Text, "SUPERSEDED") {
		c.seen["SUPERSEDED"]++
		c.fail("SUPERSEDED", e, "%q: SUPERSEDED says by whom", r.Text)
	}
	if m := pastLease.FindStringSubmatch(r.Text); m != nil {
		want := map[string]int{"the message is visible again": wVisible, "the message is in the DLQ": wDLQ,
			"the message is handed back with a delay": wDelayed, "the message is deleted": wDeleted}
		c.seen["past lease: "+m[4]]++
		if wh, ok := want[m[4]]; !ok || c.where[r.Msg] != wh {
			c.fail("past lease", e, "%q but the events put %s at %d", r.Text, m[1], c.where[r.Msg])
		}
	}
}
