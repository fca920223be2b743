// Package fifowindow is the fifo-window incident's system: one producer
// sending an order confirmation request to an SQS FIFO queue with a
// MessageDeduplicationId, retrying with backoff while its answers are lost,
// and one consumer that receives, sends the confirmation email and deletes.
//
// The lesson (036): "the broker ignores a second message carrying an id it
// has already seen within a five minute deduplication interval … A producer
// that backs off one minute, then two, then four has its fourth attempt at
// minute seven, two minutes past the end of the broker's memory, and the
// careful retry policy is what defeated the deduplication."
//
// The queue is engine/fifo, wrapped: this package only decides when the
// producer sends, whether its answers come back, and what the consumer does.
package fifowindow

import (
	"inflight/engine"
	"inflight/engine/fifo"
)

// The family's event kinds.
const (
	// EvDuplicate: the broker accepted a send but will not deliver it: its
	// deduplication id is still remembered.
	EvDuplicate = engine.FamilyKind + iota
	// EvAnswerLost: the producer never hears the broker's answer.
	EvAnswerLost
	// EvAnswer: the producer gets its answer and stops retrying.
	EvAnswer
	// EvGiveUp: a retry falls due past a retry deadline a fork lowered
	// since it was scheduled: the producer gives up instead of sending.
	EvGiveUp
)

// DecAnswer is the family's decision: does the broker's answer to an
// attempt reach the producer (0) or is it lost (1)?
const DecAnswer = engine.FamilyDecision

// Backoff is the producer's retry schedule: attempts at these offsets from
// the first one (retries after 1, 2 and 4 minutes).
var Backoff = [...]engine.Duration{0, 1 * engine.Minute, 3 * engine.Minute, 7 * engine.Minute}

// AnswerOutage is how long, from the first send, the network drops the
// broker's answers on their way back to the producer: the sends at minutes
// 0, 1 and 3 land, their answers do not.
const AnswerOutage = 6 * engine.Minute

// Timings of the happy path, in the story's scale.
const (
	answerAfter  = 120 * engine.Millisecond // the broker's answer, if it arrives
	receiveAfter = 50 * engine.Millisecond  // the consumer's long poll returns
	handleTime   = 400 * engine.Millisecond // the email provider takes this
	deleteAfter  = 30 * engine.Millisecond
)

const (
	opSend uint8 = iota
	opAnswer
	opReceive
	opHandle
	opDelete
)

// DedupID and Group are the ids the producer stamps on its one send.
const (
	DedupID = "order-0"
	Group   = "order-0"
)

// memo mirrors one id the broker's memory holds: the model keeps the
// memory private, and the pane shows it with its expiry.
type memo struct {
	ID       string
	Accepted engine.Time
	Until    engine.Time
	Attempt  int
}

// Family is the system's state: the queue, the producer's retry loop, the
// consumer's current receipt and what reached the customer.
type Family struct {
	k          *Knobs // the knobs in force (BindKnobs)
	Q          *fifo.Queue
	Window     engine.Duration // the interval given to ids admitted from now on (see KnobsChanged)
	First      engine.Time     // the first attempt
	Msg        int32           // the order's ground-truth message, -1 before the first send
	Attempts   int             // sends made
	Dropped    int             // sends accepted as duplicates
	Accepted   int             // sends stored as new messages
	Answered   bool            // the producer got an answer
	GaveUp     bool
	Memory     []memo
	Handle     string // the consumer's receipt handle, "" when idle
	Holding    bool
	Busy       bool
	Emails     []engine.Time
	Ended      bool // the producer is finished: answered or gave up
	Deliveries int  // deliveries of the order so far
}

// New makes the family. Knobs are read from the world as steps run, so a
// fork's changes apply from its moment: retry_deadline at the next lost
// answer or retry (a retry already scheduled is not sent past a lowered
// deadline), dedup_window to ids admitted from the fork on (KnobsChanged).
func New(p *engine.Params) engine.Family { return &Family{Msg: -1} }

// Clone implements engine.Family.
func (f *Family) Clone() engine.Family {
	c := *f
	if f.Q != nil {
		c.Q = f.Q.Clone()
	}
	c.Memory = append([]memo(nil), f.Memory...)
	c.Emails = append([]engine.Time(nil), f.Emails...)
	return &c
}

// Start implements engine.Family: the queue is created, the first send is
// due at once.
func (f *Family) Start(w *engine.World) {
	f.Window = window(f.k)
	f.Q = fifo.New(fifo.Config{DedupInterval: int64(f.Window)})
	f.First = w.Now
	w.Schedule(w.Now, engine.FamilyStep{Op: opSend}, false)
}

// Step implements engine.Family.
func (f *Family) Step(w *engine.World, s engine.FamilyStep) {
	switch s.Op {
	case opSend:
		f.send(w, int(s.Item))
	case opAnswer:
		f.answer(w, int(s.Item))
	case opReceive:
		f.receive(w)
	case opHandle:
		f.handle(w)
	case opDelete:
		f.delete(w)
	}
}

func (f *Family) send(w *engine.World, k int) {
	if k > 0 && Backoff[k] > f.k.RetryDeadline {
		// scheduled under a later deadline; the knob now says stop
		f.GaveUp, f.Ended = true, true
		w.Emit(EvGiveUp, f.Msg, -1, 0, int64(k), 0)
		f.maybeDone(w)
		return
	}
	res, err := f.Q.Send(int64(w.Now), fifo.SendInput{Group: Group, DedupID: DedupID, Body: "send the confirmation for order 0"})
	if err != nil {
		panic(err) // the input is fixed and valid
	}
	f.Attempts++
	if f.Msg < 0 {
		f.Msg = w.Truth().NewMessage()
	} else if !res.Duplicate {
		f.restore(w)
	}
	if res.Duplicate {
		f.Dropped++
		m := f.remembered(w.Now)
		w.Emit(EvDuplicate, f.Msg, -1, 0, int64(k), int64(m.Until))
	} else {
		f.Accepted++
		f.Memory = append(f.Memory, memo{ID: DedupID, Accepted: w.Now, Until: w.Now + f.Window, Attempt: k})
		w.Emit(engine.EvPublish, f.Msg, -1, 0, int64(k), res.Seq)
		w.Schedule(w.Now+receiveAfter, engine.FamilyStep{Op: opReceive}, false)
	}
	w.Schedule(w.Now+answerAfter, engine.FamilyStep{Op: opAnswer, Item: int32(k)}, false)
}

// remembered is the memory entry covering now (the latest accepted).
func (f *Family) remembered(now engine.Time) memo {
	for i := len(f.Memory) - 1; i >= 0; i-- {
		if now < f.Memory[i].Until {
			return f.Memory[i]
		}
	}
	return memo{}
}

func (f *Family) answer(w *engine.World, k int) {
	natural := int64(0)
	if w.Now-f.First < AnswerOutage {
		natural = 1
	}
	lost := w.Decide(DecAnswer, f.Msg, -1, uint16(k+1), natural, 0, 1) == 1
	if !lost {
		f.Answered, f.Ended = true, true
		w.Emit(EvAnswer, f.Msg, -1, 0, int64(k), 0)
		f.maybeDone(w)
		return
	}
	next := k + 1
	if next < len(Backoff) && Backoff[next] <= f.k.RetryDeadline {
		at := f.First + Backoff[next]
		w.Schedule(at, engine.FamilyStep{Op: opSend, Item: int32(next)}, false)
		w.Emit(EvAnswerLost, f.Msg, -1, 0, int64(k), int64(at))
		return
	}
	f.GaveUp, f.Ended = true, true
	w.Emit(EvAnswerLost, f.Msg, -1, 0, int64(k), -1)
	f.maybeDone(w)
}

func (f *Family) receive(w *engine.World) {
	if f.Holding {
		return
	}
	ds := f.Q.Receive(int64(w.Now), 1)
	if len(ds) == 0 {
		return
	}
	f.Handle, f.Holding, f.Busy = ds[0].Handle, true, true
	w.Stats.Count(1, 0, 0)
	f.Deliveries++
	w.Emit(engine.EvDeliver, f.Msg, -1, uint16(f.Deliveries), int64(w.Now+engine.Time(f.Q.Config().VisibilityTimeout)), ds[0].Seq)
	w.Schedule(w.Now+handleTime, engine.FamilyStep{Op: opHandle}, false)
}

func (f *Family) handle(w *engine.World) {
	n := w.Truth().Effect(f.Msg)
	f.Emails = append(f.Emails, w.Now)
	w.Stats.AddBusy(handleTime)
	w.Emit(engine.EvEffect, f.Msg, -1, uint16(f.Deliveries), int64(handleTime), int64(n))
	w.Schedule(w.Now+deleteAfter, engine.FamilyStep{Op: opDelete}, false)
}

func (f *Family) delete(w *engine.World) {
	if err := f.Q.Delete(int64(w.Now), f.Handle); err != nil {
		panic(err) // the lease is 30 s; the handler takes under one
	}
	f.Holding, f.Busy, f.Handle = false, false, ""
	if !f.Ended {
		// the broker holds nothing now; the order stays in memory, so an
		// email for a later send still counts as its duplicate
		w.Truth().Finish(f.Msg)
	}
	f.maybeDone(w)
	w.Emit(engine.EvAck, f.Msg, -1, uint16(f.Deliveries), 0, 0)
}

// restore says the broker holds the order again: a send accepted as new is
// a new message to the broker, stored now, and its age (the summary's
// max_oldest_age_s, SQS's ApproximateAgeOfOldestMessage) counts from now,
// not from the first send. While nothing is stored (between a delete and
// the next accepted send, dropped duplicates included) nothing ages.
func (f *Family) restore(w *engine.World) {
	w.Truth().Hold(f.Msg)
	w.Truth().MsgForWrite(f.Msg).Published = w.Now
}

// maybeDone tells the ground truth the order is finished once the queue
// holds nothing and the producer will send no more.
func (f *Family) maybeDone(w *engine.World) {
	if f.Ended && !f.Holding && f.Msg >= 0 {
		w.Truth().Done(f.Msg)
	}
}

// Figures implements engine.Family.
func (f *Family) Figures(w *engine.World) map[string]any {
	return map[string]any{
		"attempts":           f.Attempts,
		"dropped_duplicates": f.Dropped,
		"accepted":           f.Accepted,
		"emails":             len(f.Emails),
		"dedup_window_s":     f.Window.Seconds(),
		"retry_deadline_s":   f.k.RetryDeadline.Seconds(),
		"producer_gave_up":   f.GaveUp,
	}
}

// Counts implements engine.Family: messages waiting in the queue and in
// flight, kept as flags (the queue holds at most one here).
func (f *Family) Counts(w *engine.World) (waiting, taken int) {
	if f.Holding {
		return 0, 1
	}
	if f.Accepted > f.Deliveries {
		return 1, 0
	}
	return 0, 0
}

// window is the interval the knobs give new admissions; a queue needs at
// least a millisecond of memory, so 0s remembers nothing.
func window(k *Knobs) engine.Duration { return max(k.DedupWindow, engine.Millisecond) }

// KnobsChanged applies a dedup_window a fork changed. Real SQS fixes the
// interval; the model lets a fork change it under one rule, "a window is
// an admission": the new interval applies to ids admitted from the fork
// on, an id already remembered keeps the expiry it was given when it was
// admitted (a longer window does not stretch it, a shorter one does not
// cut it), and an id already forgotten stays forgotten.
func (f *Family) KnobsChanged(w *engine.World, was *engine.Params) {
	if f.Q == nil {
		return // before Start: Start reads the knobs
	}
	f.Window = window(f.k)
	f.Q.SetDedupInterval(int64(f.Window))
}

// KnobsApplied implements engine.FamilyKnobs. Nothing waits on a knob:
// the consumer is woken by each accepted send, and a retry a lowered
// retry_deadline stops gives up at the moment it falls due.
func (f *Family) KnobsApplied(w *engine.World) {}
