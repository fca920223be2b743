package sqs

import (
	"fmt"

	"inflight/engine"
)

// Family is the queue's own state: the queue and its leases, the workers
// that poll it and the sources that publish to it. The kernel keeps the
// ground truth per message (engine.Msg), the dead letters and the counts
// behind engine.States; the queue keeps its own record per message beside
// it (Record).
type Family struct {
	k       *Knobs             // the knobs in force (BindKnobs)
	queue   deque              // standard: visible ids; ordered: every held id in order
	recs    engine.Vec[Record] // per message id, beside the kernel's engine.Msg
	qseq    uint32             // enqueue stamps handed out
	leased  []int32            // in-flight ids, for the in-flight pane
	visible int                // messages in StVisible
	idle    int                // workers in WIdle
	workers []Worker
	srcSent []int  // per source: messages it has published
	srcNext []bool // per source: its next publish step is scheduled
	// dispatchOn: a dispatch step is scheduled at the current time
	dispatchOn bool
	// stopping counts the busy workers an operator's workers=-N stops
	// once their handler ends (Worker.stopping): 0 on every run without it
	stopping int
	// scriptOff: an operator's no_script stood the incident's repair
	// script down on this branch (Operate)
	scriptOff bool
	script    bool // the incident runs the repair script: no_script is an action
	// poison: some source publishes poison, so a handler must look at
	// the message before it works; without, that read is skipped
	poison bool
}

// Record is the queue's own state of one message: its lease, its claim and
// its place in the queue. Indexed by message id like the kernel's
// engine.Msg, released and revived with it (engine.FamilyRecords).
type Record struct {
	LeaseAt  engine.Time // when the current lease began
	Expiry   engine.Time // when the current lease ends
	ClaimAt  engine.Time // the claims table: -1 when there is no claim
	SentAt   engine.Time // -1 until stamped
	Holder   int16       // worker holding the current lease, -1 for none
	EndedBy  int16       // the worker whose lease on delivery EndedOf ended as Ended says
	QSeq     uint32      // bumped at each enqueue; older queue entries are stale
	Deferred bool        // the current lease was set by the handler, not a delivery
	// Ended is how the lease on delivery EndedOf ended without an ack: what
	// the next delivery's caption tells. Only captions read it (it is in no
	// trace), and it sits in the record's padding.
	Ended   Ending
	EndedOf uint16
}

// WorkerState is what a worker process is doing.
type WorkerState uint8

// The worker states.
const (
	WOff  WorkerState = iota // not started yet
	WIdle                    // polling
	WBusy                    // running a handler
	WDead                    // crashed; the supervisor will restart it
	WGone                    // stopped by an operator (workers=-N): never restarted
)

func (s WorkerState) String() string {
	return [...]string{"off", "idle", "busy", "dead", "stopped"}[s]
}

// Worker is one single-threaded consumer process.
type Worker struct {
	Name     string
	Box      string
	State    WorkerState
	Msg      int32
	Delivery uint16
	Since    engine.Time // busy or dead since
	CallEnd  engine.Time // when its provider call answers, or Never
	LeaseEnd engine.Time // the expiry its receipt quotes
	Wedged   bool
	claimed  bool // this delivery wrote a claim (stamp sent_at on return)
	// ackBefore: the handler this delivery started with acks before the
	// work. Chosen at delivery, so a fork that flips the ack knob changes
	// later deliveries, not this one.
	ackBefore bool
	// gen counts the operator's crashes of this worker: a handler step
	// scheduled before one carries the gen it had and is dropped (Step)
	gen uint16
	// wedgeNext: an operator wedged the next call this worker makes
	// (wedge=W while it was not calling)
	wedgeNext bool
	// stopping: an operator stopped this worker (workers=-N) while it
	// was busy; it stops when its handler ends
	stopping bool
}

// New makes the queue; Start builds its workers and sources from the
// incident.
func New(*engine.Params) engine.Family { return &Family{} }

// BindKnobs keeps the knobs in force at hand (engine.KnobBinder).
func (q *Family) BindKnobs(p *engine.Params) { q.k = KnobsOf(p) }

// Of is the world's queue, or nil when its incident runs another family.
func Of(w *engine.World) *Family {
	q, _ := w.Family().(*Family)
	return q
}

// Clone copies the queue for a checkpoint or a fork.
func (q *Family) Clone() engine.Family {
	c := *q
	c.queue = q.queue.clone()
	c.recs = q.recs.Clone()
	c.leased = append([]int32(nil), q.leased...)
	c.workers = append([]Worker(nil), q.workers...)
	c.srcSent = append([]int(nil), q.srcSent...)
	c.srcNext = append([]bool(nil), q.srcNext...)
	return &c
}

// Discard hands the records' leaves back when the world is thrown away
// (engine.FamilyDiscard).
func (q *Family) Discard() { q.recs.Discard() }

// The queue's steps.
const (
	opPublish uint8 = iota
	opStartWorkers
	opDispatch
	opHandle
	opSend
	opCallReturn
	opAck
	opWork
	opLeaseExpire
	opRestart
	opCrashAfterClaim
	opRenew
	opFaultCrash // a forced fault: Item is the fault point
	opStopped    // a stopping worker's handler has ended: its stop's event
)

// schedule queues a step; seq is the world's, so ties run in the order
// the model scheduled them.
func schedule(w *engine.World, t engine.Time, op uint8, item int32, actor int, gen uint16) {
	w.Schedule(t, engine.FamilyStep{Op: op, Item: item, Actor: int16(actor), Gen: gen}, false)
}

// Start builds the workers, box by box (the world has checked there are
// at most 64), and schedules their start and every source's first message.
func (q *Family) Start(w *engine.World) {
	spec := w.Spec()
	q.script = hasScript(spec)
	for i := range spec.Sources {
		q.poison = q.poison || spec.Sources[i].Poison
	}
	for _, box := range spec.Workers.Boxes {
		for i := 1; i <= spec.Workers.PerBox; i++ {
			q.workers = append(q.workers, Worker{Name: fmt.Sprintf("%s%d", box, i), Box: box, Msg: -1, CallEnd: engine.Never})
		}
	}
	q.srcSent = make([]int, len(spec.Sources))
	q.srcNext = make([]bool, len(spec.Sources))
	schedule(w, max(spec.Workers.Start, spec.Start), opStartWorkers, 0, 0, 0)
	for i := range spec.Sources {
		if q.sourceCount(w, i) > 0 {
			q.srcNext[i] = true
			schedule(w, spec.Sources[i].Start, opPublish, 0, i, 0)
		}
	}
}

// Step runs one of the queue's steps.
func (q *Family) Step(w *engine.World, s engine.FamilyStep) {
	wi := int(s.Actor)
	if handlerStep(s.Op) && s.Gen != q.workers[wi].gen {
		return // the worker was crashed by an operator since: its handler is gone
	}
	switch s.Op {
	case opPublish:
		q.publish(w, wi, int(s.Item))
	case opStartWorkers:
		q.startWorkers(w)
	case opDispatch:
		q.dispatch(w)
	case opHandle:
		q.handle(w, wi)
	case opWork:
		q.work(w, wi)
	case opSend:
		q.send(w, wi)
	case opCallReturn:
		q.callReturn(w, wi)
	case opAck:
		q.ack(w, wi, s.Item == 1)
	case opLeaseExpire:
		q.leaseExpire(w, s.Item, s.Gen)
	case opRestart:
		q.restart(w, wi)
	case opCrashAfterClaim:
		q.crash(w, wi, engine.CrashAfterClaim)
	case opRenew:
		q.renew(w, wi, s.Item, s.Gen)
	case opFaultCrash:
		q.crash(w, wi, engine.CrashFault+int64(s.Item))
	case opStopped:
		w.Emit(EvStop, -1, wi, 0, stopNow, int64(WBusy))
	default:
		panic(fmt.Sprintf("sqs: unknown step %d", s.Op))
	}
}

// handlerOps are the steps of a worker's handler, which an operator's
// crash ends: a bit each, tested on every step.
const handlerOps = 1<<opHandle | 1<<opWork | 1<<opSend | 1<<opCallReturn | 1<<opAck | 1<<opCrashAfterClaim | 1<<opFaultCrash

// handlerStep reports whether op is a step of a worker's handler.
func handlerStep(op uint8) bool { return handlerOps>>op&1 != 0 }

// Workers lists the workers (read-only); none for another family's world.
func (q *Family) Workers() []Worker {
	if q == nil {
		return nil
	}
	return q.workers
}

// Leased lists the ids of messages in flight (read-only).
func (q *Family) Leased() []int32 {
	if q == nil {
		return nil
	}
	return q.leased
}

// QueueLen is the number of messages waiting in the queue (visible).
func (q *Family) QueueLen() int {
	if q == nil {
		return 0
	}
	return q.visible
}

// Queue lists up to max waiting message ids in queue order.
func (q *Family) Queue(w *engine.World, max int) []int32 {
	if q == nil {
		return nil
	}
	var out []int32
	for i := 0; i < q.queue.len() && len(out) < max; i++ {
		e := q.queue.at(i)
		if m, _ := w.Msg(e.id); m.Status == engine.StVisible && q.current(e) {
			out = append(out, e.id)
		}
	}
	return out
}

// Counts are the chart's numbers: messages waiting, messages in flight.
func (q *Family) Counts(*engine.World) (waiting, taken int) { return q.visible, len(q.leased) }

// Figures: the queue's figures are the summary's standard ones (see
// Summarize).
func (q *Family) Figures(*engine.World) map[string]any { return nil }

// DecisionText: the queue makes only standard decisions, which the world
// words itself.
func (q *Family) DecisionText(w *engine.World, d *engine.Decision) string { return d.Kind.String() }

// Runs reports whether spec's incident runs the queue: its knobs are the
// queue's (no world built to find out).
func Runs(spec *engine.Spec) bool {
	_, ok := spec.Params.Struct().(*Knobs)
	return ok
}
