package engine

// MsgStatus is where a message is in the broker's life.
type MsgStatus uint8

// The message statuses.
const (
	StUnpublished MsgStatus = iota
	StVisible               // waiting in the queue
	StInFlight              // leased to a worker, or handed back with a delay
	StDeleted               // acked: the broker forgot it
	StDLQ                   // moved to the dead letter queue
	StHeld                  // held by a family's system (see Family)
)

func (s MsgStatus) String() string {
	return [...]string{"unpublished", "visible", "in flight", "deleted", "dead letter", "held"}[s]
}

// Msg is the ground truth's record of one message: what happened to it,
// whatever system carried it. A family's own state per message (a lease,
// a queue position) lives in the family (see FamilyRecords). Receives,
// Poison and Repaired are the message's history and payload, which the
// dead letter record and the fork's pin read.
type Msg struct {
	Published Time
	Receives  uint16 // deliveries so far
	Effects   uint16
	Holders   uint8 // workers still running a handler on it
	Status    MsgStatus
	Source    uint8
	Poison    bool // the new handler raises on it
	Repaired  bool // an operator added the missing field
	// Redriven: this is a life after a redrive. The incident's pins name
	// the deliveries of its story's first life, so they no longer apply.
	Redriven bool
}

// Held reports whether the broker still holds the message.
func (m *Msg) Held() bool {
	return m.Status == StVisible || m.Status == StInFlight || m.Status == StHeld
}

// DeadLetter is one entry of the dead letter queue.
type DeadLetter struct {
	Msg       int32
	Receives  uint16
	Effects   uint16
	Redriven  bool
	Poison    bool
	Source    uint8
	Published Time
	At        Time
}

// Stats are the running counters behind the run summary.
type Stats struct {
	Published    int64
	Deliveries   int64
	Effects      int64
	Duplicates   int64
	Effected     int64 // messages with at least one effect
	LateRefused  int64
	LateAccepted int64
	Acks         int64
	Crashes      int64
	Redriven     int64
	DLQTotal     int64
	DLQPeak      int64
	BusyMs       int64
	MaxOldestAge Duration
	LastEffect   Time
	LastEvent    Time
}

type op uint8

// The kernel's own steps; a family's run as opFamily.
const (
	opAgeCheck op = iota
	opOperator
	opKnobs
	opAlert
	opFamily
	opAction // a fork's operator actions (ScheduleActions)
)

// item is a scheduled step (see agenda): 24 bytes, so that the heap moves
// three words an entry. key is the step's seq above its op, background bit
// and family op (see mkKey): ordering by key orders by seq.
type item struct {
	t   Time
	key uint64
	// msg, who and delivery: opFamily: the step's Item, Actor and Gen;
	// opAlert and opOperator: who is the alert or operator, and delivery
	// is 1 for an alert the lesson says was missing (spec.WouldHave)
	msg      int32
	who      int16
	delivery uint16
}

// seqShift leaves the key's low bits to the op (3), the background bit and
// the family's op (8); 52 bits of seq outlast any budget of events.
const seqShift = 12

// mkKey packs a step's seq, op, background bit and family op into a key.
func mkKey(seq uint64, o op, bg bool, fop uint8) uint64 {
	k := seq<<seqShift | uint64(o)<<9 | uint64(fop)
	if bg {
		k |= 1 << 8
	}
	return k
}

func (it *item) op() op      { return op(it.key >> 9 & 7) }
func (it *item) bg() bool    { return it.key&(1<<8) != 0 }
func (it *item) fop() uint8  { return uint8(it.key) }
func (it *item) seq() uint64 { return it.key >> seqShift }

// World is the whole simulated state: plain data, cloned for checkpoints
// and forks. The spec is shared and read-only.
type World struct {
	spec      *Spec
	seed      uint64
	streams   [2]uint64 // draw's first round for the latency and worker streams
	Knobs     Params    // the knobs in force (a fork's changes applied at its moment)
	Now       Time
	Pos       int64 // events emitted so far
	Decisions int64 // decisions made so far

	q       agenda  // the scheduled steps
	forcing Forcing // the faults and decisions a fork forces
	truth   Truth   // the ground truth per message
	watch   watch   // the alerts and operators watching it

	Stats     Stats           // the run's counters, behind the summary's figures
	AlertAt   []Time          // per spec.Alerts: first firing, or -1
	WouldAt   []Time          // per spec.WouldHave
	budgetHit int64           // the event budget that stopped the run, or 0
	pending   []Setting       // a fork's knob changes, applied at its first step
	applied   []Setting       // the last changes applied, for the knob event's caption
	actions   []pendingAction // a fork's operator actions, due at their step
	acting    bool            // in the actions step: its events are the fork's place (knobSpy)
	acted     []string        // the last batch of actions in words, as they acted
	actMore   bool            // more actions are due at the clock: the next actions step continues the batch
	pinTop    int32           // the highest message a pin names, -1 for none: decide's fast path
	// actRefused: an action whose target could not take it when due
	// (ActionRefused)
	actRefused error
	// PinsGaveWay lists the incident's pins that did not hold because their
	// value lay outside the knobs in force (see pinned)
	PinsGaveWay []PinGaveWay

	fam     Family      // the incident's system
	guard   FamilyGuard // fam, when it strands messages a step of its own must move (see revive)
	revived int         // revivals of a stranded family (FamilyGuard): tests assert 0

	fp uint64 // running fingerprint of the trace

	// per-step scratch, never carried across steps
	sink Sink
	hash *hashSink // the sink when it is a trace hash alone (see RunTo)
	// rec reads a headless run's recovery as it goes (Run), for the kinds
	// in recMask only: one bit test an event instead of a second replay
	rec     *RecoveryScan
	recMask uint64
	ev      Event
	emitted bool
	hasDec  bool
	dec     Decision
}

// Clone returns an independent copy sharing unchanged leaves.
func (w *World) Clone() *World {
	c := *w
	c.q = w.q.clone()
	c.AlertAt = append([]Time(nil), w.AlertAt...)
	c.WouldAt = append([]Time(nil), w.WouldAt...)
	c.pending = append([]Setting(nil), w.pending...)
	c.forcing = w.forcing.clone(&c)
	c.fam = w.fam.Clone()
	bindKnobs(c.fam, &c.Knobs)
	c.guard, _ = c.fam.(FamilyGuard)
	c.truth = w.truth.clone(&c)
	c.watch = w.watch.clone(&c)
	c.rec, c.recMask = nil, 0 // a clone's events are not the run's
	return &c
}

// FamilyDiscard is implemented by a family with copy-on-write tables of
// its own (Vec): Discard hands their leaves back (Vec.Discard).
type FamilyDiscard interface{ Discard() }

// Discard gives the copy-on-write leaves only w holds back, for other
// worlds' copies: a world played once and thrown away (a hunt's branch)
// leaves the collector nothing to sweep. w must not be used after.
func (w *World) Discard() {
	w.truth.msgs.discard(w.truth.owner)
	w.truth.dlq.discard(w.truth.owner)
	if d, ok := w.fam.(FamilyDiscard); ok {
		d.Discard()
	}
	w.fam = nil
}

// Truth is the world's ground truth per message, which a family's steps
// move (see Truth).
func (w *World) Truth() *Truth { return &w.truth }

// Msg reads message id (Truth.Msg).
func (w *World) Msg(id int32) (Msg, bool) { return w.truth.Msg(id) }

// Published is the number of messages published so far.
func (w *World) Published() int { return w.truth.msgs.n }

// DLQLen is the number of messages in the dead letter queue now.
func (w *World) DLQLen() int { return w.truth.dlqLen }

// Spec is the incident the world runs.
func (w *World) Spec() *Spec { return w.spec }

// Fingerprint is a running hash of the trace so far; share codes use it to
// notice an engine that no longer reproduces them.
func (w *World) Fingerprint() uint64 { return w.fp }

// Settled reports whether nothing but background steps remain and no
// message can move again.
func (w *World) Settled() bool {
	return w.q.live == 0 && (w.guard == nil || !w.guard.Stranded(w))
}

// States counts the published messages by where each one is now. Every
// message is in exactly one state, so Held + Done + DLQ + Lost ==
// Published at every moment; the summary, `check` and the explorer all
// read these counts, and no caller recomputes them.
type States struct {
	Published int64
	// Held: waiting or in flight. The family's system still
	// holds it, or a handler is still running on it after an ack before
	// the work: someone may yet act on it.
	Held int64
	Done int64 // deleted with at least one effect
	DLQ  int64 // in the dead letter queue
	Lost int64 // deleted with no effect and nobody working on it
}

// States reads the counts; it costs O(1).
func (w *World) States() States { return w.truth.states(w.Stats.Published) }

// Count adds to the counters every family shares.
func (s *Stats) Count(deliveries, lateRefused, crashes int64) {
	s.Deliveries += deliveries
	s.LateRefused += lateRefused
	s.Crashes += crashes
}

// AddBusy adds worker time spent inside handlers (for `busy`).
func (s *Stats) AddBusy(d Duration) { s.BusyMs += int64(d) }
