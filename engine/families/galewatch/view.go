package galewatch

import (
	"fmt"
	"strconv"

	"inflight/engine"
)

// Turbine names turbine t (0-based) as the fleet does: T0001…T1240.
func Turbine(t int) string {
	n := t + 1
	if n < 1 || n > 9999 {
		return fmt.Sprintf("T%04d", n)
	}
	return string([]byte{'T', byte('0' + n/1000), byte('0' + n/100%10), byte('0' + n/10%10), byte('0' + n%10)})
}

func stamp(v int64) string { return engine.Time(v).Clock() }

// KindName names the family's event kinds for the trace.
func (g *Family) KindName(k engine.Kind) string {
	if i := int(k - engine.FamilyKind); k >= engine.FamilyKind && i < len(kindNames) {
		return kindNames[i]
	}
	return "unknown"
}

func answer(w *engine.World, d *engine.Decision) string {
	if d != nil && d.Kind == DecTimeout && d.Value == 1 {
		if d.T+RetryAfter-readingAt(w.Spec().Start, d.Msg) > w.P.RetryDeadline {
			return " — the write landed, but its answer was lost, and a re-send would be past the turbine's retry deadline: it gives up"
		}
		return fmt.Sprintf(" — the write landed, but its answer was lost: the turbine sends it again at %s", (d.T + RetryAfter).Short())
	}
	return ""
}

// Caption tells each event in the lesson's words.
func (g *Family) Caption(w *engine.World, e *engine.Event, d *engine.Decision) (string, bool) {
	t := int(e.Aux)
	switch e.Kind {
	case engine.EvEffect:
		if e.Delivery > 1 {
			return fmt.Sprintf("%s's re-sent reading stamped %s finds no row and is stored%s", Turbine(t), stamp(e.Value), answer(w, d)), true
		}
		if d == nil || d.Value == 0 {
			return Turbine(t) + "'s reading stamped " + stamp(e.Value) + " stored", true
		}
		return fmt.Sprintf("%s's reading stamped %s stored%s", Turbine(t), stamp(e.Value), answer(w, d)), true
	case KindReject:
		return fmt.Sprintf("%s sends the reading stamped %s again a minute later: the unique key (turbine, timestamp) throws the copy away%s", Turbine(t), stamp(e.Value), answer(w, d)), true
	case KindCollision:
		return fmt.Sprintf("%s's genuine reading at %s is stamped %s by its stepped clock: the key is taken, and a genuine reading is thrown away as a duplicate%s", Turbine(t), e.T.Clock(), stamp(e.Value), answer(w, d)), true
	case KindGiveUp:
		return fmt.Sprintf("%s drops reading %d after %d sends with no answer: another would be more than %s after it was taken", Turbine(t), e.Msg, e.Delivery, engine.FormatDuration(engine.Duration(e.Value))), true
	case KindClockStep:
		dir := "back"
		step := engine.Duration(e.Value)
		if step > 0 {
			dir = "forward"
		} else {
			step = -step
		}
		return fmt.Sprintf("a daemon steps %s's clock %s %s: the key's idea of identity is a turbine and a clock reading", Turbine(t), dir, engine.FormatDuration(step)), true
	}
	return "", false
}

// DecisionText describes the timeout decision (without fmt: every
// reading carries one).
func (g *Family) DecisionText(w *engine.World, d *engine.Decision) string {
	t := int(d.Msg) % Turbines
	what := "write"
	if d.Delivery > 1 {
		what = "re-send " + strconv.Itoa(int(d.Delivery)-1)
	}
	return "is the answer to " + Turbine(t) + "'s " + what + " of reading " + strconv.Itoa(int(d.Msg)) +
		" lost (timeout): " + [2]string{"no", "yes"}[d.Value&1] + " (0 no, 1 yes)"
}

// Panes: the copies waiting to be sent again, the stepped turbine's recent
// writes, the genuine readings thrown away, and the rejected copies.
func (g *Family) Panes(w *engine.World) engine.Panes {
	p := engine.Panes{
		QueueTitle:    fmt.Sprintf("answers lost: %d readings to send again a minute later", len(g.pending())),
		InFlightTitle: fmt.Sprintf("%s's writes (clock %s)", Turbine(int(Stepped)), skewText(g.skew)),
		DLQTitle:      fmt.Sprintf("genuine readings thrown away: %d", g.collisions),
		InboxTitle:    fmt.Sprintf("copies rejected: %d of %d re-sent", g.retriesRejected, g.retriesSent),
	}
	for _, x := range g.pending() {
		if len(p.Queue) == 40 {
			break // a pane shows the soonest; the title has the count
		}
		bar := float64(x.at-w.Now) / float64(RetryAfter)
		p.Queue = append(p.Queue, engine.PaneRow{Msg: x.reading, Text: fmt.Sprintf("%s %s  again at %s", Turbine(int(x.reading)%Turbines), engine.Time(x.stamp).Clock(), engine.Time(x.at).Clock()), Bar: bar})
	}
	for i := g.nWatch - 1; i >= 0 && i >= g.nWatch-len(g.watch); i-- {
		x := g.watch[i%len(g.watch)]
		r := engine.PaneRow{Msg: x.reading, Bar: -1}
		switch {
		case x.reading < 0:
			r.Msg = -1 - x.reading
			r.Text, r.Mark = fmt.Sprintf("at %s re-send stamped %s", x.at.Clock(), x.stamp.Clock()), "COPY"
		case g.watchOK[i%len(g.watchOK)]:
			r.Text = fmt.Sprintf("at %s stamped %s stored", x.at.Clock(), x.stamp.Clock())
		default:
			r.Text, r.Mark = fmt.Sprintf("at %s stamped %s key taken", x.at.Clock(), x.stamp.Clock()), "LOST"
		}
		p.InFlight = append(p.InFlight, r)
	}
	for i := g.nCollided - 1; i >= 0 && i >= g.nCollided-len(g.collided); i-- {
		x := g.collided[i%len(g.collided)]
		p.DLQ = append(p.DLQ, engine.PaneRow{Msg: x.reading, Text: fmt.Sprintf("%s taken at %s, stamped %s", Turbine(int(x.reading)%Turbines), x.at.Clock(), x.stamp.Clock()), Mark: "LOST", Bar: -1})
	}
	for i := g.nRejected - 1; i >= 0 && i >= g.nRejected-len(g.rejected); i-- {
		x := g.rejected[i%len(g.rejected)]
		p.Inbox = append(p.Inbox, engine.PaneRow{Msg: x.reading, Text: fmt.Sprintf("%s %s  re-sent %s", Turbine(int(x.reading)%Turbines), engine.Time(x.stamp).Clock(), engine.Time(x.at).Clock()), Mark: "COPY", Bar: -1})
	}
	return p
}

func skewText(d engine.Duration) string {
	if d == 0 {
		return "true"
	}
	if d > 0 {
		return "+" + engine.FormatDuration(d)
	}
	return "−" + engine.FormatDuration(-d)
}
