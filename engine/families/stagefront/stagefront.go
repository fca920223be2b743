// Package stagefront is the incident family of lesson 036's Stagefront:
// 200,000 people press the same button at 10:00:00, every press holds a
// seat and queues "sell hold h", and consumers claim seats with
//
//	update holds set status = 'sold' where id = h and status = 'held'
//
// The seat's status is the fence. A consumer that crashes after its commit
// and before its ack (crash_p) leaves the message to come back when its
// lease expires; the second delivery runs the same statement, matches zero
// rows, and the consumer treats zero rows as success — because that is
// what zero rows means here. No lock, no token, no deduplication table.
// With zero_rows=failure the same redelivery is taken for a failure: no
// ack, back again at the next lease expiry, and after max_receives
// deliveries the broker moves it to the dead letter queue — a drawer of
// seats that were sold exactly once.
//
// The broker is SQS-like: a visibility timeout per delivery, a receive
// count, and the move to the DLQ when a lease expires after the last
// allowed delivery. Consumers (40) take work in turn; a message that is
// visible again is served before messages never delivered (the oldest
// send first). Each consumer's update takes 20 ms. A lease is only put on
// the timer when it can expire: when a consumer drops its message (a crash
// or a failure) or when the visibility timeout is no longer than the
// handler, so a checkpoint does not copy 60,000 pending timers.
//
// Every delivery that commits makes one crash decision, drawn from (hold,
// receive count) under the seed. A delivery keeps the handler it began
// with: a fork's zero_rows applies to deliveries from the fork on.
//
// Receive counts are 16 bits (max_receives allows 1,000). A lease that
// runs out as its update commits (visibility_timeout no longer than the
// update) can move the message to the DLQ while a consumer still works on
// it; the sale still commits, so that dead letter is a sold seat too
// (dead_letters_sold), and the consumer's hold keeps the message's record
// (World.Handling) until it lets go.
package stagefront

import (
	"fmt"
	"slices"

	"inflight/engine"
)

// The sale.
const (
	People    = 200_000
	Consumers = 40
	Handler   = 20 * engine.Millisecond // the update, committed
	PressSpan = engine.Second           // the presses arrive within 10:00:00
)

// The family's own event kinds.
const (
	KindZeroRows = engine.FamilyKind + iota // the update matched zero rows (Aux 0: success, 1: failure)
)

var kindNames = []string{"zero_rows"}

type op uint8

const (
	opPress    op = iota // person A presses: a hold and a message
	opDispatch           // idle consumers take visible messages
	opUpdate             // consumer W's update for its message
	opAckPoint           // consumer W: the crash point, then the ack
	opExpire             // hold A's lease of delivery D expires
	opRestart            // consumer W is back
)

type consumerState uint8

const (
	cIdle consumerState = iota
	cBusy
	cDead
)

// Receive counts are uint16: max_receives allows up to 1,000, and a count
// that wrapped would never reach it.
type consumer struct {
	state    consumerState
	hold     int32
	delivery uint16
	leaseEnd engine.Time
	since    engine.Time
	timed    bool // the lease's expiry was scheduled at delivery
	zeroFail bool // this delivery's handler takes zero rows for a failure (zero_rows when it began)
}

type lease struct {
	hold     int32
	delivery uint16
	end      engine.Time
}

type note struct {
	hold     int32
	delivery uint16
	at       engine.Time
	failure  bool
}

// Family is the stagefront system's state: plain data, deep-copied by Clone.
type Family struct {
	k         *Knobs // the knobs in force (BindKnobs)
	h         holds
	pressed   int32   // messages published: holds 0…pressed-1
	fresh     int32   // the next hold never delivered
	again     []int32 // visible again after a lease expired, oldest first
	inFlight  int
	consumers []consumer
	idle      []int16 // idle consumers, longest idle first
	orphans   []lease // leased messages no consumer works on (a crash, a failure)
	dispatch  bool    // a dispatch step is scheduled

	sold, zeroOK, zeroFail, crashes, dlq, dlqSold int64

	zeros  [16]note
	nZeros int
}

// New builds the family (the incidents registry calls it).
func New(p *engine.Params) engine.Family {
	s := &Family{h: newHolds(People), consumers: make([]consumer, Consumers)}
	for i := range s.consumers {
		s.consumers[i].hold = -1
		s.idle = append(s.idle, int16(i))
	}
	return s
}

// Clone deep-copies the state; the holds table copies on write.
func (s *Family) Clone() engine.Family {
	c := *s
	c.h = s.h.clone()
	c.again = slices.Clone(s.again)
	c.consumers = slices.Clone(s.consumers)
	c.idle = slices.Clone(s.idle)
	c.orphans = slices.Clone(s.orphans)
	return &c
}

func step(o op, a int32, w int16, d uint16) engine.FamilyStep {
	return engine.FamilyStep{Op: uint8(o), Item: a, Actor: w, Gen: d}
}

func pressAt(start engine.Time, i int32) engine.Time {
	return start + engine.Time(int64(i)*int64(PressSpan)/People)
}

// Start schedules the first press.
func (s *Family) Start(w *engine.World) {
	w.Schedule(pressAt(w.Now, 0), step(opPress, 0, -1, 0), false)
}

// Step runs one step: one event, at most one decision.
func (s *Family) Step(w *engine.World, st engine.FamilyStep) {
	switch op(st.Op) {
	case opPress:
		s.press(w, st.Item)
	case opDispatch:
		s.dispatchOne(w)
	case opUpdate:
		s.update(w, int(st.Actor))
	case opAckPoint:
		s.ackPoint(w, int(st.Actor))
	case opExpire:
		s.expire(w, st.Item, st.Gen)
	case opRestart:
		s.restart(w, int(st.Actor))
	}
}

func (s *Family) press(w *engine.World, i int32) {
	id := w.Truth().NewMessage()
	if id != i {
		panic(fmt.Sprintf("stagefront: message %d for hold %d", id, i))
	}
	s.pressed++
	if s.pressed < People {
		w.Schedule(pressAt(w.Spec().Start, s.pressed), step(opPress, s.pressed, -1, 0), false)
	}
	s.wake(w)
	w.Emit(engine.EvPublish, i, -1, 0, int64(i), 0)
}

func (s *Family) visible() int { return int(s.pressed-s.fresh) + len(s.again) }

// wake schedules a dispatch when a consumer and a message are both free.
func (s *Family) wake(w *engine.World) {
	if !s.dispatch && len(s.idle) > 0 && s.visible() > 0 {
		s.dispatch = true
		w.Schedule(w.Now, step(opDispatch, 0, -1, 0), false)
	}
}

// dispatchOne hands one visible message to the longest-idle consumer.
func (s *Family) dispatchOne(w *engine.World) {
	s.dispatch = false
	if len(s.idle) == 0 || s.visible() == 0 {
		return
	}
	var id int32
	if len(s.again) > 0 {
		id, s.again = s.again[0], s.again[1:]
	} else {
		id = s.fresh
		s.fresh++
	}
	ci := s.idle[0]
	s.idle = s.idle[1:]
	h := s.h.mut(id)
	h.state = stInFlight
	h.receives++
	s.inFlight++
	c := &s.consumers[ci]
	*c = consumer{state: cBusy, hold: id, delivery: h.receives, leaseEnd: w.Now + s.k.VisibilityTimeout, since: w.Now, zeroFail: s.k.ZeroRowsFail}
	if s.k.VisibilityTimeout <= Handler+engine.Millisecond {
		// the lease can run out while the update runs
		c.timed = true
		w.Schedule(c.leaseEnd, step(opExpire, id, -1, c.delivery), false)
	}
	w.Schedule(w.Now+Handler, step(opUpdate, 0, ci, 0), false)
	w.Truth().Handling(id, 1)
	w.Stats.Count(1, 0, 0)
	s.wake(w)
	w.Emit(engine.EvDeliver, id, int(ci), h.receives, int64(c.leaseEnd), 0)
}

// update runs "update holds set status='sold' where id=? and status='held'".
func (s *Family) update(w *engine.World, ci int) {
	c := &s.consumers[ci]
	if c.state != cBusy {
		return
	}
	id := c.hold
	h := s.h.mut(id)
	if !h.sold {
		h.sold = true
		s.sold++
		if h.state == stDLQ {
			// its lease ran out mid-update and the broker moved it aside,
			// but this consumer's statement still commits: a dead letter
			// whose seat is sold, like one sold before it was moved
			s.dlqSold++
		}
		n := w.Truth().Effect(id)
		w.Stats.AddBusy(Handler)
		w.Schedule(w.Now+engine.Millisecond, step(opAckPoint, 0, int16(ci), 0), false)
		w.Emit(engine.EvEffect, id, ci, c.delivery, 1, int64(n))
		return
	}
	w.Stats.AddBusy(Handler)
	if c.zeroFail {
		// the handler raises: no ack, the lease runs out, the broker
		// delivers it again or, after the last delivery, moves it aside
		s.zeroFail++
		s.noteZero(id, c.delivery, w.Now, true)
		s.drop(w, ci)
		s.free(w, ci)
		w.Truth().Handling(id, -1)
		w.Emit(KindZeroRows, id, ci, c.delivery, 0, 1)
		return
	}
	s.zeroOK++
	s.noteZero(id, c.delivery, w.Now, false)
	w.Schedule(w.Now+engine.Millisecond, step(opAckPoint, 0, int16(ci), 0), false)
	w.Emit(KindZeroRows, id, ci, c.delivery, 0, 0)
}

func (s *Family) noteZero(id int32, d uint16, at engine.Time, failure bool) {
	s.zeros[s.nZeros%len(s.zeros)] = note{id, d, at, failure}
	s.nZeros++
}

// drop leaves the consumer's message to its lease: it comes back (or goes
// to the DLQ) when the lease expires, unless a timer is already set.
func (s *Family) drop(w *engine.World, ci int) {
	c := &s.consumers[ci]
	if h := s.h.at(c.hold); h.state == stInFlight && h.receives == c.delivery {
		s.orphans = append(s.orphans, lease{c.hold, c.delivery, c.leaseEnd})
	}
	if !c.timed {
		w.Schedule(max(c.leaseEnd, w.Now), step(opExpire, c.hold, -1, c.delivery), false)
	}
}

func (s *Family) free(w *engine.World, ci int) {
	s.consumers[ci] = consumer{state: cIdle, hold: -1, since: w.Now}
	s.idle = append(s.idle, int16(ci))
	s.wake(w)
}

// ackPoint: the crash point after the commit, then the ack.
func (s *Family) ackPoint(w *engine.World, ci int) {
	c := &s.consumers[ci]
	id := c.hold
	natural := int64(0)
	if engine.Chance(w.Draw(engine.StreamCrash, uint64(id), uint64(c.delivery)), s.k.CrashP) {
		natural = 1
	}
	var crashed bool
	if w.Fault(FaultAfterCommit, id, ci, c.delivery) {
		crashed = w.ForceDecided(engine.DecCrash, id, ci, c.delivery, 0, 1) == 1
	} else {
		crashed = w.Decide(engine.DecCrash, id, ci, c.delivery, natural, 0, 1) == 1
	}
	if crashed {
		s.crashes++
		w.Stats.Count(0, 0, 1)
		s.drop(w, ci)
		back := w.Now + s.k.RestartAfter
		d := c.delivery
		*c = consumer{state: cDead, hold: -1, since: w.Now}
		w.Truth().Handling(id, -1)
		w.Schedule(back, step(opRestart, 0, int16(ci), 0), false)
		w.Emit(engine.EvCrash, id, ci, d, int64(back), 0)
		return
	}
	h := s.h.mut(id)
	d := c.delivery
	if h.state != stInFlight || h.receives != d || w.Now > c.leaseEnd {
		// the lease this consumer quotes has expired
		w.Stats.Count(0, 1, 0)
		s.free(w, ci)
		w.Truth().Handling(id, -1)
		w.Emit(engine.EvAckRefused, id, ci, d, int64(c.leaseEnd), 0)
		return
	}
	h.state = stAcked
	s.inFlight--
	w.Truth().Done(id)
	s.free(w, ci)
	w.Truth().Handling(id, -1)
	w.Emit(engine.EvAck, id, ci, d, 0, 0)
}

// expire ends the lease of delivery d of hold id, if it still holds.
func (s *Family) expire(w *engine.World, id int32, d uint16) {
	h := s.h.mut(id)
	if i := slices.IndexFunc(s.orphans, func(l lease) bool { return l.hold == id && l.delivery == d }); i >= 0 {
		s.orphans = slices.Delete(s.orphans, i, i+1)
	}
	if h.state != stInFlight || h.receives != d {
		return
	}
	s.inFlight--
	if int(h.receives) >= s.k.MaxReceives {
		h.state = stDLQ
		s.dlq++
		if h.sold {
			s.dlqSold++
		}
		w.Truth().DeadLetter(id) // emits the dlq event
		return
	}
	h.state = stVisible
	s.again = append(s.again, id)
	s.wake(w)
	w.Emit(engine.EvLeaseExpired, id, -1, d, 0, 0)
}

func (s *Family) restart(w *engine.World, ci int) {
	s.free(w, ci)
	w.Emit(engine.EvRestart, -1, ci, 0, 0, 0)
}

// Figures: seats sold, and what the zero-row updates were taken for.
func (s *Family) Figures(w *engine.World) map[string]any {
	return map[string]any{
		"people":             People,
		"consumers":          Consumers,
		"sold":               s.sold,
		"zero_row_successes": s.zeroOK,
		"zero_row_failures":  s.zeroFail,
		"crashes":            s.crashes,
		"dead_letters":       s.dlq,
		"consumers_busy":     s.busy(w),
		"dead_letters_sold":  s.dlqSold, // false failures: the seat was sold
	}
}

// busy is the fraction of the consumers' time spent in updates (the
// summary's busy counts the queue model's workers, of which a family has
// none).
func (s *Family) busy(w *engine.World) float64 {
	span := int64(w.Stats.LastEvent-w.Spec().Start) * Consumers
	if span <= 0 {
		return 0
	}
	return float64(w.Stats.BusyMs*10000/span) / 10000
}

// Counts: messages visible, and messages leased.
func (s *Family) Counts(w *engine.World) (waiting, taken int) { return s.visible(), s.inFlight }
