package galewatch

import (
	"fmt"

	"inflight/engine"
)

// Panes: the copies waiting to be sent again, the stepped turbine's recent
// writes, the genuine readings thrown away, and the rejected copies.
func (g *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := []engine.Pane{
		{Title: fmt.Sprintf("answers lost: %s to send again a minute later", readings(len(g.pending())))},
		{Title: fmt.Sprintf("%s's writes (clock %s)", Turbine(int(Stepped)), skewText(g.skew))},
		{Title: fmt.Sprintf("genuine readings thrown away: %d", g.collisions)},
		{Title: fmt.Sprintf("copies rejected: %d of %d re-sent", g.retriesRejected, g.retriesSent)},
	}
	for _, x := range g.pending() {
		if len(p[0].Rows) == 40 {
			break // a pane shows the soonest; the title has the count
		}
		bar := float64(x.at-w.Now) / float64(RetryAfter)
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: x.reading, Text: fmt.Sprintf("%s %s  again at %s", Turbine(int(x.reading)%Turbines), engine.Time(x.stamp).Clock(), engine.Time(x.at).Clock()), Bar: bar})
	}
	if n := len(g.pending()) - len(p[0].Rows); n > 0 {
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("… and %d more not listed", n), Bar: -1, Tone: engine.ToneNote})
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
		p[1].Rows = append(p[1].Rows, r)
	}
	for i := g.nCollided - 1; i >= 0 && i >= g.nCollided-len(g.collided); i-- {
		x := g.collided[i%len(g.collided)]
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: x.reading, Text: fmt.Sprintf("%s taken at %s, stamped %s", Turbine(int(x.reading)%Turbines), x.at.Clock(), x.stamp.Clock()), Mark: "LOST", Bar: -1})
	}
	for i := g.nRejected - 1; i >= 0 && i >= g.nRejected-len(g.rejected); i-- {
		x := g.rejected[i%len(g.rejected)]
		p[3].Rows = append(p[3].Rows, engine.PaneRow{Msg: x.reading, Text: fmt.Sprintf("%s %s  re-sent %s", Turbine(int(x.reading)%Turbines), engine.Time(x.stamp).Clock(), engine.Time(x.at).Clock()), Mark: "COPY", Bar: -1})
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

// readings is "1 reading", "3 readings".
func readings(n int) string {
	if n == 1 {
		return "1 reading"
	}
	return fmt.Sprintf("%d readings", n)
}

// Legend says what the readings' panes abbreviate.
func (g *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "T0001", Means: "turbine 1"},
		{Short: "stamped", Means: "the reading's timestamp, half its primary key (turbine, stamp)"},
		{Short: "clock true · +N", Means: "the stepped turbine's clock: right, or N ahead (− behind)"},
		{Short: "key taken", Means: "the primary key was already stored: the reading was thrown away"},
		{Short: "COPY", Means: "a re-sent copy of a reading whose answer was lost"},
		{Short: "LOST", Means: "a genuine reading thrown away as a duplicate"},
	}
}
