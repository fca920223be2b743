package engine

import "fmt"

// watch is what watches the ground truth for the incident: its alerts (the
// oldest-age check and the DLQ's), the alerts the lesson says were missing
// and its operators. A firing is an event; an operator's action is the
// family's to carry out (FamilyOperator).
type watch struct {
	w          *World // whose clock, agenda and ground truth it watches
	ageCheckAt Time   // the oldest-age check scheduled, or -1
	armedBacks int64  // Truth.backs when it was scheduled
	opDone     []bool // per spec.Operators: set off already
}

// clone is the watch's copy for world c.
func (a *watch) clone(c *World) watch {
	n := *a
	n.w = c
	n.opDone = append([]bool(nil), a.opDone...)
	return n
}

// arm schedules the oldest_age alerts' next check, if any is due before
// the one scheduled.
func (a *watch) arm() {
	w := a.w
	if a.ageCheckAt >= 0 && a.armedBacks == w.truth.backs {
		// no message older than the oldest then is held again, so the
		// oldest is no older and the check due is no later than at below
		return
	}
	at := Never
	for i, al := range w.spec.Alerts {
		if al.Kind == AlertOldestAge && w.AlertAt[i] < 0 {
			p, ok := w.truth.oldestPublished()
			if !ok {
				return
			}
			at = min(at, p+al.Threshold)
		}
	}
	if at == Never || (a.ageCheckAt >= 0 && a.ageCheckAt <= at) {
		return
	}
	a.ageCheckAt, a.armedBacks = at, w.truth.backs
	w.q.add(item{t: max(at, w.Now), key: mkKey(0, opAgeCheck, true, 0)}, w.Now)
}

// checkAge is the oldest-age check's step.
func (a *watch) checkAge() {
	w := a.w
	a.ageCheckAt = -1
	if age := w.truth.OldestAge(); age >= 0 {
		for i, al := range w.spec.Alerts {
			if al.Kind == AlertOldestAge && w.AlertAt[i] < 0 && age >= al.Threshold {
				a.fire(i, false)
				break
			}
		}
	}
	a.arm()
}

// fire is alert i's step (would: spec.WouldHave's i): its first firing is
// an event.
func (a *watch) fire(i int, would bool) {
	w := a.w
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
	w.Emit(EvAlert, -1, -1, 0, int64(i), int64(boolIdx(would)))
}

// deadLettered schedules the alerts and operators a message's arrival in
// the DLQ (which now holds n) sets off.
func (a *watch) deadLettered(n int) {
	w := a.w
	for i, al := range w.spec.Alerts {
		if al.Kind == AlertDLQNonEmpty && w.AlertAt[i] < 0 {
			w.q.add(item{t: w.Now, key: mkKey(0, opAlert, false, 0), who: int16(i)}, w.Now)
		}
	}
	for i, al := range w.spec.WouldHave {
		if al.Kind == AlertDLQNonEmpty && w.WouldAt[i] < 0 {
			w.q.add(item{t: w.Now, key: mkKey(0, opAlert, false, 0), who: int16(i), delivery: 1}, w.Now)
		}
	}
	for i, o := range w.spec.Operators {
		if !a.opDone[i] && o.WhenDLQ > 0 && n >= o.WhenDLQ {
			a.opDone[i] = true
			w.q.add(item{t: w.Now, key: mkKey(0, opOperator, false, 0), who: int16(i)}, w.Now)
		}
	}
}

// operate runs operator i's action, which the family carries out.
func (a *watch) operate(i int) {
	w := a.w
	act := w.spec.Operators[i].Action
	fo, ok := w.fam.(FamilyOperator)
	if !ok {
		panic(fmt.Sprintf("operator %d: action %s in a family that has none", i, act))
	}
	fo.Operate(w, i, act)
}

func boolIdx(b bool) int {
	if b {
		return 1
	}
	return 0
}
