package dbdown

import (
	"fmt"

	"inflight/engine"
)

// span is a duration to the second: "9m58s".
func span(d engine.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d) / 1000
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// Caption tells each event in the lesson's words.
func (f *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	name := w.MsgName(e.Msg)
	switch e.Kind {
	case engine.EvPublish:
		return fmt.Sprintf("%s arrives", name), true
	case engine.EvDeliver:
		switch {
		case e.Aux == 1:
			return fmt.Sprintf("breaker half-open: the consumer lets %s through as the trial", name), true
		case e.Delivery > 1:
			return fmt.Sprintf("retry %d of %d: the consumer tries %s again", e.Delivery-1, Retries, name), true
		}
		return fmt.Sprintf("the consumer takes %s and writes it to the database", name), true
	case engine.EvEffect:
		if e.Aux > 1 {
			return fmt.Sprintf("%s's row is written — copy %d", name, e.Aux), true
		}
		late := ""
		if m := int(e.Msg); m < len(f.s.publishedAt) {
			if lag := w.Now - f.s.publishedAt[m]; lag >= engine.Minute {
				late = fmt.Sprintf(", %s after it arrived", span(lag))
			}
		}
		return fmt.Sprintf("%s's row is written: done%s", name, late), true
	case engine.EvDLQ:
		n := 0
		if m := int(e.Msg); m >= 0 && m < len(f.s.attempts) {
			n = int(f.s.attempts[m])
		}
		return fmt.Sprintf("%s moved to the dead letter queue after %d attempts — nothing is wrong with it: the database was down", name, n), true
	case KindFail:
		base := fmt.Sprintf("%s: the database refuses the connection (attempt %d)", name, e.Delivery)
		switch e.Aux {
		case FailRetry, FailRetryB:
			return fmt.Sprintf("%s — retry %d of %d at %s", base, e.Delivery, Retries, engine.Time(e.Value).Short()), true
		case FailDLQ:
			return base + " — out of retries", true
		case FailTrip:
			return fmt.Sprintf("%s — %d failures in a row: the breaker trips", base, TripAfter), true
		case FailProbe:
			return base + " — the trial failed: the breaker opens again", true
		}
		return base, true
	case KindBreakerOpen:
		s := fmt.Sprintf("breaker OPEN: the consumer stops taking messages until %s", engine.Time(e.Value).Short())
		if e.Aux > 0 {
			s += fmt.Sprintf("; %d waiting for a retry go back to the head, their attempts forgiven", e.Aux)
		}
		return s, true
	case KindHalfOpen:
		return "breaker HALF-OPEN: one message may try the database", true
	case KindClosed:
		if e.Aux == 1 {
			return "the breaker is taken out: the consumer takes messages again", true
		}
		return "breaker CLOSED: the trial was written; the consumer works through the backlog", true
	case KindDBDown:
		return fmt.Sprintf("the database goes down: every write is refused until %s", engine.Time(e.Value).Short()), true
	case KindDBUp:
		return fmt.Sprintf("the database is back, after %s down", span(w.Now-engine.Time(e.Value))), true
	case KindPause, KindResume:
		return f.actionCaption(w, e), true
	}
	return "", false
}

// DecisionText says whether the database answered a write, and what else
// it could have done.
func (f *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	ans := "answers"
	if d.Value == 0 {
		ans = "refuses"
	}
	why := "up"
	if d.T >= DownFrom && d.T < DownUntil {
		why = "down " + DownFrom.Short() + "–" + DownUntil.Short()
	}
	return fmt.Sprintf("does the database answer %s's write (attempt %d): it %s (0 refuses, 1 answers; it is %s)", w.MsgName(d.Msg), d.Delivery, ans, why)
}

// KindName names the family's event kinds for the trace.
func (f *Family) KindName(k engine.Kind) string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return k.String()
}
