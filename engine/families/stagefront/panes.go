package stagefront

import (
	"fmt"
	"slices"

	"inflight/engine"
)

// consumerRows lists, in this order: the featured hold's row, leases no
// consumer works on, dead consumers, busy ones (latest delivery first),
// idle ones — so the rows the story is about are on screen.
func (s *Family) consumerRows(w *engine.World) []engine.PaneRow {
	vt := float64(s.k.VisibilityTimeout)
	bar := func(end engine.Time) float64 {
		if vt <= 0 {
			return -1
		}
		return max(0, float64(end-w.Now)/vt)
	}
	type ranked struct {
		rank int
		at   engine.Time
		row  engine.PaneRow
	}
	var rows []ranked
	featured := w.Spec().Featured
	for _, l := range s.orphans {
		r := engine.PaneRow{Msg: l.hold, Text: fmt.Sprintf("%s  delivery %d  back at %s", seat(l.hold), l.delivery, engine.Time(l.end).Clock()), Mark: "LEASED", Bar: bar(l.end)}
		rows = append(rows, ranked{1, -l.end, r})
	}
	for i, c := range s.consumers {
		switch c.state {
		case cIdle:
			rows = append(rows, ranked{4, engine.Time(i), engine.PaneRow{Msg: -1, Text: Consumer(i) + "  idle", Bar: -1}})
		case cDead:
			rows = append(rows, ranked{2, -c.since, engine.PaneRow{Msg: -1, Text: Consumer(i) + "  dead, restarting", Mark: "DEAD", Bar: -1}})
		default:
			r := engine.PaneRow{Msg: c.hold, Text: fmt.Sprintf("%s  %s  delivery %d", Consumer(i), seat(c.hold), c.delivery), Bar: bar(c.leaseEnd)}
			if s.h.at(c.hold).sold {
				r.Mark = "SOLD"
			}
			rows = append(rows, ranked{3, -c.since, r})
		}
	}
	for i := range rows {
		if featured >= 0 && rows[i].row.Msg == featured {
			rows[i].rank = 0
		}
	}
	slices.SortStableFunc(rows, func(a, b ranked) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return int(a.at - b.at)
	})
	out := make([]engine.PaneRow, len(rows))
	for i, r := range rows {
		out[i] = r.row
	}
	return out
}

// Panes: the queue, the consumers and their seats, the drawer, and the
// zero-row updates.
func (s *Family) Panes(w *engine.World, _ engine.Cursor) []engine.Pane {
	p := []engine.Pane{
		{Title: fmt.Sprintf("queue: %d waiting, %d back again", s.visible(), len(s.again))},
		{Title: fmt.Sprintf("consumers: %d of %d seats sold", s.sold, s.pressed)},
		{Title: fmt.Sprintf("dead letters: %d (%d sold)", s.dlq, s.dlqSold)},
		{Title: fmt.Sprintf("zero-row updates: %d ok, %d failed", s.zeroOK, s.zeroFail)},
	}
	for _, id := range s.again {
		if len(p[0].Rows) >= 40 {
			break
		}
		h := s.h.at(id)
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: id, Text: fmt.Sprintf("%s  received %d×", seat(id), h.receives), Mark: "AGAIN", Bar: -1})
	}
	for id := s.fresh; id < s.pressed && len(p[0].Rows) < 40; id++ {
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: id, Text: seat(id), Bar: -1})
	}
	if n := len(s.again) + int(s.pressed-s.fresh) - len(p[0].Rows); n > 0 {
		p[0].Rows = append(p[0].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("… and %d more not listed", n), Bar: -1, Tone: engine.ToneNote})
	}
	p[1].Rows = s.consumerRows(w)
	for _, dl := range w.Truth().DeadLetters(40) {
		r := engine.PaneRow{Msg: dl.Msg, Text: fmt.Sprintf("%s  at %s", seat(dl.Msg), engine.Time(dl.At).Clock()), Bar: -1}
		if s.h.at(dl.Msg).sold {
			r.Mark = "SOLD"
		}
		p[2].Rows = append(p[2].Rows, r)
	}
	if n := w.DLQLen() - len(p[2].Rows); n > 0 {
		p[2].Rows = append(p[2].Rows, engine.PaneRow{Msg: -1, Text: fmt.Sprintf("… and %d more not listed", n), Bar: -1, Tone: engine.ToneNote})
	}
	for i := s.nZeros - 1; i >= 0 && i >= s.nZeros-len(s.zeros); i-- {
		z := s.zeros[i%len(s.zeros)]
		r := engine.PaneRow{Msg: z.hold, Text: fmt.Sprintf("%s  %s delivery %d: 0 rows", z.at.Clock(), seat(z.hold), z.delivery), Mark: "OK", Bar: -1}
		if z.failure {
			r.Mark = "FAIL"
		}
		p[3].Rows = append(p[3].Rows, r)
	}
	return p
}

// Legend says what the seats' panes abbreviate.
func (s *Family) Legend() []engine.Term {
	return []engine.Term{
		{Short: "hold N", Means: "a seat hold: one message"},
		{Short: "c01", Means: "consumer 1"},
		{Short: "received N×", Means: "times the queue has delivered the hold"},
		{Short: "AGAIN", Means: "back in the queue after a lease ran out"},
		{Short: "LEASED", Means: "leased to a consumer that no longer works on it; the bar is the lease's time left"},
		{Short: "DEAD", Means: "the consumer died and is restarting"},
		{Short: "SOLD", Means: "the seat's status says sold"},
		{Short: "OK · FAIL", Means: "an update that changed 0 rows, taken as done · as failed"},
	}
}
