package fifowindow

import (
	"fmt"

	"inflight/engine"
)

// KindName names the family's event kinds for the trace.
func (f *Family) KindName(k engine.Kind) string {
	switch k {
	case EvDuplicate:
		return "duplicate_dropped"
	case EvAnswerLost:
		return "answer_lost"
	case EvAnswer:
		return "answer"
	case EvGiveUp:
		return "give_up"
	}
	return "unknown"
}

func (f *Family) attemptName(k int64) string {
	if k == 0 {
		return "the first send"
	}
	return fmt.Sprintf("retry %d (minute %d)", k, int64(Backoff[k]/engine.Minute))
}

// Caption tells each event in the lesson's words.
func (f *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	switch e.Kind {
	case engine.EvPublish:
		return fmt.Sprintf("%s of order 0's confirmation (dedup id %s): the broker has no memory of the id — accepted and stored as new message %d, remembered until %s",
			capital(f.attemptName(e.Value)), DedupID, e.Aux, f.admittedAt(e.T).Until.Short()), true
	case EvDuplicate:
		m := f.admittedUntil(engine.Time(e.Aux))
		return fmt.Sprintf("%s: dedup id %s seen within the %s interval — accepted but not delivered (remembered until %s)",
			capital(f.attemptName(e.Value)), DedupID, span(m.Until-m.Accepted), m.Until.Short()), true
	case EvAnswerLost:
		if e.Aux < 0 {
			return fmt.Sprintf("the answer to %s is lost; the next retry would be past the producer's retry deadline (%s): it gives up",
				f.attemptName(e.Value), engine.FormatDuration(f.k.RetryDeadline)), true
		}
		return fmt.Sprintf("the answer to %s is lost: the producer cannot tell a lost message from a lost answer, and retries at %s",
			f.attemptName(e.Value), engine.Time(e.Aux).Short()), true
	case EvAnswer:
		return fmt.Sprintf("the producer gets the answer to %s and stops retrying", f.attemptName(e.Value)), true
	case EvGiveUp:
		return fmt.Sprintf("%s is due, but the producer's retry deadline is now %s: it gives up without sending",
			f.attemptName(e.Value), engine.FormatDuration(f.k.RetryDeadline)), true
	case engine.EvDeliver:
		s := fmt.Sprintf("the consumer receives order 0's confirmation request (delivery %d), lease until %s", e.Delivery, engine.Time(e.Value).Short())
		if e.Delivery > 1 {
			s += " — a new message to the broker, the same order to the customer"
		}
		return s, true
	case engine.EvEffect:
		if e.Aux > 1 {
			return fmt.Sprintf("the confirmation email leaves again — copy %d: every duplicate later than the window is yours", e.Aux), true
		}
		return "the consumer sends the confirmation email", true
	case engine.EvAck:
		return "the consumer deletes the message: the broker forgets it, but keeps the dedup id until the window ends", true
	}
	return "", false
}

// admittedAt is the memory entry of the send accepted at t, and
// admittedUntil the one forgotten at until: a caption names the interval
// an id was admitted under, which a fork may since have changed for new
// ids. The zero memo (a caption read before its send) words as nothing.
func (f *Family) admittedAt(t engine.Time) memo {
	for _, m := range f.Memory {
		if m.Accepted == t {
			return m
		}
	}
	return memo{Accepted: t, Until: t + f.Window}
}

func (f *Family) admittedUntil(until engine.Time) memo {
	for _, m := range f.Memory {
		if m.Until == until {
			return m
		}
	}
	return memo{Accepted: until - f.Window, Until: until}
}

// span words a window the lesson's way: "5-minute".
func span(d engine.Duration) string {
	if d%engine.Minute == 0 {
		return fmt.Sprintf("%d-minute", d/engine.Minute)
	}
	return engine.FormatDuration(d)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// DecisionText asks whether the broker's answer to an attempt reached
// the producer.
func (f *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	return fmt.Sprintf("does the broker's answer to %s reach the producer: %s (or %s)",
		f.attemptName(int64(d.Delivery)-1), [2]string{"yes", "no, it is lost"}[d.Value&1], [2]string{"lost", "yes"}[d.Value&1])
}
