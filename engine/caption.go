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

// name names worker i of the incident's workers section and its box: box
// by box, "A1", "A2", "B1"… (a family's workers or consumers that an
// incident file places on boxes).
func (ws *WorkerSetup) name(i int) (name, box string) {
	if n := ws.count(); i >= n && n > 0 {
		// a worker an operator added (workers=+N): on the last box, after its own
		box = ws.Boxes[len(ws.Boxes)-1]
		return box + strconv.Itoa(ws.PerBox+i-n+1), box
	}
	box = ws.Boxes[i/ws.PerBox]
	return box + strconv.Itoa(i%ws.PerBox+1), box
}

// count is the number of workers the incident places.
func (ws *WorkerSetup) count() int { return len(ws.Boxes) * ws.PerBox }

// FormatSeconds writes a duration in seconds as captions do: "34.963 s",
// "31 s".
func FormatSeconds(d Duration) string {
	s := strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".")
	return s + " s"
}

// Ordinal is "1st", "2nd", "3rd", "4th"… (a delivery's number).
func Ordinal(n uint16) string {
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
	switch e.Kind {
	case EvAlert:
		if e.Would() {
			a := w.spec.WouldHave[e.Alert()]
			return fmt.Sprintf("a %s alert would fire now — nobody configured one", a.Name)
		}
		a := w.spec.Alerts[e.Alert()]
		if a.Kind == AlertOldestAge {
			return fmt.Sprintf("ALERT %s: the oldest message is over %s old", a.Name, FormatDuration(a.Threshold))
		}
		return fmt.Sprintf("ALERT %s fires", a.Name)
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
		return fmt.Sprintf("provider latency, %s, delivery %d: %s (could be %s–%s)", name, d.Delivery, FormatSeconds(Duration(d.Value)), FormatSeconds(Duration(d.Lo)), FormatSeconds(Duration(d.Hi)))
	case DecWorker:
		var alts []string
		for i := 0; i < w.spec.Workers.count(); i++ {
			if d.Mask&(1<<uint(i)) != 0 {
				n, _ := w.spec.Workers.name(i)
				alts = append(alts, n)
			}
		}
		chosen, _ := w.spec.Workers.name(int(d.Value))
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
			labels = append(labels, FormatSeconds(Duration(v)))
		}
	case DecWorker:
		for i := 0; i < w.spec.Workers.count(); i++ {
			if d.Mask&(1<<uint(i)) != 0 {
				n, _ := w.spec.Workers.name(i)
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
