// Package dbdown is the db-down incident's system: one consumer writing
// each message to a database that is down from 10:00 to 10:10, with a
// retry-then-dead-letter policy and, behind the `breaker` knob, a circuit
// breaker that pauses consumption instead.
//
// The numbers the lesson leaves open, chosen here and documented in the
// incident file:
//
//   - Handler: one single-threaded consumer; every attempt takes 50 ms
//     (HandlerTime), a committed write or a refused connection alike.
//   - Retries: a failed attempt is retried 3 times (Retries) after 1 s,
//     2 s and 4 s (Backoff). The retry waits on a timer, not in the
//     handler: the consumer takes the next message meanwhile, and a retry
//     that falls due goes before new messages. After the 4th failed
//     attempt the message is dead-lettered.
//   - Breaker (breaker=true): 5 failures in a row (TripAfter) open it.
//     Open, the consumer takes nothing; every message waiting for a retry
//     goes back to the head of the line, its attempts forgotten — the
//     failure was the database's, not the message's. After 30 s
//     (CoolDown) it is half-open: one message is let through as a trial.
//     Its write succeeding closes the breaker; failing opens it for
//     another 30 s (the message back at the head, attempts forgotten).
//   - Every write asks the database; whether it answers is a recorded
//     decision (natural: down 10:00:00–10:10:00), so a fork can make one
//     call succeed in the outage or fail outside it.
package dbdown

import (
	"inflight/engine"
)

// The consumer's and breaker's settings (see the package comment).
const (
	HandlerTime = 50 * engine.Millisecond
	Retries     = 3
	TripAfter   = 5
	CoolDown    = 30 * engine.Second
)

// Backoff is the wait before retry n (1-based).
func Backoff(n int) engine.Duration {
	return engine.Second << uint(max(0, min(n-1, 10)))
}

// The outage: the database refuses connections from DownFrom until
// DownUntil.
var (
	DownFrom  = clock("10:00:00")
	DownUntil = clock("10:10:00")
)

func clock(s string) engine.Time {
	t, err := engine.ParseClock(s)
	if err != nil {
		panic(err)
	}
	return t
}

// The family's event kinds.
const (
	KindFail        = engine.FamilyKind + iota // a write failed: the database refused the connection
	KindBreakerOpen                            // the breaker opens: consumption paused
	KindHalfOpen                               // the breaker lets one trial message through
	KindClosed                                 // the breaker closes: consumption resumes
	KindDBDown                                 // the database stops answering
	KindDBUp                                   // the database answers again
	KindPause                                  // an operator pauses consumption (actions.go)
	KindResume                                 // consumption resumes: an operator, or the end of a timed pause
)

var kindNames = map[engine.Kind]string{KindFail: "db_error", KindBreakerOpen: "breaker_open", KindHalfOpen: "breaker_half_open",
	KindClosed: "breaker_closed", KindDBDown: "db_down", KindDBUp: "db_up",
	KindPause: "consumer_paused", KindResume: "consumer_resumed"}

// DecDB is the family's decision: does the database answer this write
// (1) or refuse it (0)?
const DecDB = engine.FamilyDecision

// What a failed attempt leads to, as KindFail's Aux.
const (
	FailRetry  = 0 // retried after its backoff
	FailDLQ    = 1 // the last retry: dead-lettered
	FailTrip   = 2 // the failure that opens the breaker
	FailProbe  = 3 // the half-open trial failed: open again
	FailRetryB = 4 // retried, the breaker counting
)

// The family's steps.
const (
	opPublish uint8 = iota
	opPoll
	opFinish
	opRetryDue
	opDeadLetter
	opOpen
	opHalfOpen
	opClose
	opDBDown
	opDBUp
	opResume // a timed pause ends (actions.go)
)

// Breaker states.
const (
	closed = iota
	open
	halfOpen
)

var breakerNames = [...]string{"CLOSED", "OPEN", "HALF-OPEN"}

type wait struct {
	id  int32
	due engine.Time
	n   uint8  // the retry this wait is for
	seq uint16 // matches the scheduled step, so a cancelled wait's step is ignored
}

type row struct {
	id        int32
	at, since engine.Time // written at; published at
}

// state is the consumer, its breaker and its line of messages: plain data.
type state struct {
	queue       []int32 // waiting, head first (queue[head:])
	head        int
	lane        []int32       // retries due, before new messages
	waits       []wait        // retries on their timers
	attempts    []uint8       // per message: attempts since its failures were last forgiven
	publishedAt []engine.Time // per message
	busy        int32         // the message in the handler, -1
	probe       bool          // the handler holds the half-open trial
	pollDue     bool          // a poll step is scheduled
	fails       int           // failures in a row
	breaker     int           // closed, open or half-open (breakerNames)
	until       engine.Time   // open until
	gen         uint16        // half-open timers: only the latest counts
	seq         uint16
	dbUp        bool
	paused      bool        // an operator paused consumption (actions.go)
	pausedAt    engine.Time // since when
	resumeAt    engine.Time // a timed pause's end; 0: until resumed
	pauseGen    uint16      // timed-pause steps: only the latest counts
	rows        [16]row     // the latest writes, a ring
	nrows       int
	// figures
	retries, opens, probes, errors, rowsWritten, requeued int64
}

// Family is db-down's system.
type Family struct {
	s state
	k *Knobs // the knobs in force (BindKnobs)
}

// New builds the consumer; the breaker knob is read at each step, so a
// fork may turn it on or off mid-run.
func New(p *engine.Params) engine.Family {
	return &Family{s: state{busy: -1, dbUp: true}}
}

// Clone deep-copies the state.
func (f *Family) Clone() engine.Family {
	c := f.s
	c.queue = append([]int32(nil), f.s.queue[f.s.head:]...)
	c.head = 0
	c.lane = append([]int32(nil), f.s.lane...)
	c.waits = append([]wait(nil), f.s.waits...)
	c.attempts = append([]uint8(nil), f.s.attempts...)
	c.publishedAt = append([]engine.Time(nil), f.s.publishedAt...)
	return &Family{s: c}
}

// Start schedules the sources' first messages and the outage.
func (f *Family) Start(w *engine.World) {
	for i, src := range w.Spec().Sources {
		if src.Count > 0 {
			w.Schedule(src.Start, engine.FamilyStep{Op: opPublish, Actor: int16(i)}, false)
		}
	}
	w.Schedule(DownFrom, engine.FamilyStep{Op: opDBDown}, false)
	w.Schedule(DownUntil, engine.FamilyStep{Op: opDBUp}, false)
}

// Step runs one step.
func (f *Family) Step(w *engine.World, st engine.FamilyStep) {
	switch st.Op {
	case opPublish:
		f.publish(w, int(st.Actor), int(st.Item))
	case opPoll:
		f.poll(w)
	case opFinish:
		f.finish(w, st.Item)
	case opRetryDue:
		f.retryDue(w, st.Item, st.Gen)
	case opDeadLetter:
		w.Truth().DeadLetter(st.Item) // the world emits the dlq event
	case opOpen:
		f.openBreaker(w)
	case opHalfOpen:
		f.halfOpen(w, st.Gen)
	case opClose:
		w.Emit(KindClosed, -1, 0, 0, 0, 0)
		f.kick(w)
	case opDBDown:
		f.s.dbUp = false
		w.Emit(KindDBDown, -1, -1, 0, int64(DownUntil), 0)
	case opDBUp:
		f.s.dbUp = true
		w.Emit(KindDBUp, -1, -1, 0, int64(DownFrom), 0)
	case opResume:
		f.timedResume(w, st.Gen)
	}
}

func (f *Family) publish(w *engine.World, src, k int) {
	s := &f.s
	sp := w.Spec().Sources[src]
	id := w.Truth().NewMessage()
	for int(id) >= len(s.attempts) {
		s.attempts = append(s.attempts, 0)
		s.publishedAt = append(s.publishedAt, w.Now)
	}
	s.queue = append(s.queue, id)
	if k+1 < sp.Count {
		w.Schedule(sp.Start+sp.Every*engine.Time(k+1), engine.FamilyStep{Op: opPublish, Actor: int16(src), Item: int32(k + 1)}, false)
	}
	w.Emit(engine.EvPublish, id, -1, 0, int64(k), 0)
	f.kick(w)
}

// kick asks for a poll now, once.
func (f *Family) kick(w *engine.World) {
	if !f.s.pollDue {
		f.s.pollDue = true
		w.Schedule(w.Now, engine.FamilyStep{Op: opPoll}, false)
	}
}

// poll lets the consumer take its next message: a retry that is due, else
// the head of the line — unless the breaker is open.
func (f *Family) poll(w *engine.World) {
	s := &f.s
	s.pollDue = false
	if s.busy >= 0 || s.paused {
		return
	}
	if !f.k.Breaker && s.breaker != closed {
		s.breaker = closed // the breaker was taken out by a fork
	}
	if f.k.Breaker && s.breaker == open {
		return
	}
	var id int32
	switch {
	case len(s.lane) > 0:
		id = s.lane[0]
		s.lane = s.lane[1:]
	case s.head < len(s.queue):
		id = s.queue[s.head]
		s.head++
		if s.head > 1024 && s.head*2 > len(s.queue) {
			s.queue = append([]int32(nil), s.queue[s.head:]...)
			s.head = 0
		}
	default:
		return
	}
	s.busy = id
	s.probe = f.k.Breaker && s.breaker == halfOpen
	if s.probe {
		s.probes++
	}
	s.attempts[id]++
	w.Stats.Count(1, 0, 0)
	w.Schedule(w.Now+HandlerTime, engine.FamilyStep{Op: opFinish, Item: id}, false)
	w.Emit(engine.EvDeliver, id, 0, uint16(s.attempts[id]), int64(w.Now+HandlerTime), int64(boolInt(s.probe)))
}

func (f *Family) finish(w *engine.World, id int32) {
	s := &f.s
	n := s.attempts[id]
	natural := int64(boolInt(w.Now < DownFrom || w.Now >= DownUntil))
	up := w.Decide(DecDB, id, 0, uint16(n), natural, 0, 1) == 1
	s.busy = -1
	w.Stats.AddBusy(HandlerTime)
	probe := s.probe
	s.probe = false
	if up {
		c := w.Truth().Effect(id)
		w.Truth().Done(id)
		s.fails = 0
		s.rowsWritten++
		s.rows[s.nrows%len(s.rows)] = row{id, w.Now, s.publishedAt[id]}
		s.nrows++
		if probe {
			// closed at once: a poll already due now must not take a
			// second trial
			s.breaker, s.fails = closed, 0
			w.Schedule(w.Now, engine.FamilyStep{Op: opClose}, false)
		}
		w.Emit(engine.EvEffect, id, 0, uint16(n), int64(HandlerTime), int64(c))
		f.kick(w)
		return
	}
	s.fails++
	s.errors++
	var next engine.Time
	var how int64
	breakerOn := f.k.Breaker
	switch {
	case breakerOn && probe:
		how = FailProbe
		f.toHead(id)
		s.breaker = open // at once: a poll already due now must take nothing
		w.Schedule(w.Now, engine.FamilyStep{Op: opOpen}, false)
	case breakerOn && s.breaker == closed && s.fails >= TripAfter:
		how = FailTrip
		f.toHead(id)
		s.breaker = open
		w.Schedule(w.Now, engine.FamilyStep{Op: opOpen}, false)
	case int(n) > Retries:
		how = FailDLQ
		w.Schedule(w.Now, engine.FamilyStep{Op: opDeadLetter, Item: id, Gen: uint16(n)}, false)
	default:
		how = FailRetry
		if breakerOn {
			how = FailRetryB
		}
		next = w.Now + Backoff(int(n))
		s.seq++
		s.waits = append(s.waits, wait{id, next, n, s.seq})
		s.retries++
		w.Schedule(next, engine.FamilyStep{Op: opRetryDue, Item: id, Gen: s.seq}, false)
	}
	w.Emit(KindFail, id, 0, uint16(n), int64(next), how)
	f.kick(w)
}

// toHead puts a message back at the head of the line, its attempts
// forgiven: the failure was the infrastructure's.
func (f *Family) toHead(id int32) {
	s := &f.s
	s.attempts[id] = 0
	if s.head > 0 {
		s.head--
		s.queue[s.head] = id
		return
	}
	s.queue = append([]int32{id}, s.queue...)
}

func (f *Family) retryDue(w *engine.World, id int32, seq uint16) {
	s := &f.s
	for i, wt := range s.waits {
		if wt.id == id && wt.seq == seq {
			s.waits = append(s.waits[:i], s.waits[i+1:]...)
			s.lane = append(s.lane, id)
			f.poll(w)
			return
		}
	}
}

func (f *Family) openBreaker(w *engine.World) {
	s := &f.s
	// the messages waiting for a retry go back to the head, in the order
	// they first arrived (ids grow with publish time)
	back := append([]int32(nil), s.lane...)
	for _, wt := range s.waits {
		back = append(back, wt.id)
	}
	sortIDs(back)
	for i := len(back) - 1; i >= 0; i-- {
		f.toHead(back[i])
	}
	s.requeued += int64(len(back))
	s.lane, s.waits = s.lane[:0], s.waits[:0]
	s.breaker = open
	s.opens++
	s.until = w.Now + CoolDown
	s.gen++
	w.Schedule(s.until, engine.FamilyStep{Op: opHalfOpen, Gen: s.gen}, false)
	w.Emit(KindBreakerOpen, -1, 0, 0, int64(s.until), int64(len(back)))
}

func (f *Family) halfOpen(w *engine.World, gen uint16) {
	s := &f.s
	if s.breaker != open || gen != s.gen {
		return
	}
	if !f.k.Breaker {
		s.breaker, s.fails = closed, 0
		w.Emit(KindClosed, -1, 0, 0, 0, 1)
		f.kick(w)
		return
	}
	s.breaker = halfOpen
	w.Emit(KindHalfOpen, -1, 0, 0, 0, 0)
	f.kick(w)
}

// KnobsChanged takes the breaker out at once when a fork turns it off
// while it is open or half-open: the pane shows it closed from the fork's
// moment, and its pending half-open timer finds nothing to do.
func (f *Family) KnobsChanged(w *engine.World, was *engine.Params) {
	if s := &f.s; !f.k.Breaker && s.breaker != closed {
		s.breaker = closed
	}
}

// KnobsApplied wakes the consumer after the knob event, as every knob
// change wakes the dispatcher: a breaker taken out while open leaves
// messages waiting that the consumer may take now, not at the next
// arrival.
func (f *Family) KnobsApplied(w *engine.World) { f.kick(w) }

func sortIDs(ids []int32) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Figures are db-down's own figures.
func (f *Family) Figures(w *engine.World) map[string]any {
	s := &f.s
	return map[string]any{
		"retries":        s.retries,
		"db_errors":      s.errors,
		"breaker_opened": s.opens,
		"probes":         s.probes,
		"rows_written":   s.rowsWritten,
		"requeued":       s.requeued,
	}
}

// Counts are the chart's numbers: waiting in line (with retries due), and
// taken — in the handler or on a retry timer.
func (f *Family) Counts(w *engine.World) (waiting, taken int) {
	s := &f.s
	waiting = len(s.queue) - s.head + len(s.lane)
	taken = len(s.waits)
	if s.busy >= 0 {
		taken++
	}
	return waiting, taken
}
