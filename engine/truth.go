package engine

import "fmt"

// The kernel's share of a message's life: removal from the system into the
// ground truth's counts, the oldest-age cursor and its alert, alerts,
// operators and knob changes. A family's model (engine/families/<name>)
// moves its messages and calls these.

// Crash reasons, as EvCrash's Aux.
const (
	CrashKeyError   = 1 // the new consumer raises on an old-format message
	CrashAfterClaim = 2 // killed a moment after writing its claim
	// CrashFault and above: a fault a fork forced, CrashFault plus the
	// index of the family's fault point (FaultPoints)
	CrashFault = 16
)

// Ack variants, as EvAck's Aux.
const (
	AckNormal      = 0
	AckLateDeleted = 1 // a late ack accepted: deletes a message another worker may hold
	AckAlreadySent = 2 // the claim handler found sent_at stamped
	AckBeforeWork  = 3 // ack=before
	AckLateNoop    = 4 // a late ack accepted for a message already gone
	// AckGoneNoop: an ack on a current receipt for a message another
	// worker's late ack already deleted. SQS's DeleteMessage succeeds for
	// a message that is no longer there and deletes nothing; the event's
	// Value is the ack the handler meant (AckNormal, AckAlreadySent or
	// AckBeforeWork).
	AckGoneNoop = 5
	// AckLost: a forced fault, the ack lost on the way to the broker. The
	// handler believes it acked; the broker deletes nothing and the lease
	// runs on. Value is the ack the handler meant.
	AckLost = 6
)

// NoopAck reports whether an ack event with this Aux deleted nothing.
func NoopAck(aux int64) bool { return aux == AckLateNoop || aux == AckGoneNoop || aux == AckLost }

// remove takes a message out of its system (acked or dead-lettered),
// recording the oldest message's age as it goes. It reports false, and
// changes nothing, for a message the system no longer holds: a removal
// is counted once.
func (w *World) remove(id int32, m *Msg, st MsgStatus) bool {
	if !m.Held() {
		return false
	}
	if int32(w.advanceOldest()) == id {
		w.Stats.MaxOldestAge = max(w.Stats.MaxOldestAge, w.Now-m.Published)
	}
	m.Status = st
	if st == StDeleted {
		w.countGone(m, 1)
	}
	w.maybeRetire(id, m)
	return true
}

// countGone adds d to the counters of deleted messages behind States as
// m (just deleted, or about to be held again) enters or leaves them.
func (w *World) countGone(m *Msg, d int64) {
	w.gone += d
	switch {
	case m.Effects > 0:
		w.goneDone += d
	case m.Holders > 0:
		w.goneWorked += d
	}
}

func (w *World) maybeRetire(id int32, m *Msg) {
	if m.Holders == 0 && (m.Status == StDeleted || m.Status == StDLQ) {
		w.msgs.retire(int(id), w.owner)
		if w.famRecs != nil {
			w.famRecs.Retired(id)
		}
	}
}

// advanceOldest moves the cursor past messages the system no longer holds
// and returns it. Ids grow with publish time, so the cursor is the oldest
// held message.
func (w *World) advanceOldest() int {
	for w.oldest < w.msgs.n {
		m, ok := w.msgs.at(w.oldest)
		if !ok {
			w.oldest = (w.oldest/leafSize + 1) * leafSize
			continue
		}
		if m.Held() {
			break
		}
		w.oldest++
	}
	return w.oldest
}

// OldestAge is the age of the oldest message the system holds, or -1.
func (w *World) OldestAge() Duration {
	i := w.advanceOldest()
	if i >= w.msgs.n {
		return -1
	}
	m, _ := w.msgs.at(i)
	return w.Now - m.Published
}

func (w *World) ensureAgeCheck() {
	at := Never
	for i, a := range w.spec.Alerts {
		if a.Kind == AlertOldestAge && w.AlertAt[i] < 0 {
			i := w.advanceOldest()
			if i >= w.msgs.n {
				return
			}
			m, _ := w.msgs.at(i)
			at = min(at, m.Published+a.Threshold)
		}
	}
	if at == Never || (w.ageCheckAt >= 0 && w.ageCheckAt <= at) {
		return
	}
	w.ageCheckAt = at
	w.q.add(item{t: max(at, w.Now), op: opAgeCheck, bg: true}, w.Now)
}

func (w *World) ageCheck() {
	w.ageCheckAt = -1
	if age := w.OldestAge(); age >= 0 {
		for i, a := range w.spec.Alerts {
			if a.Kind == AlertOldestAge && w.AlertAt[i] < 0 && age >= a.Threshold {
				w.fireAlert(i, false)
				break
			}
		}
	}
	w.ensureAgeCheck()
}

func (w *World) fireAlert(i int, would bool) {
	if would {
		if w.WouldAt[i] >= 0 {
			return
		}
		w.WouldAt[i] = w.Now
	} else {
		if w.AlertAt[i] >= 0 {
			return
		}
		w.AlertAt[i] = w.Now
	}
	w.emit(EvAlert, -1, -1, 0, int64(i), int64(boolIdx(would)))
}

// operate runs operator i's action, which the family carries out.
func (w *World) operate(i int) {
	a := w.spec.Operators[i].Action
	fo, ok := w.fam.(FamilyOperator)
	if !ok {
		panic(fmt.Sprintf("operator %d: action %s in a family that has none", i, a))
	}
	fo.Operate(w, i, a)
}

// bindKnobs hands the family the knobs in force (see KnobBinder).
func (w *World) bindKnobs() {
	if b, ok := w.fam.(KnobBinder); ok {
		b.BindKnobs(&w.Knobs)
	}
}

func (w *World) applyKnobs() {
	if len(w.pending) == 0 {
		return
	}
	// validated when scheduled
	was := w.Knobs
	_ = w.Knobs.Apply(w.pending)
	w.bindKnobs()
	fk, _ := w.fam.(FamilyKnobs)
	if fk != nil {
		fk.KnobsChanged(w, &was)
	}
	n := len(w.pending)
	w.applied = w.pending
	w.pending = nil
	w.emit(EvKnob, -1, -1, 0, int64(n), 0)
	if fk != nil {
		fk.KnobsApplied(w)
	}
}

// stranded reports whether the family has a message that could move now
// while no step will move it (see FamilyGuard).
func (w *World) stranded() bool {
	g, ok := w.fam.(FamilyGuard)
	return ok && g.Stranded(w)
}

// revive is the settled-state rule: a run settles only when no message can
// move again, so when nothing live is left while the family has a
// stranded message, the family schedules the step that moves it. It
// reports whether the run goes on.
func (w *World) revive() bool {
	if !w.stranded() {
		return false
	}
	w.revived++ // a missing wake: tests assert it stays 0
	w.fam.(FamilyGuard).Revive(w)
	return w.q.live > 0
}

func boolIdx(b bool) int {
	if b {
		return 1
	}
	return 0
}
