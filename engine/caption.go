package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// MsgName is how the story names a message: "order 14", or "order 3 (old
// format)" for a message from the old producer.
func (w *World) MsgName(id int32) string {
	if id < 0 {
		return ""
	}
	label := w.spec.Label
	if label == "" {
		label = "message"
	}
	return label + " " + strconv.FormatInt(int64(id), 10)
}

// worker names worker i of the incident's workers section and its box:
// box by box, "A1", "A2", "B1"… (the queue's workers, or a family's
// consumers that an incident file places on boxes).
func (w *World) worker(i int) (name, box string) {
	per := w.spec.Workers.PerBox
	box = w.spec.Workers.Boxes[i/per]
	return box + strconv.Itoa(i%per+1), box
}

// workerCount is the number of workers the incident places.
func (w *World) workerCount() int { return len(w.spec.Workers.Boxes) * w.spec.Workers.PerBox }

func (w *World) workerName(i int16) string {
	if i < 0 || int(i) >= w.workerCount() {
		return "the broker"
	}
	name, _ := w.worker(int(i))
	return "worker " + name
}

func secs(d Duration) string {
	s := strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".")
	return s + " s"
}

func nth(n uint16) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", n)
}

// Caption is the event's one-line story, in the lesson's words where it can.
// It reads the world as it is right after the event.
func (w *World) Caption(e *Event, d *Decision) string {
	if w.fam != nil {
		if c, ok := w.fam.Caption(w, e, d); ok {
			return c
		}
	}
	name := w.MsgName(e.Msg)
	who := w.workerName(e.Worker)
	switch e.Kind {
	case EvPublish:
		m, _ := w.Msg(e.Msg)
		if m.Poison {
			return fmt.Sprintf("%s published by the old producer (missing the new field)", name)
		}
		return fmt.Sprintf("%s published", name)
	case EvStart:
		return fmt.Sprintf("%d consumers start polling", e.Value)
	case EvDeliver:
		s := fmt.Sprintf("%s delivered to %s (%s delivery, lease until %s)", name, who, nth(e.Delivery), Time(e.Value).Short())
		if e.Delivery > 1 {
			s += " — a redelivery: a timer expired, nothing failed"
		}
		return s
	case EvEffect:
		s := fmt.Sprintf("%s calls the provider for %s: the email leaves (answer in %s)", who, name, secs(Duration(e.Value)))
		if e.Aux > 1 {
			s += fmt.Sprintf(" — copy %d of the same confirmation", e.Aux)
		}
		return s
	case EvAck:
		switch e.Aux {
		case AckLateDeleted:
			return fmt.Sprintf("late ack for %s accepted: the broker deletes a message whose lease %s no longer holds", name, who)
		case AckLateNoop:
			return fmt.Sprintf("late ack for %s accepted, but the message is already gone", name)
		case AckAlreadySent:
			return fmt.Sprintf("%s finds sent_at stamped for %s: ack without sending", who, name)
		case AckBeforeWork:
			return fmt.Sprintf("%s acks %s before doing the work: the broker forgets it", who, name)
		case AckGoneNoop:
			why := ""
			switch e.Value {
			case AckAlreadySent:
				why = " finds sent_at stamped and"
			case AckBeforeWork:
				why = " (ack before the work)"
			}
			return fmt.Sprintf("%s%s acks %s: DeleteMessage succeeds, but a late ack already deleted it — nothing changes", who, why, name)
		}
		return fmt.Sprintf("%s acks %s: deleted", who, name)
	case EvAckRefused:
		ago := w.Now - Time(e.Value)
		return fmt.Sprintf("%s acks %s, refused: the lease it quotes expired %s ago", who, name, secs(ago))
	case EvLeaseExpired:
		if e.Aux == 1 {
			return fmt.Sprintf("%s's delay is over: visible again", name)
		}
		return fmt.Sprintf("%s's lease expired with no ack: visible again", name)
	case EvDLQ:
		if e.Value > 0 {
			return fmt.Sprintf("%s moved to the dead letter queue after %d deliveries — its work was done %s", name, e.Delivery, times(e.Value))
		}
		return fmt.Sprintf("%s moved to the dead letter queue after %d deliveries", name, e.Delivery)
	case EvCrash:
		switch e.Aux {
		case CrashKeyError:
			return fmt.Sprintf("%s raises KeyError on %s and dies; restart at %s", who, name, Time(e.Value).Short())
		case CrashAfterClaim:
			return fmt.Sprintf("%s dies after claiming %s, before sending; restart at %s", who, name, Time(e.Value).Short())
		}
		return fmt.Sprintf("%s dies holding %s", who, name)
	case EvRestart:
		return fmt.Sprintf("the supervisor restarts %s", who)
	case EvAlert:
		if e.Aux == 1 {
			a := w.spec.WouldHave[e.Value]
			return fmt.Sprintf("a %s alert would fire now — nobody configured one", a.Name)
		}
		a := w.spec.Alerts[e.Value]
		if a.Kind == AlertOldestAge {
			return fmt.Sprintf("ALERT %s: the oldest message is over %s old", a.Name, FormatDuration(a.Threshold))
		}
		return fmt.Sprintf("ALERT %s fires", a.Name)
	case EvClaim:
		return fmt.Sprintf("%s writes a claim for %s (sent_at null)", who, name)
	case EvDefer:
		return fmt.Sprintf("%s finds a claim %s old for %s: in flight, hands it back until %s", who, secs(Duration(e.Aux)), name, Time(e.Value).Short())
	case EvStamp:
		return fmt.Sprintf("the provider answers %s after %s: sent_at stamped", name, secs(Duration(e.Value)))
	case EvRenew:
		return fmt.Sprintf("%s extends its lease on %s until %s", who, name, Time(e.Value).Short())
	case EvWedge:
		if e.Value == 1 {
			return fmt.Sprintf("%s's call for %s never returns; its renewal thread will extend the lease forever", who, name)
		}
		return fmt.Sprintf("%s's call for %s never returns", who, name)
	case EvAnswer:
		return fmt.Sprintf("the provider answers %s after %s", name, secs(Duration(e.Value)))
	case EvRedrive:
		return fmt.Sprintf("an operator repairs the %d dead letters and redrives them to the tail of the queue", e.Value)
	case EvKnob:
		var parts []string
		for _, s := range w.applied {
			parts = append(parts, s.Knob+"="+s.Value)
		}
		return "from here on: " + strings.Join(parts, ", ")
	}
	return e.Kind.String()
}

// DecisionText describes a decision and its alternatives in one line:
// "provider latency, order 14, delivery 1: 34 s (31–40 s)".
func (w *World) DecisionText(d *Decision) string {
	if d.Kind >= FamilyDecision && w.fam != nil {
		return w.fam.DecisionText(w, d)
	}
	name := w.MsgName(d.Msg)
	switch d.Kind {
	case DecLatency:
		return fmt.Sprintf("provider latency, %s, delivery %d: %s (could be %s–%s)", name, d.Delivery, secs(Duration(d.Value)), secs(Duration(d.Lo)), secs(Duration(d.Hi)))
	case DecWorker:
		var alts []string
		for i := 0; i < w.workerCount(); i++ {
			if d.Mask&(1<<uint(i)) != 0 {
				n, _ := w.worker(i)
				alts = append(alts, n)
			}
		}
		chosen, _ := w.worker(int(d.Value))
		return fmt.Sprintf("which idle worker takes %s, delivery %d: %s (idle: %s)", name, d.Delivery, chosen, strings.Join(alts, ", "))
	case DecLateAck:
		return fmt.Sprintf("the broker and a late ack for %s: %s (or %s)", name, [2]string{"refuse", "accept"}[d.Value&1], [2]string{"accept", "refuse"}[d.Value&1])
	case DecBranch:
		b := [3]string{"claim and send", "defer: a claim is in flight", "ack: already sent"}
		return fmt.Sprintf("the claim handler on %s, delivery %d: %s", name, d.Delivery, b[d.Value%3])
	case DecWedge:
		return fmt.Sprintf("does the call for %s return: %s", name, [2]string{"yes", "no, it is wedged"}[d.Value&1])
	case DecCrash:
		return fmt.Sprintf("does the worker die on %s: %s", name, [2]string{"no", "yes"}[d.Value&1])
	}
	return d.Kind.String()
}

// DecisionChoices lists the values a fork may choose for d, with labels.
// Ranges offer their ends and middle; a fork may type any value in range.
func (w *World) DecisionChoices(d *Decision) (values []int64, labels []string) {
	switch d.Kind {
	case DecLatency:
		for _, v := range []int64{d.Lo, (d.Lo + d.Hi) / 2, d.Hi} {
			values = append(values, v)
			labels = append(labels, secs(Duration(v)))
		}
	case DecWorker:
		for i := 0; i < w.workerCount(); i++ {
			if d.Mask&(1<<uint(i)) != 0 {
				n, _ := w.worker(i)
				values = append(values, int64(i))
				labels = append(labels, n)
			}
		}
	case DecLateAck:
		values, labels = []int64{0, 1}, []string{"refuse", "accept"}
	case DecBranch:
		values, labels = []int64{0, 1, 2}, []string{"claim and send", "defer", "ack as already sent"}
	case DecWedge, DecCrash:
		values, labels = []int64{0, 1}, []string{"no", "yes"}
	default:
		if fc, ok := w.fam.(FamilyChoices); ok {
			return fc.DecisionChoices(w, d)
		}
		// a family's decision: every value of a short range, else its ends
		// and middle
		if d.Hi-d.Lo <= 8 {
			for v := d.Lo; v <= d.Hi; v++ {
				values = append(values, v)
				labels = append(labels, fmt.Sprint(v))
			}
		} else {
			for _, v := range []int64{d.Lo, (d.Lo + d.Hi) / 2, d.Hi} {
				values = append(values, v)
				labels = append(labels, fmt.Sprint(v))
			}
		}
	}
	return values, labels
}

// times says how often: "once", "twice", "3 times".
func times(n int64) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}
