package dbdown

import (
	"fmt"

	"inflight/engine"
)

// idleWords says what an idle consumer waits for: "nothing to take" only
// when nothing waits in the line and no retry is on its timer (waits,
// soonest first).
func (f *Family) idleWords(w *engine.World, waits []wait) string {
	s := &f.s
	switch {
	case s.paused && s.resumeAt > 0:
		return fmt.Sprintf("paused by an operator since %s: takes nothing until %s", s.pausedAt.Short(), s.resumeAt.Short())
	case s.paused:
		return fmt.Sprintf("paused by an operator since %s: takes nothing until resumed", s.pausedAt.Short())
	case len(s.lane) > 0:
		return fmt.Sprintf("idle: takes the retry of %s next", w.MsgName(s.lane[0]))
	case s.head < len(s.queue):
		return fmt.Sprintf("idle: takes %s next", w.MsgName(s.queue[s.head]))
	case len(waits) > 0:
		return "idle: next retry in " + engine.FormatSeconds(waits[0].due-w.Now)
	}
	return "idle: nothing to take"
}

// Panes words the consumer's world for the explorer: the line of
// messages, the consumer and its breaker, the dead letters, the database.
func (f *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	s := &f.s
	p := make([]engine.Pane, 4)
	waiting, _ := f.Counts(w)
	p[0].Title = fmt.Sprintf("Waiting %d", waiting)
	if age := w.Truth().OldestAge(); age >= engine.Second {
		p[0].Title += " · lag " + span(age) // lag in time: what users feel
	}
	if f.k.Breaker && s.breaker == open {
		p[0].Title += " · PAUSED by the breaker"
	}
	if s.paused {
		p[0].Title += " · PAUSED by an operator"
	}
	const maxRows = 200
	add := func(id int32, mark string) {
		if len(p[0].Rows) >= maxRows {
			return
		}
		text := fmt.Sprintf("%-10s age %s", w.MsgName(id), span(w.Now-s.publishedAt[id]))
		if a := s.attempts[id]; a > 0 {
			text += fmt.Sprintf(" · %d tried", a)
		}
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: id, Text: text, Mark: mark, Bar: -1})
	}
	for _, id := range s.lane {
		add(id, "RETRY DUE")
	}
	for i := s.head; i < len(s.queue); i++ {
		add(s.queue[i], "")
	}
	if n := waiting - len(p[0].Rows); n > 0 {
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("… and %d more", n), Bar: -1})
	}

	// the consumer
	p[1].Title = "Consumer · no breaker"
	if f.k.Breaker {
		p[1].Title = fmt.Sprintf("Consumer · breaker %s", breakerNames[s.breaker])
		switch s.breaker {
		case open:
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("breaker open: trial at %s", s.until.Short()),
				Mark: "OPEN", Bar: float64(s.until-w.Now) / float64(CoolDown)})
		case halfOpen:
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Text: "breaker half-open: one trial write", Mark: "HALF-OPEN", Bar: -1})
		default:
			p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("breaker closed: %d of %d failures in a row", s.fails, TripAfter), Bar: -1})
		}
	}
	if s.busy >= 0 {
		mark := ""
		if s.probe {
			mark = "TRIAL"
		}
		p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: s.busy, Text: fmt.Sprintf("%-10s writing (attempt %d)", w.MsgName(s.busy), s.attempts[s.busy]), Mark: mark, Bar: -1})
	}
	waits := append([]wait(nil), s.waits...)
	for i := 1; i < len(waits); i++ { // soonest first
		for j := i; j > 0 && waits[j].due < waits[j-1].due; j-- {
			waits[j], waits[j-1] = waits[j-1], waits[j]
		}
	}
	if s.busy < 0 && (len(p[1].Rows) == 0 || !f.k.Breaker || s.breaker != open) {
		p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: -1, Text: f.idleWords(w, waits), Bar: -1})
	}
	for _, wt := range waits {
		if len(p[1].Rows) >= maxRows {
			break
		}
		p[1].Rows = append(p[1].Rows, engine.PaneRow{Msg: wt.id, Text: fmt.Sprintf("%-10s in %s", w.MsgName(wt.id), engine.FormatSeconds(wt.due-w.Now)),
			Mark: fmt.Sprintf("RETRY %d/%d", wt.n, Retries), Bar: float64(wt.due-w.Now) / float64(Backoff(int(wt.n)))})
	}

	p[2].Title = fmt.Sprintf("Dead letters %d", w.DLQLen())
	for _, d := range w.Truth().DeadLetters(maxRows) {
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: d.Msg, Text: fmt.Sprintf("%-10s %s · refused %d×", w.MsgName(d.Msg), d.At.Clock(), s.attempts[d.Msg]),
			Mark: "NOT POISON", Bar: -1})
	}
	if n := w.DLQLen() - len(p[2].Rows); n > 0 {
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("… and %d more", n), Bar: -1})
	}

	if s.dbUp {
		p[3].Title = fmt.Sprintf("Database UP · %d rows", s.rowsWritten)
	} else {
		p[3].Title = fmt.Sprintf("Database DOWN until %s · %d rows", DownUntil.Short(), s.rowsWritten)
	}
	for i := 0; i < len(s.rows) && i < s.nrows; i++ {
		r := s.rows[(s.nrows-1-i)%len(s.rows)]
		mark := ""
		if lag := r.at - r.since; lag >= engine.Minute {
			mark = "LATE " + span(lag)
		}
		p[3].Rows = append(p[3].Rows, engine.PaneRow{Msg: r.id, Text: fmt.Sprintf("%s %-10s row written", r.at.Clock(), w.MsgName(r.id)), Mark: mark, Bar: -1})
	}
	return p
}

// Legend says what the consumer's panes abbreviate.
func (f *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "lag", Means: "age of the oldest message still waiting"},
		{Short: "N tried", Means: "write attempts so far"},
		{Short: "RETRY DUE", Means: "its backoff is over: taken before the line"},
		{Short: "RETRY n/m", Means: "waiting for its nth retry of m; the bar is the backoff left"},
		{Short: "OPEN · HALF-OPEN", Means: "the breaker stops writes · lets one trial write through"},
		{Short: "TRIAL", Means: "the one write a half-open breaker lets through"},
		{Short: "UP · DOWN", Means: "the database answers · refuses every write"},
		{Short: "refused N×", Means: "the database refused the message's write N times before it was dead-lettered"},
		{Short: "NOT POISON", Means: "dead-lettered only because the database was down"},
		{Short: "LATE", Means: "the row was written this long after the message arrived"},
	}
}
